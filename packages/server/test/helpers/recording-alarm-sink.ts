/** An AlarmSink that keeps what it is given: the tests' stand-in for the alarm channels. */
import type { Alarm, AlarmSink } from '../../src/alarms/alarm-sink.js';

export class RecordingAlarmSink implements AlarmSink {
  readonly alarms: Alarm[] = [];

  raise(alarm: Alarm): void {
    this.alarms.push(alarm);
  }

  /** The alarms raised for fire records of `jobId`, in order. */
  of(jobId: number): Alarm[] {
    return this.alarms.filter((alarm) => alarm.job.id === jobId);
  }
}
