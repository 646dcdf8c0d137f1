import { SCHEDULE_TYPES, type ScheduleType } from '../enums.js';
import { compileCron, nextCronTimes } from './cron-schedule.js';
import { nextIntervalTimes, parseIntervalSeconds } from './interval.js';
import { invalidSchedule } from './invalid.js';
import { parseOnceInstant } from './once.js';
import { zoneOffsets } from './time-zone.js';

/**
 * When a job fires, as a job row stores it (XXL-JOB's `schedule_type` / `schedule_conf`, plus an
 * IANA time zone for CRON).
 *
 * | scheduleType | scheduleConf |
 * | --- | --- |
 * | `CRON` | Quartz cron expression, 6 or 7 fields, seconds first: `0 0/5 9-17 ? * MON-FRI` |
 * | `FIX_RATE` | seconds between scheduled times: `30` |
 * | `FIX_DELAY` | seconds from the end of one run to the next: `30` |
 * | `ONCE` | ISO-8601 instant with offset, or epoch ms: `2026-05-01T09:30:00+02:00` |
 * | `NONE` | empty: the job only runs when triggered by hand or API |
 */
export interface Schedule {
  /** One of SCHEDULE_TYPES; a plain string is accepted because rows come from databases and JSON. */
  scheduleType: ScheduleType | string;
  scheduleConf: string;
  /** IANA zone the CRON expression's wall-clock fields are read in. Default (absent, null or ''): `UTC`. */
  timeZone?: string | null | undefined;
}

const DEFAULT_TIME_ZONE = 'UTC';

/**
 * The next `count` fire times of `schedule` strictly after `fromEpochMs`, in epoch milliseconds,
 * ascending and without duplicates. An empty array means the schedule never fires again.
 *
 * What `fromEpochMs` means depends on the type: the previous scheduled time for FIX_RATE (so a
 * late run does not shift the rate), the end of the previous run for FIX_DELAY (only the first
 * returned time is meaningful there), and any instant for CRON and ONCE.
 *
 * Parsed cron expressions are cached (bounded LRU), so calling this for every job is cheap.
 *
 * @throws TickwheelError `TW_ERR_INVALID_SCHEDULE` when the schedule cannot be read (the error's
 * `field` says which part), `TW_ERR_INVALID_CRON` when that is its cron expression; a schedule
 * that is well formed but over (a past ONCE) returns [].
 *
 * @example
 * nextFireTimes({ scheduleType: 'CRON', scheduleConf: '0 30 9 ? * MON-FRI', timeZone: 'Europe/London' },
 *   Date.parse('2026-06-05T12:00:00Z'), 2);
 * // [Date.parse('2026-06-08T08:30:00Z'), Date.parse('2026-06-09T08:30:00Z')]
 */
export function nextFireTimes(schedule: Schedule, fromEpochMs: number, count: number): number[] {
  if (!Number.isFinite(fromEpochMs))
    throw new RangeError(`fromEpochMs must be a finite number, got ${fromEpochMs}`);
  const wanted = Math.max(0, Math.floor(count));
  const { scheduleType, scheduleConf } = schedule;
  switch (scheduleType) {
    case 'CRON': {
      const zone = zoneOffsets(schedule.timeZone || DEFAULT_TIME_ZONE);
      return nextCronTimes(compileCron(confText(scheduleConf, scheduleType)), zone, fromEpochMs, wanted);
    }
    case 'FIX_RATE':
    case 'FIX_DELAY':
      return nextIntervalTimes(
        parseIntervalSeconds(confText(scheduleConf, scheduleType), scheduleType),
        fromEpochMs,
        wanted,
      );
    case 'ONCE': {
      const instant = parseOnceInstant(confText(scheduleConf, scheduleType));
      return instant > fromEpochMs && wanted > 0 ? [instant] : [];
    }
    case 'NONE':
      if (scheduleConf != null && String(scheduleConf).trim() !== '') {
        throw invalidSchedule('scheduleConf', `NONE takes no configuration, got '${scheduleConf}'`);
      }
      return [];
    default:
      throw invalidSchedule(
        'scheduleType',
        `'${String(scheduleType)}' is not a schedule type (one of ${SCHEDULE_TYPES.join(', ')})`,
      );
  }
}

/** Job rows come from databases and JSON: make sure the conf really is a string before parsing. */
function confText(scheduleConf: unknown, scheduleType: ScheduleType): string {
  if (typeof scheduleConf !== 'string') {
    throw invalidSchedule(
      'scheduleConf',
      `${scheduleType} needs scheduleConf as a string, got ${typeof scheduleConf}`,
    );
  }
  return scheduleConf;
}
