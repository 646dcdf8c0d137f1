/**
 * Daily figures per app (`daily_app_report`): computed from the fire records of one UTC day by
 * the reports monitor, read by the dashboard. The two statements over `fire` read one day's
 * range of the scheduled_at index and hand back grouped rows only (counts by app and status;
 * lateness by app and fine bucket), so their answers stay small however busy the day was. On
 * SQLite they run on the reader thread (`sqlite-reader-thread.ts`): reading a busy day takes
 * hundreds of milliseconds, which must not be the server's event loop's.
 */
import { type CompiledQuery, sql } from 'kysely';
import {
  coarsen,
  encodeHistogram,
  FINE_BUCKET_SQL,
  type Histogram,
  percentile,
} from '../reports/histogram.js';
import { readAside, type StoreConnection } from './connection.js';
import type { FireStatus } from './fire-status.js';
import type { DailyAppReportRow } from './schema.js';

/** One app's figures of one day, as the monitor computes them. */
export interface AppDayFigures {
  appId: number;
  running: number;
  succeeded: number;
  failed: number;
  timeout: number;
  killed: number;
  skipped: number;
  dispatchFailed: number;
  latenessP50Ms: number | null;
  latenessP99Ms: number | null;
  /** Coarse buckets of the day's lateness. */
  latenessHistogram: Histogram;
  runCount: number;
  meanRunMs: number | null;
}

const COUNTED: Record<FireStatus, keyof AppDayFigures> = {
  pending: 'running',
  dispatched: 'running',
  succeeded: 'succeeded',
  failed: 'failed',
  timeout: 'timeout',
  killed: 'killed',
  skipped: 'skipped',
  dispatch_failed: 'dispatchFailed',
};

