/**
 * The redis transport against the real Redis and a stand-in for the server's HTTP API on
 * loopback: the executor opens no port, makes its streams' consumer group before it registers
 * its stream address, runs what is written to its run stream and acknowledges it, fails a
 * refused run by callback with the reason, runs a logId once however often it is written,
 * answers calls on the channel they name exactly as its HTTP endpoint answers them, and reads on
 * (its own pending entries first) after its Redis connections are cut.
 */
import { rm } from 'node:fs/promises';
import { createExecutor, type Executor, type ExecutorOptions } from '@tickwheel/executor';
import {
  callStreamKey,
  MAX_RUN_BATCH,
  RUN_GROUP,
  runStreamKey,
  streamAddress,
  WireMessages,
} from '@tickwheel/protocol';
import { freshLogId, trigger } from '@tickwheel/test-fixtures/executor-client';
import {
  capturingLogger,
  startExecutor,
  TOKEN,
  tempDir,
  until,
} from '@tickwheel/test-fixtures/executor-fixture';
import {
  connectionNameOf,
  REDIS_URL,
  type RedisStreamsServer,
  startRedisStreamsServer,
} from '@tickwheel/test-fixtures/redis-streams';
import { startTcpProxy } from '@tickwheel/test-fixtures/tcp-proxy';
import { startTestServer, type TestServer } from '@tickwheel/test-fixtures/test-server';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisStreamReader } from '../src/redis-stream-reader.js';

interface RedisFixture {
  ex: Executor;
  /** The instance id: the streams' names and the consumer's. */
  instance: string;
  /** The stand-in for the servers' HTTP API (registry, callback). */
  server: TestServer;
  redis: RedisStreamsServer;
  logLines: Array<Record<string, unknown>>;
}

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A started redis executor, a fresh HTTP stand-in and a writer of its streams. */
async function startRedisExecutor(
  register: (ex: Executor) => void = () => {},
  options: Partial<ExecutorOptions> = {},
): Promise<RedisFixture> {
  const server = await startTestServer({ accessToken: TOKEN });
  const redis = await startRedisStreamsServer();
  cleanups.push(async () => {
    await redis.close();
    await server.stop();
  });
  const logDir = await tempDir();
  const { logger, lines } = capturingLogger();
  const ex = createExecutor({
    appName: 'redis-app',
    accessToken: TOKEN,
    transport: 'redis',
    redis: REDIS_URL,
    serverAddresses: [server.address],
    logDir,
    logger,
    ...options,
    internal: { heartbeatIntervalMs: 60_000, ...options.internal },
  });
  redis.watch(ex.instanceId);
  register(ex);
  await ex.start();
  cleanups.push(async () => {
    await ex.stop({ timeoutMs: 0 });
    await rm(logDir, { recursive: true, force: true });
  });
  return { ex, instance: ex.instanceId, server, redis, logLines: lines };
}

/** A gate a handler waits on until the test opens it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** A handler that runs until its run is stopped. */
function untilStopped(ctx: { signal: AbortSignal }): Promise<never> {
  return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
}

