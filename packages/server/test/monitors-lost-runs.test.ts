import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createExecutor } from '@tickwheel/executor';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Dispatcher } from '../src/dispatch/dispatcher.js';
import { MAINTENANCE_LEASE, type Store } from '../src/index.js';
import { LostRunMonitor } from '../src/monitors/lost-runs.js';
import { ManualClock } from './helpers/clock.js';
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

  it('a run still going after 10 min on an executor gone offline is failed, saying why; one on a live executor is left', async () => {
    const target = await createAppWithJob(store, T0);
    await beat(target.appName, A, T0);
    await beat(target.appName, B, T0);
    const [onLive] = await createDispatchedFires(store, target, 1, A, T0);
    const [onDead] = await createDispatchedFires(store, target, 1, B, T0);
    clock.stall(11 * MINUTE);
    await beat(target.appName, A, clock.now());

    expect(await monitor.sweep()).toEqual({ held: true, failed: 1, settledBroadcasts: 0 });
    expect((await store.fires.findFireById(onLive!))?.status).toBe('dispatched');
    expect(await store.fires.findFireById(onDead!)).toMatchObject({
      status: 'failed',
      handle_code: 500,
      handle_at: clock.now(),
      handle_msg: `executor ${B} went offline while the run was in progress; no result arrived within 10 min`,
    });
    await server.recorder.idle();
    expect(server.hookCalls.flat().map((f) => [f.fireId, f.status])).toEqual([[onDead, 'failed']]);
  });

  it('a run dispatched less than 10 min ago is left, even on an executor that is offline', async () => {
    const target = await createAppWithJob(store, T0);
    const [id] = await createDispatchedFires(store, target, 1, B, T0);
    clock.stall(9 * MINUTE);
    expect((await monitor.sweep()).failed).toBe(0);
    expect((await store.fires.findFireById(id!))?.status).toBe('dispatched');
  });

  it('a result that arrives after the run was failed as lost changes nothing', async () => {
    const target = await createAppWithJob(store, T0);
    const [id] = await createDispatchedFires(store, target, 1, B, T0);
    clock.stall(11 * MINUTE);
    await monitor.sweep();
    const failed = await store.fires.findFireById(id!);
    const answer = await post(server.address, '/api/callback', [callbackItem(id!, 200, 'late')]);
    expect(answer.body.code).toBe(200);
    expect(await store.fires.findFireById(id!)).toEqual(failed);
    await server.recorder.idle();
    expect(server.hookCalls.flat().filter((f) => f.fireId === id)).toHaveLength(1);
  });

  it('the sweep runs every minute on its own and goes through more lost runs than one page', async () => {
    const target = await createAppWithJob(store, T0);
    const ids = await createDispatchedFires(store, target, 5, B, T0);
    await monitor.stop();
    monitor = new LostRunMonitor({
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
    clock.stall(11 * MINUTE);
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

  it('a run on an executor that stopped beating is failed after 10 min, and its late kill report changes nothing', async () => {
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
        `executor ${ex.address} went offline while the run was in progress; no result arrived within 10 min`,
      );

      // Stopping the executor reports the run as killed; the record keeps the lost-run result.
      await ex.stop({ timeoutMs: 0 });
      await server.recorder.idle();
      expect(await store.fires.findFireById(id!)).toEqual(failed);
      expect(server.metrics.callbacks).toEqual([500]);
      expect(server.hookCalls.flat().map((f) => f.fireId)).toEqual([id]);
    } finally {
      await ex.stop({ timeoutMs: 0 });
      await monitor.stop();
      await dispatcher.close();
      await server.close();
    }
  });
});
