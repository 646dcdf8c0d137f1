/**
 * The owed-alarm sweep: sends again the alarms whose node stopped before sending them. A
 * failure's decision to alarm leaves the alarm owed on its record (`alarm_status` PENDING), held
 * by the alarm queue of the deciding node, which renews the hold until it records SENT or FAILED
 * (alarms/alarm-queue.ts). A hold that ran out means no live queue has the alarm any more: its
 * node crashed, was killed, or restarted. At start and then every minute, on the node holding the
 * maintenance lease, this sweep takes such alarms over — a compare-and-set on the hold as read,
 * so of two sweeps one wins — and raises them into this node's queue, which holds them in turn.
 *
 * An alarm is sent at least once: a node whose renewals stalled longer than the hold (its
 * database unreachable) may still be sending when another node takes the alarm over.
 */
import type { Logger } from 'pino';
import type { AlarmSink } from '../alarms/alarm-sink.js';
import { ALARM_STATUS } from '../alarms/alarm-status.js';
import { describeFailure } from '../retries/failure-decisions.js';
import type { Clock } from '../scheduling/clock.js';
import type { FireRepository, JobRepository, OwedAlarmRepository } from '../store/index.js';
import { holdMaintenanceLease, type MaintenanceLeaseOptions } from './maintenance-lease.js';
import { Periodic } from './periodic.js';

export interface OwedAlarmMonitorOptions {
  owedAlarms: Pick<OwedAlarmRepository, 'findUnheldAlarms' | 'takeUnheldAlarm'>;
  fires: Pick<FireRepository, 'recordAlarmResult'>;
  jobs: Pick<JobRepository, 'findJobsByIds'>;
  /** This node's alarm queue: it holds what it is given (`owed: true`). */
  alarms: AlarmSink;
  /** The queue's hold (`AlarmQueueLimits.holdMs`): a taken-over alarm is held this long at first. */
  holdMs: number;
  lease: MaintenanceLeaseOptions;
  clock: Clock;
  logger: Pick<Logger, 'error' | 'info'>;
  /** Time between two sweeps; the first runs at start. */
  intervalMs: number;
  /** Owed alarms read per statement. */
  batchSize: number;
}

/** What one sweep did; `held` false when another node holds the maintenance lease. */
export interface OwedAlarmSweep {
  held: boolean;
  /** Fire records whose alarm this sweep raised again. */
  resent: number[];
}

/**
 * @example
 * const monitor = new OwedAlarmMonitor({ owedAlarms: store.owedAlarms, fires: store.fires,
 *   jobs: store.jobs, alarms: alarmQueue, holdMs: 120_000, lease: { leases: store.leases, nodeId },
 *   clock, logger });
 * monitor.start();
 */
export class OwedAlarmMonitor {
  private readonly options: OwedAlarmMonitorOptions;
  private readonly batchSize: number;
  private readonly loop: Periodic;

  constructor(options: OwedAlarmMonitorOptions) {
    this.options = options;
    this.batchSize = options.batchSize;
    this.loop = new Periodic({
      name: 'owed-alarm sweep',
      intervalMs: options.intervalMs,
      clock: options.clock,
      logger: options.logger,
      run: () => this.sweep(),
    });
  }

  /** Starts the loop with a first sweep now (in the background). */
  start(): void {
    this.loop.start();
    void this.loop.runNow();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One sweep, if this node holds the maintenance lease. */
  async sweep(): Promise<OwedAlarmSweep> {
    const { clock, lease, owedAlarms } = this.options;
    const sweep: OwedAlarmSweep = { held: false, resent: [] };
    if (!(await holdMaintenanceLease(lease, clock.now()))) return sweep;
    sweep.held = true;
    for (;;) {
      const now = clock.now();
      const unheld = await owedAlarms.findUnheldAlarms({ heldBefore: now, limit: this.batchSize });
      if (unheld.length === 0) break;
      const jobs = new Map(
        (await this.options.jobs.findJobsByIds([...new Set(unheld.map((fire) => fire.job_id))])).map(
          (job) => [job.id, job],
        ),
      );
      for (const fire of unheld) {
        // Taken, the alarm is held until then, so the next page no longer lists it.
        if (!(await owedAlarms.takeUnheldAlarm(fire, now + this.options.holdMs))) continue;
        const job = jobs.get(fire.job_id);
        if (job === undefined) {
          await this.options.fires.recordAlarmResult(
            fire.id,
            ALARM_STATUS.FAILED,
            `not sent: job ${fire.job_id} was deleted before its alarm could be sent again`,
          );
          continue;
        }
        const reason = `${describeFailure(fire)}; sent again: the server node that queued this alarm stopped before sending it`;
        this.options.alarms.raise({ job, fire, reason, owed: true });
        sweep.resent.push(fire.id);
      }
      if (unheld.length < this.batchSize) break;
    }
    if (sweep.resent.length > 0) {
      this.options.logger.info(
        { count: sweep.resent.length },
        'sent again the alarms of fires whose node stopped before sending them',
      );
    }
    return sweep;
  }
}