describe('starting', () => {
  it('opens no port, is addressed as stream://<instance>/, and registers that address over HTTP after making its groups', async () => {
    const { ex, instance, server, redis } = await startRedisExecutor();
    expect(ex.transport).toBe('redis');
    expect(ex.address).toBe(streamAddress(instance));
    await server.waitFor(() => server.registrations.length > 0, 5_000, 'registration');
    expect(server.registrations[0]).toMatchObject({
      registryGroup: 'EXECUTOR',
      registryKey: 'redis-app',
      registryValue: streamAddress(instance),
    });
    for (const key of [runStreamKey(instance), callStreamKey(instance)]) {
      const groups = (await redis.redis.xinfo('GROUPS', key)) as unknown[][];
      expect(groups.map((g) => g[1])).toEqual([RUN_GROUP]);
      // Streams of an instance that never gets a run expire as the server's writes make them.
      expect(await redis.redis.ttl(key)).toBeGreaterThan(0);
    }
    // Reader and writer; the reader connects with its first read, which the registration does not wait for.
    await expect.poll(async () => (await redis.clientIds(connectionNameOf(instance))).length).toBe(2);
  });

  it('refuses to start when Redis cannot be reached, saying where without the password', async () => {
    const server = await startTestServer({ accessToken: TOKEN });
    cleanups.push(() => server.stop());
    const logDir = await tempDir();
    cleanups.push(() => rm(logDir, { recursive: true, force: true }));
    const ex = createExecutor({
      appName: 'redis-app',
      accessToken: TOKEN,
      transport: 'redis',
      redis: 'redis://:hunter2@127.0.0.1:1',
      serverAddresses: [server.address],
      serverCallTimeoutMs: 500,
      logDir,
      logger: capturingLogger().logger,
    });
    const err = (await ex.start().catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(
      /^cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1: connect ECONNREFUSED/,
    );
    expect(err.message).not.toContain('hunter2');
    expect(server.registrations).toEqual([]);
    await ex.stop();
  });
});

describe('runs from the run stream', () => {
  it('a run entry runs the handler, is acknowledged, and its result comes by callback under the stream address', async () => {
    const { instance, server, redis } = await startRedisExecutor((e) =>
      e.handle('hello', async (ctx) => `hello ${ctx.param}`),
    );
    const logId = freshLogId();
    await redis.writeRun(instance, trigger({ logId, executorParams: 'redis' }));
    expect(await server.callbackFor(logId)).toMatchObject({
      logId,
      handleCode: 200,
      handleMsg: 'hello redis',
    });
    const callback = server.requestsTo('/api/callback').at(-1)!;
    expect(callback.headers['tickwheel-address']).toBe(streamAddress(instance));
    await redis.allAcknowledged(runStreamKey(instance));
  });

  it("a workflow node's run entry gives the handler its upstream, and its output comes by callback", async () => {
    const { instance, server, redis } = await startRedisExecutor((e) =>
      e.handle('hello', async (ctx) => {
        ctx.setOutput({ sum: (ctx.upstream.A?.output as number) + 1, run: ctx.workflow?.runId });
        return 'added';
      }),
    );
    const logId = freshLogId();
    const workflow = {
      runId: 3,
      nodeKey: 'B',
      param: null,
      upstream: { A: { status: 'succeeded', output: 41 } },
    };
    await redis.writeRun(instance, trigger({ logId, workflow }));
    expect(await server.callbackFor(logId)).toMatchObject({
      logId,
      handleCode: 200,
      handleMsg: 'added',
      output: { sum: 42, run: 3 },
    });
  });

  it('runs written together do not wait for each other: all are acknowledged while the first still runs', async () => {
    const running = gate();
    let started = 0;
    const { instance, server, redis } = await startRedisExecutor((e) =>
      e.handle('held', async () => {
        started += 1;
        await running.wait;
        return 'done';
      }),
    );
    const logIds = Array.from({ length: 20 }, () => freshLogId());
    for (const [i, logId] of logIds.entries()) {
      await redis.writeRun(instance, trigger({ jobId: 200 + i, logId, executorHandler: 'held' }));
    }
    await until(() => started === 20, 5_000, 'twenty runs started');
    await redis.allAcknowledged(runStreamKey(instance));
    running.open();
    for (const logId of logIds) expect(await server.callbackFor(logId)).toMatchObject({ handleCode: 200 });
  });

  it('a DISCARD_LATER refusal is acknowledged and reported failed by callback with the block-strategy message', async () => {
    const running = gate();
    const { instance, server, redis } = await startRedisExecutor((e) => e.handle('held', () => running.wait));
    const first = freshLogId();
    const second = freshLogId();
    await redis.writeRun(
      instance,
      trigger({ jobId: 31, logId: first, executorHandler: 'held', executorBlockStrategy: 'DISCARD_LATER' }),
    );
    await redis.writeRun(
      instance,
      trigger({ jobId: 31, logId: second, executorHandler: 'held', executorBlockStrategy: 'DISCARD_LATER' }),
    );
    expect(await server.callbackFor(second)).toMatchObject({
      logId: second,
      handleCode: 500,
      handleMsg: WireMessages.discardLater,
    });
    await redis.allAcknowledged(runStreamKey(instance));
    running.open();
    expect(await server.callbackFor(first)).toMatchObject({ handleCode: 200 });
  });

  it('a run for a handler it does not have is reported failed with the reason', async () => {
    const { instance, server, redis } = await startRedisExecutor();
    const logId = freshLogId();
    await redis.writeRun(instance, trigger({ logId, executorHandler: 'nobody' }));
    expect(await server.callbackFor(logId)).toMatchObject({
      handleCode: 500,
      handleMsg: WireMessages.handlerNotFound('nobody'),
    });
  });

  it('the same logId written twice runs once: the repeat is acknowledged and fails nothing', async () => {
    let runs = 0;
    const { instance, server, redis } = await startRedisExecutor((e) =>
      e.handle('count', async () => {
        runs += 1;
        return 'counted';
      }),
    );
    const logId = freshLogId();
    await redis.writeRun(instance, trigger({ logId, executorHandler: 'count' }));
    expect(await server.callbackFor(logId)).toMatchObject({ handleCode: 200 });
    await redis.writeRun(instance, trigger({ logId, executorHandler: 'count' }));
    // A later run written after the repeat shows the repeat was read and passed over.
    const later = freshLogId();
    await redis.writeRun(instance, trigger({ jobId: 2, logId: later, executorHandler: 'count' }));
    await server.callbackFor(later);
    await redis.allAcknowledged(runStreamKey(instance));
    expect(runs).toBe(2);
    expect(server.callbacks.filter((c) => c.logId === logId)).toHaveLength(1);
  });

  it('an unreadable body is acknowledged, logged, and failed by callback when its logId can be read', async () => {
    const { instance, server, redis, logLines } = await startRedisExecutor();
    const logId = freshLogId();
    await redis.writeRun(instance, '{not json', logId);
    const result = await server.callbackFor(logId);
    expect(result.handleCode).toBe(500);
    expect(result.handleMsg).toMatch(/^run entry unreadable: body: not JSON/);
    await redis.writeRun(instance, { jobId: 'one' });
    const invalid = freshLogId();
    await redis.writeRun(instance, trigger({ logId: invalid, jobId: 'one' }));
    expect((await server.callbackFor(invalid)).handleMsg).toContain('jobId');
    await redis.allAcknowledged(runStreamKey(instance));
    expect(
      logLines.filter((l) => l.msg === 'run entry unreadable and without a logId; acknowledged'),
    ).toHaveLength(1);
    expect(
      logLines.filter(
        (l) => l.msg === 'run entry unreadable; acknowledged and reported as failed' && l.level === 40,
      ),
    ).toHaveLength(2);
  });
});

describe('calls from the call stream', () => {
  it('a kill call is answered on its replyTo channel and stops the run', async () => {
    const { instance, server, redis } = await startRedisExecutor((e) => e.handle('wait', untilStopped));
    const logId = freshLogId();
    await redis.writeRun(instance, trigger({ jobId: 7, logId, executorHandler: 'wait' }));
    await redis.allAcknowledged(runStreamKey(instance));
    const frame = await redis.call(instance, 'kill', { jobId: 7, logId });
    expect(frame).toEqual({
      t: 'answer',
      id: frame.id,
      answer: expect.objectContaining({ code: 200 }),
      runBatch: MAX_RUN_BATCH,
      killByLogId: true,
      instance,
    });
    const result = await server.callbackFor(logId);
    expect(result.handleCode).toBe(500);
    expect(result.handleMsg).toContain('killed');
    await redis.allAcknowledged(callStreamKey(instance));
  });

  it('a log call answers the run log page', async () => {
    const { instance, server, redis } = await startRedisExecutor((e) =>
      e.handle('chatty', async (ctx) => {
        ctx.log('a line from the handler');
      }),
    );
    const logId = freshLogId();
    const logDateTime = Date.now();
    await redis.writeRun(instance, trigger({ logId, logDateTime, executorHandler: 'chatty' }));
    await server.callbackFor(logId);
    const frame = await redis.call(instance, 'log', { logDateTim: logDateTime, logId, fromLineNum: 1 });
    const answer = frame.answer as { code: number; content: { fromLineNum: number; logContent: string } };
    expect(answer.code).toBe(200);
    expect(answer.content.logContent).toContain('a line from the handler');
  });

  it('beat, idleBeat, kill and log answer exactly what the HTTP endpoint answers, refusals included', async () => {
    const { instance, redis } = await startRedisExecutor();
    const push = await startExecutor();
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
    ];
    for (const [call, body] of cases) {
      const overRedis = (await redis.call(instance, call, body)).answer;
      const overHttp = (await push.call(call, body)).json;
      expect({ call, body, answer: overRedis }).toEqual({ call, body, answer: overHttp });
    }
  });

  it('an unknown call is answered as an unknown path is over HTTP, and a frame without replyTo is dropped', async () => {
    const { instance, redis, logLines } = await startRedisExecutor();
    expect((await redis.call(instance, 'frobnicate', {})).answer).toMatchObject({
      code: 500,
      msg: WireMessages.uriNotFound('/frobnicate'),
    });
    await redis.writeCallEntry(instance, {
      frame: JSON.stringify({ t: 'call', id: 1, call: 'beat', body: {} }),
    });
    await until(
      () =>
        logLines.some((l) => l.msg === 'call entry ignored (not a call frame with replyTo); acknowledged'),
      5_000,
      'the dropped frame',
    );
    await redis.allAcknowledged(callStreamKey(instance));
  });

  it('a slow call does not hold the calls written after it', async () => {
    const redis = await startRedisStreamsServer();
    cleanups.push(() => redis.close());
    const slowLog = gate();
    const instance = crypto.randomUUID();
    redis.watch(instance);
    const reader = new RedisStreamReader({
      url: REDIS_URL,
      instance,
      // A log read that takes until the test lets it finish, and every other call answered at once.
      answerCall: async (call) => {
        if (call === 'log') await slowLog.wait;
        return { code: 200, msg: call, content: null, data: null };
      },
      reportRefusal: () => {},
      connectTimeoutMs: 3_000,
      logger: capturingLogger().logger,
    });
    await reader.open();
    reader.start();
    cleanups.push(() => reader.stop());
    const log = redis.call(instance, 'log', { logDateTim: Date.now(), logId: 1, fromLineNum: 1 });
    let logAnswered = false;
    void log.then(() => {
      logAnswered = true;
    });
    expect((await redis.call(instance, 'kill', { jobId: 1 })).answer).toMatchObject({ msg: 'kill' });
    expect(logAnswered).toBe(false);
    slowLog.open();
    expect((await log).answer).toMatchObject({ msg: 'log' });
  });
});

