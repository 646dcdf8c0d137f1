/**
 * Where the engine hands a failure to be alarmed. The retries part decides WHEN a fire is
 * alarmed (every failure, or the final one); the alarms part decides HOW (which channels,
 * which message, with what retries). `raise` only enqueues: it returns at once and never
 * throws, so alarming can never hold up scheduling or result recording.
 */
import type { FireRow, JobRow } from '../store/index.js';

/** One failure to alarm: the job, the fire record that failed, and why, in a sentence. */
export interface Alarm {
  job: JobRow;
  fire: FireRow;
  reason: string;
  /**
   * The alarm is owed on the record (`alarm_status` PENDING, store/owed-alarms.ts): the sink
   * holds it until it records the outcome, renewing the hold, so that another node sends it
   * again only when this one stopped first. Default false.
   */
  owed?: boolean;
}

export interface AlarmSink {
  raise(alarm: Alarm): void;
}
