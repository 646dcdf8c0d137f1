/**
 * The server side of the `redis` transport, on the real Redis at 127.0.0.1:6379: a fake stream
 * executor (written here with ioredis, as the contract says: XGROUP CREATE, XREADGROUP, XACK,
 * PUBLISH of the answers to `replyTo`) reads what the executor client writes. A run lands in the
 * run stream with the contract's fields, trimmed and expiring; beat, kill and log calls are
 * answered back through the reply channel; a call with no answer times out; with Redis
 * unreachable a run fails at once as `connection`; and through a real server (SQLite and
 * PostgreSQL), a fire triggered while Redis is away (a TCP proxy of the test's own, closed) stays
 * pending and goes out once Redis is back. Every key and consumer group is the test's own
 * (unique instance ids and node ids) and deleted at the end; the shared Redis is never stopped.
 */
import { randomBytes } from 'node:crypto';
import {
  callStreamKey,
  type PullAnswerFrame,
  type PullCallFrame,
  parsePullFrame,
  RUN_GROUP,
  RUN_STREAM_MAX_LEN,
  replyChannel,
  runStreamKey,
  STREAM_TTL_SECONDS,
  streamAddress,
  type TriggerParam,
} from '@tickwheel/protocol';
import { startTcpProxy } from '@tickwheel/test-fixtures/tcp-proxy';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Dispatcher } from '../src/dispatch/dispatcher.js';
import { ExecutorClient } from '../src/dispatch/executor-client.js';
import { RedisStreams } from '../src/dispatch/redis-streams.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { callServer, createJob, E2E_TOKEN, firesOf, startServer } from './helpers/e2e.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const API_TOKEN = 'redis-test-api-token-0123456789abcdefghijklm';
const silent = pino({ level: 'silent' });

const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;

type Answerer = (frame: PullCallFrame) => Omit<PullAnswerFrame, 't' | 'id' | 'instance'> | undefined;

/** A run the fake executor read from its run stream. */
interface ReadRun {
  id: string;
  fields: Record<string, string>;
}

/** A stream executor: reads its two streams in the consumer group and answers calls on `replyTo`. */
class FakeStreamExecutor {
  readonly runs: ReadRun[] = [];
  readonly calls: PullCallFrame[] = [];
  answer: Answerer = () => ({ answer: { code: 200, msg: null } });
  private readonly reader: Redis;
  private readonly writer: Redis;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(readonly instance: string) {
    this.reader = new Redis(REDIS_URL, { connectionName: `tickwheel-test-executor:${instance}` });
    this.writer = new Redis(REDIS_URL);
  }

  get address(): string {
    return streamAddress(this.instance);
  }

  async start(): Promise<void> {
    for (const key of [runStreamKey(this.instance), callStreamKey(this.instance)]) {
      await this.writer.xgroup('CREATE', key, RUN_GROUP, '0', 'MKSTREAM');
    }
    this.loop = this.read();
  }

  private async read(): Promise<void> {
    const run = runStreamKey(this.instance);
    const call = callStreamKey(this.instance);
    while (!this.stopped) {
      const read = (await this.reader.xreadgroup(
        'GROUP',
        RUN_GROUP,
        this.instance,
        'COUNT',
        100,
        'BLOCK',
        100,
        'STREAMS',
        run,
        call,
        '>',
        '>',
      )) as [string, [string, string[]][]][] | null;
      for (const [key, entries] of read ?? []) {
        for (const [id, list] of entries) {
          const fields: Record<string, string> = {};
          for (let i = 0; i < list.length; i += 2) fields[list[i]!] = list[i + 1]!;
          if (key === run) this.runs.push({ id, fields });
          else await this.answerCall(fields.frame ?? '');
          await this.writer.xack(key, RUN_GROUP, id);
        }
      }
    }
  }

  private async answerCall(text: string): Promise<void> {
    const frame = parsePullFrame(text);
    if (frame?.t !== 'call' || frame.replyTo === undefined) return;
    this.calls.push(frame);
    const answer = this.answer(frame);
    if (answer === undefined) return;
    await this.writer.publish(
      frame.replyTo,
      JSON.stringify({ t: 'answer', id: frame.id, instance: this.instance, ...answer }),
    );
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.loop?.catch(() => undefined);
    await this.writer.del(runStreamKey(this.instance), callStreamKey(this.instance));
    this.reader.disconnect();
    await this.writer.quit();
  }
}

