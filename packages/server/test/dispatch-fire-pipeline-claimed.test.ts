/**
 * With `sendAsClaimed`, a fire the planner's claim recorded goes to the dispatcher as the claim
 * read it, without being loaded again; the send fence admits it only while its job and app are as read, and an edit made
 * in between reaches the fire: the fence answers `stale` and the pipeline loads it and sends it as
 * the job is now.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { DispatchOutcome, FireToDispatch } from '../src/dispatch/dispatcher.js';
import { FirePipeline } from '../src/dispatch/fire-pipeline.js';
import { systemClock } from '../src/scheduling/clock.js';
import type { ClaimedFire } from '../src/store/hot/claim.js';
import type { Store } from '../src/store/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { createApp, createJob, waitFor } from './helpers/e2e.js';

const silent = pino({ level: 'silent' });
const ADDRESS = 'http://127.0.0.1:9/';
let database: TestDatabase | undefined;

afterEach(async () => {
  await database?.drop();
  database = undefined;
});

/** A dispatcher that fences each send as the real one does (store/hot/send-fence.ts) and sends nothing. */
class FencingDispatcher {
  readonly sent: FireToDispatch[] = [];
  readonly stale: FireToDispatch[] = [];
  constructor(private readonly store: Store) {}

  async dispatch(fire: FireToDispatch): Promise<DispatchOutcome[]> {
    const [answer] = await this.store.fires.fenceSends('node-a', Date.now(), [
      { fireId: fire.fireId, address: ADDRESS, lease: null, ...(fire.readAt ? { readAt: fire.readAt } : {}) },
    ]);
    const outcome: DispatchOutcome = {
      fireId: fire.fireId,
      parentFireId: null,
      address: ADDRESS,
      shardIndex: 0,
      shardTotal: 1,
      triggerAt: Date.now(),
      triggerCode: 200,
      triggerMsg: 'fenced by the test',
      executorInstance: null,
      latencyMs: 1,
      lane: 'fast',
    };
    if (answer?.admitted === false && 'reason' in answer) {
      if (answer.reason === 'stale') this.stale.push(fire);
      return [{ ...outcome, triggerCode: 500, notSent: answer.reason }];
    }
    this.sent.push(fire);
    return [outcome];
  }
}

/** `names.length` CRON jobs of one app, due now, claimed by node-a: a fire of each as the claim answers it. */
async function claimed(names = ['one', 'two']): Promise<{ store: Store; fires: ClaimedFire[] }> {
  database = await createTestDatabase('sqlite');
  const store = await database.open();
  const appId = await createApp(store, 'claimed');
  const now = Date.now();
  for (const name of names) {
    await createJob(
      store,
      { app_id: appId, name, executor_handler: name, schedule_type: 'CRON', schedule_conf: '* * * * * ?' },
      now - 2_000,
    );
  }
  const lease = (await store.leases.acquireOrRenewLease('shard:0', 'node-a', 60_000, now))!;
  const result = await store.fires.claimDueFires({
    nodeId: 'node-a',
    nowMs: now,
    horizonMs: now,
    shardTotal: 1,
    shards: [{ index: 0, epoch: lease.epoch }],
    limit: 10,
    misfireWindowMs: 60_000,
  });
  // One fire a job: the first due time of each.
  const fires = [...new Map(result.fires.map((f) => [f.job.id, f])).values()];
  expect(fires).toHaveLength(names.length);
  return { store, fires };
}

/**
 * A pipeline over `store` that has sent `fires[0]`: loaded, its app not known before (so the app
 * is known now); `loads` are the sizes of its loads.
 */
async function afterFirstSend(store: Store, fires: readonly ClaimedFire[], sendAsClaimed = true) {
  const dispatcher = new FencingDispatcher(store);
  const loads: number[] = [];
  const pipeline = new FirePipeline({
    store,
    dispatcher,
    executors: { addressesOf: () => [{ address: ADDRESS, protocol: 'G2' as const, appName: 'claimed' }] },
    clock: systemClock,
    logger: silent,
    batchSize: 100,
    dispatchesInFlight: 10,
    onLoaded: (_ms, records) => loads.push(records),
    sendAsClaimed,
  });
  pipeline.onDue([fires[0]!.fireId], [fires[0]]);
  await waitFor(() => dispatcher.sent.length === 1, { what: 'the first send' });
  expect(loads).toEqual([1]);
  expect(dispatcher.sent[0]!.readAt).toBeUndefined();
  return { dispatcher, loads, pipeline };
}