describe('losing Redis', () => {
  it('reads on after its connections are killed, logging the loss once and the return once', async () => {
    const { instance, server, redis, logLines } = await startRedisExecutor((e) =>
      e.handle('hello', async () => 'after'),
    );
    await server.waitFor(() => server.registrations.length > 0, 5_000, 'registration');
    expect(await redis.killClients(connectionNameOf(instance))).toBe(2);
    await until(
      () =>
        logLines.some(
          (l) =>
            l.msg === 'redis connection back; reading resumes with the entries delivered before the loss',
        ),
      10_000,
      'the reconnect',
    );
    const logId = freshLogId();
    await redis.writeRun(instance, trigger({ logId }));
    expect(await server.callbackFor(logId)).toMatchObject({ handleCode: 200, handleMsg: 'after' });
    expect((await redis.call(instance, 'beat', {})).answer).toMatchObject({ code: 200 });
    expect(logLines.filter((l) => l.msg?.toString().startsWith('redis unreachable'))).toHaveLength(1);
    expect(await redis.clientIds(connectionNameOf(instance))).toHaveLength(2);
  });

  it('through a Redis outage nothing fails: the run written meanwhile is read once Redis answers, and the outage is logged once', async () => {
    const proxy = await startTcpProxy(Number(new URL(REDIS_URL).port || 6379), new URL(REDIS_URL).hostname);
    cleanups.push(() => proxy.close());
    const { instance, server, redis, logLines } = await startRedisExecutor(
      (e) => e.handle('hello', async () => 'after the outage'),
      { redis: `redis://127.0.0.1:${proxy.port}` },
    );
    await redis.blockedReader(connectionNameOf(instance));
    proxy.outage();
    const logId = freshLogId();
    await redis.writeRun(instance, trigger({ logId }));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(server.callbacks.some((c) => c.logId === logId)).toBe(false);
    proxy.restore();
    expect(await server.callbackFor(logId)).toMatchObject({ handleCode: 200, handleMsg: 'after the outage' });
    await redis.allAcknowledged(runStreamKey(instance));
    const warnings = logLines.filter((l) => l.msg?.toString().startsWith('redis unreachable'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 40, redis: `redis://127.0.0.1:${proxy.port}` });
    expect(warnings[0]!.reason).toEqual(expect.any(String));
    expect(logLines.filter((l) => l.msg?.toString().startsWith('redis connection back'))).toHaveLength(1);
  });

  it('after a reconnect it first reads the entries delivered to it before the loss and never acknowledged', async () => {
    const { instance, server, redis } = await startRedisExecutor((e) =>
      e.handle('hello', async () => 'found'),
    );
    const logId = freshLogId();
    const key = runStreamKey(instance);
    // A run delivered to the executor's consumer whose reply never reached it, as a connection
    // lost mid-read leaves it: written and read in its name in one transaction, so the
    // executor's blocked read, served only after it, finds nothing new.
    await redis.blockedReader(connectionNameOf(instance));
    const [[, entryId]] = (await redis.redis
      .multi()
      .xadd(key, '*', 'logId', String(logId), 'body', JSON.stringify(trigger({ logId })))
      .call('XREADGROUP', 'GROUP', RUN_GROUP, instance, 'COUNT', 1, 'STREAMS', key, '>')
      .exec()) as [[null, string], unknown];
    expect(((await redis.redis.xpending(key, RUN_GROUP, '-', '+', 10)) as unknown[][])[0]![0]).toBe(entryId);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.callbacks.some((c) => c.logId === logId)).toBe(false);
    await redis.killClients(connectionNameOf(instance));
    expect(await server.callbackFor(logId)).toMatchObject({ logId, handleCode: 200, handleMsg: 'found' });
    await redis.allAcknowledged(key);
    expect(server.callbacks.filter((c) => c.logId === logId)).toHaveLength(1);
  });
  it('a run stream gone under it (expired) is made again, and a run written to it meanwhile is read', async () => {
    const { instance, server, redis, logLines } = await startRedisExecutor((e) =>
      e.handle('hello', async () => 'again'),
    );
    const key = runStreamKey(instance);
    await redis.blockedReader(connectionNameOf(instance));
    await redis.redis.del(key);
    // Written as the server does, to a stream with no group yet.
    const logId = freshLogId();
    await redis.writeRun(instance, trigger({ logId }));
    expect(await server.callbackFor(logId)).toMatchObject({ handleCode: 200, handleMsg: 'again' });
    await redis.allAcknowledged(key);
    expect(logLines.some((l) => l.msg === 'redis stream or group gone (expired?); making them again')).toBe(
      true,
    );
  });
});

