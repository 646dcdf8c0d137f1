/**
 * When a job that is (re)started fires first: the schedule's first time after now. FIX_DELAY
 * counts its delay from the start, as if a run had just ended (docs/schedules.md); NONE never
 * fires by itself. The planner takes over from there.
 */
import { nextFireTimes, type Schedule } from '@tickwheel/protocol';

export function firstFireAt(schedule: Schedule, nowMs: number): number | null {
  if (schedule.scheduleType === 'NONE') return null;
  return nextFireTimes(schedule, nowMs, 1)[0] ?? null;
}
