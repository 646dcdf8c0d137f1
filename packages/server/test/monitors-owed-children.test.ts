/**
 * Child jobs survive a crash, on SQLite, PostgreSQL and MariaDB: a success of a job with child
 * jobs owes them on its record from the statement that finishes it, and the owed-children sweep
 * fires what a node that died before its result hook left owed — each child once, even when the
 * hook of a slow node and the sweep of another pay the same debt at the same moment. The child
 * runs go through the real fire pipeline to a real executor on loopback.
 */
import type { Executor } from '@tickwheel/executor';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChildTrigger } from '../src/child-jobs/child-trigger.js';
import { Dispatcher } from '../src/dispatch/dispatcher.js';
import { FirePipeline } from '../src/dispatch/fire-pipeline.js';
import { OwedChildrenMonitor, type OwedChildrenMonitorOptions } from '../src/monitors/owed-children.js';
import { systemClock } from '../src/scheduling/clock.js';
import { CHILDREN_STATUS, type FireRow, type JobRow, type Store } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import { closeAll, startExecutors, TOKEN, target } from './helpers/dispatch-fixtures.js';
import { sleep, waitFor } from './helpers/e2e.js';
import { MONITOR_TIMINGS } from './helpers/monitor-timings.js';

const silent = pino({ level: 'silent' });
const MINUTE = 60_000;

/** One server node's child-job part, wired as server.ts wires it, dispatching to `address`. */
interface ChildNode {
  trigger: ChildTrigger;
  monitor: OwedChildrenMonitor;
  close(): Promise<void>;
}

function childNode(
  store: Store,
  address: string,
  nodeId: string,
  monitorOptions: Partial<OwedChildrenMonitorOptions> = {},
): ChildNode {
  const dispatcher = new Dispatcher({ accessToken: TOKEN, callTimeoutMs: 3_000 });
  const pipeline = new FirePipeline({
    store,
    dispatcher,
    executors: { addressesOf: () => [target(address)] },
    clock: systemClock,
    logger: silent,
    batchSize: 100,
    dispatchesInFlight: dispatcher.capacity + 100,
  });
  const trigger = new ChildTrigger({
    store,
    pipeline,
    // The planner's recovery is not part of these tests: nothing to tell it.
    inFlight: { add: () => {} },
    clock: systemClock,
    logger: silent,
  });
  const monitor = new OwedChildrenMonitor({
    ...MONITOR_TIMINGS.owedChildren,
    childFires: store.childFires,
    children: trigger,
    lease: { leases: store.leases, nodeId },
    clock: systemClock,
    logger: silent,
    ...monitorOptions,
  });
  return {
    trigger,
    monitor,
    async close() {
      await monitor.stop();
      pipeline.stopAccepting();
      await pipeline.drain(3_000);
      await dispatcher.close();
    },
  };
}

