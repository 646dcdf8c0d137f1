import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createExecutor } from '@tickwheel/executor';
import { ManualClock } from '@tickwheel/test-fixtures/manual-clock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Dispatcher } from '../src/dispatch/dispatcher.js';
import { LostRunMonitor } from '../src/monitors/lost-runs.js';
import { MAINTENANCE_LEASE, type Store } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import {
  type ApiServer,
  callbackItem,
  createAppWithJob,
  createDispatchedFires,
  post,
  silentLogger,
  startApiServer,
  TOKEN,
} from './helpers/executor-api-server.js';
import { MONITOR_TIMINGS } from './helpers/monitor-timings.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-03-01T10:00:00Z');
const A = 'http://10.0.0.1:9999/';
const B = 'http://10.0.0.2:9999/';

async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.each(DIALECTS)('lost-run monitor on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  let clock: ManualClock;
  let server: ApiServer;
  let monitor: LostRunMonitor;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    store = await database.open();
  });
  beforeEach(async () => {
    await store.db.deleteFrom('registry').execute();
    await store.db.deleteFrom('lease').execute();
    await store.db.deleteFrom('fire').execute();
    clock = new ManualClock(T0);
    server = await startApiServer(store, clock);
    monitor = new LostRunMonitor({
      ...MONITOR_TIMINGS.lostRuns,
      fires: store.fires,
      recorder: server.recorder,
      lease: { leases: store.leases, nodeId: 'node-a' },
      clock,
      logger: silentLogger,
    });
  });
  afterEach(async () => {
    await monitor.stop();
    await server.close();
  });
  afterAll(async () => {
    await database.drop();
  });

  const beat = (appName: string, address: string, at: number) =>
    store.registry.heartbeat({ group: 'EXECUTOR', key: appName, value: address }, 'G2', at);

  it('a run still going after 1 min on an executor gone offline is failed, saying why; one on a live executor is left', async () => {
    const target = await createAppWithJob(store, T0);
    await beat(target.appName, A, T0);
    await beat(target.appName, B, T0);
    const [onLive] = await createDispatchedFires(store, target, 1, A, T0);
    const [onDead] = await createDispatchedFires(store, target, 1, B, T0);
    clock.stall(2 * MINUTE);
    await beat(target.appName, A, clock.now());

    expect(await monitor.sweep()).toEqual({ held: true, failed: 1, settledBroadcasts: 0 });
    expect((await store.fires.findFireById(onLive!))?.status).toBe('dispatched');
    expect(await store.fires.findFireById(onDead!)).toMatchObject({
      status: 'failed',
      handle_code: 500,
      handle_at: clock.now(),
      lost_at: clock.now(),
      handle_msg: `executor ${B} went offline while the run was in progress; no result arrived within 1 min`,
    });
    await server.recorder.idle();
    expect(server.hookCalls.flat().map((f) => [f.fireId, f.status])).toEqual([[onDead, 'failed']]);
  });

  it('a run dispatched less than 1 min ago is left, even on an executor that is offline', async () => {
    const target = await createAppWithJob(store, T0);
    const [id] = await createDispatchedFires(store, target, 1, B, T0);
    clock.stall(50_000);
    expect((await monitor.sweep()).failed).toBe(0);
    expect((await store.fires.findFireById(id!))?.status).toBe('dispatched');
  });

  it("the run's real result arriving after it was failed as lost replaces the failure; a repeat changes nothing", async () => {
    const target = await createAppWithJob(store, T0);
    const [id] = await createDispatchedFires(store, target, 1, B, T0);
    clock.stall(2 * MINUTE);
    await monitor.sweep();
    expect((await store.fires.findFireById(id!))?.lost_at).toBe(clock.now());
    const answer = await post(server.address, '/api/callback', [callbackItem(id!, 200, 'late')]);
    expect(answer.body.code).toBe(200);
    expect(await store.fires.findFireById(id!)).toMatchObject({
      status: 'succeeded',
      handle_code: 200,
      handle_msg: 'late',
      lost_at: null,
    });
    const stored = await store.fires.findFireById(id!);
    await post(server.address, '/api/callback', [callbackItem(id!, 500, 'again')]);
    // A second lost verdict (another node's sweep) changes nothing either.
    await server.recorder.record([
      { fireId: id!, handleCode: 500, handleMsg: 'lost', handleAt: 1, lost: true },
    ]);
    expect(await store.fires.findFireById(id!)).toEqual(stored);
    await server.recorder.idle();
    expect(
      server.hookCalls
        .flat()
        .filter((f) => f.fireId === id)
        .map((f) => f.status),
    ).toEqual(['failed', 'succeeded']);
  });

  it('a registration of another instance at the address fails at once the runs the previous instance accepted', async () => {
    const target = await createAppWithJob(store, T0);
    server.onInstanceRegistered = (address, instance) => monitor.failRestartedRuns(address, instance);
    const register = (address: string, instance?: string) =>
      post(server.address, '/api/registry', {
        registryGroup: 'EXECUTOR',
        registryKey: target.appName,
        registryValue: address,
        ...(instance === undefined ? {} : { instance }),
      });
    expect((await register(A, 'first')).body.code).toBe(200);
    await register(B, 'other');
    const [ofFirst, ofFirst2] = await createDispatchedFires(store, target, 2, A, T0, { instance: 'first' });
    const [unknown] = await createDispatchedFires(store, target, 1, A, T0);
    const [elsewhere] = await createDispatchedFires(store, target, 1, B, T0, { instance: 'other' });
    await register(A, 'first'); // the same instance beating: nothing happens
    expect((await store.fires.findFireById(ofFirst!))?.status).toBe('dispatched');

    clock.stall(5_000);
    expect((await register(A, 'second')).body.code).toBe(200);
    const [ofSecond] = await createDispatchedFires(store, target, 1, A, clock.now(), { instance: 'second' });
    for (const id of [ofFirst, ofFirst2]) {
      expect(await store.fires.findFireById(id!)).toMatchObject({
        status: 'failed',
        handle_code: 500,
        lost_at: clock.now(),
        handle_msg: `executor ${A} restarted while the run was in progress (instance first that accepted it is gone, instance second registered); the run was lost`,
      });
    }
    for (const id of [unknown, elsewhere, ofSecond]) {
      expect((await store.fires.findFireById(id!))?.status).toBe('dispatched');
    }
    await server.recorder.idle();
    expect(
      server.hookCalls
        .flat()
        .map((f) => f.fireId)
        .sort(),
    ).toEqual([ofFirst, ofFirst2].sort());
    // Another node receiving the same registration changes nothing more.
    expect(await monitor.failRestartedRuns(A, 'second')).toBe(0);
  });

  it('a sweep fails a run whose mark came after the new instance registered, not one the new instance accepted first', async () => {
    const target = await createAppWithJob(store, T0);
    await store.registry.heartbeat(
      { group: 'EXECUTOR', key: target.appName, value: A },
      'G2',
      T0,
      undefined,
      'old',
    );
    // The new instance took a run before its registration reached the store: left.
    const [ofNew] = await createDispatchedFires(store, target, 1, A, T0 + 1_000, { instance: 'new' });
    expect((await monitor.sweep()).failed).toBe(0);
    await store.registry.heartbeat(
      { group: 'EXECUTOR', key: target.appName, value: A },
      'G2',
      T0 + 2_000,
      undefined,
      'new',
    );
    // The old instance's run, marked after the new one registered (no registration saw it).
    const [ofOld] = await createDispatchedFires(store, target, 1, A, T0 + 500, { instance: 'old' });
    clock.stall(3_000);
    expect(await monitor.sweep()).toEqual({ held: true, failed: 1, settledBroadcasts: 0 });
    expect((await store.fires.findFireById(ofOld!))?.status).toBe('failed');
    expect((await store.fires.findFireById(ofNew!))?.status).toBe('dispatched');
  });

  it('runs on an executor without instance ids that answers idleBeat idle twice after the grace are failed; busy ones are left', async () => {
    const target = await createAppWithJob(store, T0);
    const busyJob = {
      appId: target.appId,
      jobId: (
        await store.jobs.createJob(
          {
            app_id: target.appId,
            name: 'busy job',
            executor_handler: 'demo',
            trigger_status: 1,
            next_fire_at: null,
          },
          T0,
        )
      ).id,
    };
    await beat(target.appName, A, T0);
    const calls: Array<[string, string, number]> = [];
    await monitor.stop();
    monitor = new LostRunMonitor({
      ...MONITOR_TIMINGS.lostRuns,
      fires: store.fires,
      recorder: server.recorder,
      lease: { leases: store.leases, nodeId: 'node-a' },
      clock,
      logger: silentLogger,
      registry: store.registry,
      idleBeat: async (executor, jobId) => {
        calls.push([executor.address, executor.appName, jobId]);
        return jobId === busyJob.jobId ? { code: 500, failure: null } : { code: 200, failure: null };
      },
    });
    const [idle, idle2] = await createDispatchedFires(store, target, 2, A, T0);
    const [busy] = await createDispatchedFires(store, busyJob, 1, A, T0);
    const [tickwheel] = await createDispatchedFires(store, target, 1, A, T0, { instance: 'tw' });

    clock.stall(20_000);
    await beat(target.appName, A, clock.now());
    expect((await monitor.sweep()).failed).toBe(0);
    expect(calls).toEqual([]); // within the 30 s grace: not asked

    clock.stall(20_000);
    await beat(target.appName, A, clock.now());
    expect((await monitor.sweep()).failed).toBe(0); // idle once: asked again next sweep
    expect(calls.map(([, , jobId]) => jobId).sort()).toEqual([target.jobId, busyJob.jobId].sort());
    expect(calls[0]?.slice(0, 2)).toEqual([A, target.appName]);

    clock.stall(10_000);
    expect((await monitor.sweep()).failed).toBe(2);
    for (const id of [idle, idle2]) {
      expect(await store.fires.findFireById(id!)).toMatchObject({
        status: 'failed',
        handle_code: 500,
        lost_at: clock.now(),
        handle_msg: `executor ${A} has no run of job ${target.jobId} running or queued (idleBeat answered idle twice, 50 s after the dispatch) and no result arrived; the run was lost (the executor restarted or dropped it)`,
      });
    }
    for (const id of [busy, tickwheel]) {
      expect((await store.fires.findFireById(id!))?.status).toBe('dispatched');
    }
  });

  it('the sweep runs every minute on its own and goes through more lost runs than one page', async () => {
    const target = await createAppWithJob(store, T0);
    const ids = await createDispatchedFires(store, target, 5, B, T0);
    await monitor.stop();
    monitor = new LostRunMonitor({
      ...MONITOR_TIMINGS.lostRuns,
      fires: store.fires,
      recorder: server.recorder,
      lease: { leases: store.leases, nodeId: 'node-a' },
      clock,
      logger: silentLogger,
      batchSize: 2,
    });
    clock.stall(10 * MINUTE);
    monitor.start();
    await clock.advance(MINUTE);
    await until(
      async () => (await store.fires.findFiresByIds(ids)).every((row) => row.status === 'failed'),
      'every lost run to fail',
    );
  });

  it('nothing is failed while another node holds the maintenance lease', async () => {
    const target = await createAppWithJob(store, T0);
    const [id] = await createDispatchedFires(store, target, 1, B, T0);
    expect(
      await store.leases.acquireOrRenewLease(MAINTENANCE_LEASE, 'node-b', 60 * MINUTE, T0),
    ).not.toBeNull();
    clock.stall(2 * MINUTE);
    expect(await monitor.sweep()).toEqual({ held: false, failed: 0, settledBroadcasts: 0 });
    expect((await store.fires.findFireById(id!))?.status).toBe('dispatched');
  });

  it("a broadcast's own record (no address) is finished from its shards once they settle, not failed", async () => {
    const target = await createAppWithJob(store, T0);
    await beat(target.appName, A, T0);
    const [parent] = await createDispatchedFires(store, target, 1, null, T0);
    await store.fires.markDispatched([
      { fireId: parent!, triggerAt: T0, executorAddress: null, triggerCode: 200, triggerMsg: 'broadcast' },
    ]);
    const [live] = await createDispatchedFires(store, target, 1, A, T0, {
      parentFireId: parent,
      shardTotal: 2,
    });
    const [deadShard] = await createDispatchedFires(store, target, 1, B, T0, {
      parentFireId: parent,
      shardIndex: 1,
      shardTotal: 2,
    });
    clock.stall(11 * MINUTE);
    await beat(target.appName, A, clock.now());

    // The shard on B is lost, the one on A still runs: the broadcast stays open.
    expect(await monitor.sweep()).toEqual({ held: true, failed: 1, settledBroadcasts: 0 });
    await server.recorder.idle();
    expect((await store.fires.findFireById(parent!))?.status).toBe('dispatched');

    await post(server.address, '/api/callback', [callbackItem(live!, 200)]);
    await server.recorder.idle();
    expect(await store.fires.findFireById(parent!)).toMatchObject({
      status: 'failed',
      handle_msg: 'broadcast: 1 of 2 shards succeeded; shard 1 failed',
    });
    expect((await store.fires.findFireById(deadShard!))?.status).toBe('failed');
  });
});

