import { compileCron } from './cron-schedule.js';
import { invalidSchedule } from './invalid.js';
import { nextFireTimes, type Schedule } from './next-fire-times.js';
import { parseOnceInstant } from './once.js';
import { zoneOffsets } from './time-zone.js';

/**
 * Checks a schedule before it is saved: it must parse, its time zone must be an IANA zone, and
 * it must fire at least once after `nowEpochMs` (NONE excepted: it never fires by design).
 *
 * @throws TickwheelError `TW_ERR_INVALID_SCHEDULE` with `field` `scheduleType`, `scheduleConf` or
 * `timeZone` and a message that says why, or `TW_ERR_INVALID_CRON` (`scheduleConf`) for a cron
 * expression that does not parse, e.g.
 * `scheduleConf: day-of-month and day-of-week cannot both be specified; use ? in one of them`.
 *
 * @example
 * validateSchedule({ scheduleType: 'CRON', scheduleConf: '0 0 0 30 2 ?' }, Date.now());
 * // throws: scheduleConf: '0 0 0 30 2 ?' never fires: no date after ... matches it
 */
export function validateSchedule(schedule: Schedule, nowEpochMs: number): void {
  if (schedule.timeZone) {
    zoneOffsets(schedule.timeZone);
  }
  const upcoming = nextFireTimes(schedule, nowEpochMs, 1);
  if (upcoming.length > 0 || schedule.scheduleType === 'NONE') return;
  const now = new Date(nowEpochMs).toISOString();
  if (schedule.scheduleType === 'ONCE') {
    const instant = new Date(parseOnceInstant(schedule.scheduleConf)).toISOString();
    throw invalidSchedule('scheduleConf', `ONCE instant ${instant} is not after now (${now})`);
  }
  const { lastYear } = compileCron(schedule.scheduleConf);
  if (lastYear !== undefined && lastYear < new Date(nowEpochMs).getUTCFullYear()) {
    throw invalidSchedule(
      'scheduleConf',
      `'${schedule.scheduleConf}' never fires again: the latest year it allows, ${lastYear}, is past`,
    );
  }
  throw invalidSchedule(
    'scheduleConf',
    `'${schedule.scheduleConf}' never fires: no date after ${now} matches it (e.g. 30 February, or a day that is not in its months or years)`,
  );
}