function trigger(logId: number, jobId = 7): TriggerParam {
  return {
    jobId,
    executorHandler: 'demo',
    executorParams: 'p',
    executorBlockStrategy: 'SERIAL_EXECUTION',
    executorTimeout: 0,
    logId,
    logDateTime: 1_700_000_000_000,
    glueType: 'BEAN',
    glueSource: '',
    glueUpdatetime: 0,
    broadcastIndex: 0,
    broadcastTotal: 1,
  };
}

async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A RedisStreams of a node of its own, and an executor client over it. */
async function harness(url = REDIS_URL, timeoutMs = 1_000) {
  const nodeId = unique('node');
  const streams = new RedisStreams({ url, nodeId, callTimeoutMs: timeoutMs, logger: silent });
  streams.start();
  cleanups.push(() => streams.close());
  const client = new ExecutorClient({
    accessToken: 'unused',
    timeoutMs,
    connectionsPerExecutor: 4,
    pipelining: 1,
    stream: streams,
  });
  cleanups.push(() => client.close());
  return { nodeId, streams, client };
}

async function executor(instance = unique('inst')): Promise<FakeStreamExecutor> {
  const ex = new FakeStreamExecutor(instance);
  await ex.start();
  cleanups.push(() => ex.close());
  return ex;
}

async function ttlOf(key: string): Promise<number> {
  const redis = new Redis(REDIS_URL);
  try {
    return await redis.ttl(key);
  } finally {
    await redis.quit();
  }
}

/** Watches the commands Redis runs on `key` (MONITOR), from now until `stop()`. */
async function monitorKey(key: string): Promise<{ commands: string[][]; stop(): void }> {
  const redis = new Redis(REDIS_URL);
  const monitor = await redis.monitor();
  const commands: string[][] = [];
  monitor.on('monitor', (_time: string, args: string[]) => {
    if (args[1] === key) commands.push(args);
  });
  return {
    commands,
    stop() {
      monitor.disconnect();
      redis.disconnect();
    },
  };
}

