/**
 * What the database says about the fires scheduled in the measured window, checked against the
 * schedule: every due job fires once per second at its phase, so the expected fires are known
 * without asking the server.
 */
import { FINAL_STATUSES, type Store } from '@tickwheel/server/internal';
import type { Window } from './messages.js';

export interface FireCounts {
  /** Fires the schedules call for in the window. */
  expected: number;
  /** Fire records of planner fires in the window (parent_fire_id null). */
  recorded: number;
  /** Records with a final result stored. */
  resultsStored: number;
  succeeded: number;
  /** Records the misfire policy skipped. */
  skipped: number;
  /** Expected (job, time) pairs with no record at all. */
  lost: number;
  /** Records beyond the first of one (job, scheduled time). */
  duplicates: number;
  /** Records at a time the job's schedule does not have. */
  offSchedule: number;
  /**
   * Latest claim of a window fire relative to its scheduled time (record created − scheduled,
   * ms; negative = claimed ahead, as the look-ahead intends). A claim more than a second late
   * has skipped over the job's times between, which then have no record (`lost`).
   */
  latestClaimMs: number;
  /** Records by status. */
  byStatus: Record<string, number>;
}

/** Records of the window with a final status: the drain waits for this to reach `expected`. */
export async function countFinal(store: Store, window: Window): Promise<number> {
  const row = await store.db
    .selectFrom('fire')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('parent_fire_id', 'is', null)
    .where('scheduled_at', '>=', window.start)
    .where('scheduled_at', '<', window.end)
    .where('status', 'in', [...FINAL_STATUSES])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * `firstSecond` is the instant of phase 0 of the first second (see seed.ts); job j is due at
 * `firstSecond + phase(j) + k·1000`.
 */
export async function countFires(
  store: Store,
  window: Window,
  phases: ReadonlyMap<number, number>,
  firstSecond: number,
): Promise<FireCounts> {
  const rows = await store.db
    .selectFrom('fire')
    .select(['job_id', 'scheduled_at', 'status', 'created_at'])
    .where('parent_fire_id', 'is', null)
    .where('scheduled_at', '>=', window.start)
    .where('scheduled_at', '<', window.end)
    .execute();
  const expected = expectedFires(phases, firstSecond, window);
  const seen = new Set<string>();
  const byStatus: Record<string, number> = {};
  let duplicates = 0;
  let offSchedule = 0;
  let latestClaimMs = Number.NEGATIVE_INFINITY;
  for (const row of rows) {
    latestClaimMs = Math.max(latestClaimMs, row.created_at - row.scheduled_at);
    byStatus[row.status] = (byStatus[row.status] ?? 0) + 1;
    const phase = phases.get(row.job_id);
    if (phase === undefined || (row.scheduled_at - firstSecond - phase) % 1000 !== 0) {
      offSchedule++;
      continue;
    }
    const key = `${row.job_id}:${row.scheduled_at}`;
    if (seen.has(key)) duplicates++;
    else seen.add(key);
  }
  const final = new Set<string>(FINAL_STATUSES);
  return {
    expected,
    recorded: rows.length,
    resultsStored: rows.filter((row) => final.has(row.status) && row.status !== 'skipped').length,
    succeeded: byStatus.succeeded ?? 0,
    skipped: byStatus.skipped ?? 0,
    lost: expected - seen.size,
    duplicates,
    offSchedule,
    latestClaimMs,
    byStatus,
  };
}

/** The fires the schedules call for in the window. */
export function expectedFires(
  phases: ReadonlyMap<number, number>,
  firstSecond: number,
  window: Window,
): number {
  let expected = 0;
  for (const phase of phases.values()) expected += timesInWindow(firstSecond + phase, window);
  return expected;
}

/** How many of `first + k·1000` (k ≥ 0) fall in the window. */
function timesInWindow(first: number, window: Window): number {
  const from = Math.max(0, Math.ceil((window.start - first) / 1000));
  const to = Math.ceil((window.end - first) / 1000);
  return Math.max(0, to - from);
}
