import { type MisfireStrategy, nextFireTimes, type Schedule } from '@tickwheel/protocol';
import type { JobRow } from '../store/index.js';

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

/** At most this many times of one job are recorded by one claim; the rest wait for the next claim. */
export const MAX_TIMES_PER_CLAIM = 100;

/** Missed times counted one by one at most (a cron paused for a year is not walked second by second). */
const MISSED_COUNT_LIMIT = 100;
/** Missed times asked of the schedule at once while counting them. */
const MISSED_COUNT_CHUNK = 8;

/** One scheduled time a claim records, and what happens to it. */
export interface ClaimedTime {
  scheduledAt: number;
  decision: FireDecision;
  /** For the record standing for the times missed by more than the window: how many there were. */
  missed?: MissedTimes;
}

/** The times a misfire record stands for: `count`, or more than `count` when `atLeast`. */
export interface MissedTimes {
  count: number;
  atLeast: boolean;
}

/** What one claim of a job records, and where its schedule continues. */
export interface ClaimedTimes {
  times: ClaimedTime[];
  /** The job's next fire time after the claim; null when the planner should not claim it again by itself. */
  nextFireAt: number | null;
}

/**
 * What a claim at `now` of a job due at `scheduledAt` records, and the `next_fire_at` it leaves.
 *
 * - CRON, FIX_RATE: every scheduled time that is not older than the misfire window is a fire of
 *   its own — the due one, every further one up to `recordUntil` (the claim's reach ahead; by
 *   default the due one only), and every time up to `now` when it is late — at most
 *   {@link MAX_TIMES_PER_CLAIM} (the rest stay due for the next claim). The times older
 *   than the window become one record, under the oldest of them, by the policy: DO_NOTHING
 *   skips it, FIRE_ONCE_NOW fires it once now; its `missed` says how many times it stands for.
 *   So a late claim never drops a time silently and never turns into a burst of stale fires.
 *   FIX_RATE keeps its phase: every time is `scheduledAt + k × interval`.
 * - FIX_DELAY: one fire (or skip); then null while the run is in flight (the finalise path sets
 *   it from the run's end with {@link nextFixDelayFireAt}); a skip has no run, so from `now`.
 * - ONCE: one fire (or skip), then null. NONE: nothing.
 *
 * @throws TickwheelError `TW_ERR_INVALID_SCHEDULE` or `TW_ERR_INVALID_CRON` when the row's
 * schedule cannot be read.
 */
export function planClaimedTimes(
  schedule: Schedule,
  scheduledAt: number,
  now: number,
  strategy: MisfireStrategy | string,
  windowMs: number,
  recordUntil = now,
): ClaimedTimes {
  switch (schedule.scheduleType) {
    case 'CRON':
    case 'FIX_RATE':
      return planRecurringTimes(schedule, scheduledAt, now, strategy, windowMs, recordUntil);
    case 'FIX_DELAY': {
      const decision = decideFire(scheduledAt, now, strategy, windowMs);
      const nextFireAt = decision.action === 'skip' ? nextFixDelayFireAt(schedule, now) : null;
      return { times: [{ scheduledAt, decision }], nextFireAt };
    }
    case 'NONE':
      return { times: [], nextFireAt: null };
    default:
      return {
        times: [{ scheduledAt, decision: decideFire(scheduledAt, now, strategy, windowMs) }],
        nextFireAt: null,
      };
  }
}

function planRecurringTimes(
  schedule: Schedule,
  scheduledAt: number,
  now: number,
  strategy: MisfireStrategy | string,
  windowMs: number,
  recordUntil: number,
): ClaimedTimes {
  const times: ClaimedTime[] = [];
  let next = scheduledAt;
  if (now - scheduledAt > windowMs) {
    // The first time of the schedule that is inside the window (it may be after now).
    next = firstTimeFrom(schedule, scheduledAt, now - windowMs);
    times.push({
      scheduledAt,
      decision: decideFire(scheduledAt, now, strategy, windowMs),
      missed: countMissed(schedule, scheduledAt, next),
    });
  }
  // The due time, and every time up to now (a late claim) or up to the claim's reach ahead.
  const last = Math.max(scheduledAt, now, recordUntil);
  while (next <= last && times.length < MAX_TIMES_PER_CLAIM) {
    times.push({ scheduledAt: next, decision: { action: 'fire', triggerType: 'CRON', dueAt: next } });
    next = timeAfter(schedule, next);
  }
  return { times, nextFireAt: Number.isFinite(next) ? next : null };
}

/** The first time of the schedule (through `scheduledAt`, on FIX_RATE's grid) at or after `from`. */
function firstTimeFrom(schedule: Schedule, scheduledAt: number, from: number): number {
  if (from <= scheduledAt) return scheduledAt;
  if (schedule.scheduleType === 'FIX_RATE') {
    const intervalMs = timeAfter(schedule, scheduledAt) - scheduledAt;
    return scheduledAt + Math.ceil((from - scheduledAt) / intervalMs) * intervalMs;
  }
  return timeAfter(schedule, from - 1);
}

/** How many times of the schedule fall in [scheduledAt, before). */
function countMissed(schedule: Schedule, scheduledAt: number, before: number): MissedTimes {
  if (schedule.scheduleType === 'FIX_RATE') {
    const intervalMs = timeAfter(schedule, scheduledAt) - scheduledAt;
    return { count: Math.ceil((before - scheduledAt) / intervalMs), atLeast: false };
  }
  // The times after `scheduledAt`, a few at a time, until one is not missed: a claim a few seconds
  // late asks for a few, not for the whole limit (an overloaded node's late claims would otherwise
  // spend more on counting the further behind they are).
  let later = 0;
  let from = scheduledAt;
  while (later < MISSED_COUNT_LIMIT) {
    const chunk = nextFireTimes(schedule, from, Math.min(MISSED_COUNT_CHUNK, MISSED_COUNT_LIMIT - later));
    for (const time of chunk) {
      if (time >= before) return { count: 1 + later, atLeast: false };
      later++;
    }
    if (chunk.length === 0) break;
    from = chunk[chunk.length - 1]!;
  }
  return later === MISSED_COUNT_LIMIT
    ? { count: MISSED_COUNT_LIMIT, atLeast: true }
    : { count: 1 + later, atLeast: false };
}

/** The schedule's next time after `time`; Infinity when it has none. */
function timeAfter(schedule: Schedule, time: number): number {
  return nextFireTimes(schedule, time, 1)[0] ?? Number.POSITIVE_INFINITY;
}

/** A job row's schedule, in the shape of `@tickwheel/protocol`'s schedule functions. */
export function scheduleOf(job: Pick<JobRow, 'schedule_type' | 'schedule_conf' | 'time_zone'>): Schedule {
  return { scheduleType: job.schedule_type, scheduleConf: job.schedule_conf, timeZone: job.time_zone };
}

/**
 * When a FIX_DELAY job fires next, given when its previous run ended (or was given up: a failed
 * dispatch, a lost run). The finalise path writes this into `next_fire_at`.
 */
export function nextFixDelayFireAt(schedule: Schedule, endedAt: number): number | null {
  return firstOrNull(nextFireTimes(schedule, endedAt, 1));
}

function firstOrNull(times: number[]): number | null {
  return times[0] ?? null;
}
