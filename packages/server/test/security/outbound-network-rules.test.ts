/**
 * Where the server connects when someone else chose the address (security/network-rules.ts):
 * executors (a MANUAL app's list, a registration) and alarm channels. Nothing may reach a cloud
 * metadata service or another denied range, by literal, by a name resolving there, or by a
 * redirect; an admin can allow a range with `allowedNetworks`.
 *
 * "Nothing connects there" is proved with 0.0.0.0 and ::ffff:0.0.0.0, which are in denied ranges
 * yet reach a listener on 127.0.0.1 on Linux: a trap listening there would see any request that
 * slipped through. 169.254.169.254 itself cannot be listened on in a test.
 */
import type dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ACCESS_TOKEN_HEADER } from '@tickwheel/protocol';
import {
  type HttpReceiver,
  startHttpReceiver,
  startSmtpReceiver,
} from '@tickwheel/test-fixtures/alarm-receivers';
import { afterEach, describe, expect, it } from 'vitest';
import { ALARM_STATUS } from '../../src/alarms/alarm-status.js';
import { type ExecutorAddress, ExecutorClient } from '../../src/dispatch/executor-client.js';
import { NetworkRules } from '../../src/security/network-rules.js';
import type { FireRow } from '../../src/store/index.js';
import { addChannel, alarmQueue, failedFire, raiseAndWait } from '../helpers/alarm-fixtures.js';
import { createTestDatabase } from '../helpers/databases.js';
import { createApp, type E2eServer, startExecutor, startServer, waitFor } from '../helpers/e2e.js';
import { startMimic, type XxlMimic } from '../helpers/xxl-mimic.js';

const API_TOKEN = 'tw_outbound-network-rules-token-0123456789abcdef';
const CLIENT_TOKEN = 'outbound-rules-executor-token-0123456789abcdef';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Closed after the test, last opened first. */
function closing<T>(thing: T, close: (thing: T) => Promise<void>): T {
  closers.push(() => close(thing));
  return thing;
}

async function server(options: Parameters<typeof startServer>[0] = {}): Promise<E2eServer> {
  return closing(await startServer({ apiToken: API_TOKEN, ...options }), (s) => s.close());
}

/** A loopback HTTP server that records every request: what must stay empty. */
async function trap(): Promise<HttpReceiver & { port: number }> {
  const receiver = closing(await startHttpReceiver(), (r) => r.close());
  return Object.assign(receiver, { port: Number(new URL(receiver.url).port) });
}