describe('lost-run monitor with a real executor', () => {
  let database: TestDatabase;
  let logDir: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    logDir = await mkdtemp(path.join(os.tmpdir(), 'tw-lost-'));
  });
  afterAll(async () => {
    await database.drop();
    await rm(logDir, { recursive: true, force: true });
  });

  it('a run on an executor that stopped beating is failed after 1 min, and its late kill report replaces the failure', async () => {
    const store = await database.open();
    const clock = new ManualClock(Date.now());
    const server = await startApiServer(store, clock);
    const dispatcher = new Dispatcher({ accessToken: TOKEN });
    const target = await createAppWithJob(store, clock.now());
    const ex = createExecutor({
      appName: target.appName,
      accessToken: TOKEN,
      port: 0,
      serverAddresses: [server.address],
      logDir,
      logger: silentLogger,
      internal: { heartbeatIntervalMs: 3_600_000 },
    });
    let started = false;
    ex.handle('demo', (ctx) => {
      started = true;
      return new Promise((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
      );
    });
    const monitor = new LostRunMonitor({
      ...MONITOR_TIMINGS.lostRuns,
      fires: store.fires,
      recorder: server.recorder,
      lease: { leases: store.leases, nodeId: 'node-a' },
      clock,
      logger: silentLogger,
    });
    try {
      await ex.start();
      await until(() => server.directory.addressesOf(target.appName).length === 1, 'the registration');
      const [id] = await createDispatchedFires(store, target, 1, null, clock.now());
      const fire = (await store.fires.findFireById(id!))!;
      const [outcome] = await dispatcher.dispatch(
        {
          fireId: id!,
          jobId: fire.job_id,
          appName: target.appName,
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
        },
        server.directory.addressesOf(target.appName),
      );
      await store.fires.markDispatched([
        {
          fireId: id!,
          triggerAt: outcome!.triggerAt,
          executorAddress: outcome!.address,
          triggerCode: outcome!.triggerCode,
          triggerMsg: outcome!.triggerMsg,
        },
      ]);
      await until(() => started, 'the run to start');

      // The executor's single heartbeat is now 11 minutes old: it counts as gone.
      clock.stall(11 * MINUTE);
      expect((await monitor.sweep()).failed).toBe(1);
      const failed = await store.fires.findFireById(id!);
      expect(failed?.handle_msg).toBe(
        `executor ${ex.address} went offline while the run was in progress; no result arrived within 1 min`,
      );

      // Stopping the executor reports the run as killed: the run did execute, its report is stored.
      await ex.stop({ timeoutMs: 0 });
      await server.recorder.idle();
      const reported = await store.fires.findFireById(id!);
      expect(reported).toMatchObject({ status: 'failed', handle_code: 500, lost_at: null });
      expect(reported?.handle_msg).not.toBe(failed?.handle_msg);
      expect(server.metrics.callbacks).toEqual([500]);
      expect(server.hookCalls.flat().map((f) => f.fireId)).toEqual([id, id]);
    } finally {
      await ex.stop({ timeoutMs: 0 });
      await monitor.stop();
      await dispatcher.close();
      await server.close();
    }
  });
});