describe('the redis transport: RedisStreams and the executor client', () => {
  it('a run is XADDed to the run stream with logId and body, trimmed and expiring, and counts as queued', async () => {
    const h = await harness();
    await waitFor(() => h.streams.available, 'Redis connected');
    const ex = await executor();
    const key = runStreamKey(ex.instance);
    const monitor = await monitorKey(key);
    try {
      const target = { address: ex.address, protocol: 'G2' as const, appName: 'app' };
      const outcomes = await Promise.all([
        h.client.run(target, trigger(41)),
        h.client.run(target, trigger(42)),
      ]);
      for (const outcome of outcomes) {
        expect(outcome).toMatchObject({
          call: 'run',
          ok: true,
          code: 200,
          failure: null,
          msg: `queued on Redis stream ${key}`,
          instance: ex.instance,
        });
      }
      await waitFor(() => ex.runs.length === 2, 'the executor reads both runs');
      expect(ex.runs.map((r) => r.fields.logId)).toEqual(['41', '42']);
      expect(JSON.parse(ex.runs[0]!.fields.body!)).toEqual(trigger(41));
      expect(Object.keys(ex.runs[0]!.fields)).toEqual(['logId', 'body']);
      const ttl = await ttlOf(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(STREAM_TTL_SECONDS);
      await waitFor(() => monitor.commands.filter((c) => c[0] === 'expire').length >= 2, 'the EXPIREs');
      const xadds = monitor.commands.filter((c) => c[0] === 'xadd');
      expect(xadds).toHaveLength(2);
      expect(xadds[0]!.slice(0, 6)).toEqual(['xadd', key, 'MAXLEN', '~', String(RUN_STREAM_MAX_LEN), '*']);
      expect(monitor.commands.find((c) => c[0] === 'expire')).toEqual([
        'expire',
        key,
        String(STREAM_TTL_SECONDS),
      ]);
      // Runs go one by one: never a runBatch, never in the call stream.
      expect(ex.calls).toHaveLength(0);
    } finally {
      monitor.stop();
    }
  });

  it('beat, idleBeat, kill and log go through the call stream and come back on the reply channel', async () => {
    const h = await harness();
    await waitFor(() => h.streams.available, 'Redis connected');
    const ex = await executor();
    ex.answer = (frame) => {
      if (frame.call === 'idleBeat')
        return { answer: { code: 500, msg: 'job thread is running or has trigger queue.' } };
      if (frame.call === 'log') {
        return {
          answer: {
            code: 200,
            msg: null,
            content: { fromLineNum: 1, toLineNum: 2, logContent: 'one\ntwo\n', isEnd: true },
          },
        };
      }
      return { answer: { code: 200, msg: null }, killByLogId: true };
    };
    const target = { address: ex.address, protocol: 'G2' as const, appName: 'app' };
    expect(await h.client.beat(target)).toMatchObject({ ok: true, code: 200, instance: ex.instance });
    expect(await h.client.idleBeat(target, 3)).toMatchObject({
      ok: false,
      code: 500,
      failure: null,
      msg: 'job thread is running or has trigger queue.',
    });
    // killByLogId in the beat's answer: the kill stops the one run.
    expect(await h.client.killScope(target)).toBe('run');
    expect(await h.client.kill(target, 3, 99)).toMatchObject({ ok: true, code: 200 });
    const page = await h.client.logPage(
      target,
      { logDateTim: 1, logId: 99, fromLineNum: 1 },
      { maxLines: 100, maxBytes: 4096 },
    );
    expect(page).toMatchObject({ ok: true, instance: ex.instance });
    expect(page.content).toMatchObject({
      fromLineNum: 1,
      toLineNum: 2,
      logContent: 'one\ntwo\n',
      isEnd: true,
    });
    expect(ex.calls.map((c) => [c.call, c.body])).toEqual([
      ['beat', {}],
      ['idleBeat', { jobId: 3 }],
      ['beat', {}],
      ['kill', { jobId: 3, logId: 99 }],
      ['log', { logDateTim: 1, logId: 99, fromLineNum: 1 }],
    ]);
    for (const call of ex.calls) expect(call.replyTo).toBe(replyChannel(h.nodeId));
    expect(new Set(ex.calls.map((c) => c.id)).size).toBe(ex.calls.length);
    const ttl = await ttlOf(callStreamKey(ex.instance));
    expect(ttl).toBeGreaterThan(0);
  });

  it('a call with no answer times out; a run to a stream executor never waits for one', async () => {
    const h = await harness(REDIS_URL, 300);
    await waitFor(() => h.streams.available, 'Redis connected');
    const ex = await executor();
    ex.answer = () => undefined;
    const target = { address: ex.address, protocol: 'G2' as const, appName: 'app' };
    const started = Date.now();
    expect(await h.client.beat(target)).toMatchObject({
      ok: false,
      failure: 'timeout',
      msg: 'timeout after 300 ms',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await h.client.run(target, trigger(5))).toMatchObject({ ok: true, code: 200 });
  });

  it('with Redis unreachable a run fails at once as connection, with the reason; without --redis it says so', async () => {
    const h = await harness('redis://127.0.0.1:1', 3_000);
    const target = { address: streamAddress(unique('inst')), protocol: 'G2' as const, appName: 'app' };
    const started = Date.now();
    const outcome = await h.client.run(target, trigger(1));
    expect(outcome).toMatchObject({ ok: false, failure: 'connection' });
    expect(outcome.msg).toMatch(/^Redis: /);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(h.streams.available).toBe(false);
    expect(await h.client.beat(target)).toMatchObject({ ok: false, failure: 'connection' });

    const bare = new ExecutorClient({
      accessToken: 'x',
      timeoutMs: 500,
      connectionsPerExecutor: 1,
      pipelining: 1,
    });
    cleanups.push(() => bare.close());
    expect(await bare.run(target, trigger(2))).toMatchObject({
      ok: false,
      failure: 'connection',
      msg: 'this server has no --redis',
    });
  });

  it('the dispatcher keeps a run to a stream executor back as transport-down while Redis is away', async () => {
    const nodeId = unique('node');
    const streams = new RedisStreams({
      url: 'redis://127.0.0.1:1',
      nodeId,
      callTimeoutMs: 1_000,
      logger: silent,
    });
    streams.start();
    cleanups.push(() => streams.close());
    // One that does not say whether Redis is up: the run itself is tried, fails, and is kept back.
    const unknowing = new Dispatcher({
      accessToken: 'x',
      stream: { call: (address, call, body, timeoutMs) => streams.call(address, call, body, timeoutMs) },
    });
    cleanups.push(() => unknowing.close());
    const dispatcher = new Dispatcher({ accessToken: 'x', stream: streams });
    cleanups.push(() => dispatcher.close());
    const address = streamAddress(unique('inst'));
    const fire = {
      fireId: 11,
      jobId: 4,
      appName: 'app',
      scheduledAt: 1,
      triggerType: 'MANUAL' as const,
      executorHandler: 'demo',
      executorParam: '',
      executorBlockStrategy: 'SERIAL_EXECUTION' as const,
      executorTimeout: 0,
      glueType: 'BEAN',
      glueSource: '',
      glueUpdatedAt: 0,
      routeStrategy: 'FIRST' as const,
    };
    const targets = [{ address, protocol: 'G2' as const, appName: 'app' }];
    const [first] = await unknowing.dispatch(fire, targets);
    expect(first).toMatchObject({ fireId: 11, notSent: 'transport-down', address });
    expect(first!.triggerMsg).toContain('Redis is unreachable');
    // Known down: kept back before routing (a FAILOVER would beat nobody).
    await waitFor(() => !streams.available, 'Redis known down');
    const [second] = await dispatcher.dispatch({ ...fire, routeStrategy: 'FAILOVER' }, targets);
    expect(second).toMatchObject({ fireId: 11, address: null, notSent: 'transport-down' });
    expect(second!.triggerMsg).toContain('Redis is unreachable');
  });
});

describe.each([
  'sqlite',
  'postgres',
] as const)('the redis transport through a real server on %s', (dialect) => {
  it('a fire triggered while Redis is away stays pending, and is sent once Redis answers again', async () => {
    const db: TestDatabase = await createTestDatabase(dialect);
    cleanups.push(() => db.drop());
    const proxy = await startTcpProxy(6379);
    cleanups.push(() => proxy.close());
    const nodeId = unique('node');
    const e2e = await startServer({
      database: db.url,
      nodeId,
      apiToken: API_TOKEN,
      redis: `redis://127.0.0.1:${proxy.port}`,
    });
    cleanups.push(() => e2e.close());
    const { server, store } = e2e;
    const appName = unique('redis-app');
    const appId = (await store.apps.createApp({ appName, title: appName, addressType: 'AUTO' }, Date.now()))
      .id;
    const job = await store.jobs.createJob(
      { app_id: appId, name: 'streamed', executor_handler: 'demo' },
      Date.now(),
    );
    const ex = await executor();
    const registered = await callServer({ url: server.url, accessToken: E2E_TOKEN }, 'registry', {
      registryGroup: 'EXECUTOR',
      registryKey: appName,
      registryValue: ex.address,
      instance: ex.instance,
    });
    expect(registered).toMatchObject({ code: 200 });
    await waitFor(() => server.executorsOnline(appName).includes(ex.address), 'the stream executor online');

    // The app's executors list it as a redis one.
    const listed = await fetch(`${server.url}api/v1/apps/${appId}/executors`, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(await listed.json()).toMatchObject({
      items: [{ address: ex.address, protocol: 'G2', transport: 'redis' }],
    });

    // With Redis up, a trigger is queued on the stream at once.
    const up = await server.triggerJob({ jobId: job.id });
    expect(up.outcomes).toMatchObject([
      { address: ex.address, triggerCode: 200, executorInstance: ex.instance },
    ]);
    await waitFor(() => ex.runs.length === 1, 'the first run read');
    expect(ex.runs[0]!.fields.logId).toBe(String(up.fireId));
    expect((await store.fires.findFireById(up.fireId))!).toMatchObject({
      status: 'dispatched',
      trigger_code: 200,
      executor_address: ex.address,
    });

    // Redis away: the fire stays pending — not dispatch_failed — and nothing reaches the stream.
    proxy.outage();
    const down = await server.triggerJob({ jobId: job.id });
    expect(down.outcomes).toMatchObject([{ fireId: down.fireId, notSent: 'transport-down' }]);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await store.fires.findFireById(down.fireId))!.status).toBe('pending');
    expect(ex.runs).toHaveLength(1);

    // Redis back: the same record goes out, once.
    proxy.restore();
    await waitFor(
      async () => (await store.fires.findFireById(down.fireId))!.status === 'dispatched',
      'the kept-back fire dispatched',
    );
    await waitFor(() => ex.runs.length === 2, 'the second run read');
    expect(ex.runs[1]!.fields.logId).toBe(String(down.fireId));
    const record = (await store.fires.findFireById(down.fireId))!;
    expect(record).toMatchObject({
      trigger_code: 200,
      executor_address: ex.address,
      executor_instance: ex.instance,
    });
    expect(record.trigger_msg).toContain(`queued on Redis stream ${runStreamKey(ex.instance)}`);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(ex.runs).toHaveLength(2);
  }, 30_000);

  it('every-second fires due while Redis is away stay pending (none failed) and all go out, once each, when it is back', async () => {
    const db: TestDatabase = await createTestDatabase(dialect);
    cleanups.push(() => db.drop());
    const proxy = await startTcpProxy(6379);
    cleanups.push(() => proxy.close());
    const e2e = await startServer({
      database: db.url,
      nodeId: unique('node'),
      redis: `redis://127.0.0.1:${proxy.port}`,
    });
    cleanups.push(() => e2e.close());
    const { server, store } = e2e;
    const appName = unique('redis-app');
    const appId = (await store.apps.createApp({ appName, title: appName, addressType: 'AUTO' }, Date.now()))
      .id;
    const ex = await executor();
    await callServer({ url: server.url, accessToken: E2E_TOKEN }, 'registry', {
      registryGroup: 'EXECUTOR',
      registryKey: appName,
      registryValue: ex.address,
      instance: ex.instance,
    });
    await waitFor(() => server.executorsOnline(appName).includes(ex.address), 'the stream executor online');
    proxy.outage();
    const job = await createJob(store, {
      app_id: appId,
      name: 'every second',
      schedule_type: 'CRON',
      schedule_conf: '* * * * * ?',
      executor_handler: 'demo',
    });
    await waitFor(
      async () => (await firesOf(store, job.id)).length >= 3,
      'three fires due during the outage',
    );
    const during = await firesOf(store, job.id);
    expect(during.every((f) => f.status === 'pending')).toBe(true);
    expect(ex.runs).toHaveLength(0);
    proxy.restore();
    const kept = during.map((f) => f.id);
    await waitFor(
      async () =>
        (await firesOf(store, job.id)).filter((f) => kept.includes(f.id) && f.status === 'dispatched')
          .length === kept.length,
      'the fires of the outage dispatched',
    );
    await waitFor(
      () => kept.every((id) => ex.runs.some((r) => r.fields.logId === String(id))),
      'their runs read',
    );
    const fires = await firesOf(store, job.id);
    expect(fires.filter((f) => f.status === 'dispatch_failed')).toHaveLength(0);
    const logIds = ex.runs.map((r) => r.fields.logId);
    expect(new Set(logIds).size).toBe(logIds.length);
  }, 30_000);

  it('api/registry takes stream://<instance>/ and refuses other schemes; a trigger override takes it only online', async () => {
    const db: TestDatabase = await createTestDatabase(dialect);
    cleanups.push(() => db.drop());
    const e2e = await startServer({
      database: db.url,
      nodeId: unique('node'),
      apiToken: API_TOKEN,
      redis: REDIS_URL,
    });
    cleanups.push(() => e2e.close());
    const { server, store } = e2e;
    const appName = unique('redis-app');
    const appId = (await store.apps.createApp({ appName, title: appName, addressType: 'AUTO' }, Date.now()))
      .id;
    const job = await store.jobs.createJob(
      { app_id: appId, name: 'override', executor_handler: 'demo' },
      Date.now(),
    );
    const instance = unique('inst');
    const register = (registryValue: string, call = 'registry') =>
      callServer({ url: server.url, accessToken: E2E_TOKEN }, call, {
        registryGroup: 'EXECUTOR',
        registryKey: appName,
        registryValue,
      });
    expect(await register(` ${streamAddress(instance)} `)).toMatchObject({ code: 200 });
    await waitFor(() => server.executorsOnline(appName).includes(streamAddress(instance)), 'registered');
    for (const value of [
      'stream://not an instance/',
      'stream://',
      'redis://127.0.0.1:6379/',
      'streams://x/',
    ]) {
      expect((await register(value)).code).toBe(500);
    }
    const restTrigger = (addressList: string[]) =>
      fetch(`${server.url}api/v1/jobs/${job.id}/trigger`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ addressList }),
      });
    const accepted = await restTrigger([streamAddress(instance)]);
    expect(accepted.status).toBe(200);
    const refused = await restTrigger([streamAddress(unique('inst'))]);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('is not an online executor');
    // A MANUAL app's typed list takes http(s) addresses only.
    const manual = await fetch(`${server.url}api/v1/apps/${appId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ addressType: 'MANUAL', addressList: [streamAddress(instance)] }),
    });
    expect(manual.status).toBe(400);
    expect(await register(streamAddress(instance), 'registryRemove')).toMatchObject({ code: 200 });
    await waitFor(() => !server.executorsOnline(appName).includes(streamAddress(instance)), 'removed');
    // The accepted trigger's run went to the stream; its key is the test's to delete.
    const redis = new Redis(REDIS_URL);
    await redis.del(runStreamKey(instance), callStreamKey(instance));
    await redis.quit();
  });
});
