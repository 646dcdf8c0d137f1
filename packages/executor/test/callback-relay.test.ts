import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { HandleCallbackParam, ProtocolGeneration } from '@tickwheel/protocol';
import { ManualClock } from '@tickwheel/test-fixtures/manual-clock';
import { startTestServer, type TestServer } from '@tickwheel/test-fixtures/test-server';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CallbackRelay, type CallbackRelayOptions } from '../src/callback-relay.js';
import { ServerClient } from '../src/server-client.js';

const silent = pino({ level: 'silent' });
const CALLBACK = '/api/callback';

let spillDir: string;
const servers: TestServer[] = [];
const relays: CallbackRelay[] = [];

beforeEach(async () => {
  spillDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'tw-relay-')), 'callbacklog');
});

afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.stop()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  await rm(path.dirname(spillDir), { recursive: true, force: true });
});

async function server(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const s = await startTestServer(options);
  servers.push(s);
  return s;
}

/** A server that is down now and can be brought back on the same port with {@link revive}. */
async function downServer(): Promise<TestServer> {
  const s = await startTestServer();
  await s.stop();
  return s;
}

async function revive(down: TestServer): Promise<TestServer> {
  return server({ port: down.port });
}

function relay(
  addresses: string[],
  options: Partial<CallbackRelayOptions> & { protocol?: ProtocolGeneration } = {},
): CallbackRelay {
  const protocol = options.protocol ?? 'G2';
  const client = new ServerClient({
    serverAddresses: addresses,
    accessToken: 'shared-token-0123456789abcdefghijklmn',
    appName: 'orders',
    protocol,
    timeoutMs: 500,
    logger: silent,
  });
  const r = new CallbackRelay({
    client,
    protocol,
    spillDir,
    retryIntervalMs: 100,
    logger: silent,
    ...options,
  });
  relays.push(r);
  return r;
}

function result(logId: number, handleCode = 200, handleMsg: string | null = null): HandleCallbackParam {
  return { logId, logDateTim: 1_728_027_839_906, handleCode, handleMsg };
}

