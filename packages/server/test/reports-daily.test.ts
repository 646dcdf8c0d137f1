import { ManualClock } from '@tickwheel/test-fixtures/manual-clock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReportsMonitor } from '../src/monitors/reports.js';
import { RetentionMonitor } from '../src/monitors/retention.js';
import { coarseBound, mergeHistograms, percentile } from '../src/reports/histogram.js';
import { writeRetentionSettings } from '../src/retention/settings.js';
import type { Store } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import { MONITOR_TIMINGS } from './helpers/monitor-timings.js';
import { type SeedFire, seedFires } from './helpers/report-fixtures.js';

const DAY = 86_400_000;
const D = Date.parse('2026-03-10T00:00:00Z');
const silent = { error: () => {}, info: () => {} };

/**
 * App A's day: 100 dispatched records late by 0..99 ms (90 succeeded in 200 ms, 5 failed in
 * 400 ms, 2 timed out after 1 s, 1 killed after 100 ms, 1 refused, 1 still running), 3 skipped
 * and 2 pending. App B: a record 1.5 s late and a MISFIRE record fired 7 ms after it was created.
 */
function seededDay(appA: number, appB: number): SeedFire[] {
  const fires: SeedFire[] = [];
  const run = (i: number): [SeedFire['status'], number | null] => {
    if (i < 90) return ['succeeded', 200];
    if (i < 95) return ['failed', 400];
    if (i < 97) return ['timeout', 1_000];
    if (i === 97) return ['killed', 100];
    if (i === 98) return ['dispatch_failed', null];
    return ['dispatched', null];
  };
  for (let i = 0; i < 100; i++) {
    const scheduledAt = D + 3_600_000 + i * 1_000;
    const [status, runMs] = run(i);
    const triggerAt = scheduledAt + i;
    fires.push({
      appId: appA,
      jobId: 1,
      scheduledAt,
      status,
      triggerAt,
      handleAt: runMs === null ? null : triggerAt + runMs,
    });
  }
  for (let i = 0; i < 3; i++)
    fires.push({ appId: appA, jobId: 1, scheduledAt: D + 7_200_000 + i, status: 'skipped' });
  for (let i = 0; i < 2; i++)
    fires.push({ appId: appA, jobId: 2, scheduledAt: D + 80_000_000 + i, status: 'pending' });
  fires.push({
    appId: appB,
    jobId: 3,
    scheduledAt: D + 1_000,
    status: 'succeeded',
    triggerAt: D + 2_500,
    handleAt: D + 2_600,
  });
  fires.push({
    appId: appB,
    jobId: 3,
    scheduledAt: D + 10_000,
    triggerType: 'MISFIRE',
    createdAt: D + 70_000,
    status: 'succeeded',
    triggerAt: D + 70_007,
    handleAt: D + 70_107,
  });
  // The next day's record counts on its own day only.
  fires.push({
    appId: appA,
    jobId: 1,
    scheduledAt: D + DAY + 5,
    status: 'succeeded',
    triggerAt: D + DAY + 6,
    handleAt: D + DAY + 10,
  });
  return fires;
}

describe.each(DIALECTS)('daily reports on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  let clock: ManualClock;
  const monitors = () => {
    const common = {
      settings: store.settings,
      lease: { leases: store.leases, nodeId: 'node-a' },
      clock,
      logger: silent,
    };
    return {
      reports: new ReportsMonitor({ reports: store.reports, ...MONITOR_TIMINGS.reports, ...common }),
      retention: new RetentionMonitor({
        fires: store.fires,
        ...MONITOR_TIMINGS.retention,
        ...common,
        batchPauseMs: 0,
      }),
    };
  };

  beforeEach(async () => {
    database = await createTestDatabase(dialect);
    store = await database.open();
    clock = new ManualClock(D + DAY + 12 * 3_600_000);
  });
  afterEach(async () => {
    await database.drop();
  });

  it('counts fires by result with lateness p50/p99 and the mean run time, per app and day', async () => {
    await seedFires(store, seededDay(11, 12));
    const sweep = await monitors().reports.sweep();
    expect(sweep.held).toBe(true);
    expect(sweep.days).toEqual(['2026-03-10', '2026-03-11']);
    const rows = await store.reports.listDays('2026-03-10', '2026-03-11');
    expect(rows.map((r) => [r.day, r.app_id])).toEqual([
      ['2026-03-10', 11],
      ['2026-03-10', 12],
      ['2026-03-11', 11],
    ]);
    expect(rows[0]).toMatchObject({
      succeeded_count: 90,
      failed_count: 5,
      timeout_count: 2,
      killed_count: 1,
      dispatch_failed_count: 1,
      skipped_count: 3,
      running_count: 3,
      lateness_p50_ms: 49,
      lateness_p99_ms: 98,
      run_count: 98,
      // (90·200 + 5·400 + 2·1000 + 100) / 98
      mean_run_ms: 226,
      updated_at: clock.now(),
    });
    expect(rows[1]).toMatchObject({
      succeeded_count: 2,
      lateness_p50_ms: 7,
      lateness_p99_ms: 1_500,
      mean_run_ms: 100,
    });
    expect(rows[2]).toMatchObject({ succeeded_count: 1, lateness_p50_ms: 1, mean_run_ms: 4 });
  });

  it("keeps a day's final figures after retention deletes its fire records", async () => {
    await seedFires(store, seededDay(11, 12));
    const { reports, retention } = monitors();
    await reports.sweep();
    // Computed again a day after its end, the day is final.
    await clock.advanceTo(D + 2 * DAY + 60_000);
    expect((await reports.sweep()).days).toContain('2026-03-10');
    const final = await store.reports.listDays('2026-03-10', '2026-03-10');

    await clock.advanceTo(D + 4 * DAY + 3_600_000);
    await writeRetentionSettings(store.settings, { retentionDays: 3 }, clock.now());
    const deleted = await retention.sweep();
    expect(deleted.deleted).toBe(seededDay(11, 12).length);
    expect(await store.fires.countFires()).toBe(0);
    expect((await reports.sweep()).days).not.toContain('2026-03-10');
    expect(await store.reports.listDays('2026-03-10', '2026-03-10')).toEqual(final);
    expect(final[0]).toMatchObject({ succeeded_count: 90, lateness_p99_ms: 98 });
  });

  it('recomputes an open day as its records change, and drops an app whose records were cleared', async () => {
    await seedFires(store, seededDay(11, 12));
    const { reports } = monitors();
    await reports.sweep();
    await store.db.deleteFrom('fire').where('app_id', '=', 12).execute();
    await seedFires(store, [
      {
        appId: 11,
        jobId: 1,
        scheduledAt: D + 5_000,
        status: 'failed',
        triggerAt: D + 5_010,
        handleAt: D + 5_020,
      },
    ]);
    await clock.advance(60_000);
    await reports.sweep();
    const rows = await store.reports.listDays('2026-03-10', '2026-03-10');
    expect(rows.map((r) => [r.app_id, r.failed_count])).toEqual([[11, 6]]);
  });
});

describe('lateness histograms', () => {
  it('merge into percentiles of all their values, to within a bucket', () => {
    const values = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i): [number, number] => [coarseBound(from + i), 1]);
    const merged = mergeHistograms([values(0, 50), values(50, 100), values(1_000, 1_010)]);
    expect(percentile(merged, 0.5)).toBe(coarseBound(54));
    expect(coarseBound(54)).toBeGreaterThanOrEqual(54 * 0.95);
    expect(percentile(merged, 0.99)).toBe(coarseBound(1_008));
    expect(percentile([], 0.5)).toBeNull();
  });
});
