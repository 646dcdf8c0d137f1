/**
 * The http-pull transport against a stand-in for the server's `api/pull` endpoint on loopback:
 * the executor opens no port, connects out with its token, app and instance, answers every call
 * over the connection exactly as its HTTP endpoint answers it, registers and calls back over
 * HTTP under its pull address, and keeps reconnecting when the connection goes, without a run
 * ever failing for it.
 */
import { rm } from 'node:fs/promises';
import { createExecutor, type Executor, type ExecutorOptions } from '@tickwheel/executor';
import {
  MAX_PULL_FRAME_BYTES,
  MAX_RUN_BATCH,
  PULL_RECONNECT_MIN_MS,
  pullAddress,
  WireMessages,
} from '@tickwheel/protocol';
import { freshLogId, trigger } from '@tickwheel/test-fixtures/executor-client';
import {
  capturingLogger,
  type ExecutorFixture,
  startExecutor,
  TOKEN,
  tempDir,
} from '@tickwheel/test-fixtures/executor-fixture';
import { type PullTestServer, startPullTestServer } from '@tickwheel/test-fixtures/pull-server';
import { afterEach, describe, expect, it } from 'vitest';
import { PullConnection } from '../src/pull-connection.js';

interface PullFixture {
  ex: Executor;
  server: PullTestServer;
  logLines: Array<Record<string, unknown>>;
}

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A started http-pull executor connected to a fresh pull test server. */
async function startPullExecutor(
  register: (ex: Executor) => void = () => {},
  options: Partial<ExecutorOptions> = {},
  server?: PullTestServer,
): Promise<PullFixture> {
  const pullServer = server ?? (await startPullTestServer({ accessToken: TOKEN }));
  if (!server) cleanups.push(() => pullServer.stop());
  const logDir = await tempDir();
  const { logger, lines } = capturingLogger();
  const ex = createExecutor({
    appName: 'pull-app',
    accessToken: TOKEN,
    transport: 'http-pull',
    serverAddresses: [pullServer.address],
    logDir,
    logger,
    ...options,
    internal: { heartbeatIntervalMs: 60_000, ...options.internal },
  });
  register(ex);
  await ex.start();
  cleanups.push(async () => {
    await ex.stop({ timeoutMs: 0 });
    await rm(logDir, { recursive: true, force: true });
  });
  return { ex, server: pullServer, logLines: lines };
}

