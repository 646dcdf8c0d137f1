/**
 * The alarm status of a fire record (`fire.alarm_status`), with XXL-JOB's numbers
 * (xxl_job_log.alarm_status: 0 default, -1 locked while alarming, 1 no alarm needed, 2 sent,
 * 3 failed) so a migrated log reads the same. The REST API shows three values: a record nobody
 * alarmed is `NONE`, and so is one whose alarm is on its way (`PENDING`).
 */
import { ALARM_OWED } from '../store/owed-alarms.js';

export const ALARM_STATUS = {
  /** Not alarmed (yet, or at all). */
  NONE: 0,
  /**
   * The failure decision alarms it and the alarm is not settled yet: a queue is sending it, or
   * the node that queued it stopped and the owed-alarm sweep will send it again
   * (store/owed-alarms.ts). XXL-JOB's "locked" value.
   */
  PENDING: ALARM_OWED,
  /** Every channel accepted the alarm. */
  SENT: 2,
  /** At least one channel did not, after its retries; `alarm_msg` says which and why. */
  FAILED: 3,
} as const;

export const ALARM_STATUS_NAMES = ['NONE', 'SENT', 'FAILED'] as const;
export type AlarmStatusName = (typeof ALARM_STATUS_NAMES)[number];

/** The name the REST API shows for a stored value (PENDING shows as NONE: not alarmed yet). */
export function alarmStatusName(stored: number): AlarmStatusName {
  if (stored === ALARM_STATUS.SENT) return 'SENT';
  if (stored === ALARM_STATUS.FAILED) return 'FAILED';
  return 'NONE';
}
