import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Executor } from '@tickwheel/executor';
import { WireMessages } from '@tickwheel/protocol';
import { callExecutor, freshLogId, trigger } from '@tickwheel/test-fixtures/executor-client';
import { startTestServer, type TestServer } from '@tickwheel/test-fixtures/test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The built app: its worker handler is loaded from the compiled `handlers/crunch-numbers.js`.
const APP = new URL('../dist/demo-executor/app.js', import.meta.url);
const HANDLERS = { sync: new URL('../dist/demo-executor/handlers/sync-with-abort.js', import.meta.url) };
const TOKEN = 'demo-test-token-0123456789abcdefghij';
let server: TestServer;
let executor: Executor;
let address: string;
let logDir: string;

beforeAll(async () => {
  if (!existsSync(fileURLToPath(APP)))
    throw new Error(`${fileURLToPath(APP)} is missing: run \`npx tsc -b\` first`);
  const { startDemoExecutor } = (await import(APP.href)) as typeof import('../demo-executor/app.js');
  logDir = await mkdtemp(path.join(os.tmpdir(), 'tw-demo-'));
  server = await startTestServer({ accessToken: TOKEN });
  executor = await startDemoExecutor({
    serverAddresses: [server.address],
    accessToken: TOKEN,
    host: '127.0.0.1',
    port: 0,
    logDir,
  });
  address = executor.address!;
});

afterAll(async () => {
  await executor?.stop({ timeoutMs: 0 });
  await server?.stop();
  await rm(logDir, { recursive: true, force: true });
});

/** Sends one run of `handler` and returns its logId and fire time. */
async function run(handler: string, fields: Record<string, unknown> = {}) {
  const logId = freshLogId();
  const logDateTime = Date.now();
  const body = trigger({ jobId: logId, executorHandler: handler, logId, logDateTime, ...fields });
  const answer = await callExecutor(address, 'run', body, { token: TOKEN });
  expect(answer.returnT.code).toBe(200);
  return { logId, logDateTime };
}

async function logOf(logId: number, logDateTim: number): Promise<string> {
  const answer = await callExecutor(address, 'log', { logDateTim, logId, fromLineNum: 1 }, { token: TOKEN });
  return (answer.returnT.content as { logContent: string }).logContent;
}

describe('the demo executor app', () => {
  it('registers under tickwheel-demo', async () => {
    await server.waitFor(() => server.registrations.length > 0, 5_000, 'registration');
    expect(server.registrations[0]).toMatchObject({ registryKey: 'tickwheel-demo', registryValue: address });
  });

  it('report-progress logs each step of its progress', async () => {
    const { logId, logDateTime } = await run('report-progress', { executorParams: '3' });
    expect(await server.callbackFor(logId)).toMatchObject({ handleCode: 200, handleMsg: 'reported 3 steps' });
    const log = await logOf(logId, logDateTime);
    expect(log).toContain('step 1/3 done (33%)');
    expect(log).toContain('step 3/3 done (100%)');
  });

  it('crunch-numbers runs in a worker thread', async () => {
    const { logId, logDateTime } = await run('crunch-numbers', { executorParams: '100000' });
    expect(await server.callbackFor(logId)).toMatchObject({
      handleCode: 200,
      handleMsg: '9592 primes below 100000',
    });
    expect(await logOf(logId, logDateTime)).toMatch(
      /runner=crunch-numbers \(worker file:.*crunch-numbers\.js\)/,
    );
  });

  it('crunch-numbers is stopped by its timeout while the executor keeps answering', async () => {
    const { logId } = await run('crunch-numbers', { executorParams: '1000000000000', executorTimeout: 1 });
    expect((await callExecutor(address, 'beat', {}, { token: TOKEN })).returnT.code).toBe(200);
    expect(await server.callbackFor(logId, 5_000)).toMatchObject({
      handleCode: 502,
      handleMsg: WireMessages.timeout,
    });
  });

  it('sync-with-abort is reported killed when the server kills it', async () => {
    const { logId } = await run('sync-with-abort', { executorParams: '20' });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const kill = await callExecutor(address, 'kill', { jobId: logId }, { token: TOKEN });
    expect(kill.returnT.code).toBe(200);
    expect(await server.callbackFor(logId)).toMatchObject({
      handleCode: 500,
      handleMsg: WireMessages.killRunning,
    });
  });

  it('sync-with-abort stops after the batch in hand once its signal fires', async () => {
    const { default: syncWithAbort } = (await import(
      HANDLERS.sync.href
    )) as typeof import('../demo-executor/handlers/sync-with-abort.js');
    const controller = new AbortController();
    let failure: string | undefined;
    const context = {
      jobId: 1,
      logId: 1,
      param: '20',
      shardIndex: 0,
      shardTotal: 1,
      logDateTime: Date.now(),
      log: () => {},
      signal: controller.signal,
      success: () => {},
      fail: (msg?: string) => {
        failure = msg;
      },
    };
    const finished = syncWithAbort(context);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const abortedAt = Date.now();
    controller.abort({ kind: 'kill', msg: WireMessages.killRunning });
    await finished;
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    expect(failure).toMatch(/^stopped after [12] of 20 batches$/);
  });

  it('sharded-cleanup cleans only the items of its shard', async () => {
    const { logId } = await run('sharded-cleanup', {
      executorParams: '10',
      broadcastIndex: 1,
      broadcastTotal: 3,
    });
    expect(await server.callbackFor(logId)).toMatchObject({
      handleCode: 200,
      handleMsg: 'shard 1/3 cleaned 3 items',
    });
  });
});
