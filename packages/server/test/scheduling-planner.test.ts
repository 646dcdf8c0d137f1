/**
 * The planner against each real database on a manual clock: claims ahead of time, one record per
 * (job, scheduled time) whatever nodes race or crash, the misfire policies, recovery of claimed
 * fires that were never dispatched, and every schedule type.
 */

import { performance } from 'node:perf_hooks';
import { ManualClock } from '@tickwheel/test-fixtures/manual-clock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../src/scheduling/clock.js';
import { resolveSchedulingOptions } from '../src/scheduling/options.js';
import { ORPHAN_SWEEP_INTERVAL_MS } from '../src/scheduling/planner.js';
import { createScheduler } from '../src/scheduling/scheduler.js';
import type { FireRow, Store } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import {
  claimedFires,
  createJob,
  createTestNode,
  settleNodes,
  type TestNode,
} from './helpers/scheduling-fixtures.js';

const T0 = Date.parse('2026-03-01T12:00:00Z');
const EVERY_SECOND = { schedule_type: 'CRON', schedule_conf: '* * * * * ?' } as const;

function seconds(from: number, to: number): number[] {
  const times: number[] = [];
  for (let t = from; t <= to; t += 1_000) times.push(t);
  return times;
}

/** Every (job, scheduled time) appears once among the records. */
function expectNoDuplicateRecords(records: readonly FireRow[]): void {
  const keys = records.map((r) => `${r.job_id}@${r.scheduled_at}`);
  expect(new Set(keys).size).toBe(keys.length);
}

