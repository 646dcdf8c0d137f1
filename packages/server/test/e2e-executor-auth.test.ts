import { Writable } from 'node:stream';
import { ACCESS_TOKEN_HEADER, JSON_CONTENT_TYPE } from '@tickwheel/protocol';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../src/scheduling/clock.js';
import { E2E_TOKEN, type E2eServer, startServer } from './helpers/e2e.js';

const API_TOKEN = 'e2e-auth-failures-token-0123456789abcdef';
const WRONG_TOKEN = 'a-stale-token-from-last-year';

const servers: E2eServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** The server's JSON log lines, as they were written. */
class LogLines extends Writable {
  readonly lines: Array<Record<string, unknown>> = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() !== '') this.lines.push(JSON.parse(line) as Record<string, unknown>);
    }
    done();
  }
  wrongTokenLines(): Array<Record<string, unknown>> {
    return this.lines.filter((l) => String(l.msg).includes('wrong access token'));
  }
}

/** The system clock moved forward by `shiftMs` (the log window is read from the server's clock). */
function shiftedClock() {
  const clock = { ...systemClock, shiftMs: 0, now: () => Date.now() + clock.shiftMs };
  return clock;
}

async function startLoggedServer() {
  const log = new LogLines();
  const clock = shiftedClock();
  const started = await startServer({
    apiToken: API_TOKEN,
    trustProxy: ['127.0.0.1'],
    logger: pino({ level: 'warn' }, log),
    internal: { clock },
  });
  servers.push(started);
  return { url: started.server.url, log, clock };
}

async function executorCall(url: string, path: string, token: string, from: string) {
  const response = await fetch(new URL(path, url), {
    method: 'POST',
    headers: { [ACCESS_TOKEN_HEADER]: token, 'content-type': JSON_CONTENT_TYPE, 'x-forwarded-for': from },
    body: JSON.stringify({
      registryGroup: 'EXECUTOR',
      registryKey: 'billing',
      registryValue: 'http://10.0.0.5:9999/',
    }),
  });
  return (await response.json()) as { code: number; msg: string };
}

async function authFailureSeries(url: string): Promise<string[]> {
  const response = await fetch(new URL('/metrics', url), {
    headers: { authorization: `Bearer ${API_TOKEN}` },
  });
  return (await response.text())
    .split('\n')
    .filter((l) => l.startsWith('tickwheel_executor_auth_failures_total'));
}

describe('executor calls with a wrong access token', () => {
  it('are counted on /metrics by path, and a right token is not counted', async () => {
    const { url } = await startLoggedServer();
    for (let i = 0; i < 3; i++) {
      expect(await executorCall(url, '/api/registry', WRONG_TOKEN, '10.0.0.5')).toMatchObject({
        code: 500,
        msg: 'The access token is wrong.',
      });
    }
    await executorCall(url, '/api/registryRemove', WRONG_TOKEN, '10.0.0.5');
    await executorCall(url, '/api/callback', '', '10.0.0.6');
    await executorCall(url, '/api/madeUpCall', WRONG_TOKEN, '10.0.0.6');
    expect((await executorCall(url, '/api/registry', E2E_TOKEN, '10.0.0.7')).code).toBe(200);

    expect((await authFailureSeries(url)).sort()).toEqual([
      'tickwheel_executor_auth_failures_total{path="/api/callback"} 1',
      'tickwheel_executor_auth_failures_total{path="/api/registry"} 3',
      'tickwheel_executor_auth_failures_total{path="/api/registryRemove"} 1',
      'tickwheel_executor_auth_failures_total{path="other"} 1',
    ]);
  });

  it('are logged at warn once a minute per remote address, with the address and path but never the token', async () => {
    const { url, log, clock } = await startLoggedServer();
    for (let i = 0; i < 5; i++) await executorCall(url, '/api/registry', WRONG_TOKEN, '10.0.0.5');
    await executorCall(url, '/api/callback', WRONG_TOKEN, '10.0.0.6');

    expect(log.wrongTokenLines()).toEqual([
      expect.objectContaining({ level: 40, remoteAddress: '10.0.0.5', path: '/api/registry', suppressed: 0 }),
      expect.objectContaining({ level: 40, remoteAddress: '10.0.0.6', path: '/api/callback', suppressed: 0 }),
    ]);

    clock.shiftMs = 59_000;
    await executorCall(url, '/api/registryRemove', WRONG_TOKEN, '10.0.0.5');
    expect(log.wrongTokenLines()).toHaveLength(2);

    clock.shiftMs = 61_000;
    await executorCall(url, '/api/registryRemove', WRONG_TOKEN, '10.0.0.5');
    expect(log.wrongTokenLines()).toHaveLength(3);
    // The four registry calls and the registryRemove of the quiet minute are reported with the next line.
    expect(log.wrongTokenLines()[2]).toMatchObject({
      remoteAddress: '10.0.0.5',
      path: '/api/registryRemove',
      suppressed: 5,
    });
    expect(JSON.stringify(log.lines)).not.toContain(WRONG_TOKEN);
  });
});