async function spillFileNames(): Promise<string[]> {
  return (await readdir(spillDir).catch(() => [] as string[])).sort();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('CallbackRelay delivery', () => {
  it('sends results pushed together in one request', async () => {
    const s = await server();
    const r = relay([s.address]);
    const deliveries = await Promise.all([1, 2, 3, 4, 5].map((id) => r.push(result(id))));
    expect(deliveries.every((d) => d.delivered && d.address === s.address)).toBe(true);
    expect(s.requestsTo(CALLBACK)).toHaveLength(1);
    expect(s.callbacks.map((c) => c.logId)).toEqual([1, 2, 3, 4, 5]);
  });

  it('splits a burst into requests of at most maxBatch results', async () => {
    const s = await server();
    const r = relay([s.address], { maxBatch: 3 });
    await Promise.all([1, 2, 3, 4, 5, 6, 7].map((id) => r.push(result(id))));
    expect(s.requestsTo(CALLBACK).map((req) => (req.body as unknown[]).length)).toEqual([3, 3, 1]);
  });

  it('keeps a request under maxBatchBytes', async () => {
    const s = await server();
    const r = relay([s.address], { maxBatchBytes: 3_000 });
    await Promise.all([1, 2, 3].map((id) => r.push(result(id, 500, 'x'.repeat(1_200)))));
    expect(s.requestsTo(CALLBACK).map((req) => (req.body as unknown[]).length)).toEqual([2, 1]);
  });

  it('speaks G2 as an array of results with logDateTim', async () => {
    const s = await server();
    await relay([s.address]).push(result(7, 500, 'boom'));
    expect(s.requestsTo(CALLBACK)[0]?.body).toEqual([
      { logId: 7, logDateTim: 1_728_027_839_906, handleCode: 500, handleMsg: 'boom' },
    ]);
  });

  it('speaks G4 as {callbackList} with logDateTime and the app name header', async () => {
    const s = await server({ accessToken: 'shared-token-0123456789abcdefghijklmn', appName: 'orders' });
    const delivery = await relay([s.address], { protocol: 'G4' }).push(
      result(7, 502, 'job execute timeout '),
    );
    expect(delivery.delivered).toBe(true);
    const req = s.requestsTo(CALLBACK)[0];
    expect(req?.headers['xxl-job-appname']).toBe('orders');
    expect(req?.body).toEqual({
      callbackList: [
        { logId: 7, logDateTime: 1_728_027_839_906, handleCode: 502, handleMsg: 'job execute timeout ' },
      ],
    });
  });

  it("sends a workflow node's output with its result, and counts it toward maxBatchBytes", async () => {
    const s = await server();
    const r = relay([s.address], { maxBatchBytes: 3_000 });
    const withOutput = (logId: number) => ({ ...result(logId), output: { text: 'x'.repeat(1_200) } });
    await Promise.all([1, 2, 3].map((id) => r.push(withOutput(id))));
    expect(s.requestsTo(CALLBACK).map((req) => (req.body as unknown[]).length)).toEqual([2, 1]);
    expect(s.callbacks).toEqual([withOutput(1), withOutput(2), withOutput(3)]);
  });

  it('delivers to the second server when the first is down', async () => {
    const down = await downServer();
    const s = await server();
    const delivery = await relay([down.address, s.address]).push(result(1));
    expect(delivery).toEqual({ delivered: true, address: s.address });
  });
});

describe('CallbackRelay requests in flight', () => {
  /** Polls every 5 ms (the test server's own wait wakes on answers, which these tests hold back). */
  async function until(predicate: () => boolean): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await sleep(5);
    }
  }

  it('a result does not wait for the answer to the request before it', async () => {
    const s = await server();
    s.answerDelayMs = 400; // the server stores slowly (under the client's 500 ms timeout)
    const r = relay([s.address], { overlapDelayMs: 20 });
    let firstSettled = false;
    const first = r.push(result(1)).then((d) => {
      firstSettled = true;
      return d;
    });
    await until(() => s.requestsTo(CALLBACK).length === 1);
    const second = r.push(result(2));
    await until(() => s.requestsTo(CALLBACK).length === 2);
    expect(firstSettled).toBe(false);
    expect((await Promise.all([first, second])).every((d) => d.delivered)).toBe(true);
    expect(
      s.requestsTo(CALLBACK).map((req) => (req.body as { logId: number }[]).map((c) => c.logId)),
    ).toEqual([[1], [2]]);
  });

  it('starts a whole batch at once beside a request in flight, and keeps to maxBatchesInFlight', async () => {
    const s = await server();
    s.answerDelayMs = 400;
    const r = relay([s.address], { maxBatch: 2, maxBatchesInFlight: 2, overlapDelayMs: 60_000 });
    let settled = 0;
    const count = (d: Promise<unknown>) => d.then(() => settled++);
    const pushed = [count(r.push(result(1)))];
    await until(() => s.requestsTo(CALLBACK).length === 1);
    // A whole batch goes at once; the next results wait: two requests are in flight.
    pushed.push(...[2, 3, 4].map((id) => count(r.push(result(id)))));
    await until(() => s.requestsTo(CALLBACK).length === 2);
    await sleep(100);
    expect(s.requestsTo(CALLBACK)).toHaveLength(2);
    expect(settled).toBe(0);
    await Promise.all(pushed);
    expect(
      s.requestsTo(CALLBACK).map((req) => (req.body as { logId: number }[]).map((c) => c.logId)),
    ).toEqual([[1], [2, 3], [4]]);
  });
});

