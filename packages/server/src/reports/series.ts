/**
 * The dashboard's figures from report rows: one entry per day, and the totals of the whole
 * period. Several rows (apps, days) are merged by adding their counts, weighting their mean run
 * times by their run counts, and taking the percentiles of their merged lateness histograms.
 */
import type { DailyAppReportRow } from '../store/index.js';
import { decodeHistogram, mergeHistograms, percentile } from './histogram.js';

export interface ReportFigures {
  total: number;
  succeeded: number;
  failed: number;
  timeout: number;
  killed: number;
  skipped: number;
  dispatchFailed: number;
  running: number;
  latenessP50Ms: number | null;
  latenessP99Ms: number | null;
  meanRunMs: number | null;
}

/** The figures of `rows` merged (an empty list: zeros and nulls). */
export function mergeFigures(rows: readonly DailyAppReportRow[]): ReportFigures {
  const sum = (pick: (row: DailyAppReportRow) => number) => rows.reduce((n, row) => n + Number(pick(row)), 0);
  const counts = {
    succeeded: sum((r) => r.succeeded_count),
    failed: sum((r) => r.failed_count),
    timeout: sum((r) => r.timeout_count),
    killed: sum((r) => r.killed_count),
    skipped: sum((r) => r.skipped_count),
    dispatchFailed: sum((r) => r.dispatch_failed_count),
    running: sum((r) => r.running_count),
  };
  const total = Object.values(counts).reduce((n, c) => n + c, 0);
  const runs = sum((r) => r.run_count);
  const runMs = sum((r) => Number(r.run_count) * Number(r.mean_run_ms ?? 0));
  return { total, ...counts, ...lateness(rows), meanRunMs: runs === 0 ? null : Math.round(runMs / runs) };
}

/** One row keeps its own percentiles (exact below 1 s); several are merged through their histograms. */
function lateness(
  rows: readonly DailyAppReportRow[],
): Pick<ReportFigures, 'latenessP50Ms' | 'latenessP99Ms'> {
  const [only, ...more] = rows;
  if (only !== undefined && more.length === 0) {
    return { latenessP50Ms: only.lateness_p50_ms, latenessP99Ms: only.lateness_p99_ms };
  }
  const merged = mergeHistograms(rows.map((row) => decodeHistogram(row.lateness_histogram)));
  return { latenessP50Ms: percentile(merged, 0.5), latenessP99Ms: percentile(merged, 0.99) };
}

/** One entry per day of `days` (oldest first), each merging that day's rows. */
export function dailySeries(
  days: readonly string[],
  rows: readonly DailyAppReportRow[],
): Array<ReportFigures & { day: string }> {
  const byDay = new Map<string, DailyAppReportRow[]>();
  for (const row of rows) byDay.set(row.day, [...(byDay.get(row.day) ?? []), row]);
  return days.map((day) => ({ day, ...mergeFigures(byDay.get(day) ?? []) }));
}
