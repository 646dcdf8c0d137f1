/**
 * The lost-run monitor (XXL-JOB's JobCompleteHelper): a run dispatched long ago (10 min by
 * default) whose executor is no longer registered will never call back — the executor died or
 * was killed mid-run — so its record is failed with a message saying why. It runs on the node
 * holding the maintenance lease.
 *
 * The record is failed through the result recorder like any result (handle code 500), so it is
 * idempotent with a real result that arrives late (whichever comes first wins, the other changes
 * nothing) and the onFiresFinished hook sees it, so retries and alarms follow as for any failure.
 */
import { DEAD_TIMEOUT_MS, HandleCode } from '@tickwheel/protocol';
import type { Logger } from 'pino';
import type { ResultRecorder } from '../executor-api/result-recorder.js';
import type { Clock } from '../scheduling/clock.js';
import type { FireRepository, FireResult } from '../store/index.js';
import { holdMaintenanceLease, type MaintenanceLeaseOptions } from './maintenance-lease.js';
import { Periodic } from './periodic.js';

export interface LostRunMonitorOptions {
  fires: Pick<FireRepository, 'findLostRuns'>;
  recorder: Pick<ResultRecorder, 'record' | 'settleBroadcasts'>;
  lease: MaintenanceLeaseOptions;
  clock: Clock;
  logger: Pick<Logger, 'error' | 'warn'>;
  /** A run still without a result this long after its dispatch, on an offline executor, is lost. Default 600,000 ms. */
  lostAfterMs?: number;
  /** Time between two sweeps. Default 60,000 ms (XXL-JOB's). */
  intervalMs?: number;
  /** An executor unseen this long is offline. Default `DEAD_TIMEOUT_MS` (90 s). */
  deadTimeoutMs?: number;
  /** Records failed per round trip; a sweep goes on until none is left. Default 500. */
  batchSize?: number;
}

export const LOST_RUN_MONITOR_DEFAULTS = {
  lostAfterMs: 10 * 60_000,
  intervalMs: 60_000,
  deadTimeoutMs: DEAD_TIMEOUT_MS,
  batchSize: 500,
} as const;

/** What one sweep did; `held` false when another node holds the maintenance lease. */
export interface LostRunSweep {
  held: boolean;
  /** Records this sweep failed. */
  failed: number;
  /** Broadcast records this sweep finished from their settled shards. */
  settledBroadcasts: number;
}

/**
 * @example
 * const monitor = new LostRunMonitor({ fires: store.fires, recorder, lease: { leases: store.leases, nodeId }, clock, logger });
 * monitor.start();
 */
export class LostRunMonitor {
  private readonly options: LostRunMonitorOptions;
  private readonly lostAfterMs: number;
  private readonly deadTimeoutMs: number;
  private readonly batchSize: number;
  private readonly loop: Periodic;

  constructor(options: LostRunMonitorOptions) {
    this.options = options;
    this.lostAfterMs = options.lostAfterMs ?? LOST_RUN_MONITOR_DEFAULTS.lostAfterMs;
    this.deadTimeoutMs = options.deadTimeoutMs ?? LOST_RUN_MONITOR_DEFAULTS.deadTimeoutMs;
    this.batchSize = options.batchSize ?? LOST_RUN_MONITOR_DEFAULTS.batchSize;
    this.loop = new Periodic({
      name: 'lost-run sweep',
      intervalMs: options.intervalMs ?? LOST_RUN_MONITOR_DEFAULTS.intervalMs,
      clock: options.clock,
      logger: options.logger,
      run: () => this.sweep(),
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One sweep, if this node holds the maintenance lease. */
  async sweep(): Promise<LostRunSweep> {
    const sweep: LostRunSweep = { held: false, failed: 0, settledBroadcasts: 0 };
    if (!(await holdMaintenanceLease(this.options.lease, this.options.clock.now()))) return sweep;
    sweep.held = true;
    const seen = new Set<number>();
    for (;;) {
      const now = this.options.clock.now();
      const lost = await this.options.fires.findLostRuns({
        dispatchedBefore: now - this.lostAfterMs,
        aliveSince: now - this.deadTimeoutMs,
        limit: this.batchSize,
      });
      // A broadcast's own record has no address and stays listed until its shards settle: stop
      // once a page brings nothing new rather than reading it again.
      const fresh = lost.filter((fire) => !seen.has(fire.id));
      for (const fire of fresh) seen.add(fire.id);
      if (fresh.length === 0) return sweep;
      const results: FireResult[] = [];
      const broadcasts: number[] = [];
      for (const fire of fresh) {
        if (fire.executor_address === null) broadcasts.push(fire.id);
        else results.push(this.lostResult(fire.id, fire.executor_address, now));
      }
      sweep.failed += (await this.options.recorder.record(results)).length;
      if (broadcasts.length > 0) {
        sweep.settledBroadcasts += (await this.options.recorder.settleBroadcasts(broadcasts)).length;
      }
      if (lost.length < this.batchSize) return sweep;
    }
  }

  private lostResult(fireId: number, address: string, now: number): FireResult {
    return {
      fireId,
      handleCode: HandleCode.FAIL,
      handleMsg: `executor ${address} went offline while the run was in progress; no result arrived within ${duration(this.lostAfterMs)}`,
      handleAt: now,
    };
  }
}

/** `10 min`, `90 s` or `250 ms`. */
function duration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms} ms`;
}
