import { Writable } from 'node:stream';
import type { ProtocolGeneration } from '@tickwheel/protocol';
import { BEAT_INTERVAL_MS, MAX_REGISTRY_HANDLERS } from '@tickwheel/protocol';
import { ManualClock } from '@tickwheel/test-fixtures/manual-clock';
import { startTestServer, type TestServer } from '@tickwheel/test-fixtures/test-server';
import { type Logger, pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Clock } from '../src/clock.js';
import { RegistryHeartbeat } from '../src/registry-heartbeat.js';
import { ServerClient } from '../src/server-client.js';

const ADDRESS = 'http://127.0.0.1:9999/';
const expectedParam = { registryGroup: 'EXECUTOR', registryKey: 'orders', registryValue: ADDRESS };
const servers: TestServer[] = [];
const heartbeats: RegistryHeartbeat[] = [];
const INTERVAL = 30_000;

afterEach(async () => {
  await Promise.all(heartbeats.splice(0).map((h) => h.stop()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function server(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const s = await startTestServer(options);
  servers.push(s);
  return s;
}

function heartbeat(
  addresses: string[],
  options: {
    intervalMs?: number;
    logger?: Logger;
    protocol?: ProtocolGeneration;
    handlerNames?: () => Iterable<string>;
    clock?: Clock;
  } = {},
): RegistryHeartbeat {
  const logger = options.logger ?? pino({ level: 'silent' });
  const client = new ServerClient({
    serverAddresses: addresses,
    accessToken: 'shared-token-0123456789abcdefghijklmn',
    appName: 'orders',
    protocol: options.protocol ?? 'G2',
    timeoutMs: 500,
    logger,
  });
  const h = new RegistryHeartbeat({
    client,
    appName: 'orders',
    address: ADDRESS,
    intervalMs: options.intervalMs ?? BEAT_INTERVAL_MS,
    handlerNames: options.handlerNames,
    ...(options.clock ? { clock: options.clock } : {}),
    logger,
  });
  heartbeats.push(h);
  return h;
}

/** A pino logger that keeps its records, to check what was logged. */
function recordingLogger(): {
  logger: Logger;
  records: Array<{ level: number; msg: string; server?: string }>;
} {
  const records: Array<{ level: number; msg: string; server?: string }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      records.push(JSON.parse(chunk.toString('utf8')));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), records };
}

describe('RegistryHeartbeat', () => {
  it('registers with every server as soon as it starts', async () => {
    const a = await server();
    const b = await server();
    heartbeat([a.address, b.address], { intervalMs: 60_000 }).start();
    await a.waitFor(() => a.registrations.length === 1, 5_000);
    await b.waitFor(() => b.registrations.length === 1, 5_000);
    expect(a.registrations).toEqual([expectedParam]);
    expect(b.registrations).toEqual([expectedParam]);
  });

  it('registers again on every interval, not before', async () => {
    const s = await server();
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const h = heartbeat([s.address], { intervalMs: INTERVAL, clock });
    h.start();
    // Shares the start's beat, so the timer's beat below is not folded into it.
    await h.beat();
    expect(s.registrations).toHaveLength(1);
    const beats = vi.spyOn(h, 'beat');
    await clock.advance(INTERVAL - 1);
    expect(beats).not.toHaveBeenCalled();
    await clock.advance(1);
    expect(beats).toHaveBeenCalledTimes(1);
    await s.waitFor(() => s.registrations.length === 2, 5_000, 'the second registration');
    await clock.advance(INTERVAL - 1);
    expect(beats).toHaveBeenCalledTimes(1);
    await clock.advance(1);
    expect(beats).toHaveBeenCalledTimes(2);
    await h.stop();
    expect(s.registrations).toHaveLength(3);
  });

  it('sends registryRemove to every server on stop and beats no more', async () => {
    const a = await server();
    const b = await server();
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const h = heartbeat([a.address, b.address], { intervalMs: INTERVAL, clock });
    h.start();
    await a.waitFor(() => a.registrations.length >= 1, 5_000);
    expect(clock.pendingTimers).toBe(1);
    const outcomes = await h.stop();
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(a.removals).toEqual([expectedParam]);
    expect(b.removals).toEqual([expectedParam]);
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(10 * INTERVAL);
    await h.beat();
    // Only the start's registration and the explicit beat: no timer beat after the stop.
    expect(a.registrations).toHaveLength(2);
  });

  it('sends registryRemove only after a registration in flight has been answered', async () => {
    const s = await server();
    s.answerDelayMs = 200;
    const h = heartbeat([s.address], { intervalMs: 60_000 });
    h.start();
    await h.stop();
    expect(s.requests.map((r) => r.path)).toEqual(['/api/registry', '/api/registryRemove']);
  });

  it('keeps beating the servers that answer when one is down, and warns once about the one that is not', async () => {
    const down = await startTestServer();
    await down.stop();
    const up = await server();
    const { logger, records } = recordingLogger();
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const h = heartbeat([down.address, up.address], { intervalMs: INTERVAL, logger, clock });
    h.start();
    await h.beat();
    await clock.advance(INTERVAL);
    await h.beat();
    await clock.advance(INTERVAL);
    await h.stop();
    expect(up.registrations).toHaveLength(3);
    const warnings = records.filter(
      (r) => r.level === 40 && r.server === down.address && /registry not accepted/.test(r.msg),
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toMatch(/registry not accepted/);
  });

  it('reports a server that comes back', async () => {
    const down = await startTestServer();
    await down.stop();
    const { logger, records } = recordingLogger();
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const h = heartbeat([down.address], { intervalMs: INTERVAL, logger, clock });
    h.start();
    await h.beat();
    const back = await server({ port: down.port });
    await clock.advance(INTERVAL - 1);
    expect(back.registrations).toHaveLength(0);
    await clock.advance(1);
    await h.stop();
    expect(back.registrations).toHaveLength(1);
    expect(records.some((r) => r.level === 30 && r.msg === 'registry accepted again')).toBe(true);
  });

  it('carries the app name header when speaking G4', async () => {
    const s = await server({ accessToken: 'shared-token-0123456789abcdefghijklmn', appName: 'orders' });
    const outcomes = await heartbeat([s.address], { protocol: 'G4', intervalMs: 60_000 }).beat();
    expect(outcomes).toEqual([{ address: s.address, ok: true, msg: 'code 200' }]);
    expect(s.registrations).toEqual([expectedParam]);
  });

  it('does not throw when no server accepts', async () => {
    const s = await server({ accessToken: 'other-token-0123456789abcdefghijklmno' });
    const outcomes = await heartbeat([s.address]).beat();
    expect(outcomes).toEqual([{ address: s.address, ok: false, msg: 'The access token is wrong.' }]);
  });

  it('each registration carries the handler names of that moment, sorted; registryRemove carries none', async () => {
    const s = await server();
    const names = new Set(['sync', 'audit']);
    const h = heartbeat([s.address], { intervalMs: 60_000, handlerNames: () => names });
    await h.beat();
    names.add('added-later');
    await h.beat();
    expect(s.registrations).toEqual([
      { ...expectedParam, handlers: ['audit', 'sync'] },
      { ...expectedParam, handlers: ['added-later', 'audit', 'sync'] },
    ]);
    h.start();
    await h.stop();
    expect(s.removals).toEqual([expectedParam]);
  });

  it('sends at most 1,000 handler names of at most 255 characters, and warns once about the rest', async () => {
    const s = await server();
    const { logger, records } = recordingLogger();
    const many = Array.from(
      { length: MAX_REGISTRY_HANDLERS + 2 },
      (_, i) => `h${String(i).padStart(4, '0')}`,
    );
    const long = 'x'.repeat(256);
    const h = heartbeat([s.address], { intervalMs: 60_000, logger, handlerNames: () => [...many, long] });
    await h.beat();
    await h.beat();
    const sent = s.registrations[0]?.handlers ?? [];
    expect(sent).toHaveLength(MAX_REGISTRY_HANDLERS);
    expect(sent.at(-1)).toBe('h0999');
    expect(s.registrations[1]?.handlers).toEqual(sent);
    const warnings = records.filter((r) => r.level === 40 && /handler names not sent/.test(r.msg));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ count: 3 });
  });
});
