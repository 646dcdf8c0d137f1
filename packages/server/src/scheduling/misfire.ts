import { type MisfireStrategy, nextFireTimes, type Schedule } from '@tickwheel/protocol';

/** A fire claimed more than this late is a misfire (XXL-JOB's 5 s pre-read window). */
export const DEFAULT_MISFIRE_WINDOW_MS = 5_000;

/**
 * What a claim does with one scheduled time of a job:
 * - `fire` with trigger type `CRON`: on time, or late by at most the window; dispatched at
 *   `dueAt` (the scheduled time, which the wheel hands over at once if it is already past);
 * - `fire` with trigger type `MISFIRE`: missed by more than the window under FIRE_ONCE_NOW;
 *   dispatched once, now;
 * - `skip`: missed by more than the window under DO_NOTHING; recorded as skipped, not dispatched.
 *
 * Every outcome is recorded under the job's original scheduled time, so the unique
 * (job, scheduled time) key still guards it when two nodes decide the same misfire.
 */
export type FireDecision =
  | { action: 'fire'; triggerType: 'CRON' | 'MISFIRE'; dueAt: number }
  | { action: 'skip'; triggerType: 'MISFIRE' };

/**
 * Decides what happens to the fire scheduled at `scheduledAt` when it is claimed at `now`.
 * A strategy the row spells in some other way falls back to DO_NOTHING, as XXL-JOB does.
 *
 * @example
 * decideFire(Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-01-01T00:01:00Z'), 'FIRE_ONCE_NOW', 5_000);
 * // { action: 'fire', triggerType: 'MISFIRE', dueAt: Date.parse('2026-01-01T00:01:00Z') }
 */
export function decideFire(
  scheduledAt: number,
  now: number,
  strategy: MisfireStrategy | string,
  windowMs: number,
): FireDecision {
  if (now - scheduledAt <= windowMs) return { action: 'fire', triggerType: 'CRON', dueAt: scheduledAt };
  if (strategy === 'FIRE_ONCE_NOW') return { action: 'fire', triggerType: 'MISFIRE', dueAt: now };
  return { action: 'skip', triggerType: 'MISFIRE' };
}

/**
 * The `next_fire_at` a claim of `scheduledAt` at `now` leaves on the job row, or null when the
 * planner should not claim the job again by itself.
 *
 * - CRON, FIX_RATE: the schedule's next time after the claimed one; but when the claimed time is
 *   already past (a paused planner, a restart, a taken-over shard), the next time after `now`.
 *   So a late claim fires once for everything it missed, never a burst of catch-up fires.
 *   FIX_RATE keeps its phase: it continues at `scheduledAt + k × interval`.
 * - FIX_DELAY: null while the run is in flight; the finalise path sets it from the run's end
 *   with {@link nextFixDelayFireAt}. A skipped fire has no run, so it continues from `now`.
 * - ONCE, NONE: null (ONCE has fired; NONE never fires by itself).
 *
 * @throws TickwheelError `TW_ERR_INVALID_SCHEDULE` when the row's schedule cannot be read.
 */
export function nextFireAtAfterClaim(
  schedule: Schedule,
  scheduledAt: number,
  now: number,
  decision: FireDecision,
): number | null {
  switch (schedule.scheduleType) {
    case 'CRON':
      return firstOrNull(nextFireTimes(schedule, Math.max(scheduledAt, now), 1));
    case 'FIX_RATE':
      return firstOrNull(nextFireTimes(schedule, fixRateAnchor(schedule, scheduledAt, now), 1));
    case 'FIX_DELAY':
      return decision.action === 'skip' ? nextFixDelayFireAt(schedule, now) : null;
    default:
      return null;
  }
}

/**
 * When a FIX_DELAY job fires next, given when its previous run ended (or was given up: a failed
 * dispatch, a lost run). The finalise path writes this into `next_fire_at`.
 */
export function nextFixDelayFireAt(schedule: Schedule, endedAt: number): number | null {
  return firstOrNull(nextFireTimes(schedule, endedAt, 1));
}

/** The latest time of the FIX_RATE sequence through `scheduledAt` that is not after `max(scheduledAt, now)`. */
function fixRateAnchor(schedule: Schedule, scheduledAt: number, now: number): number {
  if (now <= scheduledAt) return scheduledAt;
  const intervalMs = (nextFireTimes(schedule, scheduledAt, 1)[0] as number) - scheduledAt;
  return scheduledAt + Math.floor((now - scheduledAt) / intervalMs) * intervalMs;
}

function firstOrNull(times: number[]): number | null {
  return times[0] ?? null;
}