describe('CallbackRelay spill', () => {
  it('spills a batch no server accepted and re-sends it once a server is back', async () => {
    const down = await downServer();
    const r = relay([down.address]);
    r.start();
    const delivery = await r.push(result(1));
    expect(delivery).toMatchObject({ delivered: false, spilled: true });
    expect(delivery.delivered === false && delivery.reason).toMatch(/ECONNREFUSED/);
    expect(await r.spilledCount()).toBe(1);

    const s = await revive(down);
    expect((await s.callbackFor(1)).handleCode).toBe(200);
    await waitUntil(async () => (await spillFileNames()).length === 0);
    expect(await r.spilledCount()).toBe(0);
  });

  it('spills results a server refused and re-sends them once it accepts', async () => {
    const s = await server();
    s.refuseCallbacks = true;
    const r = relay([s.address]);
    r.start();
    const delivery = await r.push(result(3, 500, 'failed'));
    expect(delivery).toMatchObject({
      delivered: false,
      spilled: true,
      reason: expect.stringContaining('refused'),
    });
    s.refuseCallbacks = false;
    expect(await s.callbackFor(3)).toEqual(result(3, 500, 'failed'));
  });

  it('keeps spilled results across a relay restart and re-sends them at start', async () => {
    const down = await downServer();
    const first = relay([down.address]);
    await Promise.all([first.push(result(1)), first.push(result(2))]);
    await first.stop();
    expect(await spillFileNames()).toHaveLength(1);

    const s = await revive(down);
    const second = relay([s.address], { retryIntervalMs: 60_000 });
    second.start();
    await s.waitFor(() => s.callbacks.length === 2, 5_000, 'both spilled results');
    expect(s.callbacks.map((c) => c.logId)).toEqual([1, 2]);
  });

  it("keeps a workflow node's output in the spill file across a relay restart", async () => {
    const down = await downServer();
    const first = relay([down.address], { protocol: 'G4' });
    const spilled = { ...result(5, 500, 'upload failed'), output: { step: 'upload', files: ['a', 'b'] } };
    await Promise.all([first.push(spilled), first.push(result(6))]);
    await first.stop();
    expect(await spillFileNames()).toHaveLength(1);

    const s = await revive(down);
    relay([s.address], { retryIntervalMs: 60_000 }).start();
    await s.waitFor(() => s.callbacks.length === 2, 5_000, 'both spilled results');
    expect(s.callbacks).toEqual([spilled, result(6)]);
    expect(s.requestsTo(CALLBACK)[0]?.body).toEqual([
      {
        logId: 5,
        logDateTim: 1_728_027_839_906,
        handleCode: 500,
        handleMsg: 'upload failed',
        output: spilled.output,
      },
      { logId: 6, logDateTim: 1_728_027_839_906, handleCode: 200, handleMsg: null },
    ]);
  });

  it('does not re-send results after a server accepted them', async () => {
    const s = await server();
    s.refuseCallbacks = true;
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const r = relay([s.address], { clock });
    r.start();
    await r.push(result(1));
    s.refuseCallbacks = false;
    await clock.advance(100);
    await s.callbackFor(1);
    await r.push(result(2));
    await clock.advance(500);
    // stop waits for a re-send in flight, so one that sent the results again is counted here.
    await r.stop();
    expect(s.callbacks.map((c) => c.logId)).toEqual([1, 2]);
    expect(await spillFileNames()).toEqual([]);
  });

  it('leaves no temp file beside a spill file', async () => {
    const r = relay([(await downServer()).address]);
    await r.push(result(1));
    const names = await spillFileNames();
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^callback-\d+-[0-9a-f-]+\.json$/);
  });

  it('re-sends spilled files oldest first', async () => {
    const down = await downServer();
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const first = relay([down.address], { clock });
    await first.push(result(1));
    await clock.advance(1);
    await first.push(result(2));
    await first.stop();
    const s = await revive(down);
    await relay([s.address]).resendSpilled();
    expect(s.callbacks.map((c) => c.logId)).toEqual([1, 2]);
  });

  it('adopts a whole temp file left by a crash before its rename and removes a torn one', async () => {
    await mkdir(spillDir, { recursive: true });
    const whole = path.join(spillDir, 'callback-1000-a.json.tmp');
    const torn = path.join(spillDir, 'callback-1001-b.json.tmp');
    await writeFile(whole, JSON.stringify({ version: 1, results: [result(8)] }));
    await writeFile(torn, '{"version":1,"results":[{"logId":9,');
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await utimes(whole, anHourAgo, anHourAgo);
    await utimes(torn, anHourAgo, anHourAgo);
    const s = await server();
    relay([s.address]).start();
    await s.callbackFor(8, 5_000);
    await waitUntil(async () => (await spillFileNames()).length === 0);
  });

  it('sets a damaged spill file aside and still sends the others', async () => {
    await mkdir(spillDir, { recursive: true });
    await writeFile(path.join(spillDir, 'callback-1000-a.json'), 'not json');
    await writeFile(
      path.join(spillDir, 'callback-1001-b.json'),
      JSON.stringify({ version: 1, results: [result(4)] }),
    );
    const s = await server();
    await relay([s.address]).resendSpilled();
    expect(s.callbacks.map((c) => c.logId)).toEqual([4]);
    expect(await spillFileNames()).toEqual(['callback-1000-a.json.corrupt']);
  });
});

describe('CallbackRelay stop', () => {
  it('sends the queued results before it resolves', async () => {
    const s = await server();
    const r = relay([s.address], { batchDelayMs: 1_000 });
    const delivery = r.push(result(1));
    await r.stop();
    expect(s.callbacks.map((c) => c.logId)).toEqual([1]);
    expect(await delivery).toEqual({ delivered: true, address: s.address });
  });

  it('spills the queued results no server takes', async () => {
    const r = relay([(await downServer()).address], { batchDelayMs: 1_000 });
    const delivery = r.push(result(1));
    await r.stop();
    expect(await delivery).toMatchObject({ delivered: false, spilled: true });
    expect(await r.spilledCount()).toBe(1);
    expect(r.pending()).toBe(0);
  });

  it('stops re-sending once stopped', async () => {
    const s = await server();
    s.refuseCallbacks = true;
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const r = relay([s.address], { clock });
    r.start();
    await r.push(result(1));
    expect(clock.pendingTimers).toBe(1);
    await r.stop();
    expect(clock.pendingTimers).toBe(0);
    const seen = s.requestsTo(CALLBACK).length;
    s.refuseCallbacks = false;
    await clock.advance(10 * 100);
    expect(s.requestsTo(CALLBACK)).toHaveLength(seen);
    expect(await r.spilledCount()).toBe(1);
  });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(20);
  }
}
