/**
 * The retention monitor (XXL-JOB's log clean-up): at start and then hourly, on the node holding
 * the maintenance lease, it deletes fire records scheduled more than the configured days ago
 * (`retention/settings.ts`, default 30). It deletes in small batches with a pause between them,
 * so no statement holds the fire table (or SQLite's write lock) for long and the planner's
 * claims and the executors' results slip in between: scheduling keeps its time while a million
 * old records go (bench/retention). How big and how far apart the batches are is
 * `retention/delete-pacing.ts` (its time-boxed batches an experiment of bench/retention, off by
 * default). On SQLite the WAL the deletes write is folded back into the file by the store's
 * checkpoint thread (store/sqlite-checkpointer.ts), never on the server's.
 */
import type { Logger } from 'pino';
import { DAY_MS } from '../reports/days.js';
import { DeletePacing } from '../retention/delete-pacing.js';
import { readRetentionSettings } from '../retention/settings.js';
import type { Clock, TimerHandle } from '../scheduling/clock.js';
import type { FireRepository, SettingRepository } from '../store/index.js';
import {
  DEFAULT_MAINTENANCE_LEASE_TTL_MS,
  holdMaintenanceLease,
  type MaintenanceLeaseOptions,
} from './maintenance-lease.js';
import { Periodic } from './periodic.js';

export interface RetentionMonitorOptions {
  fires: Pick<FireRepository, 'deleteFiresBefore'>;
  settings: Pick<SettingRepository, 'getSetting'>;
  lease: MaintenanceLeaseOptions;
  clock: Clock;
  logger: Pick<Logger, 'error' | 'info'>;
  /** Time between two sweeps; the first runs at start. */
  intervalMs: number;
  /** Records deleted per statement, at most. */
  batchSize: number;
  /**
   * Shortest pause between two batches, leaving the table to the scheduler. The
   * pause also grows with the batch: at least `BUSY_RATIO` times as long as the batch took.
   * 0: no pause at all (an offline clean-up, tests).
   */
  batchPauseMs: number;
  /**
   * The time one batch should take; the batch size follows it (up to `batchSize`). Default none:
   * every batch is `batchSize`.
   */
  batchBudgetMs?: number;
}

/** What one sweep did; `held` false when another node holds the maintenance lease. */
export interface RetentionSweep {
  held: boolean;
  /** Records scheduled before this instant were deleted. */
  cutoff: number;
  deleted: number;
  /** Delete statements run (each deleted at most `batchSize` records). */
  batches: number;
}

/**
 * @example
 * const monitor = new RetentionMonitor({ fires: store.fires, settings: store.settings,
 *   lease: { leases: store.leases, nodeId }, clock, logger });
 * monitor.start();
 */
export class RetentionMonitor {
  private readonly options: RetentionMonitorOptions;
  private readonly batchSize: number;
  private readonly batchPauseMs: number;
  private readonly batchBudgetMs: number | undefined;
  private readonly loop: Periodic;
  private stopping = false;
  private pause: { timer: TimerHandle; wake: () => void } | undefined;

  constructor(options: RetentionMonitorOptions) {
    this.options = options;
    this.batchSize = options.batchSize;
    this.batchPauseMs = options.batchPauseMs;
    this.batchBudgetMs = options.batchBudgetMs;
    this.loop = new Periodic({
      name: 'retention sweep',
      intervalMs: options.intervalMs,
      clock: options.clock,
      logger: options.logger,
      run: () => this.sweep(),
    });
  }

  /** Starts the loop with a first sweep now (in the background). */
  start(): void {
    this.stopping = false;
    this.loop.start();
    void this.loop.runNow();
  }

  /** Stops the loop; a sweep in progress ends after its current batch. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeFromPause();
    await this.loop.stop();
  }

  /** One sweep, if this node holds the maintenance lease. */
  async sweep(): Promise<RetentionSweep> {
    const { clock, lease } = this.options;
    let heldAt = clock.now();
    const { retentionDays } = await readRetentionSettings(this.options.settings);
    const sweep: RetentionSweep = {
      held: false,
      cutoff: heldAt - retentionDays * DAY_MS,
      deleted: 0,
      batches: 0,
    };
    if (!(await holdMaintenanceLease(lease, heldAt))) return sweep;
    sweep.held = true;
    // Renewed well within its lifetime, so a long sweep never runs on a lease another node took.
    const renewEveryMs = (lease.ttlMs ?? DEFAULT_MAINTENANCE_LEASE_TTL_MS) / 4;
    const pacing = new DeletePacing({
      maxBatchSize: this.batchSize,
      minPauseMs: this.batchPauseMs,
      ...(this.batchBudgetMs === undefined ? {} : { batchBudgetMs: this.batchBudgetMs }),
    });
    while (!this.stopping) {
      const limit = pacing.batchSize;
      const startedAt = performance.now();
      const deleted = await this.options.fires.deleteFiresBefore(sweep.cutoff, limit);
      const pauseMs = pacing.afterBatch(performance.now() - startedAt);
      sweep.deleted += deleted;
      sweep.batches += 1;
      if (deleted < limit || this.stopping) break;
      if (pauseMs > 0) await this.pauseBetweenBatches(pauseMs);
      if (clock.now() - heldAt >= renewEveryMs) {
        heldAt = clock.now();
        if (!(await holdMaintenanceLease(lease, heldAt))) break;
      }
    }
    if (sweep.deleted > 0) {
      this.options.logger.info(
        {
          deleted: sweep.deleted,
          batches: sweep.batches,
          retentionDays,
          cutoff: new Date(sweep.cutoff).toISOString(),
        },
        'retention deleted old fire records',
      );
    }
    return sweep;
  }

  private pauseBetweenBatches(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.pause = undefined;
        resolve();
      };
      this.pause = { timer: this.options.clock.setTimer(wake, ms), wake };
    });
  }

  private wakeFromPause(): void {
    const pause = this.pause;
    if (pause === undefined) return;
    this.options.clock.clearTimer(pause.timer);
    pause.wake();
  }
}
