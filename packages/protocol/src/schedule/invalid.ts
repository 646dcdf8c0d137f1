import { TickwheelError } from '../errors.js';

/** The schedule fields an invalid-schedule error can blame. */
export type ScheduleField = 'scheduleType' | 'scheduleConf' | 'timeZone';

/**
 * How this module reports a bad schedule: `TW_ERR_INVALID_SCHEDULE` (`TW_ERR_INVALID_CRON` for a
 * cron expression, below), the field to blame, and a message that starts with the field's name
 * so it reads well on its own in a log or a form.
 */
export function invalidSchedule(field: ScheduleField, reason: string): TickwheelError {
  return new TickwheelError('TW_ERR_INVALID_SCHEDULE', `${field}: ${reason}`, field);
}

/**
 * A cron expression that does not parse: `TW_ERR_INVALID_CRON`, the code people look up when a
 * cron is refused, on `scheduleConf` and worded as `invalidSchedule` words its errors. A cron that
 * parses but never fires again stays `TW_ERR_INVALID_SCHEDULE`: the expression is right, the
 * schedule it makes is empty.
 */
export function invalidCron(reason: string): TickwheelError {
  return new TickwheelError('TW_ERR_INVALID_CRON', `scheduleConf: ${reason}`, 'scheduleConf');
}
