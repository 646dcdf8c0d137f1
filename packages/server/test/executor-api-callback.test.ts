import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createExecutor, type Executor } from '@tickwheel/executor';
import type { ProtocolGeneration } from '@tickwheel/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { broadcastTargets, Dispatcher, type FireToDispatch } from '../src/dispatch/dispatcher.js';
import { ResultRecorder } from '../src/executor-api/result-recorder.js';
import type { FireResult, FireRow, Store } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import {
  type ApiServer,
  callbackItem,
  createAppWithJob,
  createDispatchedFires,
  post,
  silentLogger,
  startApiServer,
  storeFence,
  TOKEN,
} from './helpers/executor-api-server.js';

async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 8_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function fireToDispatch(
  fire: FireRow,
  appName: string,
  fields: Partial<FireToDispatch> = {},
): FireToDispatch {
  return {
    fireId: fire.id,
    jobId: fire.job_id,
    appName,
    scheduledAt: fire.scheduled_at,
    triggerType: 'MANUAL',
    executorHandler: 'demo',
    executorParam: '',
    executorBlockStrategy: 'SERIAL_EXECUTION',
    executorTimeout: 0,
    glueType: 'BEAN',
    glueSource: '',
    glueUpdatedAt: 0,
    routeStrategy: 'FIRST',
    ...fields,
  };
}

