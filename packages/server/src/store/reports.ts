/** Per-day fire totals for the console's dashboard, written by the reports monitor. */
import type { StoreConnection } from './connection.js';
import type { DailyReportRow } from './schema.js';

export interface DayCounts {
  running: number;
  succeeded: number;
  failed: number;
}

export function createReportRepository(conn: StoreConnection) {
  const { db } = conn;

  /** Writes the totals of `day` (YYYY-MM-DD), replacing earlier totals of that day. */
  async function saveDay(day: string, counts: DayCounts, nowMs: number): Promise<void> {
    const values = {
      running_count: counts.running,
      succeeded_count: counts.succeeded,
      failed_count: counts.failed,
      updated_at: nowMs,
    };
    const insert = db.insertInto('daily_report').values({ day, ...values });
    if (conn.dialect === 'mysql') await insert.onDuplicateKeyUpdate(values).execute();
    else await insert.onConflict((oc) => oc.column('day').doUpdateSet(values)).execute();
  }

  /** Days from `fromDay` to `toDay` inclusive, oldest first. */
  async function listDays(fromDay: string, toDay: string): Promise<DailyReportRow[]> {
    return db
      .selectFrom('daily_report')
      .selectAll()
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay)
      .orderBy('day')
      .execute();
  }

  return { saveDay, listDays };
}

export type ReportRepository = ReturnType<typeof createReportRepository>;