describe.each(DIALECTS)('planner on %s', (dialect) => {
  let db: TestDatabase;
  let store: Store;
  let clock: ManualClock;
  let nodes: TestNode[];

  beforeEach(async () => {
    db = await createTestDatabase(dialect);
    store = await db.open();
    clock = new ManualClock(T0);
    nodes = [];
    settleNodes(clock, () => nodes);
  });

  afterEach(async () => {
    for (const node of nodes) node.crash();
    await db.drop();
  });

  async function startNode(
    nodeId: string,
    options: {
      leaseTtlMs?: number;
      recoveryPageSize?: number;
      store?: Store;
      prepareAheadMs?: number;
      wheelResolutionMs?: number;
    } = {},
  ) {
    const { store: given, ...scheduling } = options;
    const node = createTestNode(given ?? store, clock, { nodeId, shardCount: 8, ...scheduling });
    nodes.push(node);
    await node.start();
    await clock.advance(0);
    return node;
  }

  it('claims an every-second cron exactly once per second and hands each fire over at its time', async () => {
    const job = await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000 }, T0);
    const node = await startNode('node-a');
    await clock.advance(10_000);
    expect(node.pipeline.handed.map((h) => h.at)).toEqual(seconds(T0 + 1_000, T0 + 10_000));
    const records = await claimedFires(store);
    expectNoDuplicateRecords(records);
    const times = records.map((r) => r.scheduled_at);
    expect(times).toEqual(seconds(T0 + 1_000, times.at(-1) as number));
    expect(times.at(-1)).toBeGreaterThanOrEqual(T0 + 14_000);
    const byId = new Map(records.map((r) => [r.id, r]));
    for (const { fireId, at } of node.pipeline.handed) expect(byId.get(fireId)?.scheduled_at).toBe(at);
    expect(records.every((r) => r.job_id === job.id && r.trigger_type === 'CRON')).toBe(true);
    // Each came with what its claim read, the job's read shared by its fires of every claim.
    const reads = node.pipeline.handed.map(({ fireId }) => node.pipeline.claimed.get(fireId));
    expect(reads.map((read) => read?.scheduledAt)).toEqual(seconds(T0 + 1_000, T0 + 10_000));
    expect(new Set(reads.map((read) => read?.job)).size).toBe(1);
    expect(reads[0]!.job).toMatchObject({ id: job.id, updated_at: job.updated_at });
    expect(node.logger.errors()).toEqual([]);
  });

  it('hands each fire over prepareAheadMs ahead of its time, on the wheel’s grid, never earlier', async () => {
    await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000 }, T0);
    const node = await startNode('node-a', { prepareAheadMs: 70, wheelResolutionMs: 20 });
    await clock.advance(3_000);
    // Due at 1 s: handed over from 930 ms on, at the next 20 ms step.
    expect(node.pipeline.handed.map((h) => h.at - T0)).toEqual([940, 1_940, 2_940]);
    const byId = new Map((await claimedFires(store)).map((r) => [r.id, r]));
    expect(node.pipeline.handed.map(({ fireId }) => byId.get(fireId)?.scheduled_at)).toEqual(
      seconds(T0 + 1_000, T0 + 3_000),
    );
  });

  it('claims an every-second job once for several of its fires: each claim records its times up to the look-ahead and the record-ahead', async () => {
    const job = await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000 }, T0);
    const claims: number[] = [];
    const watched = watchClaims(store, async (claim) => {
      const result = await claim();
      if (result.scanned > 0) claims.push(result.fires.length);
      return result;
    });
    const node = await startNode('node-a', { store: watched });
    await clock.advance(10_000);
    expect(node.pipeline.handed.map((h) => h.at)).toEqual(seconds(T0 + 1_000, T0 + 10_000));
    // Look-ahead 5 s, record-ahead 2.5 s: the first claim records 1 s to 7 s, each later one the
    // three seconds that came into reach since (one claim a fire with no record-ahead).
    expect(claims).toEqual([7, 3, 3, 3]);
    const records = await claimedFires(store);
    expectNoDuplicateRecords(records);
    expect(records.map((r) => r.scheduled_at)).toEqual(seconds(T0 + 1_000, T0 + 16_000));
    expect(records.every((r) => r.job_id === job.id)).toBe(true);
  });

  it('keeps no claim with the armed fires for a pipeline that loads every fire', async () => {
    await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000 }, T0);
    const node = createTestNode(store, clock, { nodeId: 'node-a', shardCount: 8 });
    node.pipeline.sendsAsClaimed = false;
    nodes.push(node);
    await node.start();
    await clock.advance(3_000);
    expect(node.pipeline.handed.map((h) => h.at)).toEqual(seconds(T0 + 1_000, T0 + 3_000));
    expect(node.pipeline.claimed.size).toBe(0);
  });

  it('claims an aligned burst of 10,000 jobs ahead of its time and hands it over at that millisecond', async () => {
    const due = T0 + 4_000;
    await insertJobs(store, 10_000, { schedule_type: 'FIX_RATE', schedule_conf: '60', next_fire_at: due });
    const node = createTestNode(store, clock, { nodeId: 'node-a', shardCount: 8 });
    nodes.push(node);
    await node.leases.start();
    const started = performance.now();
    await node.planner.tick();
    const elapsedMs = performance.now() - started;
    expect(node.planner.waiting).toBe(10_000);
    console.log(
      `[${dialect}] claim of 10,000 aligned fires: ${elapsedMs.toFixed(0)} ms, ${((elapsedMs * 1_000) / 10_000).toFixed(1)} µs per fire`,
    );
    node.planner.start();
    await clock.advance(4_000);
    expect(node.pipeline.handed).toHaveLength(10_000);
    expect(new Set(node.pipeline.handed.map((h) => h.at))).toEqual(new Set([due]));
    const records = await claimedFires(store);
    expect(records.filter((r) => r.scheduled_at === due)).toHaveLength(10_000);
    expectNoDuplicateRecords(records);
  }, 60_000);

  it('says the claim is behind while its full batches are due less than half the look-ahead ahead, and not once a batch comes back short', async () => {
    // What the planner says before each batch of a tick (the batch before it decided it).
    const before: boolean[] = [];
    let node: TestNode | undefined;
    const watched = watchClaims(store, (claim) => {
      before.push(node!.planner.claimBehind);
      return claim();
    });
    node = createTestNode(watched, clock, { nodeId: 'node-a', shardCount: 8, claimBatchSize: 10 });
    nodes.push(node);
    await node.leases.start();
    // 25 jobs due 4 s ahead of a 5 s look-ahead: full batches, with their lead.
    const schedule = { schedule_type: 'FIX_RATE', schedule_conf: '60' };
    await insertJobs(store, 25, { ...schedule, next_fire_at: T0 + 4_000 });
    await node.planner.tick();
    expect(before).toEqual([false, false, false]);
    expect(node.planner.claimBehind).toBe(false);
    // 25 more due in 1 s: each full batch says behind until the short one.
    before.length = 0;
    await insertJobs(store, 25, { ...schedule, next_fire_at: T0 + 1_000 });
    await node.planner.tick();
    expect(before).toEqual([false, true, true]);
    expect(node.planner.claimBehind).toBe(false);
    expect(node.planner.waiting).toBe(50);
  });

  it('lets two nodes racing for the same shards record and hand over each fire once', async () => {
    for (let i = 0; i < 20; i++) await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000 }, T0);
    const [a, b] = await Promise.all([
      startNode('node-a', { store: await db.open() }),
      startNode('node-b', { store: await db.open() }),
    ]);
    await clock.advance(10_000);
    const ownedByA = a.leases.ownedShards().map((s) => s.index);
    const ownedByB = b.leases.ownedShards().map((s) => s.index);
    expect(ownedByA.filter((i) => ownedByB.includes(i))).toEqual([]);
    expect([...ownedByA, ...ownedByB].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const handed = [...a.pipeline.ids(), ...b.pipeline.ids()];
    expect(new Set(handed).size).toBe(handed.length);
    const records = await claimedFires(store);
    expectNoDuplicateRecords(records);
    const dueByNow = records.filter((r) => r.scheduled_at <= T0 + 10_000);
    expect(dueByNow).toHaveLength(20 * 10);
    expect(new Set(handed)).toEqual(new Set(dueByNow.map((r) => r.id)));
  });

  it('records nothing for a node claiming with the stale epochs of leases it lost', async () => {
    for (let i = 0; i < 20; i++) await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000 }, T0);
    const a = await startNode('node-a', { store: await db.open() });
    const b = await startNode('node-b', { store: await db.open() });
    await clock.advance(2_000);
    const stale = a.leases.ownedShards();
    expect(stale).toHaveLength(8);
    a.crash();
    await clock.advance(15_000 + 5_000);
    expect(b.leases.ownedShards().map((s) => s.epoch)).toEqual(stale.map((s) => s.epoch + 1));
    // Node A comes back believing it still owns every shard and races node B's ticks.
    const rogue = await db.open();
    let rogueRecorded = 0;
    for (let round = 0; round < 10; round++) {
      const now = clock.now();
      const [claimed] = await Promise.all([
        rogue.fires.claimDueFires({
          nodeId: 'node-a',
          nowMs: now,
          horizonMs: now + 5_000,
          shardTotal: 8,
          shards: stale,
          limit: 500,
          misfireWindowMs: 5_000,
        }),
        b.planner.tick(),
      ]);
      rogueRecorded += claimed.fires.length;
      await clock.advance(500);
    }
    expect(rogueRecorded).toBe(0);
    const records = await claimedFires(store);
    expectNoDuplicateRecords(records);
    const staleEpochs = new Set(stale.map((s) => s.epoch));
    const afterTakeover = records.filter((r) => r.created_at > T0 + 2_000);
    expect(afterTakeover.length).toBeGreaterThan(0);
    expect(afterTakeover.some((r) => staleEpochs.has(r.claimed_by_epoch))).toBe(false);
  });

  it('fires each of an every-second job’s times once when its claim runs 4 s late, inside the window', async () => {
    await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000, misfire_strategy: 'DO_NOTHING' }, T0);
    clock.stall(4_000);
    const node = await startNode('node-a');
    await clock.advance(2_000);
    const records = await claimedFires(store);
    expectNoDuplicateRecords(records);
    expect(records.filter((r) => r.status === 'skipped')).toEqual([]);
    expect(records.map((r) => [r.scheduled_at, r.trigger_type])).toEqual(
      seconds(T0 + 1_000, records.at(-1)?.scheduled_at as number).map((at) => [at, 'CRON']),
    );
    // The four times the late claim found past are handed over at once, each under its own record.
    expect(node.pipeline.handed.map((h) => h.at)).toEqual([
      ...seconds(T0 + 1_000, T0 + 4_000).map(() => T0 + 4_000),
      ...seconds(T0 + 5_000, T0 + 6_000),
    ]);
    expect(new Set(node.pipeline.ids()).size).toBe(node.pipeline.handed.length);
  });

  it('skips the times a 12 s late claim missed by more than the window as one DO_NOTHING record saying how many, and fires the rest', async () => {
    await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000, misfire_strategy: 'DO_NOTHING' }, T0);
    clock.stall(12_000);
    const node = await startNode('node-a');
    await clock.advance(1_000);
    const records = await claimedFires(store);
    expectNoDuplicateRecords(records);
    const skipped = records.filter((r) => r.status === 'skipped');
    // T0+1 s … T0+6 s are more than 5 s late at T0+12 s; T0+7 s … T0+12 s are inside the window.
    expect(skipped.map((r) => [r.scheduled_at, r.trigger_type])).toEqual([[T0 + 1_000, 'MISFIRE']]);
    expect(skipped[0]?.handle_msg).toMatch(/misfire: skipped \(DO_NOTHING\).*6 scheduled times were missed/);
    expect(records.filter((r) => r.scheduled_at > T0 + 1_000 && r.scheduled_at < T0 + 7_000)).toEqual([]);
    expect(node.pipeline.handed.map((h) => h.at)).toEqual([
      ...seconds(T0 + 7_000, T0 + 12_000).map(() => T0 + 12_000),
      T0 + 13_000,
    ]);
    expect(node.pipeline.ids()).not.toContain(skipped[0]?.id);
  });

  it('fires the times a 12 s late claim missed by more than the window once now under FIRE_ONCE_NOW, and the rest each', async () => {
    await createJob(
      store,
      { ...EVERY_SECOND, next_fire_at: T0 + 1_000, misfire_strategy: 'FIRE_ONCE_NOW' },
      T0,
    );
    clock.stall(12_000);
    const node = await startNode('node-a');
    await clock.advance(1_000);
    const records = await claimedFires(store);
    expectNoDuplicateRecords(records);
    expect(
      records.filter((r) => r.scheduled_at <= T0 + 13_000).map((r) => [r.scheduled_at, r.trigger_type]),
    ).toEqual([[T0 + 1_000, 'MISFIRE'], ...seconds(T0 + 7_000, T0 + 13_000).map((at) => [at, 'CRON'])]);
    expect(node.pipeline.handed.map((h) => h.at)).toEqual([
      ...seconds(T0 + 6_000, T0 + 12_000).map(() => T0 + 12_000),
      T0 + 13_000,
    ]);
  });

  it('claims nothing while the pipeline is behind and, once it caught up, every time it held back', async () => {
    for (let i = 0; i < 3; i++) await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000 }, T0);
    const node = createTestNode(store, clock, { nodeId: 'node-a', shardCount: 8, maxBacklog: 100 });
    nodes.push(node);
    node.pipeline.backlog = 100;
    await node.start();
    await clock.advance(3_200);
    expect(await claimedFires(store)).toEqual([]);
    // Each held-back tick is told (the server counts it in /metrics and says so in its log).
    expect(node.heldBack.length).toBeGreaterThanOrEqual(3);
    expect(new Set(node.heldBack)).toEqual(new Set([100]));
    node.pipeline.backlog = 0;
    const heldBefore = node.heldBack.length;
    await clock.advance(1_000);
    expect(node.heldBack.length).toBe(heldBefore);
    const records = await claimedFires(store);
    expectNoDuplicateRecords(records);
    expect(records.filter((r) => r.status === 'skipped')).toEqual([]);
    for (const jobId of new Set(records.map((r) => r.job_id))) {
      const times = records.filter((r) => r.job_id === jobId).map((r) => r.scheduled_at);
      expect(times).toEqual(seconds(T0 + 1_000, times.at(-1) as number));
      expect(times.at(-1)).toBeGreaterThanOrEqual(T0 + 4_000);
    }
  });

  it('skips a fire missed by more than the window under DO_NOTHING, once, and carries on from the window', async () => {
    const job = await createJob(
      store,
      { ...EVERY_SECOND, next_fire_at: T0 + 1_000, misfire_strategy: 'DO_NOTHING' },
      T0,
    );
    clock.stall(60_000);
    const node = await startNode('node-a');
    await clock.advance(3_000);
    const records = await claimedFires(store);
    const skipped = records.filter((r) => r.status === 'skipped');
    expect(skipped.map((r) => [r.scheduled_at, r.trigger_type])).toEqual([[T0 + 1_000, 'MISFIRE']]);
    expect(skipped[0]?.handle_msg).toMatch(/misfire.*54 scheduled times were missed/);
    expect(records.filter((r) => r.scheduled_at > T0 + 1_000 && r.scheduled_at < T0 + 55_000)).toEqual([]);
    expect(node.pipeline.handed.map((h) => h.at)).toEqual([
      ...seconds(T0 + 55_000, T0 + 60_000).map(() => T0 + 60_000),
      ...seconds(T0 + 61_000, T0 + 63_000),
    ]);
    expect(node.pipeline.ids()).not.toContain(skipped[0]?.id);
    expect((await store.jobs.findJobById(job.id))?.trigger_status).toBe(1);
  });

  it('records a DO_NOTHING misfire skipped in the claim transaction itself and never hands it over', async () => {
    await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000, misfire_strategy: 'DO_NOTHING' }, T0);
    // What the store holds the moment each claim returns, and every skip the planner asks for later.
    const statusesAtClaim: string[] = [];
    const laterSkips: number[][] = [];
    const watched: Store = {
      ...store,
      fires: {
        ...store.fires,
        async claimDueFires(request) {
          const result = await store.fires.claimDueFires(request);
          const rows = await store.fires.findFiresByIds(result.skipped.map((fire) => fire.fireId));
          statusesAtClaim.push(...rows.map((row) => row.status));
          return result;
        },
        async skipPendingFires(ids, message, now) {
          laterSkips.push([...ids]);
          return store.fires.skipPendingFires(ids, message, now);
        },
      },
    };
    clock.stall(60_000);
    const node = await startNode('node-a', { store: watched });
    await clock.advance(3_000);
    const skipped = (await claimedFires(store)).filter((r) => r.status === 'skipped');
    expect(skipped.map((r) => [r.scheduled_at, r.trigger_type, r.handle_at])).toEqual([
      [T0 + 1_000, 'MISFIRE', T0 + 60_000],
    ]);
    expect(statusesAtClaim).toEqual(['skipped']);
    expect(laterSkips).toEqual([]);
    expect(node.pipeline.ids()).not.toContain(skipped[0]?.id);
    expect(node.pipeline.handed.map((h) => h.at)).toEqual([
      ...seconds(T0 + 55_000, T0 + 60_000).map(() => T0 + 60_000),
      ...seconds(T0 + 61_000, T0 + 63_000),
    ]);
    expect(node.logger.lines.filter((l) => l.message.startsWith('misfire'))).toEqual([
      expect.objectContaining({ level: 'warn', details: { fireIds: [skipped[0]?.id] } }),
    ]);
  });

  it('fires a fire missed by more than the window once now under FIRE_ONCE_NOW, then carries on from now', async () => {
    await createJob(
      store,
      { ...EVERY_SECOND, next_fire_at: T0 + 1_000, misfire_strategy: 'FIRE_ONCE_NOW' },
      T0,
    );
    clock.stall(60_000);
    const node = await startNode('node-a');
    await clock.advance(3_000);
    const records = await claimedFires(store);
    const misfire = records.find((r) => r.trigger_type === 'MISFIRE');
    expect(misfire?.scheduled_at).toBe(T0 + 1_000);
    expect(records.filter((r) => r.scheduled_at > T0 + 1_000 && r.scheduled_at < T0 + 55_000)).toEqual([]);
    const atResume = node.pipeline.handed.filter((h) => h.at === T0 + 60_000);
    expect(atResume).toHaveLength(7);
    expect(atResume.map((h) => h.fireId)).toContain(misfire?.id);
    expect(node.pipeline.handed.filter((h) => h.at > T0 + 60_000).map((h) => h.at)).toEqual(
      seconds(T0 + 61_000, T0 + 63_000),
    );
  });

  it('fires a stalled node’s missed fires of one job once under FIRE_ONCE_NOW and only the times inside the window each', async () => {
    await createJob(
      store,
      { ...EVERY_SECOND, next_fire_at: T0 + 1_000, misfire_strategy: 'FIRE_ONCE_NOW' },
      T0,
    );
    const node = await startNode('node-a');
    await clock.advance(2_000);
    expect(node.planner.waiting).toBeGreaterThanOrEqual(3);
    clock.stall(30_000);
    const resumedAt = clock.now();
    await clock.advance(3_000);
    const records = await claimedFires(store);
    expectNoDuplicateRecords(records);
    const claimedLate = records.filter((r) => r.created_at >= resumedAt);
    expect(claimedLate.filter((r) => r.trigger_type === 'MISFIRE')).toHaveLength(1);
    expect(
      claimedLate.filter((r) => r.trigger_type === 'CRON' && r.scheduled_at < resumedAt - 5_000),
    ).toEqual([]);
    expect(records.filter((r) => r.status === 'pending' && r.scheduled_at <= clock.now())).toEqual([]);
  });

  it('dispatches each record a crashed node claimed but never dispatched once, when it restarts', async () => {
    for (let i = 0; i < 5; i++) await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000 }, T0);
    const before = await startNode('node-a');
    await clock.advance(1_500);
    const waiting = before.planner.waiting;
    expect(waiting).toBeGreaterThan(0);
    before.crash();
    clock.stall(1_000);
    const after = await startNode('node-a');
    await clock.advance(6_000);
    const handed = [...before.pipeline.ids(), ...after.pipeline.ids()];
    expect(new Set(handed).size).toBe(handed.length);
    // The records the crashed node claimed are recovered, read from the store, not as claimed.
    const recovered = after.pipeline.ids().filter((id) => !after.pipeline.claimed.has(id));
    expect(recovered.length).toBeGreaterThanOrEqual(waiting);
    const records = await claimedFires(store);
    expectNoDuplicateRecords(records);
    const dueByNow = records.filter((r) => r.scheduled_at <= clock.now());
    expect(new Set(handed)).toEqual(new Set(dueByNow.map((r) => r.id)));
    expect(dueByNow.every((r) => r.status === 'dispatched')).toBe(true);
  });

  it('recovers more pending records than one page, page by page, losing none, a trigger-once record among them', async () => {
    const jobs = [];
    for (let i = 0; i < 20; i++)
      jobs.push(await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000 }, T0));
    const before = await startNode('node-a');
    await clock.advance(500);
    before.crash();
    const pendingAtCrash = (await claimedFires(store)).filter((r) => r.status === 'pending');
    expect(pendingAtCrash.length).toBeGreaterThanOrEqual(20 * 2);
    // A manual trigger's record its server died before dispatching: recovered like a claimed fire.
    const [manual] = await store.fires.createFires(
      [
        {
          jobId: jobs[0]!.id,
          appId: 1,
          scheduledAt: T0 + 1_000,
          triggerType: 'MANUAL',
          executorHandler: 'h',
          executorParam: null,
        },
      ],
      clock.now(),
    );
    const pages: number[] = [];
    const paged: Store = {
      ...store,
      fires: {
        ...store.fires,
        async findPendingFires(query) {
          const page = await store.fires.findPendingFires(query);
          pages.push(page.length);
          return page;
        },
      },
    };
    const after = await startNode('node-a', { store: paged, recoveryPageSize: 4 });
    expect(pages.length).toBeGreaterThan(pendingAtCrash.length / 4);
    expect(pages.slice(0, -1).every((n) => n === 4)).toBe(true);
    expect(pages.reduce((a, b) => a + b, 0)).toBe(pendingAtCrash.length + 1);
    // Past the last record the claim made: the look-ahead (5 s) and the record-ahead (2.5 s).
    await clock.advance(8_000);
    const handed = after.pipeline.ids();
    expect(new Set(handed).size).toBe(handed.length);
    for (const record of pendingAtCrash) expect(handed).toContain(record.id);
    expect(handed).toContain(manual);
    expect((await store.fires.findFireById(manual!))?.trigger_type).toBe('MANUAL');
    const records = await claimedFires(store);
    expectNoDuplicateRecords(records);
    expect(records.filter((r) => r.status === 'pending' && r.scheduled_at <= clock.now())).toEqual([]);
    expect(after.logger.lines).toContainEqual(
      expect.objectContaining({
        message: 'recovered pending fires',
        details: expect.objectContaining({ rearmed: pendingAtCrash.length + 1, skipped: 0 }),
      }),
    );
  });

  it('recovers trigger-once records by the misfire policy, keeping their trigger type, and leaves broadcast children to their parent', async () => {
    const strategies = ['DO_NOTHING', 'FIRE_ONCE_NOW'] as const;
    const [doNothing, fireNow] = await Promise.all(
      strategies.map((misfire_strategy) =>
        createJob(store, { schedule_type: 'NONE', schedule_conf: '', misfire_strategy }, T0),
      ),
    );
    const stopped = await createJob(
      store,
      { schedule_type: 'NONE', schedule_conf: '', trigger_status: 0 },
      T0,
    );
    const once = (
      jobId: number,
      scheduledAt: number,
      triggerType: 'MANUAL' | 'API',
      parentFireId?: number,
    ) => ({
      jobId,
      appId: 1,
      scheduledAt,
      triggerType,
      executorHandler: 'h',
      executorParam: null,
      ...(parentFireId === undefined ? {} : { parentFireId }),
    });
    const late = T0 - 60_000;
    const [recent, stoppedJobs, lateSkipped, lateFired] = await store.fires.createFires(
      [
        once(doNothing!.id, T0 - 1_000, 'MANUAL'),
        once(stopped.id, T0 - 1_000, 'API'),
        once(doNothing!.id, late, 'MANUAL'),
        once(fireNow!.id, late, 'API'),
      ],
      T0,
    );
    const [child] = await store.fires.createFires([once(doNothing!.id, T0 - 1_000, 'MANUAL', recent)], T0);

    const node = await startNode('node-a');
    await clock.advance(1_000);
    expect(new Map(node.pipeline.handed.map((h) => [h.fireId, h.at]))).toEqual(
      new Map([
        // Within the window: due at its own time, which is past, so handed over at once.
        [recent, T0],
        [stoppedJobs, T0],
        [lateFired, T0],
      ]),
    );
    const rows = new Map(
      (await store.fires.findFiresByIds([recent!, stoppedJobs!, lateSkipped!, lateFired!, child!])).map(
        (r) => [r.id, r],
      ),
    );
    expect([recent, stoppedJobs, lateSkipped, lateFired, child].map((id) => rows.get(id!)?.status)).toEqual([
      'dispatched',
      'dispatched',
      'skipped',
      'dispatched',
      'pending',
    ]);
    expect([recent, stoppedJobs, lateSkipped, lateFired].map((id) => rows.get(id!)?.trigger_type)).toEqual([
      'MANUAL',
      'API',
      'MANUAL',
      'API',
    ]);
    expect(rows.get(lateSkipped!)?.handle_msg).toMatch(/DO_NOTHING.*server stopped before dispatching/);
  });

  it('records a claimed fire recovered more than the window late as MISFIRE, fired once now or skipped by policy', async () => {
    const fireNow = await createJob(
      store,
      { ...EVERY_SECOND, next_fire_at: T0 + 1_000, misfire_strategy: 'FIRE_ONCE_NOW' },
      T0,
    );
    const doNothing = await createJob(
      store,
      { ...EVERY_SECOND, next_fire_at: T0 + 1_000, misfire_strategy: 'DO_NOTHING' },
      T0,
    );
    const before = await startNode('node-a');
    await clock.advance(500);
    before.crash();
    const pendingAtCrash = (await claimedFires(store)).filter((r) => r.status === 'pending');
    expect(pendingAtCrash.filter((r) => r.job_id === fireNow.id).length).toBeGreaterThanOrEqual(2);
    clock.stall(60_000);
    const restartedAt = clock.now();
    const after = await startNode('node-a');
    await clock.advance(500);

    const recovered = await store.fires.findFiresByIds(pendingAtCrash.map((r) => r.id));
    expect(recovered.every((r) => r.trigger_type === 'MISFIRE')).toBe(true);
    const fired = recovered.filter((r) => r.status === 'dispatched');
    expect(fired.map((r) => [r.job_id, r.scheduled_at])).toEqual([[fireNow.id, T0 + 1_000]]);
    expect(after.pipeline.handed).toContainEqual({ fireId: fired[0]?.id, at: restartedAt });
    const skipped = recovered.filter((r) => r.status === 'skipped');
    expect(skipped).toHaveLength(recovered.length - 1);
    expect(
      skipped
        .filter((r) => r.job_id === doNothing.id)
        .every((r) => /server stopped/.test(r.handle_msg ?? '')),
    ).toBe(true);
    expectNoDuplicateRecords(await claimedFires(store));
  });

  it('leaves a trigger-once record this process is dispatching to that dispatch when a lapsed lease comes back', async () => {
    const job = await createJob(
      store,
      { schedule_type: 'NONE', schedule_conf: '', misfire_strategy: 'FIRE_ONCE_NOW' },
      T0,
    );
    const node = await startNode('node-a', { leaseTtlMs: 3_000 });
    const record = (scheduledAt: number) => ({
      jobId: job.id,
      appId: 1,
      scheduledAt,
      triggerType: 'MANUAL' as const,
      executorHandler: 'h',
      executorParam: null,
    });
    // One record this node's trigger path is sending (told to the planner as soon as it exists),
    // one left by a server that died before sending it.
    const [inFlight, orphan] = await store.fires.createFires([record(T0), record(T0)], T0);
    node.inFlight.add([inFlight!]);
    // The event loop stalls past the lease: it is granted afresh, under a new epoch, and recovered.
    clock.stall(5_000);
    await clock.advance(2_000);
    expect(node.logger.lines.map((l) => l.message)).toContain(
      'shard lease had lapsed and was granted afresh',
    );
    expect(node.pipeline.ids()).toEqual([orphan]);
    expect((await store.fires.findFireById(inFlight!))?.status).toBe('pending');
  });

  it('takes up an orphaned pending record of a shard it holds within the sweep interval, and one the pipeline left pending again once told', async () => {
    const job = await createJob(
      store,
      { schedule_type: 'NONE', schedule_conf: '', misfire_strategy: 'FIRE_ONCE_NOW' },
      T0,
    );
    const node = await startNode('node-a');
    // Made after the node recovered its shards, and handed to nobody: no takeover will come.
    const [orphan] = await store.fires.createFires(
      [
        {
          jobId: job.id,
          appId: 1,
          scheduledAt: T0,
          triggerType: 'API',
          executorHandler: 'h',
          executorParam: null,
        },
      ],
      T0,
    );
    await clock.advance(2_000);
    expect(node.pipeline.ids()).toEqual([]);
    await clock.advance(ORPHAN_SWEEP_INTERVAL_MS);
    expect(node.pipeline.ids()).toEqual([orphan]);
    // Its marks are lost (the stand-in wrote them; undo that): pending, but handed over, so not
    // taken up twice…
    await node.pipeline.idle();
    await store.db.updateTable('fire').set({ status: 'pending' }).where('id', '=', orphan!).execute();
    await clock.advance(ORPHAN_SWEEP_INTERVAL_MS);
    expect(node.pipeline.ids()).toEqual([orphan]);
    // …until the pipeline says it left it pending.
    node.inFlight.delete([orphan!]);
    await clock.advance(ORPHAN_SWEEP_INTERVAL_MS);
    expect(node.pipeline.ids()).toEqual([orphan, orphan]);
  });

  it('lets another node dispatch a dead node’s pending fires once its leases expire', async () => {
    for (let i = 0; i < 5; i++) {
      await createJob(
        store,
        { ...EVERY_SECOND, next_fire_at: T0 + 1_000, misfire_strategy: 'FIRE_ONCE_NOW' },
        T0,
      );
    }
    const a = await startNode('node-a', { leaseTtlMs: 3_000, store: await db.open() });
    const b = await startNode('node-b', { leaseTtlMs: 3_000, store: await db.open() });
    await clock.advance(1_200);
    expect(b.leases.ownedShards()).toEqual([]);
    const pendingAtCrash = (await claimedFires(store)).filter((r) => r.status === 'pending');
    expect(pendingAtCrash.length).toBeGreaterThan(0);
    a.crash();
    await clock.advance(10_000);
    expect(b.leases.ownedShards()).toHaveLength(8);
    const handed = [...a.pipeline.ids(), ...b.pipeline.ids()];
    expect(new Set(handed).size).toBe(handed.length);
    for (const record of pendingAtCrash) expect(b.pipeline.ids()).toContain(record.id);
    const records = await claimedFires(store);
    expectNoDuplicateRecords(records);
    expect(records.filter((r) => r.status === 'pending' && r.scheduled_at <= clock.now())).toEqual([]);
  });

  it('recovers a dead node’s records up to its claims’ whole reach, past the look-ahead, each fired once at its time', async () => {
    await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000 }, T0);
    const a = await startNode('node-a', { leaseTtlMs: 1_000, store: await db.open() });
    const b = await startNode('node-b', { leaseTtlMs: 1_000, store: await db.open() });
    // a's claim at T0 recorded 1 s to 7 s: beyond b's look-ahead when it takes the shard over.
    const atCrash = await claimedFires(store);
    expect(atCrash.map((r) => r.scheduled_at)).toEqual(seconds(T0 + 1_000, T0 + 7_000));
    a.crash();
    await clock.advance(12_000);
    expect(b.leases.ownedShards()).toHaveLength(8);
    const records = await claimedFires(store);
    expectNoDuplicateRecords(records);
    const scheduledAt = new Map(records.map((r) => [r.id, r.scheduled_at]));
    const handed = b.pipeline.handed.map((h) => scheduledAt.get(h.fireId));
    expect(handed).toEqual(seconds(T0 + 1_000, T0 + 12_000));
    // From 3 s on each at its time (those due before b held the shard went when it took it over).
    expect(b.pipeline.handed.slice(2).map((h) => h.at)).toEqual(seconds(T0 + 3_000, T0 + 12_000));
    expect(a.pipeline.handed).toEqual([]);
  });

  it('leaves the due fires of a shard it can no longer renew to the node that takes it over', async () => {
    for (let i = 0; i < 5; i++) await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000 }, T0);
    const cutOff = await db.open();
    const a = await startNode('node-a', { leaseTtlMs: 3_000, store: cutOff });
    const b = await startNode('node-b', { leaseTtlMs: 3_000, store: await db.open() });
    await clock.advance(2_200);
    const armed = a.planner.waiting;
    // Node A loses its database; its last renewal (T0 + 2 s) lets it act until T0 + 4.4 s.
    await cutOff.close();
    await clock.advance(7_800);
    expect(a.pipeline.handed.every((h) => h.at < T0 + 4_400)).toBe(true);
    expect(a.pipeline.handed.filter((h) => h.at > T0 + 2_200).length).toBeLessThan(armed);
    expect(a.planner.waiting).toBe(0);
    const byB = b.pipeline.ids();
    expect(new Set(byB).size).toBe(byB.length);
    const records = await claimedFires(store);
    expectNoDuplicateRecords(records);
    expect(records.filter((r) => r.status === 'pending' && r.scheduled_at <= clock.now())).toEqual([]);
    const dueByNow = records.filter((r) => r.scheduled_at <= clock.now() && r.status !== 'skipped');
    const markedByA = a.pipeline.ids().filter((id) => !a.pipeline.unmarked.includes(id));
    expect(new Set([...markedByA, ...byB])).toEqual(new Set(dueByNow.map((r) => r.id)));
    // What A handed over but could not mark is dispatched again by B: at least once, same logId.
    expect(byB.filter((id) => markedByA.includes(id))).toEqual([]);
    expect(a.pipeline.unmarked.every((id) => byB.includes(id))).toBe(true);
  });

  it('fires ONCE once and leaves the job started with no next time', async () => {
    const job = await createJob(
      store,
      { schedule_type: 'ONCE', schedule_conf: String(T0 + 2_500), next_fire_at: T0 + 2_500 },
      T0,
    );
    const node = await startNode('node-a');
    await clock.advance(10_000);
    expect(node.pipeline.handed.map((h) => h.at)).toEqual([T0 + 2_500]);
    const row = await store.jobs.findJobById(job.id);
    expect([row?.trigger_status, row?.next_fire_at]).toEqual([1, null]);
  });

  it('never claims a NONE job', async () => {
    await createJob(store, { schedule_type: 'NONE', schedule_conf: '', next_fire_at: T0 + 1_000 }, T0);
    const node = await startNode('node-a');
    await clock.advance(5_000);
    expect(node.pipeline.handed).toEqual([]);
    expect(await claimedFires(store)).toEqual([]);
  });

  it('keeps FIX_RATE on its own grid', async () => {
    await createJob(store, { schedule_type: 'FIX_RATE', schedule_conf: '3', next_fire_at: T0 + 1_250 }, T0);
    const node = await startNode('node-a');
    await clock.advance(10_000);
    expect(node.pipeline.handed.map((h) => h.at)).toEqual(
      [T0 + 1_250, T0 + 4_250, T0 + 7_250, T0 + 10_250].slice(0, 3),
    );
  });

  it('waits for the end of a FIX_DELAY run before claiming its next fire', async () => {
    const job = await createJob(
      store,
      { schedule_type: 'FIX_DELAY', schedule_conf: '2', next_fire_at: T0 + 1_000 },
      T0,
    );
    const node = await startNode('node-a');
    await clock.advance(5_000);
    expect(node.pipeline.handed.map((h) => h.at)).toEqual([T0 + 1_000]);
    expect((await store.jobs.findJobById(job.id))?.next_fire_at).toBeNull();
    // The run ends at T0 + 5 s: the finalise path schedules the next fire from there.
    const { nextFixDelayFireAt } = await import('../src/scheduling/misfire.js');
    await store.jobs.recordRunEnd(
      job.id,
      clock.now(),
      nextFixDelayFireAt({ scheduleType: 'FIX_DELAY', scheduleConf: '2' }, clock.now()),
    );
    await clock.advance(3_000);
    expect(node.pipeline.handed.map((h) => h.at)).toEqual([T0 + 1_000, T0 + 7_000]);
  });

  it('stops a job whose schedule no longer reads and keeps claiming the others', async () => {
    const broken = await createJob(
      store,
      { schedule_type: 'CRON', schedule_conf: 'not a cron', next_fire_at: T0 + 1_000 },
      T0,
    );
    await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000 }, T0);
    const node = await startNode('node-a');
    await clock.advance(3_000);
    expect(node.pipeline.handed).toHaveLength(3);
    expect((await store.jobs.findJobById(broken.id))?.trigger_status).toBe(0);
    expect(node.logger.errors()).toContain('job stopped: its schedule cannot be read');
  });

  it('skips a pending fire whose job was stopped while its node was down', async () => {
    const job = await createJob(store, { ...EVERY_SECOND, next_fire_at: T0 + 1_000 }, T0);
    const before = await startNode('node-a');
    await clock.advance(500);
    before.crash();
    await store.jobs.stopJob(job.id, clock.now());
    const after = await startNode('node-a');
    await clock.advance(6_000);
    expect(after.pipeline.handed).toEqual([]);
    const records = await claimedFires(store);
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => r.status === 'skipped')).toBe(true);
  });
});