describe.each(DIALECTS)('callbacks on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  let server: ApiServer;
  let dispatcher: Dispatcher;
  const executors: Array<{ ex: Executor; logDir: string }> = [];

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    store = await database.open();
    server = await startApiServer(store);
    dispatcher = new Dispatcher({ accessToken: TOKEN, fence: storeFence(store) });
  });
  afterEach(async () => {
    for (const { ex, logDir } of executors.splice(0)) {
      await ex.stop({ timeoutMs: 0 });
      await rm(logDir, { recursive: true, force: true });
    }
    await server.recorder.idle();
    server.hookCalls.length = 0;
  });
  afterAll(async () => {
    await dispatcher.close();
    await server.close();
    await database.drop();
  });

  async function startRealExecutor(appName: string, protocol: ProtocolGeneration): Promise<Executor> {
    const logDir = await mkdtemp(path.join(os.tmpdir(), 'tw-exapi-'));
    const ex = createExecutor({
      appName,
      accessToken: TOKEN,
      port: 0,
      serverAddresses: [server.address],
      logDir,
      protocol,
      logger: silentLogger,
      internal: { heartbeatIntervalMs: 60_000 },
    });
    ex.handle('demo', async (ctx) => {
      if (ctx.param === 'fail') throw new Error('the handler gave up');
      return `done ${ctx.shardIndex}/${ctx.shardTotal}`;
    });
    executors.push({ ex, logDir });
    await ex.start();
    await until(
      () => server.directory.addressesOf(appName).some((e) => e.address === ex.address),
      'registration',
    );
    return ex;
  }

  async function fireRow(id: number): Promise<FireRow> {
    return (await store.fires.findFireById(id))!;
  }

  async function dispatchAndMark(fire: FireToDispatch, appName: string) {
    const outcomes = await dispatcher.dispatch(fire, server.directory.addressesOf(appName));
    await store.fires.markDispatched(
      outcomes
        .filter((o) => o.triggerCode === 200)
        .map((o) => ({
          fireId: o.fireId,
          triggerAt: o.triggerAt,
          executorAddress: o.address,
          triggerCode: o.triggerCode,
          triggerMsg: o.triggerMsg,
        })),
    );
    return outcomes;
  }

  async function waitFinished(id: number): Promise<FireRow> {
    await until(async () => (await fireRow(id)).handle_code !== null, `the result of fire ${id}`);
    await server.recorder.idle();
    return fireRow(id);
  }

  it("a real executor's callback finalises the fire record it ran", async () => {
    const target = await createAppWithJob(store, Date.now());
    await startRealExecutor(target.appName, 'G2');
    const [id] = await createDispatchedFires(store, target, 1, null, Date.now());
    const [outcome] = await dispatchAndMark(
      fireToDispatch((await fireRow(id!))!, target.appName),
      target.appName,
    );
    expect(outcome?.triggerCode).toBe(200);
    const row = await waitFinished(id!);
    expect(row).toMatchObject({ status: 'succeeded', handle_code: 200, handle_msg: 'done 0/1' });
    expect(row.handle_at).toBeGreaterThan(0);
    expect(server.hookCalls.flat().map((f) => [f.fireId, f.status])).toEqual([[id, 'succeeded']]);
  });

  it("a real G4 executor's failure ({callbackList}, logDateTime) fails the record with the handler's message", async () => {
    const target = await createAppWithJob(store, Date.now());
    await startRealExecutor(target.appName, 'G4');
    const [id] = await createDispatchedFires(store, target, 1, null, Date.now());
    const fire = fireToDispatch((await fireRow(id!))!, target.appName, { executorParam: 'fail' });
    await dispatchAndMark(fire, target.appName);
    const row = await waitFinished(id!);
    expect(row.status).toBe('failed');
    expect(row.handle_code).toBe(500);
    expect(row.handle_msg).toContain('the handler gave up');
  });

  it("a broadcast's shards are finished by their callbacks, then its own record from them", async () => {
    const target = await createAppWithJob(store, Date.now());
    await startRealExecutor(target.appName, 'G2');
    await startRealExecutor(target.appName, 'G4');
    const [parentId] = await createDispatchedFires(store, target, 1, null, Date.now());
    const parent = (await fireRow(parentId!))!;
    const broadcaster = new Dispatcher({
      accessToken: TOKEN,
      // As the server's: each shard's record names its executor before its run goes out, so a
      // callback that comes before the marks below still counts (it names that executor).
      fence: storeFence(store),
    });
    try {
      // As the pipeline does: the shard records exist before the runs go out.
      const fire = fireToDispatch(parent, target.appName, { routeStrategy: 'SHARDING_BROADCAST' });
      const addresses = server.directory.addressesOf(target.appName);
      fire.shardFireIds = await store.fires.createFires(
        broadcastTargets(fire, addresses).map((shard) => ({
          jobId: fire.jobId,
          appId: target.appId,
          scheduledAt: fire.scheduledAt,
          triggerType: fire.triggerType,
          executorHandler: fire.executorHandler,
          executorParam: fire.executorParam,
          parentFireId: fire.fireId,
          shardIndex: shard.shardIndex,
          shardTotal: shard.shardTotal,
        })),
        Date.now(),
      );
      const outcomes = await broadcaster.dispatch(fire, addresses);
      expect(outcomes.map((o) => o.triggerCode)).toEqual([200, 200]);
      await store.fires.markDispatched([
        ...outcomes.map((o) => ({
          fireId: o.fireId,
          triggerAt: o.triggerAt,
          executorAddress: o.address,
          triggerCode: 200,
          triggerMsg: o.triggerMsg,
        })),
        {
          fireId: parentId!,
          triggerAt: Date.now(),
          executorAddress: null,
          triggerCode: 200,
          triggerMsg: 'broadcast',
        },
      ]);
      const settledParent = await waitFinished(parentId!);
      expect(settledParent).toMatchObject({
        status: 'succeeded',
        handle_code: 200,
        handle_msg: 'broadcast: all 2 shards succeeded',
      });
      const shards = await store.fires.findChildFires(parentId!);
      expect(shards.map((s) => [s.status, s.handle_msg])).toEqual([
        ['succeeded', 'done 0/2'],
        ['succeeded', 'done 1/2'],
      ]);
      const announced = server.hookCalls.flat().map((f) => f.fireId);
      expect(announced.sort()).toEqual([parentId!, ...shards.map((s) => s.id)].sort());
    } finally {
      await broadcaster.close();
    }
  });

  it('every XXL-JOB shape is accepted: an array, {callbackList}, G1 executeResult, both time spellings', async () => {
    const target = await createAppWithJob(store, Date.now());
    const ids = await createDispatchedFires(store, target, 4, 'http://10.0.0.1:9999/', Date.now());
    const answers = [
      await post(server.address, '/api/callback', [callbackItem(ids[0]!, 200, 'array item')]),
      await post(server.address, '/api/callback', {
        callbackList: [
          { logId: ids[1], logDateTime: Date.now(), handleCode: 502, handleMsg: 'job execute timeout ' },
        ],
      }),
      await post(server.address, '/api/callback', [
        { logId: ids[2], logDateTim: Date.now(), executeResult: { code: 500, msg: 'G1 failure' } },
      ]),
      // 2.x leaves handleMsg out when it is null.
      await post(server.address, '/api/callback', [
        { logId: ids[3], logDateTim: Date.now(), handleCode: 200 },
      ]),
    ];
    for (const answer of answers)
      expect(answer.body).toEqual({ code: 200, msg: 'Success', content: null, data: null });
    const rows = await store.fires.findFiresByIds(ids);
    expect(rows.map((r) => [r.status, r.handle_code, r.handle_msg])).toEqual([
      ['succeeded', 200, 'array item'],
      ['timeout', 502, 'job execute timeout '],
      ['failed', 500, 'G1 failure'],
      ['succeeded', 200, null],
    ]);
  });

  it('a duplicated callback changes nothing and the hook fires once per record', async () => {
    const target = await createAppWithJob(store, Date.now());
    const [id] = await createDispatchedFires(store, target, 1, 'http://10.0.0.1:9999/', Date.now());
    await post(server.address, '/api/callback', [callbackItem(id!, 200, 'first')]);
    const first = await fireRow(id!);
    const again = await post(server.address, '/api/callback', [callbackItem(id!, 200, 'first')]);
    const other = await post(server.address, '/api/callback', {
      callbackList: [callbackItem(id!, 500, 'second')],
    });
    expect(again.body.code).toBe(200);
    expect(other.body.code).toBe(200);
    await server.recorder.idle();
    expect(await fireRow(id!)).toEqual(first);
    expect(server.hookCalls.flat().filter((f) => f.fireId === id)).toHaveLength(1);
  });

  it('the same result twice in one batch finalises the record once', async () => {
    const target = await createAppWithJob(store, Date.now());
    const [id] = await createDispatchedFires(store, target, 1, 'http://10.0.0.1:9999/', Date.now());
    await post(server.address, '/api/callback', [
      callbackItem(id!, 200, 'one'),
      callbackItem(id!, 500, 'two'),
    ]);
    await server.recorder.idle();
    expect((await fireRow(id!)).handle_msg).toBe('one');
    expect(server.hookCalls.flat().filter((f) => f.fireId === id)).toHaveLength(1);
  });

  it('an unknown logId is ignored and the rest of the batch is stored', async () => {
    const target = await createAppWithJob(store, Date.now());
    const [id] = await createDispatchedFires(store, target, 1, 'http://10.0.0.1:9999/', Date.now());
    const answer = await post(server.address, '/api/callback', [
      callbackItem(987_654_321),
      callbackItem(id!),
    ]);
    expect(answer.body.code).toBe(200);
    expect((await fireRow(id!)).status).toBe('succeeded');
    expect(await store.fires.findFireById(987_654_321)).toBeUndefined();
  });

  it('an item that cannot be read is skipped and the rest of the batch is stored', async () => {
    const target = await createAppWithJob(store, Date.now());
    const [id] = await createDispatchedFires(store, target, 1, 'http://10.0.0.1:9999/', Date.now());
    const answer = await post(server.address, '/api/callback', [
      { logId: 'nope', handleCode: 200 },
      { logId: id, logDateTim: 1 },
      callbackItem(id!, 200, 'good'),
    ]);
    expect(answer.body.code).toBe(200);
    expect((await fireRow(id!)).handle_msg).toBe('good');
  });

  it('a body that is neither an array nor {callbackList} gets code 500 saying so', async () => {
    const answer = await post(server.address, '/api/callback', { logId: 1, handleCode: 200 });
    expect(answer.status).toBe(200);
    expect(answer.body.code).toBe(500);
    expect(answer.body.msg).toContain('must be an array or {"callbackList": [...]}');
  });

  it('results are counted by handle code as they arrive, duplicates included', async () => {
    const target = await createAppWithJob(store, Date.now());
    const [id] = await createDispatchedFires(store, target, 1, 'http://10.0.0.1:9999/', Date.now());
    const before = server.metrics.callbacks.length;
    await post(server.address, '/api/callback', [callbackItem(id!, 502), callbackItem(id!, 502)]);
    expect(server.metrics.callbacks.slice(before)).toEqual([502, 502]);
    expect(server.metrics.finished.at(-1)).toBe('timeout');
  });
});