/** A gate a handler waits on until the test opens it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

describe('connecting', () => {
  it('connects to <server>/api/pull with its token, app and instance, and is addressed as pull://<instance>/', async () => {
    const { ex, server } = await startPullExecutor();
    const { headers } = await server.connection();
    expect(headers['xxl-job-access-token']).toBe(TOKEN);
    expect(headers['xxl-job-appname']).toBe('pull-app');
    expect(headers['tickwheel-instance']).toBe(ex.instanceId);
    expect(ex.transport).toBe('http-pull');
    expect(ex.address).toBe(pullAddress(ex.instanceId));
  });

  it('registers over HTTP with its pull address as registryValue, and unregisters it at stop', async () => {
    const { ex, server } = await startPullExecutor();
    await server.waitFor(() => server.registrations.length > 0, 5_000, 'registration');
    expect(server.registrations[0]).toMatchObject({
      registryGroup: 'EXECUTOR',
      registryKey: 'pull-app',
      registryValue: pullAddress(ex.instanceId),
    });
    const connection = await server.connection();
    await ex.stop();
    expect(server.removals).toEqual([
      { registryGroup: 'EXECUTOR', registryKey: 'pull-app', registryValue: pullAddress(ex.instanceId) },
    ]);
    expect(connection.closedAt).toBeDefined();
  });

  it('a push executor still reports http as its transport', async () => {
    const fx: ExecutorFixture = await startExecutor();
    cleanups.push(() => fx.close());
    expect(fx.ex.transport).toBe('http');
    expect(fx.ex.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it('a refused upgrade is logged with the server reason and tried again', async () => {
    const server = await startPullTestServer({ accessToken: TOKEN, pullToken: `${TOKEN}-other` });
    cleanups.push(() => server.stop());
    const { logLines } = await startPullExecutor(() => {}, {}, server);
    await server.waitUntil(() => server.upgrades.length >= 3, 10_000, 'three upgrade attempts');
    const refusals = logLines.filter((l) => l.msg === 'pull connection failed; retrying with back-off');
    expect(refusals[0]).toMatchObject({
      level: 40,
      reason: 'server refused the connection (HTTP 401): The access token is wrong.',
    });
    expect(server.connections).toHaveLength(0);
  });

  it('connects to the next server address when the first cannot be reached', async () => {
    const down = await startPullTestServer({ accessToken: TOKEN });
    await down.stop();
    const server = await startPullTestServer({ accessToken: TOKEN });
    cleanups.push(() => server.stop());
    await startPullExecutor(() => {}, { serverAddresses: [down.address, server.address] }, server);
    await server.connection();
    expect((await server.call('beat', {})).answer).toMatchObject({ code: 200 });
  });
});

describe('calls over the connection', () => {
  it('a run frame runs the handler, answers code 200 with the announcements, and the result comes by callback under the pull address', async () => {
    const { ex, server } = await startPullExecutor((e) =>
      e.handle('hello', async (ctx) => `hello ${ctx.param}`),
    );
    const logId = freshLogId();
    const frame = await server.call('run', trigger({ logId, executorParams: 'pull' }));
    expect(frame).toMatchObject({
      t: 'answer',
      answer: { code: 200 },
      runBatch: MAX_RUN_BATCH,
      killByLogId: true,
    });
    expect(await server.callbackFor(logId)).toMatchObject({
      logId,
      handleCode: 200,
      handleMsg: 'hello pull',
    });
    const callback = server.requestsTo('/api/callback').at(-1)!;
    expect(callback.headers['tickwheel-address']).toBe(pullAddress(ex.instanceId));
  });

  it("a workflow node's run frame gives the handler its upstream, and its output comes by callback", async () => {
    const { server } = await startPullExecutor((e) =>
      e.handle('hello', async (ctx) => ({
        sum: (ctx.upstream.A?.output as number) + 1,
        node: ctx.workflow?.nodeKey,
      })),
    );
    const logId = freshLogId();
    const workflow = {
      runId: 3,
      nodeKey: 'B',
      param: null,
      upstream: { A: { status: 'succeeded', output: 41 } },
    };
    expect((await server.call('run', trigger({ logId, workflow }))).answer).toMatchObject({ code: 200 });
    expect(await server.callbackFor(logId)).toMatchObject({
      logId,
      handleCode: 200,
      output: { sum: 42, node: 'B' },
    });
  });

  it('a kill frame with a logId stops that run', async () => {
    const { server } = await startPullExecutor((e) =>
      e.handle(
        'wait',
        (ctx) =>
          new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
      ),
    );
    const logId = freshLogId();
    expect(
      (await server.call('run', trigger({ jobId: 7, logId, executorHandler: 'wait' }))).answer,
    ).toMatchObject({
      code: 200,
    });
    expect((await server.call('kill', { jobId: 7, logId })).answer).toMatchObject({ code: 200 });
    const result = await server.callbackFor(logId);
    expect(result.handleCode).toBe(500);
    expect(result.handleMsg).toContain('killed');
  });

  it('a log frame answers the run log page', async () => {
    const { server } = await startPullExecutor((e) =>
      e.handle('chatty', async (ctx) => {
        ctx.log('a line from the handler');
      }),
    );
    const logId = freshLogId();
    const logDateTime = Date.now();
    await server.call('run', trigger({ logId, logDateTime, executorHandler: 'chatty' }));
    await server.callbackFor(logId);
    const frame = await server.call('log', { logDateTim: logDateTime, logId, fromLineNum: 1 });
    const answer = frame.answer as { code: number; content: { fromLineNum: number; logContent: string } };
    expect(answer.code).toBe(200);
    expect(answer.content.fromLineNum).toBe(1);
    expect(answer.content.logContent).toContain('a line from the handler');
  });

  it('every call answers exactly what the HTTP endpoint answers, refusals of bad bodies included', async () => {
    const register = (e: Executor) => e.handle('hello', async () => 'hi');
    const { server } = await startPullExecutor(register);
    const push = await startExecutor(register);
    cleanups.push(() => push.close());
    const cases: Array<[string, unknown]> = [
      ['beat', {}],
      ['beat', null],
      ['idleBeat', { jobId: 404 }],
      ['idleBeat', { jobId: 'x' }],
      ['kill', { jobId: 404 }],
      ['kill', 'not a body'],
      ['log', { logDateTim: Date.now(), logId: 999_999, fromLineNum: 1 }],
      ['log', { logId: 'x' }],
      ['run', trigger({ jobId: 'one', logId: 77 })],
      ['run', trigger({ executorHandler: 'nobody', logId: 78 })],
      ['run', trigger({ glueType: 'GLUE_COBOL', logId: 79 })],
      ['run', 42],
      ['runBatch', { not: 'an array' }],
      ['runBatch', [trigger({ logId: 80 }), trigger({ logId: 80 }), trigger({ jobId: 'one', logId: 81 })]],
    ];
    for (const [call, body] of cases) {
      const overPull = (await server.call(call, body)).answer;
      const overHttp = (await push.call(call, body)).json;
      expect({ call, body, answer: overPull }).toEqual({ call, body, answer: overHttp });
    }
  });

  it('an unknown call is answered as an unknown path is over HTTP', async () => {
    const { server } = await startPullExecutor();
    const frame = await server.call('frobnicate', {});
    expect(frame.answer).toMatchObject({ code: 500, msg: WireMessages.uriNotFound('/frobnicate') });
  });

  it('a slow call does not hold the calls sent after it', async () => {
    const server = await startPullTestServer({ accessToken: TOKEN });
    cleanups.push(() => server.stop());
    const slowLog = gate();
    const { logger } = capturingLogger();
    const connection = new PullConnection({
      serverAddresses: [server.address],
      accessToken: TOKEN,
      appName: 'pull-app',
      instance: '0c6f1a52-3b0e-4d7e-9a43-5f1f0e1c2b3d',
      // A log read that takes until the test lets it finish, and every other call answered at once.
      answerCall: async (call) => {
        if (call === 'log') await slowLog.wait;
        return { code: 200, msg: call, content: null, data: null };
      },
      handshakeTimeoutMs: 3_000,
      silenceMs: 60_000,
      logger,
    });
    connection.start();
    cleanups.push(() => connection.stop());
    const log = server.call('log', { logDateTim: Date.now(), logId: 1, fromLineNum: 1 });
    let logAnswered = false;
    void log.then(() => {
      logAnswered = true;
    });
    expect((await server.call('run', trigger({ logId: freshLogId() }))).answer).toMatchObject({ msg: 'run' });
    expect(logAnswered).toBe(false);
    slowLog.open();
    expect((await log).answer).toMatchObject({ msg: 'log' });
  });

  it('many calls sent at once each get their own answer', async () => {
    const running = gate();
    const { server } = await startPullExecutor((e) => e.handle('held', () => running.wait));
    const logIds = Array.from({ length: 20 }, () => freshLogId());
    const answers = await Promise.all([
      ...logIds.map((logId, i) =>
        server.call('run', trigger({ jobId: 100 + i, logId, executorHandler: 'held' })),
      ),
      server.call('beat', {}),
      server.call('idleBeat', { jobId: 100 }),
    ]);
    expect(answers.slice(0, 20).map((a) => a.answer)).toEqual(
      logIds.map(() => expect.objectContaining({ code: 200 })),
    );
    // The lane of job 100 is running its held run.
    expect(answers[21]!.answer).toMatchObject({ code: 500 });
    running.open();
    for (const logId of logIds) expect(await server.callbackFor(logId)).toMatchObject({ handleCode: 200 });
  });
});

describe('losing the connection', () => {
  it('reconnects after the server closes the connection, backing off while it keeps closing', async () => {
    const { server } = await startPullExecutor();
    await server.connection(1);
    server.closeOnOpen = true;
    server.openConnection!.socket.close(1012, 'test server restarts');
    await server.waitUntil(() => server.connections.length >= 5, 15_000, 'five connections');
    const gaps = server.connections.slice(1, 5).map((c, i) => c.openedAt - server.connections[i]!.openedAt);
    expect(gaps[0]).toBeGreaterThanOrEqual(PULL_RECONNECT_MIN_MS - 20);
    // Doubling (with jitter between half and all of each step): the fourth wait is over the first.
    expect(gaps[3]!).toBeGreaterThan(gaps[0]!);
    server.closeOnOpen = false;
    await server.connection(6);
    expect((await server.call('beat', {})).answer).toMatchObject({ code: 200 });
  });

  it("a run's result still comes by callback when the connection dropped mid-run", async () => {
    const running = gate();
    const { server } = await startPullExecutor((e) =>
      e.handle('held', () => running.wait.then(() => 'done')),
    );
    const logId = freshLogId();
    expect((await server.call('run', trigger({ logId, executorHandler: 'held' }))).answer).toMatchObject({
      code: 200,
    });
    server.openConnection!.socket.terminate();
    await server.waitUntil(() => server.connections[0]!.closedAt !== undefined, 5_000, 'the drop');
    running.open();
    expect(await server.callbackFor(logId)).toMatchObject({ logId, handleCode: 200, handleMsg: 'done' });
    await server.connection(2);
  });

  it('a frame over the size limit closes the connection, and the executor connects again', async () => {
    const { server } = await startPullExecutor();
    const first = await server.connection(1);
    first.socket.send('x'.repeat(MAX_PULL_FRAME_BYTES + 1));
    await server.waitUntil(() => first.closedAt !== undefined, 5_000, 'the close');
    await server.connection(2);
    expect((await server.call('beat', {})).answer).toMatchObject({ code: 200 });
  });

  it('a connection on which the server stays silent is replaced', async () => {
    const { server, logLines } = await startPullExecutor(() => {}, { internal: { pullSilenceMs: 300 } });
    await server.connection(1);
    await server.connection(2, 5_000);
    expect(
      logLines.some((l) => l.msg === 'pull connection silent (no ping from the server); reconnecting'),
    ).toBe(true);
  });
});

describe('options', () => {
  it.each([
    ['port', { port: 9999 }],
    ['host', { host: '0.0.0.0' }],
    ['advertisedAddress', { advertisedAddress: 'http://10.0.0.5:9999/' }],
  ])('refuses %s with the http-pull transport, naming it', (field, extra) => {
    expect(() =>
      createExecutor({
        appName: 'x',
        accessToken: TOKEN,
        transport: 'http-pull',
        serverAddresses: ['http://127.0.0.1:1/'],
        ...extra,
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'TW_ERR_INVALID_OPTION',
        field,
        message: `${field}: must not be given with the http-pull transport, which opens no port (the executor connects out to its servers)`,
      }),
    );
  });

  it('refuses http-pull without a server address', () => {
    expect(() => createExecutor({ appName: 'x', accessToken: TOKEN, transport: 'http-pull' })).toThrow(
      expect.objectContaining({ code: 'TW_ERR_INVALID_OPTION', field: 'serverAddresses' }),
    );
  });

  it('refuses an unknown transport', () => {
    expect(() =>
      createExecutor({ appName: 'x', accessToken: TOKEN, transport: 'carrier-pigeon' as 'http' }),
    ).toThrow(
      expect.objectContaining({
        field: 'transport',
        message: 'transport: must be one of http, http-pull, redis',
      }),
    );
  });

  it('an http-pull executor cannot be mounted', () => {
    const ex = createExecutor({
      appName: 'x',
      accessToken: TOKEN,
      transport: 'http-pull',
      serverAddresses: ['http://127.0.0.1:1/'],
    });
    expect(() => ex.requestListener('/xxl-job')).toThrow(expect.objectContaining({ field: 'transport' }));
  });
});
