import { ManualClock } from '@tickwheel/test-fixtures/manual-clock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RetentionMonitor } from '../src/monitors/retention.js';
import { DeletePacing, MIN_BATCH_SIZE } from '../src/retention/delete-pacing.js';
import { writeRetentionSettings } from '../src/retention/settings.js';
import { systemClock, type TimerHandle } from '../src/scheduling/clock.js';
import type { Store } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import { MONITOR_TIMINGS } from './helpers/monitor-timings.js';
import { type SeedFire, seedFires } from './helpers/report-fixtures.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-05-20T12:00:00Z');
const silent = { error: () => {}, info: () => {} };

function firesAt(scheduledAts: number[]): SeedFire[] {
  return scheduledAts.map((scheduledAt) => ({
    appId: 1,
    jobId: 1,
    scheduledAt,
    status: 'succeeded',
    triggerAt: scheduledAt,
    handleAt: scheduledAt + 10,
  }));
}

describe.each(DIALECTS)('retention monitor on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  let clock: ManualClock;
  beforeEach(async () => {
    database = await createTestDatabase(dialect);
    store = await database.open();
    clock = new ManualClock(NOW);
  });
  afterEach(async () => {
    await database.drop();
  });

  function monitor(batchSize: number, calls: Array<{ limit: number; deleted: number }>, nodeId = 'node-a') {
    return new RetentionMonitor({
      ...MONITOR_TIMINGS.retention,
      fires: {
        async deleteFiresBefore(cutoff, limit) {
          const deleted = await store.fires.deleteFiresBefore(cutoff, limit);
          calls.push({ limit, deleted });
          return deleted;
        },
      },
      settings: store.settings,
      lease: { leases: store.leases, nodeId },
      clock,
      logger: silent,
      batchSize,
      batchPauseMs: 0,
    });
  }

  it('deletes the records older than 30 days by default, in batches of the batch size', async () => {
    const old = Array.from({ length: 23 }, (_, i) => NOW - 30 * DAY - 1 - i * 60_000);
    const kept = [NOW - 30 * DAY + 1, NOW - 29 * DAY, NOW - DAY, NOW];
    await seedFires(store, firesAt([...old, ...kept]));
    const calls: Array<{ limit: number; deleted: number }> = [];
    const sweep = await monitor(5, calls).sweep();
    expect(sweep).toMatchObject({ held: true, deleted: 23, batches: 5, cutoff: NOW - 30 * DAY });
    expect(calls).toEqual([
      { limit: 5, deleted: 5 },
      { limit: 5, deleted: 5 },
      { limit: 5, deleted: 5 },
      { limit: 5, deleted: 5 },
      { limit: 5, deleted: 3 },
    ]);
    const left = await store.fires.listFires({ limit: 100 });
    expect(left.map((f) => f.scheduled_at).sort((a, b) => a - b)).toEqual(kept);
  });

  it('keeps the configured number of days', async () => {
    await seedFires(store, firesAt([NOW - 8 * DAY, NOW - 6 * DAY, NOW - 3 * DAY - 1, NOW - 2 * DAY]));
    await writeRetentionSettings(store.settings, { retentionDays: 7 }, NOW);
    expect((await monitor(100, []).sweep()).deleted).toBe(1);
    await writeRetentionSettings(store.settings, { retentionDays: 3 }, NOW);
    expect((await monitor(100, []).sweep()).deleted).toBe(2);
    expect(await store.fires.countFires()).toBe(1);
  });

  it('leaves the work to the node holding the maintenance lease', async () => {
    await seedFires(store, firesAt([NOW - 40 * DAY]));
    expect((await monitor(100, [], 'node-a').sweep()).held).toBe(true);
    const other = await monitor(100, [], 'node-b').sweep();
    expect(other).toMatchObject({ held: false, deleted: 0 });
  });
});

describe('retention pacing', () => {
  it('pauses between batches at least the minimum, and four times as long as a slow batch took', async () => {
    const pauses: number[] = [];
    const clock = {
      now: () => Date.now(),
      // Records the pause asked for and waits none of it.
      setTimer: (fn: () => void, ms: number) => {
        pauses.push(ms);
        return systemClock.setTimer(fn, 0);
      },
      clearTimer: (handle: TimerHandle) => systemClock.clearTimer(handle),
    };
    const batchTimes = [0, 30, 0];
    const monitor = new RetentionMonitor({
      ...MONITOR_TIMINGS.retention,
      fires: {
        async deleteFiresBefore(_cutoff, limit) {
          const took = batchTimes.shift();
          if (took === undefined) return 0;
          if (took > 0) await new Promise((resolve) => setTimeout(resolve, took));
          return limit;
        },
      },
      settings: { getSetting: async () => undefined },
      lease: {
        leases: { acquireOrRenewLease: async () => ({ epoch: 1, expiresAt: Date.now() + 60_000 }) },
        nodeId: 'a',
      },
      clock,
      logger: silent,
      batchSize: 10,
      batchPauseMs: 50,
    });
    expect(await monitor.sweep()).toMatchObject({ deleted: 30, batches: 4 });
    expect(pauses).toHaveLength(3);
    expect(pauses[0]).toBe(50);
    expect(pauses[1]).toBeGreaterThanOrEqual(4 * 29);
    expect(pauses[2]).toBe(50);
  });
});

describe('retention batch sizing', () => {
  it('without a budget, every batch is the batch size', () => {
    const pacing = new DeletePacing({ maxBatchSize: 1_000, minPauseMs: 50 });
    for (const took of [1, 80, 3]) {
      expect(pacing.batchSize).toBe(1_000);
      pacing.afterBatch(took);
    }
  });

  it('with a budget, sizes each batch to it: at once smaller after a slow batch, at most twice as large after a quick one', () => {
    const pacing = new DeletePacing({ maxBatchSize: 1_000, minPauseMs: 50, batchBudgetMs: 5 });
    const sizes: number[] = [];
    // 20 µs a record: a budget of 5 ms fits 250 records.
    for (let i = 0; i < 6; i++) {
      sizes.push(pacing.batchSize);
      pacing.afterBatch(pacing.batchSize * 0.02);
    }
    expect(sizes).toEqual([100, 200, 250, 250, 250, 250]);
    // One slow batch (a checkpoint, a busy machine): the next is cut to fit, then grows back.
    pacing.afterBatch(50);
    expect(pacing.batchSize).toBe(25);
    pacing.afterBatch(0.5);
    expect(pacing.batchSize).toBe(50);
    // Never below the smallest batch, never above the batch size.
    pacing.afterBatch(10_000);
    expect(pacing.batchSize).toBe(MIN_BATCH_SIZE);
    for (let i = 0; i < 20; i++) pacing.afterBatch(0);
    expect(pacing.batchSize).toBe(1_000);
  });
});