describe('the result recorder', () => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    store = await database.open();
  });
  afterAll(async () => {
    await database.drop();
  });

  function countingRecorder(maxBatchSize?: number, writeSpacingMs?: number) {
    const calls: number[] = [];
    const hookCalls: number[][] = [];
    const recorder = new ResultRecorder({
      writeSpacingMs,
      fires: {
        ...store.fires,
        finishFires: (results: readonly FireResult[]) => {
          calls.push(results.length);
          return store.fires.finishFires(results);
        },
      },
      clock: { now: () => Date.now() },
      logger: silentLogger,
      maxBatchSize,
    });
    recorder.announceTo((finished) => {
      hookCalls.push(finished.map((f) => f.fireId));
    });
    return { recorder, calls, hookCalls };
  }

  const result = (fireId: number, handleCode = 200): FireResult => ({
    fireId,
    handleCode,
    handleMsg: null,
    handleAt: Date.now(),
  });

  it('results handed in while a batch is written go into one transaction together', async () => {
    const target = await createAppWithJob(store, Date.now());
    const ids = await createDispatchedFires(store, target, 6, 'http://10.0.0.1:9999/', Date.now());
    const { recorder, calls, hookCalls } = countingRecorder();
    const answers = await Promise.all(ids.map((id) => recorder.record([result(id)])));
    expect(calls).toEqual([6]);
    expect(answers.map((finished) => finished.map((f) => f.fireId))).toEqual(ids.map((id) => [id]));
    await recorder.idle();
    expect(hookCalls).toEqual([ids]);
  });

  it('results that come soon after a write wait out the spacing and share the next write; a lone one goes at once', async () => {
    const target = await createAppWithJob(store, Date.now());
    const ids = await createDispatchedFires(store, target, 4, 'http://10.0.0.1:9999/', Date.now());
    const { recorder, calls } = countingRecorder(undefined, 300);
    let started = performance.now();
    await recorder.record([result(ids[0]!)]);
    expect(performance.now() - started).toBeLessThan(250);
    started = performance.now();
    const later = await Promise.all([
      recorder.record([result(ids[1]!)]),
      new Promise((resolve) => setTimeout(resolve, 50)).then(() => recorder.record([result(ids[2]!)])),
      new Promise((resolve) => setTimeout(resolve, 100)).then(() => recorder.record([result(ids[3]!)])),
    ]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(calls).toEqual([1, 3]);
    expect(later.map((finished) => finished.map((f) => f.fireId))).toEqual([[ids[1]], [ids[2]], [ids[3]]]);
  });

  it('a large batch is written in transactions of at most the batch size', async () => {
    const target = await createAppWithJob(store, Date.now());
    const ids = await createDispatchedFires(store, target, 5, 'http://10.0.0.1:9999/', Date.now());
    const { recorder, calls } = countingRecorder(2);
    const finished = await recorder.record(ids.map((id) => result(id)));
    expect(calls).toEqual([2, 2, 1]);
    expect(finished.map((f) => f.fireId)).toEqual(ids);
  });

  it('while writes are slow, whole batches waiting are written beside them, two at most, never sharing a fire', async () => {
    const target = await createAppWithJob(store, Date.now());
    const ids = await createDispatchedFires(store, target, 6, 'http://10.0.0.1:9999/', Date.now());
    const started: number[][] = [];
    const ended: number[][] = [];
    let inFlight = 0;
    let most = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const recorder = new ResultRecorder({
      fires: {
        ...store.fires,
        finishFires: async (results: readonly FireResult[]) => {
          const batch = results.map((r) => r.fireId);
          started.push(batch);
          most = Math.max(most, ++inFlight);
          await gate; // transactions stuck behind others
          try {
            return await store.fires.finishFires(results);
          } finally {
            inFlight--;
            ended.push(batch);
          }
        },
      },
      clock: { now: () => Date.now() },
      logger: silentLogger,
      maxBatchSize: 2,
    });
    const first = recorder.record([result(ids[0]!), result(ids[1]!)]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = recorder.record([result(ids[2]!), result(ids[3]!)]);
    const third = recorder.record([result(ids[4]!), result(ids[5]!)]);
    const again = recorder.record([result(ids[0]!)]); // re-sent while its first write is in flight
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started).toEqual([
      [ids[0], ids[1]],
      [ids[2], ids[3]],
    ]);
    open();
    expect((await first).map((f) => f.fireId)).toEqual([ids[0], ids[1]]);
    expect((await second).map((f) => f.fireId)).toEqual([ids[2], ids[3]]);
    expect((await third).map((f) => f.fireId)).toEqual([ids[4], ids[5]]);
    expect(await again).toEqual([]);
    await recorder.idle();
    expect(most).toBe(2);
    // The re-sent result was written only after the write that carried its fire had ended.
    const resent = started.findIndex((batch, i) => i > 0 && batch.includes(ids[0]!));
    expect(resent).toBeGreaterThan(0);
    expect(ended.findIndex((batch) => batch.includes(ids[0]!))).toBeLessThan(resent);
    for (const id of ids) expect((await store.fires.findFireById(id))?.status).toBe('succeeded');
  });

  it('a store failure rejects the results of that batch, and the next batch is written', async () => {
    const target = await createAppWithJob(store, Date.now());
    const [id] = await createDispatchedFires(store, target, 1, 'http://10.0.0.1:9999/', Date.now());
    let failNext = true;
    const recorder = new ResultRecorder({
      fires: {
        ...store.fires,
        finishFires: (results: readonly FireResult[]) => {
          if (failNext) {
            failNext = false;
            return Promise.reject(new Error('database is down'));
          }
          return store.fires.finishFires(results);
        },
      },
      clock: { now: () => Date.now() },
      logger: silentLogger,
    });
    await expect(recorder.record([result(id!)])).rejects.toThrow('database is down');
    expect((await recorder.record([result(id!)])).map((f) => f.fireId)).toEqual([id]);
  });

  it('a failing hook is logged and the records stay finished', async () => {
    const target = await createAppWithJob(store, Date.now());
    const [id] = await createDispatchedFires(store, target, 1, 'http://10.0.0.1:9999/', Date.now());
    const recorder = new ResultRecorder({
      fires: store.fires,
      clock: { now: () => Date.now() },
      logger: silentLogger,
    });
    recorder.announceTo(() => {
      throw new Error('hook broke');
    });
    expect(await recorder.record([result(id!)])).toHaveLength(1);
    await recorder.idle();
    expect((await store.fires.findFireById(id!))?.status).toBe('succeeded');
  });

  it("a broadcast's record takes the shards' shared failure status, or failed when they differ", async () => {
    const target = await createAppWithJob(store, Date.now());
    const now = Date.now();
    const [timedOutParent, mixedParent] = await createDispatchedFires(store, target, 2, null, now);
    const timedOut = await createDispatchedFires(store, target, 2, 'http://10.0.0.1:9999/', now, {
      parentFireId: timedOutParent,
      shardTotal: 2,
    });
    const mixed = await createDispatchedFires(store, target, 3, 'http://10.0.0.1:9999/', now, {
      parentFireId: mixedParent,
      shardTotal: 3,
    });
    const { recorder } = countingRecorder();
    await recorder.record([result(timedOut[0]!, 200), result(timedOut[1]!, 502)]);
    await recorder.record([result(mixed[0]!, 502), result(mixed[1]!, 500)]);
    await recorder.idle();
    expect(await store.fires.findFireById(timedOutParent!)).toMatchObject({
      status: 'timeout',
      handle_code: 502,
      handle_msg: 'broadcast: 1 of 2 shards succeeded; shard 1 timeout',
    });
    expect((await store.fires.findFireById(mixedParent!))?.status).toBe('pending');
    await recorder.record([result(mixed[2]!, 200)]);
    await recorder.idle();
    expect(await store.fires.findFireById(mixedParent!)).toMatchObject({
      status: 'failed',
      handle_code: 500,
      handle_msg: 'broadcast: 1 of 3 shards succeeded; shard 0 timeout, shard 1 failed',
    });
  });
});