async function api(
  s: E2eServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<{
  status: number;
  json: Record<string, unknown> & { error?: { code: string; field?: string; message: string } };
}> {
  const response = await fetch(new URL(path, s.server.url), {
    method,
    headers: {
      authorization: `Bearer ${API_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as never };
}

/** A MANUAL app listing `addresses` with a FIRST-routed job, through the REST API: the job's id. */
async function manualJob(s: E2eServer, addresses: string[]): Promise<number> {
  return (await manualApp(s, addresses)).jobId;
}

/** A MANUAL app listing `addresses` with a FIRST-routed job: the job's id and the app's executor token. */
async function manualApp(s: E2eServer, addresses: string[]): Promise<{ jobId: number; appToken: string }> {
  const app = await api(s, 'POST', '/api/v1/apps', {
    appName: `manual-${Math.random().toString(36).slice(2, 8)}`,
    title: 'Listed by hand',
    addressType: 'MANUAL',
    addressList: addresses,
  });
  expect(app.status, JSON.stringify(app.json)).toBe(201);
  const job = await api(s, 'POST', '/api/v1/jobs', {
    appId: app.json.id,
    name: 'goes where the app lists',
    scheduleType: 'NONE',
    executorHandler: 'anything',
    executorRouteStrategy: 'FIRST',
  });
  expect(job.status, JSON.stringify(job.json)).toBe(201);
  return { jobId: job.json.id as number, appToken: app.json.accessToken as string };
}

/** Triggers the job and waits until its fire leaves `pending`. */
async function triggerAndWait(s: E2eServer, jobId: number): Promise<FireRow> {
  const triggered = await api(s, 'POST', `/api/v1/jobs/${jobId}/trigger`, {});
  expect(triggered.status).toBe(200);
  const fireId = (triggered.json.fireIds as number[])[0]!;
  let fire: FireRow | undefined;
  await waitFor(
    async () => {
      fire = await s.store.fires.findFireById(fireId);
      return fire !== undefined && fire.status !== 'pending';
    },
    { what: `fire ${fireId} sent or failed` },
  );
  return fire!;
}

/** A `dns.lookup` answering from `answers` (a list per name, taken in turn; the last one repeats). */
function scriptedLookup(answers: Record<string, string[][]>): {
  lookup: typeof dns.lookup;
  asked: string[];
} {
  const asked: string[] = [];
  const lookup = ((hostname: string, _options: unknown, callback: (...args: unknown[]) => void) => {
    asked.push(hostname);
    const turns = answers[hostname];
    if (turns === undefined) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
      return;
    }
    const addresses = (turns.length > 1 ? turns.shift() : turns[0])!;
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  }) as unknown as typeof dns.lookup;
  return { lookup, asked };
}

function executorClient(networkRules: NetworkRules): ExecutorClient {
  return closing(
    new ExecutorClient({
      accessToken: CLIENT_TOKEN,
      timeoutMs: 2_000,
      connectionsPerExecutor: 1,
      pipelining: 1,
      networkRules,
    }),
    (c) => c.close(),
  );
}

function executorAt(address: string): ExecutorAddress {
  return { address, protocol: 'G2', appName: 'outbound-app' };
}

describe('the network rules', () => {
  it('deny the metadata service, link-local, 0.0.0.0/8, multicast and the IPv6 forms that embed them; allow loopback and private ranges', () => {
    const rules = new NetworkRules();
    const denied: Array<[string, string]> = [
      ['169.254.169.254', '169.254.169.254/32'],
      ['::ffff:169.254.169.254', '169.254.169.254/32'],
      ['64:ff9b::a9fe:a9fe', '169.254.169.254/32'],
      ['169.254.10.1', '169.254.0.0/16'],
      ['100.100.100.200', '100.100.100.200/32'],
      ['fd00:ec2::254', 'fd00:ec2::254/128'],
      ['fe80::1', 'fe80::/10'],
      ['[fe80::1%eth0]', 'fe80::/10'],
      ['0.0.0.0', '0.0.0.0/8'],
      ['::ffff:0.0.0.0', '0.0.0.0/8'],
      ['::', '::/128'],
      ['224.0.0.1', '224.0.0.0/4'],
      ['ff02::1', 'ff00::/8'],
      ['255.255.255.255', '255.255.255.255/32'],
    ];
    for (const [address, cidr] of denied) {
      expect(rules.deniedRangeOf(address)?.cidr, address).toBe(cidr);
    }
    for (const address of [
      '127.0.0.1',
      '::1',
      '::ffff:127.0.0.1',
      '10.1.2.3',
      '172.16.5.4',
      '192.168.1.10',
      'fd12::5',
      '100.64.0.1',
      '8.8.8.8',
    ]) {
      expect(rules.deniedRangeOf(address), address).toBeUndefined();
    }
  });

  it('a MANUAL app address in the metadata range is never called: the fire fails saying the range, and nothing connects there', async () => {
    const s = await server();
    const listener = await trap();
    const metadata = await manualJob(s, ['http://169.254.169.254/latest/']);
    const thisNetwork = await manualJob(s, [`http://0.0.0.0:${listener.port}/`]);
    const mapped = await manualJob(s, [`http://[::ffff:0.0.0.0]:${listener.port}/`]);

    const startedAt = Date.now();
    const toMetadata = await triggerAndWait(s, metadata);
    // Refused before any socket: a connect to 169.254.169.254 from here would hang until the call timeout.
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    const toThisNetwork = await triggerAndWait(s, thisNetwork);
    const toMapped = await triggerAndWait(s, mapped);

    expect(toMetadata.status).toBe('dispatch_failed');
    expect(toMetadata.trigger_msg).toMatch(
      /169\.254\.169\.254.*denied range \(169\.254\.169\.254\/32, cloud metadata service\).*allowedNetworks/,
    );
    expect(toThisNetwork.status).toBe('dispatch_failed');
    expect(toThisNetwork.trigger_msg).toMatch(/denied range \(0\.0\.0\.0\/8/);
    expect(toMapped.status).toBe('dispatch_failed');
    expect(toMapped.trigger_msg).toMatch(/denied range \(0\.0\.0\.0\/8/);
    expect(listener.requests).toEqual([]);
  });

  it('a host name that resolves to a denied address is refused at connect time, and an answer that changes between two connections is checked again', async () => {
    const mimic: XxlMimic = closing(await startMimic({ generation: '2.x' }), (m) => m.stop());
    const port = new URL(mimic.address).port;
    const { lookup, asked } = scriptedLookup({
      'metadata.internal.test': [['169.254.169.254']],
      'flips.test': [['127.0.0.1'], ['169.254.169.254']],
      'mixed.test': [['169.254.169.254', '127.0.0.1']],
    });
    const rules = new NetworkRules({ lookup });

    const toMetadata = await executorClient(rules).beat(executorAt(`http://metadata.internal.test:${port}/`));
    expect(toMetadata).toMatchObject({ ok: false, failure: 'connection' });
    expect(toMetadata.msg).toMatch(
      /metadata\.internal\.test \(169\.254\.169\.254\) refused: the address is in a denied range \(169\.254\.169\.254\/32/,
    );
    expect(mimic.requests).toEqual([]);

    // The first connection resolves to loopback and is made; a new one asks again and is refused.
    const first = await executorClient(rules).beat(executorAt(`http://flips.test:${port}/`));
    expect(first).toMatchObject({ ok: true });
    expect(mimic.requests).toHaveLength(1);
    const second = await executorClient(rules).beat(executorAt(`http://flips.test:${port}/`));
    expect(second).toMatchObject({ ok: false, failure: 'connection' });
    expect(second.msg).toMatch(/flips\.test \(169\.254\.169\.254\) refused/);
    expect(mimic.requests).toHaveLength(1);

    // Of a mixed answer only the allowed addresses are dialled.
    const mixed = await executorClient(rules).beat(executorAt(`http://mixed.test:${port}/`));
    expect(mixed).toMatchObject({ ok: true });
    expect(mimic.requests).toHaveLength(2);
    expect(asked).toEqual(['metadata.internal.test', 'flips.test', 'flips.test', 'mixed.test']);
  });

  it('a webhook or SMTP relay whose name resolves to a denied address is refused when the alarm is sent, and nothing is sent', async () => {
    const database = closing(await createTestDatabase('sqlite'), (d) => d.drop());
    const store = await database.open();
    const receiver = await trap();
    const smtp = closing(await startSmtpReceiver(), (r) => r.close());
    const { lookup } = scriptedLookup({ 'hooks.internal.test': [['169.254.169.254']] });
    const queue = closing(alarmQueue(store, {}, new NetworkRules({ lookup })), (q) => q.stop(0));
    const webhook = await addChannel(store, 'WEBHOOK', {
      url: `http://hooks.internal.test:${receiver.port}/alarm`,
    });
    const relay = await addChannel(store, 'EMAIL', {
      host: 'hooks.internal.test',
      port: smtp.port,
      security: 'NONE',
      from: 'alarms@example.org',
      to: ['oncall@example.org'],
    });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: `${webhook.id},${relay.id}` });

    await raiseAndWait(queue, { job, fire });

    const recorded = (await store.fires.findFireById(fire.id))!;
    expect(recorded.alarm_status).toBe(ALARM_STATUS.FAILED);
    expect(recorded.alarm_msg).toMatch(
      /WEBHOOK .*hooks\.internal\.test \(169\.254\.169\.254\) refused: the address is in a denied range/,
    );
    expect(recorded.alarm_msg).toMatch(/EMAIL .*169\.254\.169\.254.*denied range/);
    expect(recorded.alarm_msg).not.toMatch(/tries/);
    expect(receiver.requests).toEqual([]);
    expect(smtp.mails).toEqual([]);
  });
});

describe('alarm channels', () => {
  it('a webhook alarm channel pointing at a link-local address is refused when saved (400 naming the field) and when sent', async () => {
    const s = await server();
    const listener = await trap();
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://2852039166/', // 169.254.169.254 written as one number
      'http://[fe80::1]/hook',
      'http://[::ffff:a9fe:a9fe]/hook',
      `http://0.0.0.0:${listener.port}/hook`,
    ]) {
      const created = await api(s, 'POST', '/api/v1/alarm-channels', {
        name: `hook-${Math.random().toString(36).slice(2, 8)}`,
        type: 'WEBHOOK',
        config: { url },
      });
      expect(created.status, url).toBe(400);
      expect(created.json.error?.field, url).toBe('config.url');
      expect(created.json.error?.message, url).toMatch(/denied range .*allowedNetworks/);
    }
    const saved = await api(s, 'POST', '/api/v1/alarm-channels', {
      name: 'hook-on-loopback',
      type: 'WEBHOOK',
      config: { url: `${listener.url}/hook` },
    });
    expect(saved.status).toBe(201);
    const changed = await api(s, 'PATCH', `/api/v1/alarm-channels/${saved.json.id}`, {
      config: { url: 'http://[fe80::1]/hook' },
    });
    expect(changed.status).toBe(400);
    expect(changed.json.error?.field).toBe('config.url');

    // A channel stored before the rules (or written to the database directly) is refused when sent.
    const stored = await addChannel(s.store, 'WEBHOOK', { url: `http://0.0.0.0:${listener.port}/hook` });
    const sent = await api(s, 'POST', `/api/v1/alarm-channels/${stored.id}/test`, {});
    expect(sent.status).toBe(200);
    expect(JSON.stringify(sent.json)).toMatch(/0\.0\.0\.0.*denied range \(0\.0\.0\.0\/8/);
    expect(listener.requests).toEqual([]);
  });

  it('an e-mail channel whose SMTP relay is a denied address is refused when saved (400 naming config.host)', async () => {
    const s = await server();
    const email = (host: string) => ({
      name: `mail-${Math.random().toString(36).slice(2, 8)}`,
      type: 'EMAIL',
      config: { host, port: 25, security: 'NONE', from: 'alarms@example.org', to: ['oncall@example.org'] },
    });
    for (const host of ['169.254.169.254', 'fe80::1', '[fe80::1]', '0.0.0.0']) {
      const created = await api(s, 'POST', '/api/v1/alarm-channels', email(host));
      expect(created.status, host).toBe(400);
      expect(created.json.error?.field, host).toBe('config.host');
      expect(created.json.error?.message, host).toMatch(/denied range .*allowedNetworks/);
    }
    const saved = await api(s, 'POST', '/api/v1/alarm-channels', email('127.0.0.1'));
    expect(saved.status).toBe(201);
    const changed = await api(s, 'PATCH', `/api/v1/alarm-channels/${saved.json.id}`, {
      config: { host: '169.254.169.254' },
    });
    expect(changed.status).toBe(400);
    expect(changed.json.error?.field).toBe('config.host');
  });
});

describe('allowedNetworks', () => {
  it('allowedNetworks lets an admin allow a denied range, and only that one', () => {
    const rules = new NetworkRules({ allowedNetworks: ['169.254.0.0/16'] });
    expect(rules.deniedRangeOf('169.254.169.254')).toBeUndefined();
    expect(rules.deniedRangeOf('::ffff:169.254.10.1')).toBeUndefined();
    expect(rules.deniedRangeOf('fe80::1')?.cidr).toBe('fe80::/10');
    expect(rules.deniedRangeOf('0.0.0.0')?.cidr).toBe('0.0.0.0/8');
  });

  it('with allowedNetworks the server calls an executor and a webhook in the allowed range, which it refuses without', async () => {
    const mimic: XxlMimic = closing(await startMimic({ generation: '2.x' }), (m) => m.stop());
    const hook = await trap();
    const executorAddress = `http://0.0.0.0:${new URL(mimic.address).port}/`;
    const webhook = {
      name: 'hook-on-0.0.0.0',
      type: 'WEBHOOK',
      config: { url: `http://0.0.0.0:${hook.port}/hook` },
    };

    const strict = await server();
    const refused = await triggerAndWait(strict, await manualJob(strict, [executorAddress]));
    expect(refused.status).toBe('dispatch_failed');
    expect((await api(strict, 'POST', '/api/v1/alarm-channels', webhook)).status).toBe(400);
    expect(mimic.requests).toEqual([]);

    const allowing = await server({ allowedNetworks: ['0.0.0.0/32'] });
    const { jobId, appToken } = await manualApp(allowing, [executorAddress]);
    const sent = await triggerAndWait(allowing, jobId);
    expect(sent.trigger_code).toBe(200);
    expect(mimic.requests.map((r) => r.url)).toContain('/run');
    expect(mimic.requests[0]!.headers[ACCESS_TOKEN_HEADER.toLowerCase()]).toBe(appToken);
    const channel = await api(allowing, 'POST', '/api/v1/alarm-channels', webhook);
    expect(channel.status).toBe(201);
    const tested = await api(allowing, 'POST', `/api/v1/alarm-channels/${channel.json.id}/test`, {});
    expect(tested.status).toBe(200);
    expect(hook.requests).toHaveLength(1);
  });
});

describe('the log reader', () => {
  it('the log reader never sends the token to an address the user chose: it reads from the address on the fire record', async () => {
    const s = await server();
    const listener = await trap();
    const appName = 'log-reader-app';
    const appId = await createApp(s.store, appName);
    const executor = closing(
      await startExecutor(s.server, appName, (ex) =>
        ex.handle('writes-a-log', (ctx) => {
          ctx.log('a line only the real executor has');
          return 'done';
        }),
      ),
      (e) => e.close(),
    );
    const job = await api(s, 'POST', '/api/v1/jobs', {
      appId,
      name: 'writes a log',
      scheduleType: 'NONE',
      executorHandler: 'writes-a-log',
    });
    expect(job.status).toBe(201);
    const elsewhere = `http://127.0.0.1:${listener.port}/`;

    // A trigger may name only addresses of the app's own executors.
    const redirected = await api(s, 'POST', `/api/v1/jobs/${job.json.id}/trigger`, {
      addressList: [elsewhere],
    });
    expect(redirected.status).toBe(400);
    expect(redirected.json.error?.field).toBe('addressList');

    const fire = await triggerAndWait(s, job.json.id as number);
    await waitFor(async () => (await s.store.fires.findFireById(fire.id))?.status === 'succeeded', {
      what: `fire ${fire.id} succeeded`,
    });
    expect(fire.executor_address).toBe(executor.address);

    // Whatever the request adds, the read goes to the recorded executor.
    const query = new URLSearchParams({ fromLineNum: '1', address: elsewhere, executorAddress: elsewhere });
    const response = await fetch(new URL(`/api/v1/fires/${fire.id}/log?${query}`, s.server.url), {
      headers: {
        authorization: `Bearer ${API_TOKEN}`,
        'x-forwarded-host': `127.0.0.1:${listener.port}`,
        'tickwheel-address': elsewhere,
      },
    });
    const read = (await response.json()) as { logContent?: string };
    if (response.status === 200) expect(read.logContent).toContain('a line only the real executor has');
    else expect(response.status).toBe(400);
    expect(listener.requests).toEqual([]);
  });
});

/** A loopback server answering every request with `status` and a Location on `to`. */
async function redirector(status: number, to: string): Promise<{ url: string; hits: string[] }> {
  const hits: string[] = [];
  const redirecting = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    req.resume();
    req.on('end', () => {
      res.writeHead(status, {
        location: new URL(req.url ?? '/', to).href,
        'content-type': 'application/json',
      });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
  closing(redirecting, (r) => {
    r.closeAllConnections();
    return new Promise<void>((resolve) => r.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/`, hits };
}

describe('redirects', () => {
  it.each([
    302, 307, 308,
  ])('no redirect is followed with credentials: an executor answering %i sends nothing on to where it points', async (status) => {
    const target = await trap();
    const from = await redirector(status, `${target.url}/`);
    const client = executorClient(new NetworkRules());

    const beat = await client.beat(executorAt(from.url));
    const run = await client.run(executorAt(from.url), {
      jobId: 1,
      executorHandler: 'anything',
      executorParams: '',
      executorBlockStrategy: 'SERIAL_EXECUTION',
      executorTimeout: 0,
      logId: 7,
      logDateTime: Date.now(),
      glueType: 'BEAN',
      glueSource: '',
      glueUpdatetime: 0,
      broadcastIndex: 0,
      broadcastTotal: 1,
    });
    const log = await client.logPage(
      executorAt(from.url),
      { logDateTim: Date.now(), logId: 7, fromLineNum: 1 },
      { maxLines: 10, maxBytes: 1_000 },
    );

    for (const outcome of [beat, run, log]) {
      expect(outcome).toMatchObject({ ok: false, failure: 'status' });
      expect(outcome.msg).toContain(String(status));
    }
    expect(from.hits).toEqual(['/beat', '/run', '/log']);
    expect(target.requests).toEqual([]);
  });

  it('no redirect is followed with credentials: a webhook answering 307 is a failed send, and its target receives nothing', async () => {
    const database = closing(await createTestDatabase('sqlite'), (d) => d.drop());
    const store = await database.open();
    const target = await trap();
    const from = await redirector(307, `${target.url}/`);
    const queue = closing(alarmQueue(store), (q) => q.stop(0));
    const channel = await addChannel(store, 'WEBHOOK', {
      url: `${from.url}hook`,
      secret: 'signing-secret-0123456789',
    });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: String(channel.id) });

    await raiseAndWait(queue, { job, fire });

    const recorded = (await store.fires.findFireById(fire.id))!;
    expect(recorded.alarm_status).toBe(ALARM_STATUS.FAILED);
    expect(recorded.alarm_msg).toMatch(/answered HTTP 307/);
    expect(from.hits).toEqual(['/hook']);
    expect(target.requests).toEqual([]);
  });
});