describe('a claimed fire in the pipeline', () => {
  it('is sent as the claim read it, without a load, once its app has been loaded', async () => {
    const { store, fires } = await claimed();
    const { dispatcher, loads, pipeline } = await afterFirstSend(store, fires);
    // The second goes as read: no load, and the fence checks what it was read with.
    pipeline.onDue([fires[1]!.fireId], [fires[1]]);
    await waitFor(() => dispatcher.sent.length === 2, { what: 'the second send' });
    expect(loads).toEqual([1]);
    const second = dispatcher.sent[1]!;
    expect(second).toMatchObject({
      fireId: fires[1]!.fireId,
      jobId: fires[1]!.job.id,
      executorHandler: 'two',
      scheduledAt: fires[1]!.scheduledAt,
      triggerType: 'CRON',
      routeStrategy: fires[1]!.job.executor_route_strategy,
      readAt: { jobId: fires[1]!.job.id, jobUpdatedAt: fires[1]!.job.updated_at },
    });
    await pipeline.drain(5_000);
    const row = (await store.fires.findFireById(fires[1]!.fireId))!;
    expect([row.status, row.sent_to]).toEqual(['dispatched', ADDRESS]);
  });

  it('is loaded and sent as its job is now when the job was edited after the claim', async () => {
    const { store, fires } = await claimed();
    const { dispatcher, loads, pipeline } = await afterFirstSend(store, fires);
    // After the claim, before the due time: a new timeout and block strategy.
    const job = fires[1]!.job;
    await store.jobs.updateJob(
      job.id,
      { executor_timeout: 42, executor_block_strategy: 'DISCARD_LATER' },
      job.updated_at,
    );
    pipeline.onDue([fires[1]!.fireId], [fires[1]]);
    await waitFor(() => dispatcher.sent.length === 2, { what: 'the second send' });
    expect(dispatcher.stale.map((f) => [f.fireId, f.executorTimeout])).toEqual([
      [fires[1]!.fireId, job.executor_timeout],
    ]);
    expect(loads).toEqual([1, 1]);
    expect(dispatcher.sent[1]).toMatchObject({
      fireId: fires[1]!.fireId,
      executorTimeout: 42,
      executorBlockStrategy: 'DISCARD_LATER',
    });
    expect(dispatcher.sent[1]!.readAt).toBeUndefined();
    await pipeline.drain(5_000);
    expect((await store.fires.findFireById(fires[1]!.fireId))!.status).toBe('dispatched');
  });

  it('is loaded, as every due fire, when the pipeline is not asked to send as claimed', async () => {
    const { store, fires } = await claimed();
    const { dispatcher, loads, pipeline } = await afterFirstSend(store, fires, false);
    pipeline.onDue([fires[1]!.fireId], [fires[1]]);
    await waitFor(() => dispatcher.sent.length === 2, { what: 'the second send' });
    expect(loads).toEqual([1, 1]);
    expect(dispatcher.sent[1]!.readAt).toBeUndefined();
  });

  it('is loaded when its job runs FIX_DELAY or broadcasts, whose sends need the record as stored', async () => {
    const { store, fires } = await claimed(['one', 'two', 'three']);
    const { dispatcher, loads, pipeline } = await afterFirstSend(store, fires);
    // As the claim would have read them had the jobs been so.
    const broadcast = {
      ...fires[1]!,
      job: { ...fires[1]!.job, executor_route_strategy: 'SHARDING_BROADCAST' },
    };
    const fixDelay = { ...fires[2]!, job: { ...fires[2]!.job, schedule_type: 'FIX_DELAY' } };
    pipeline.onDue([fires[1]!.fireId, fires[2]!.fireId], [broadcast, fixDelay]);
    await waitFor(() => dispatcher.sent.length === 3, { what: 'the two sends' });
    expect(loads).toEqual([1, 2]);
    expect(dispatcher.sent.every((fire) => fire.readAt === undefined)).toBe(true);
  });
});
