/**
 * How big the retention sweep's delete batches are, and how long it pauses between them, so that
 * scheduling keeps its time while a million old records go.
 *
 * - A sweep is busy at most one part in (1 + BUSY_RATIO) of its time: after a batch it pauses at
 *   least the configured minimum, and at least BUSY_RATIO times as long as the batch took. A slow
 *   database (a loaded machine, a cold cache) slows the sweep, not the scheduler.
 * - With a time budget (an experiment of bench/retention, `--budget-ms`; off by default), a batch
 *   is sized to take about the budget: the size follows the time the last batch took per record,
 *   shrinking at once after a slow batch and growing at most twofold a batch, between
 *   MIN_BATCH_SIZE and the configured batch size. On SQLite, whose driver runs each statement on
 *   the server's own thread, that bounds how long a fire due during a batch waits; measured at
 *   1,000 fires a second on a loaded 2-core machine, the many small batches (each a commit that
 *   rewrites its index pages) cost the server more than they saved, so it stays off.
 */

/**
 * The batch size and shortest pause of a sweep when the server's options name none, by database.
 *
 * SQLite runs each delete on the server's own thread, so a fire due during a batch waits for it:
 * batches of 100 (a few ms each) keep the sweep inside the lateness the scheduler has anyway,
 * where batches of 1,000 (10–16 ms) showed in its p99 (docs/benchmarks.md, Retention). A
 * deleted record costs its pages in every index of the fire table whatever the batch, so the
 * smaller batches still delete thousands of records a second, above what a server firing 1,000
 * times a second adds. On PostgreSQL and MySQL the deletes are the database's work, not the
 * server thread's, and larger batches cost fewer round trips.
 */
export const RETENTION_BATCH_DEFAULTS = {
  sqlite: { batchSize: 100, pauseMs: 5 },
  postgres: { batchSize: 1_000, pauseMs: 50 },
  mysql: { batchSize: 1_000, pauseMs: 50 },
} as const satisfies Record<string, { batchSize: number; pauseMs: number }>;

/** Busy time : pause, at least (see the module comment). */
export const BUSY_RATIO = 4;

/** The smallest batch a budget shrinks to: below it, a statement's fixed cost dominates. */
export const MIN_BATCH_SIZE = 20;

/** The first batch of a budgeted sweep: small, it measures the machine before the size grows. */
const FIRST_BUDGETED_BATCH = 100;

export interface DeletePacingOptions {
  /** Records per statement at most (all of them without a budget). */
  maxBatchSize: number;
  /** Shortest pause between two batches, in ms; 0: no pause at all (an offline clean-up, tests). */
  minPauseMs: number;
  /** The time one batch should take, in ms; undefined: every batch is `maxBatchSize`. */
  batchBudgetMs?: number;
}

/**
 * One sweep's pacing: ask `batchSize` before a batch, tell `afterBatch` how long it took.
 *
 * @example
 * const pacing = new DeletePacing({ maxBatchSize: 1_000, minPauseMs: 50, batchBudgetMs: 5 });
 * const deleted = await fires.deleteFiresBefore(cutoff, pacing.batchSize);
 * await sleep(pacing.afterBatch(tookMs));
 */
export class DeletePacing {
  private readonly options: DeletePacingOptions;
  private size: number;

  constructor(options: DeletePacingOptions) {
    this.options = options;
    this.size =
      options.batchBudgetMs === undefined
        ? options.maxBatchSize
        : Math.min(options.maxBatchSize, FIRST_BUDGETED_BATCH);
  }

  /** Records the next batch may delete. */
  get batchSize(): number {
    return this.size;
  }

  /** Takes a batch's time (in ms) into account; returns the pause before the next batch. */
  afterBatch(tookMs: number): number {
    const { batchBudgetMs, maxBatchSize, minPauseMs } = this.options;
    if (batchBudgetMs !== undefined) {
      // A statement too quick to time (under 0.1 ms) is as fast as 0.1 ms: the size doubles.
      const fitting = Math.floor((this.size * batchBudgetMs) / Math.max(tookMs, 0.1));
      const smallest = Math.min(MIN_BATCH_SIZE, maxBatchSize);
      this.size = Math.max(smallest, Math.min(maxBatchSize, fitting, this.size * 2));
    }
    if (minPauseMs === 0) return 0;
    return Math.max(minPauseMs, Math.ceil(tookMs * BUSY_RATIO));
  }
}