export function createReportRepository(conn: StoreConnection) {
  const { db } = conn;
  // A day's records are read on the SQLite reader thread: never on the server's event loop.
  const readDay = <R>(query: CompiledQuery<R>): Promise<R[]> => readAside(conn, query);

  /**
   * The figures of every app with fires scheduled in [from, to). Lateness is dispatch time −
   * due time (a MISFIRE record is due when it was created: when the misfire policy fired it);
   * a run's time is result time − dispatch time, over the records that ran.
   */
  async function computeDay(from: number, to: number): Promise<AppDayFigures[]> {
    const [counts, lateness] = await Promise.all([countDay(from, to), latenessOfDay(from, to)]);
    const figures = new Map<number, AppDayFigures>();
    const of = (appId: number) => {
      let entry = figures.get(appId);
      if (entry === undefined) {
        entry = emptyFigures(appId);
        figures.set(appId, entry);
      }
      return entry;
    };
    const runs = new Map<number, { n: number; sum: number }>();
    for (const row of counts) {
      const entry = of(Number(row.app_id));
      const key = COUNTED[row.status as FireStatus];
      if (key !== undefined) (entry[key] as number) += Number(row.n);
      const run = runs.get(entry.appId) ?? { n: 0, sum: 0 };
      run.n += Number(row.run_n ?? 0);
      run.sum += Number(row.run_sum ?? 0);
      runs.set(entry.appId, run);
    }
    for (const [appId, run] of runs) {
      const entry = of(appId);
      entry.runCount = run.n;
      entry.meanRunMs = run.n === 0 ? null : Math.round(run.sum / run.n);
    }
    const fine = new Map<number, Histogram>();
    for (const row of lateness) {
      const appId = Number(row.app_id);
      const buckets = fine.get(appId) ?? [];
      buckets.push([Number(row.bucket), Number(row.n)]);
      fine.set(appId, buckets);
    }
    for (const [appId, buckets] of fine) {
      buckets.sort((a, b) => a[0] - b[0]);
      const entry = of(appId);
      entry.latenessP50Ms = percentile(buckets, 0.5);
      entry.latenessP99Ms = percentile(buckets, 0.99);
      entry.latenessHistogram = coarsen(buckets);
    }
    return [...figures.values()].sort((a, b) => a.appId - b.appId);
  }

  function countDay(from: number, to: number) {
    const ran = sql<number>`CASE WHEN trigger_at IS NOT NULL AND handle_at IS NOT NULL
      AND status IN ('succeeded', 'failed', 'timeout', 'killed') THEN 1 ELSE 0 END`;
    const runMs = sql<number>`CASE WHEN trigger_at IS NOT NULL AND handle_at > trigger_at
      AND status IN ('succeeded', 'failed', 'timeout', 'killed') THEN handle_at - trigger_at ELSE 0 END`;
    const query = db
      .selectFrom('fire')
      .select((eb) => [
        'app_id',
        'status',
        eb.fn.countAll<number>().as('n'),
        eb.fn.sum<number>(ran).as('run_n'),
        eb.fn.sum<number>(runMs).as('run_sum'),
      ])
      .where('scheduled_at', '>=', from)
      .where('scheduled_at', '<', to)
      .groupBy(['app_id', 'status'])
      .compile();
    return readDay(query);
  }

  function latenessOfDay(from: number, to: number) {
    const b = FINE_BUCKET_SQL;
    // Grouped in the database into a bounded number of buckets: exact milliseconds below 1 s.
    const query = sql<{ app_id: number; bucket: number; n: number }>`
      SELECT app_id, bucket, COUNT(*) AS n FROM (
        SELECT app_id, CASE
          WHEN d < ${sql.lit(b.exactBelowMs)} THEN d
          WHEN d < ${sql.lit(b.mediumBelowMs)} THEN d - d % ${sql.lit(b.mediumWidthMs)}
          ELSE d - d % ${sql.lit(b.wideWidthMs)} END AS bucket
        FROM (
          SELECT app_id, CASE
            WHEN trigger_at > (CASE WHEN trigger_type = 'MISFIRE' THEN created_at ELSE scheduled_at END)
            THEN trigger_at - (CASE WHEN trigger_type = 'MISFIRE' THEN created_at ELSE scheduled_at END)
            ELSE 0 END AS d
          FROM fire
          WHERE scheduled_at >= ${from} AND scheduled_at < ${to} AND trigger_at IS NOT NULL
        ) lateness
      ) buckets
      GROUP BY app_id, bucket`.compile(db);
    return readDay(query);
  }

  /**
   * Replaces the rows of `day` (YYYY-MM-DD) with `figures`, in one transaction: an app whose
   * records are gone from the day (cleared) loses its row, and a reader sees the old rows or
   * the new ones, never a mix.
   */
  async function replaceDay(day: string, figures: readonly AppDayFigures[], nowMs: number): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('daily_app_report').where('day', '=', day).execute();
      if (figures.length === 0) return;
      await trx
        .insertInto('daily_app_report')
        .values(figures.map((f) => toRow(day, f, nowMs)))
        .execute();
    });
  }

  /** Rows of days `fromDay`..`toDay` inclusive (of `appIds` only, when given), oldest first. */
  async function listDays(
    fromDay: string,
    toDay: string,
    appIds?: readonly number[],
  ): Promise<DailyAppReportRow[]> {
    if (appIds !== undefined && appIds.length === 0) return [];
    let query = db
      .selectFrom('daily_app_report')
      .selectAll()
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay);
    if (appIds !== undefined) query = query.where('app_id', 'in', [...appIds]);
    return query.orderBy('day').orderBy('app_id').execute();
  }

  /** When each day of `fromDay`..`toDay` that has rows was last computed (its newest row). */
  async function lastComputedAt(fromDay: string, toDay: string): Promise<Map<string, number>> {
    const rows = await db
      .selectFrom('daily_app_report')
      .select(['day', (eb) => eb.fn.max('updated_at').as('at')])
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .groupBy('day')
      .execute();
    return new Map(rows.map((row) => [row.day, Number(row.at)]));
  }

  return { computeDay, replaceDay, listDays, lastComputedAt };
}

function toRow(day: string, f: AppDayFigures, nowMs: number): DailyAppReportRow {
  return {
    day,
    app_id: f.appId,
    running_count: f.running,
    succeeded_count: f.succeeded,
    failed_count: f.failed,
    timeout_count: f.timeout,
    killed_count: f.killed,
    skipped_count: f.skipped,
    dispatch_failed_count: f.dispatchFailed,
    lateness_p50_ms: f.latenessP50Ms,
    lateness_p99_ms: f.latenessP99Ms,
    lateness_histogram: encodeHistogram(f.latenessHistogram),
    run_count: f.runCount,
    mean_run_ms: f.meanRunMs,
    updated_at: nowMs,
  };
}

function emptyFigures(appId: number): AppDayFigures {
  return {
    appId,
    running: 0,
    succeeded: 0,
    failed: 0,
    timeout: 0,
    killed: 0,
    skipped: 0,
    dispatchFailed: 0,
    latenessP50Ms: null,
    latenessP99Ms: null,
    latenessHistogram: [],
    runCount: 0,
    meanRunMs: null,
  };
}

export type ReportRepository = ReturnType<typeof createReportRepository>;
