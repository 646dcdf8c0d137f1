import { startTestServer, type TestServer } from '@tickwheel/test-fixtures/test-server';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerCallError, ServerClient, type ServerClientOptions } from '../src/server-client.js';

const silent = pino({ level: 'silent' });
const registry = {
  registryGroup: 'EXECUTOR',
  registryKey: 'orders',
  registryValue: 'http://127.0.0.1:9999/',
};
const servers: TestServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function server(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const s = await startTestServer(options);
  servers.push(s);
  return s;
}

/** The address of a server that was up and is now down (its port closed). */
async function downAddress(): Promise<string> {
  const s = await startTestServer();
  await s.stop();
  return s.address;
}

function client(serverAddresses: string[], options: Partial<ServerClientOptions> = {}): ServerClient {
  return new ServerClient({
    serverAddresses,
    accessToken: 'shared-token-0123456789abcdefghijklmn',
    appName: 'orders',
    protocol: 'G2',
    logger: silent,
    ...options,
  });
}

describe('ServerClient.callFirst', () => {
  it('falls through to the second server when the first is down', async () => {
    const down = await downAddress();
    const up = await server();
    const { address, answer } = await client([down, up.address]).callFirst('api/registry', registry);
    expect(address).toBe(up.address);
    expect(answer.code).toBe(200);
    expect(up.registrations).toEqual([registry]);
  });

  it('stops at the first server that accepts', async () => {
    const first = await server();
    const second = await server();
    const { address } = await client([first.address, second.address]).callFirst('api/registry', registry);
    expect(address).toBe(first.address);
    expect(second.requests).toHaveLength(0);
  });

  it('skips a server that answers code 500 and uses the next', async () => {
    const refusing = await server();
    refusing.refuseCallbacks = true;
    const accepting = await server();
    const body = [{ logId: 1, logDateTim: 1, handleCode: 200, handleMsg: null }];
    const { address } = await client([refusing.address, accepting.address]).callFirst('api/callback', body);
    expect(address).toBe(accepting.address);
    expect(refusing.requestsTo('/api/callback')).toHaveLength(1);
  });

  it('throws a ServerCallError naming every server failure when none accepts', async () => {
    const down = await downAddress();
    const refusing = await server();
    refusing.refuseCallbacks = true;
    const error = await client([down, refusing.address])
      .callFirst('api/callback', [])
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ServerCallError);
    const e = error as ServerCallError;
    expect(e.code).toBe('TW_ERR_SERVER_CALL_FAILED');
    expect(e.failures.map((f) => f.address)).toEqual([down, refusing.address]);
    expect(e.failures[0]?.msg).toMatch(/ECONNREFUSED/);
    expect(e.failures[1]?.msg).toBe('refused by test');
    expect(e.message).toContain(down);
    expect(e.message).toContain('refused by test');
  });

  it('gives up on a server that does not answer within the timeout', async () => {
    const slow = await server();
    slow.answerDelayMs = 1_000;
    const fast = await server();
    const started = Date.now();
    const { address } = await client([slow.address, fast.address], { timeoutMs: 200 }).callFirst(
      'api/registry',
      registry,
    );
    expect(address).toBe(fast.address);
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('reads a JSON answer served as text/html, as real XXL-JOB admins send it', async () => {
    const s = await server();
    s.contentType = 'text/html;charset=UTF-8';
    const { answer } = await client([s.address]).callFirst('api/registry', registry);
    expect(answer.code).toBe(200);
  });

  it('keeps a server context path in the call URL', async () => {
    const s = await server();
    await client([`http://127.0.0.1:${s.port}/tickwheel`])
      .callFirst('api/registry', registry)
      .catch(() => undefined);
    expect(s.requests[0]?.path).toBe('/tickwheel/api/registry');
  });
});

describe('ServerClient headers', () => {
  it('posts JSON with the access token header', async () => {
    const s = await server({ accessToken: 'shared-token-0123456789abcdefghijklmn' });
    await client([s.address]).callFirst('api/registry', registry);
    const headers = s.requests[0]?.headers;
    expect(headers?.['content-type']).toBe('application/json;charset=UTF-8');
    expect(headers?.['xxl-job-access-token']).toBe('shared-token-0123456789abcdefghijklmn');
    expect(headers?.['xxl-job-appname']).toBeUndefined();
  });

  it('sends an empty token header when no token is configured', async () => {
    const s = await server();
    await client([s.address], { accessToken: undefined }).callFirst('api/registry', registry);
    expect(s.requests[0]?.headers['xxl-job-access-token']).toBe('');
  });

  it('is refused by a server with another token', async () => {
    const s = await server({ accessToken: 'other-token-0123456789abcdefghijklmno' });
    const error = (await client([s.address])
      .callFirst('api/registry', registry)
      .catch((err: unknown) => err)) as ServerCallError;
    expect(error.failures[0]?.msg).toBe('The access token is wrong.');
  });

  it('adds the XXL-JOB-APPNAME header when speaking G4', async () => {
    const s = await server({ accessToken: 'shared-token-0123456789abcdefghijklmn', appName: 'orders' });
    const { answer } = await client([s.address], { protocol: 'G4' }).callFirst('api/registry', registry);
    expect(answer.code).toBe(200);
    expect(s.requests[0]?.headers['xxl-job-appname']).toBe('orders');
  });
});

describe('ServerClient.callEach', () => {
  it('posts to every server and reports how each answered', async () => {
    const a = await server();
    const down = await downAddress();
    const b = await server({ accessToken: 'other-token-0123456789abcdefghijklmno' });
    const outcomes = await client([a.address, down, b.address]).callEach('api/registry', registry);
    expect(outcomes.map((o) => [o.address, o.ok])).toEqual([
      [a.address, true],
      [down, false],
      [b.address, false],
    ]);
    expect(outcomes[2]?.msg).toBe('The access token is wrong.');
    expect(a.registrations).toEqual([registry]);
  });

  it('calls the servers in parallel', async () => {
    const a = await server();
    const b = await server();
    a.answerDelayMs = 300;
    b.answerDelayMs = 300;
    const started = Date.now();
    const outcomes = await client([a.address, b.address]).callEach('api/registry', registry);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(Date.now() - started).toBeLessThan(550);
  });
});