describe.each(DIALECTS)('owed child jobs on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  /** A second node's pool on the same database. */
  let other: Store;
  let executors: Awaited<ReturnType<typeof startExecutors>>;
  /** The fire ids (`logId`) the child handler ran with, in order. */
  const runs: number[] = [];
  const nodes: ChildNode[] = [];
  let counter = 0;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    store = await database.open();
    other = await database.open();
    executors = await startExecutors(1, (ex: Executor) => {
      ex.handle('child', async (ctx) => {
        runs.push(ctx.logId);
        return 'child ran';
      });
      ex.handle('parent', async () => 'parent ran');
    });
  });
  beforeEach(async () => {
    runs.length = 0;
    await store.db.deleteFrom('lease').execute();
    await store.db.deleteFrom('fire').execute();
  });
  afterEach(async () => {
    for (const node of nodes.splice(0)) await node.close();
  });
  afterAll(async () => {
    await closeAll(executors);
    await database.drop();
  });

  const node = (on: Store, nodeId: string, options: Partial<OwedChildrenMonitorOptions> = {}) => {
    const created = childNode(on, executors[0]!.address, nodeId, options);
    nodes.push(created);
    return created;
  };

  /** An app, a parent job whose child jobs are `childCount` jobs running `child`. */
  async function family(childCount = 1, parentFields: Partial<JobRow> = {}) {
    counter += 1;
    const now = Date.now();
    const app = await store.apps.createApp(
      { appName: `owed-children-${counter}`, title: 'Owed children', addressType: 'MANUAL' },
      now,
    );
    const children: JobRow[] = [];
    for (let i = 0; i < childCount; i++) {
      children.push(
        await store.jobs.createJob(
          { app_id: app.id, name: `child ${i}`, executor_handler: 'child', executor_param: `c${i}` },
          now,
        ),
      );
    }
    const parent = await store.jobs.createJob(
      {
        app_id: app.id,
        name: 'parent',
        executor_handler: 'parent',
        child_job_ids: children.map((child) => child.id).join(','),
        ...parentFields,
      },
      now,
    );
    return { app, parent, children };
  }

  /** A run of `job` that succeeded `agoMs` ago, written as a node that died right after would leave it. */
  async function succeededRun(
    job: JobRow,
    { agoMs = MINUTE, scheduledAt = Date.now() - agoMs, handleCode = 200 } = {},
  ) {
    const [fireId] = await store.fires.createFires(
      [
        {
          jobId: job.id,
          appId: job.app_id,
          scheduledAt,
          triggerType: 'CRON',
          executorHandler: job.executor_handler,
          executorParam: '',
        },
      ],
      scheduledAt,
    );
    const finished = await store.fires.finishFires([
      { fireId: fireId!, handleCode, handleMsg: 'done', handleAt: Date.now() - agoMs },
    ]);
    return { fireId: fireId!, finished };
  }

  const childRecordsOf = async (parentFireId: number): Promise<FireRow[]> =>
    store.db
      .selectFrom('fire')
      .selectAll()
      .where('triggered_by_fire_id', '=', parentFireId)
      .orderBy('id')
      .execute();

  const childrenStatusOf = async (fireId: number) =>
    Number((await store.fires.findFireById(fireId))!.children_status);

  /** Waits for `count` child runs, then a little longer to see that no more come. */
  async function expectRuns(count: number): Promise<void> {
    await waitFor(() => runs.length >= count, { what: `${count} child runs` });
    await sleep(300);
    expect(runs).toHaveLength(count);
  }

  it('a success of a job with child jobs owes them on its record; a failure, or a job without child jobs, owes nothing', async () => {
    const { parent } = await family();
    const { parent: lonely } = await family(0);
    const success = await succeededRun(parent);
    const failure = await succeededRun(parent, { handleCode: 500 });
    const lonelySuccess = await succeededRun(lonely);

    expect(success.finished.map((f) => f.childrenOwed)).toEqual([true]);
    expect(failure.finished.map((f) => f.childrenOwed)).toEqual([false]);
    expect(lonelySuccess.finished.map((f) => f.childrenOwed)).toEqual([false]);
    expect(await childrenStatusOf(success.fireId)).toBe(CHILDREN_STATUS.OWED);
    expect(await childrenStatusOf(failure.fireId)).toBe(CHILDREN_STATUS.NONE);
    expect(await childrenStatusOf(lonelySuccess.fireId)).toBe(CHILDREN_STATUS.NONE);
  });

  it('the sweep fires the child jobs a success still owes, once; a second sweep fires nothing', async () => {
    const { parent, children } = await family(2);
    const { fireId } = await succeededRun(parent);
    const { monitor } = node(store, 'node-a');

    const first = await monitor.sweep();

    expect(first).toMatchObject({ held: true, owed: 1 });
    expect(first.fired).toHaveLength(2);
    const made = await childRecordsOf(fireId);
    expect(made.map((fire) => [fire.job_id, fire.trigger_type, fire.parent_fire_id])).toEqual(
      children.map((child) => [child.id, 'PARENT', null]),
    );
    expect(await childrenStatusOf(fireId)).toBe(CHILDREN_STATUS.FIRED);
    await expectRuns(2);
    expect([...runs].sort((a, b) => a - b)).toEqual(made.map((fire) => fire.id));

    expect(await monitor.sweep()).toEqual({ held: true, owed: 0, fired: [] });
    await expectRuns(2);
    expect(await childRecordsOf(fireId)).toHaveLength(2);
  });

  it('the result hook and the sweep of another node paying the same debts at once fire each child once', async () => {
    const { parent } = await family(1);
    const parents = [];
    for (let i = 0; i < 6; i++) parents.push(await succeededRun(parent, { agoMs: 0 }));
    const hookNode = node(store, 'node-a');
    const sweepNode = node(other, 'node-b', { graceMs: 0 });

    const [hooked, swept] = await Promise.all([
      hookNode.trigger.afterSuccess(parents.flatMap((p) => p.finished)),
      sweepNode.monitor.sweep(),
    ]);

    expect(swept.held).toBe(true);
    expect(hooked.length + swept.fired.length).toBe(6);
    for (const { fireId } of parents) {
      expect(await childRecordsOf(fireId)).toHaveLength(1);
      expect(await childrenStatusOf(fireId)).toBe(CHILDREN_STATUS.FIRED);
    }
    await expectRuns(6);
    expect(new Set(runs).size).toBe(6);
  });

  it("a shard's success owes nothing once swept; its broadcast's own record fires the children", async () => {
    const { parent } = await family(1, { executor_route_strategy: 'SHARDING_BROADCAST' });
    const now = Date.now() - MINUTE;
    const [broadcastId] = await store.fires.createFires(
      [
        {
          jobId: parent.id,
          appId: parent.app_id,
          scheduledAt: now,
          triggerType: 'CRON',
          executorHandler: 'parent',
          executorParam: '',
        },
      ],
      now,
    );
    const shardIds = await store.fires.createFires(
      [0, 1].map((shardIndex) => ({
        jobId: parent.id,
        appId: parent.app_id,
        scheduledAt: now,
        triggerType: 'CRON' as const,
        executorHandler: 'parent',
        executorParam: '',
        parentFireId: broadcastId!,
        shardIndex,
        shardTotal: 2,
      })),
      now,
    );
    const shards = await store.fires.finishFires(
      shardIds.map((fireId) => ({ fireId, handleCode: 200, handleMsg: 'shard ok', handleAt: now })),
    );
    expect(shards.map((f) => f.childrenOwed)).toEqual([true, true]);
    const { monitor } = node(store, 'node-a');

    expect(await monitor.sweep()).toEqual({ held: true, owed: 2, fired: [] });
    for (const id of shardIds) expect(await childrenStatusOf(id)).toBe(CHILDREN_STATUS.NONE);

    await store.fires.finishFires([
      { fireId: broadcastId!, handleCode: 200, handleMsg: 'all', handleAt: now },
    ]);
    const swept = await monitor.sweep();

    expect(swept.fired).toHaveLength(1);
    expect(await childRecordsOf(broadcastId!)).toHaveLength(1);
    for (const id of shardIds) expect(await childRecordsOf(id)).toEqual([]);
    await expectRuns(1);
  });

  it('leaves a debt older than the look-back, and one younger than the grace to its result hook', async () => {
    const { parent } = await family(1);
    const old = await succeededRun(parent, { scheduledAt: Date.now() - 25 * 3_600_000 });
    const fresh = await succeededRun(parent, { agoMs: 0 });
    const { monitor } = node(store, 'node-a');

    expect(await monitor.sweep()).toEqual({ held: true, owed: 0, fired: [] });
    expect(await childrenStatusOf(old.fireId)).toBe(CHILDREN_STATUS.OWED);
    expect(await childrenStatusOf(fresh.fireId)).toBe(CHILDREN_STATUS.OWED);
    expect(await childRecordsOf(old.fireId)).toEqual([]);
    expect(await childRecordsOf(fresh.fireId)).toEqual([]);
    expect(runs).toEqual([]);
  });

  it('the sweep runs only on the node holding the maintenance lease', async () => {
    const { parent } = await family(1);
    const { fireId } = await succeededRun(parent);
    await store.leases.acquireOrRenewLease('maintenance', 'node-b', MINUTE, Date.now());
    const { monitor } = node(store, 'node-a');

    expect(await monitor.sweep()).toEqual({ held: false, owed: 0, fired: [] });
    expect(await childrenStatusOf(fireId)).toBe(CHILDREN_STATUS.OWED);
  });
});
