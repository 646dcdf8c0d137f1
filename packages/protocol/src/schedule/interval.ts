import { invalidSchedule } from './invalid.js';

/** The largest interval accepted: 100 years, far beyond any sensible schedule. */
const MAX_INTERVAL_SECONDS = 100 * 366 * 86_400;

/**
 * Parses the seconds of a FIX_RATE or FIX_DELAY schedule: a positive whole number as a string.
 *
 * @throws TickwheelError (`TW_ERR_INVALID_SCHEDULE`, field `scheduleConf`).
 */
export function parseIntervalSeconds(scheduleConf: string, scheduleType: 'FIX_RATE' | 'FIX_DELAY'): number {
  const text = scheduleConf.trim();
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw invalidSchedule(
      'scheduleConf',
      `${scheduleType} needs the interval as a positive whole number of seconds (e.g. 30), got '${scheduleConf}'`,
    );
  }
  const seconds = Number(text);
  if (seconds > MAX_INTERVAL_SECONDS) {
    throw invalidSchedule('scheduleConf', `${scheduleType} interval ${text} s is longer than 100 years`);
  }
  return seconds;
}

/**
 * `from + k × interval` for k = 1..count. For FIX_RATE `from` is the previous scheduled time,
 * so the sequence is the schedule itself; for FIX_DELAY `from` is when the previous run
 * finished, so only the first time is meaningful (later ones depend on runs not yet made).
 */
export function nextIntervalTimes(intervalSeconds: number, from: number, count: number): number[] {
  const times: number[] = [];
  for (let k = 1; k <= count; k++) times.push(from + k * intervalSeconds * 1000);
  return times;
}
