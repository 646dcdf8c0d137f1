import { TickwheelError } from '../errors.js';

/** The schedule fields an invalid-schedule error can blame. */
export type ScheduleField = 'scheduleType' | 'scheduleConf' | 'timeZone';

/**
 * The one way this module reports a bad schedule: `TW_ERR_INVALID_SCHEDULE`, the field to blame,
 * and a message that starts with the field's name so it reads well on its own in a log or a form.
 */
export function invalidSchedule(field: ScheduleField, reason: string): TickwheelError {
  return new TickwheelError('TW_ERR_INVALID_SCHEDULE', `${field}: ${reason}`, field);
}