describe('stopping', () => {
  it('lets the running runs finish and report, unregisters, then closes its Redis connections', async () => {
    const running = gate();
    const { ex, instance, server, redis } = await startRedisExecutor((e) =>
      e.handle('held', () => running.wait.then(() => 'drained')),
    );
    const logId = freshLogId();
    await redis.writeRun(instance, trigger({ logId, executorHandler: 'held' }));
    await redis.allAcknowledged(runStreamKey(instance));
    const stopped = ex.stop({ timeoutMs: 5_000 });
    await server.waitFor(() => server.removals.length > 0, 5_000, 'the removal');
    expect(server.removals[0]).toMatchObject({ registryValue: streamAddress(instance) });
    // Calls are still answered during the drain.
    expect((await redis.call(instance, 'beat', {})).answer).toMatchObject({ code: 200 });
    running.open();
    await stopped;
    expect(await server.callbackFor(logId)).toMatchObject({ handleCode: 200, handleMsg: 'drained' });
    const deadline = Date.now() + 2_000;
    while ((await redis.clientIds(connectionNameOf(instance))).length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await redis.clientIds(connectionNameOf(instance))).toEqual([]);
  });
});

describe('options', () => {
  const base = { appName: 'x', accessToken: TOKEN, serverAddresses: ['http://127.0.0.1:1/'] };

  it.each([
    ['port', { port: 9999 }],
    ['host', { host: '0.0.0.0' }],
    ['advertisedAddress', { advertisedAddress: 'http://10.0.0.5:9999/' }],
  ])('refuses %s with the redis transport, naming it', (field, extra) => {
    expect(() => createExecutor({ ...base, transport: 'redis', redis: REDIS_URL, ...extra })).toThrow(
      expect.objectContaining({
        code: 'TW_ERR_INVALID_OPTION',
        field,
        message: `${field}: must not be given with the redis transport, which opens no port (the executor reads its runs from Redis)`,
      }),
    );
  });

  it('refuses the redis transport without a redis URL', () => {
    expect(() => createExecutor({ ...base, transport: 'redis' })).toThrow(
      expect.objectContaining({
        field: 'redis',
        message:
          'redis: is required with the redis transport: the URL of the Redis the servers write runs to (redis://host:6379)',
      }),
    );
  });

  it('refuses a redis URL with another transport', () => {
    expect(() => createExecutor({ ...base, transport: 'http-pull', redis: REDIS_URL })).toThrow(
      expect.objectContaining({
        field: 'redis',
        message: 'redis: is only for the redis transport (transport is http-pull)',
      }),
    );
    expect(() => createExecutor({ ...base, port: 0, redis: REDIS_URL })).toThrow(
      expect.objectContaining({
        field: 'redis',
        message: 'redis: is only for the redis transport (transport is http)',
      }),
    );
  });

  it.each([
    ['http://127.0.0.1:6379', 'redis: must be a redis:// or rediss:// URL, not http://'],
    ['not a url', 'redis: must be a redis:// or rediss:// URL (this one cannot be read)'],
    [
      'redis://127.0.0.1:6379/cache',
      'redis: its path must be a database number (redis://host:6379/0) or nothing',
    ],
  ])('refuses the redis URL %s', (redis, message) => {
    expect(() => createExecutor({ ...base, transport: 'redis', redis })).toThrow(
      expect.objectContaining({ field: 'redis', message }),
    );
  });

  it('accepts rediss:// and a database number', () => {
    for (const redis of ['rediss://redis.example.com:6380', 'redis://:pw@127.0.0.1:6379/2']) {
      expect(createExecutor({ ...base, transport: 'redis', redis }).transport).toBe('redis');
    }
  });

  it('refuses redis without a server address, and lists redis among the transports', () => {
    expect(() =>
      createExecutor({ appName: 'x', accessToken: TOKEN, transport: 'redis', redis: REDIS_URL }),
    ).toThrow(
      expect.objectContaining({
        field: 'serverAddresses',
        message:
          'serverAddresses: at least one is required with the redis transport (the executor registers and reports results over HTTP)',
      }),
    );
    expect(() => createExecutor({ ...base, transport: 'carrier-pigeon' as 'http' })).toThrow(
      expect.objectContaining({ message: 'transport: must be one of http, http-pull, redis' }),
    );
  });

  it('a redis executor cannot be mounted', () => {
    const ex = createExecutor({ ...base, transport: 'redis', redis: REDIS_URL });
    expect(() => ex.requestListener('/xxl-job')).toThrow(expect.objectContaining({ field: 'transport' }));
  });
});