type ClaimResult = Awaited<ReturnType<Store['fires']['claimDueFires']>>;

/** `store`, its claims made through `around` (which runs `claim` and may look before and after). */
function watchClaims(
  store: Store,
  around: (claim: () => Promise<ClaimResult>) => Promise<ClaimResult>,
): Store {
  const fires = new Proxy(store.fires, {
    get(target, key) {
      if (key === 'claimDueFires') {
        return (request: Parameters<Store['fires']['claimDueFires']>[0]) =>
          around(() => target.claimDueFires(request));
      }
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return Object.assign(Object.create(store), { fires });
}

async function insertJobs(
  store: Store,
  count: number,
  fields: { schedule_type: string; schedule_conf: string; next_fire_at: number },
): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => ({
    app_id: 1,
    name: `burst ${i}`,
    author: '',
    alarm_email: '',
    time_zone: 'UTC',
    misfire_strategy: 'DO_NOTHING',
    executor_route_strategy: 'FIRST',
    executor_handler: 'burst',
    executor_param: '',
    executor_block_strategy: 'SERIAL_EXECUTION',
    executor_timeout: 0,
    executor_fail_retry_count: 0,
    glue_type: 'BEAN',
    glue_source: '',
    glue_remark: '',
    glue_updated_at: T0,
    child_job_ids: '',
    trigger_status: 1,
    last_run_end_at: null,
    created_at: T0,
    updated_at: T0,
    ...fields,
  }));
  for (let i = 0; i < rows.length; i += 1_000)
    await store.db
      .insertInto('job')
      .values(rows.slice(i, i + 1_000))
      .execute();
}

describe('planner on the real clock', () => {
  // Bounded for a loaded CI machine; typical lateness is 0–3 ms.
  it('hands an every-second cron over its lead (prepareAheadMs) before each second, never earlier', async () => {
    const db = await createTestDatabase('sqlite');
    try {
      const store = await db.open();
      const firstSecond = Math.ceil((Date.now() + 300) / 1_000) * 1_000;
      await createJob(store, { ...EVERY_SECOND, next_fire_at: firstSecond }, Date.now());
      const lateness: number[] = [];
      const pipeline = {
        onDue(ids: number[]) {
          for (const _ of ids) lateness.push(Date.now() - (firstSecond + lateness.length * 1_000));
        },
      };
      const options = resolveSchedulingOptions({ nodeId: 'node-real', shardCount: 4, clock: systemClock });
      const scheduler = createScheduler(store, pipeline, options);
      await scheduler.start();
      await new Promise((resolve) => setTimeout(resolve, firstSecond + 2_100 - Date.now()));
      const left = await scheduler.stop();
      expect(options.prepareAheadMs).toBe(60);
      expect(lateness).toHaveLength(3);
      // Handed over 60 ms ahead (on the 20 ms grid, never before), to be sent at its time.
      for (const ms of lateness) expect(ms).toBeGreaterThanOrEqual(-60);
      for (const ms of lateness) expect(ms).toBeLessThan(250 - 60);
      expect(left.length).toBeGreaterThan(0);
      expect(await store.leases.findLease('shard:0')).toMatchObject({
        owner_node: 'node-real',
        expires_at: 0,
      });
    } finally {
      await db.drop();
    }
  });
});
