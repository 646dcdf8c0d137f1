/**
 * Every scheduling option, its default and its validation, in one place.
 * `resolveSchedulingOptions()` runs once when the engine is built; nothing deeper re-checks or
 * re-defaults.
 */
import { booleanOption, clockOption, integerIn, invalid } from '../option-checks.js';
import { type Clock, DatabaseClock, systemClock } from './clock.js';
import { DEFAULT_MISFIRE_WINDOW_MS } from './misfire.js';

/** The subset of a pino logger the scheduling engine writes to. */
export interface SchedulingLogger {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

export interface SchedulingOptions {
  /**
   * This node's name in lease rows. Keep it stable across restarts of the same node (e.g. host
   * and port): a node that restarts under its own name renews its leases at once, while a new
   * name waits for the old leases to expire (`leaseTtlMs`) before it may schedule.
   */
  nodeId: string;
  /**
   * Shards the job space is split into (shard = job id % shardCount), each owned through one
   * lease. Every node of a cluster must use the same value. Default 64.
   */
  shardCount?: number;
  /**
   * How long a lease lasts without renewal, in the database's clock. A node killed outright
   * (kill -9) has its shards taken over at most about `leaseTtlMs + leaseRenewalIntervalMs`
   * later. Default 2,000 ms.
   */
  leaseTtlMs?: number;
  /**
   * Time between two renewal rounds (heartbeat, renewal of every held shard in one statement,
   * rebalancing). Default a fifth of `leaseTtlMs` (400 ms); at most half of it.
   */
  leaseRenewalIntervalMs?: number;
  /**
   * A node stops claiming and dispatching for a shard this long before its lease would expire
   * unrenewed, so a stalled node has stopped before another may take over. Must cover the error
   * of the node's database clock offset (half a round trip) and its event-loop stalls. Default
   * 30 % of `leaseTtlMs` (600 ms), at most 3,000 ms; less than half of `leaseTtlMs`.
   */
  leaseSafetyMarginMs?: number;
  /**
   * Whether lease expiries are written and compared in the database's clock, and `clock` is
   * corrected to it (a `DatabaseClock`). Default: true with the system clock, false with a
   * `clock` of the caller's (a test's manual clock), whose time the leases then use.
   */
  databaseClock?: boolean;
  /** Jobs due within this much of now are claimed into the wheel. Default 5,000 ms. */
  lookAheadMs?: number;
  /**
   * How much further than `lookAheadMs` a claim records a CRON or FIX_RATE job's times: a job is
   * claimed once its next time is within the look-ahead, and that claim records each of its times
   * up to `lookAheadMs + recordAheadMs` ahead, so a job that fires every second has its row
   * locked, read and advanced once for two or three fires rather than once for each. 0 records the
   * due time only. Default half of `lookAheadMs`.
   */
  recordAheadMs?: number;
  /** Time between two planner ticks. Default 500 ms; less than `lookAheadMs`. */
  tickIntervalMs?: number;
  /** A fire claimed later than this after its time follows the job's misfire policy. Default 5,000 ms. */
  misfireWindowMs?: number;
  /**
   * How long before its time the wheel hands a fire over to the pipeline, which loads its record
   * and fences its run then, and sends it at its time (the dispatcher holds a fenced run until
   * its time, on a 5 ms grid; never early): the database's round trips are off the way between a
   * fire's time and its `run`. Default 60 ms; at most half of `leaseSafetyMarginMs` (a held run
   * goes out well before the node stops acting on its shard), and the default no more than that.
   * 0 hands each fire over at its time.
   */
  prepareAheadMs?: number;
  /**
   * The wheel hands fires over on a grid of this many milliseconds: a fire whose hand-over time
   * falls between two grid points goes at the next one, together with the others in between, so
   * spread load reaches the pipeline in batches rather than one wake and one load per
   * millisecond. With `prepareAheadMs` the batches are prepared ahead and sent at each fire's own
   * time, so the grid sets their size, not the fires' lateness. 1 hands each fire over at its own
   * millisecond. Default 20 ms.
   */
  wheelResolutionMs?: number;
  /** Jobs claimed per transaction (a tick runs as many as are due). Default 500. */
  claimBatchSize?: number;
  /**
   * Pending records read per query when a node recovers the shards it starts holding; it pages
   * until it has read them all. Default 10,000.
   */
  recoveryPageSize?: number;
  /**
   * The planner claims nothing new while the pipeline has this many due fires not yet
   * dispatched; they wait as job rows until it catches up (see the planner). Default 20,000:
   * twice an aligned burst of 10,000, so a burst alone never holds the claims back.
   */
  maxBacklog?: number;
  /** Default `systemClock`. */
  clock?: Clock;
  /** Default: errors and warnings to the console. */
  logger?: SchedulingLogger;
}

export interface ResolvedSchedulingOptions {
  nodeId: string;
  shardCount: number;
  leaseTtlMs: number;
  leaseRenewalIntervalMs: number;
  leaseSafetyMarginMs: number;
  databaseClock: boolean;
  lookAheadMs: number;
  recordAheadMs: number;
  tickIntervalMs: number;
  misfireWindowMs: number;
  prepareAheadMs: number;
  wheelResolutionMs: number;
  claimBatchSize: number;
  recoveryPageSize: number;
  maxBacklog: number;
  /** The engine's clock: with `databaseClock`, a `DatabaseClock` over the one given. */
  clock: Clock;
  logger: SchedulingLogger;
}

export const SCHEDULING_DEFAULTS = {
  shardCount: 64,
  leaseTtlMs: 2_000,
  /** Cap of the safety margin's default (30 % of the ttl). */
  leaseSafetyMarginMs: 3_000,
  lookAheadMs: 5_000,
  tickIntervalMs: 500,
  misfireWindowMs: DEFAULT_MISFIRE_WINDOW_MS,
  prepareAheadMs: 60,
  wheelResolutionMs: 20,
  claimBatchSize: 500,
  /**
   * The server's claim batch on SQLite, which claims on the event loop (a synchronous driver):
   * about 2–4 ms of it each, so each stall stays short.
   */
  sqliteClaimBatchSize: 100,
  recoveryPageSize: 10_000,
  maxBacklog: 20_000,
} as const;

/** The renewal interval when none is given: a fifth of the lease's lifetime. */
export function defaultLeaseRenewalIntervalMs(leaseTtlMs: number): number {
  return Math.floor(leaseTtlMs / 5);
}

const consoleLogger: SchedulingLogger = {
  error: (details, message) => console.error(message, details),
  warn: (details, message) => console.warn(message, details),
  info: () => {},
};

/** Fills defaults and validates; throws `TW_ERR_INVALID_OPTION` naming the first bad option. */
export function resolveSchedulingOptions(options: SchedulingOptions): ResolvedSchedulingOptions {
  if (options === null || typeof options !== 'object') throw invalid('options', 'must be an object');
  if (typeof options.nodeId !== 'string' || options.nodeId.length === 0 || options.nodeId.length > 64) {
    throw invalid('nodeId', 'must be a string of 1 to 64 characters');
  }
  const d = SCHEDULING_DEFAULTS;
  const leaseTtlMs = integerIn('leaseTtlMs', options.leaseTtlMs, d.leaseTtlMs, 300, 600_000);
  const databaseClock = booleanOption('databaseClock', options.databaseClock, options.clock === undefined);
  const clock = clockOption('clock', options.clock, systemClock);
  const lookAheadMs = integerIn('lookAheadMs', options.lookAheadMs, d.lookAheadMs, 100, 600_000);
  const leaseSafetyMarginMs = integerIn(
    'leaseSafetyMarginMs',
    options.leaseSafetyMarginMs,
    Math.min(d.leaseSafetyMarginMs, Math.floor(leaseTtlMs * 0.3)),
    0,
    Math.floor(leaseTtlMs / 2) - 1,
  );
  const prepareAheadLimit = Math.floor(leaseSafetyMarginMs / 2);
  if (options.prepareAheadMs !== undefined && options.prepareAheadMs > prepareAheadLimit) {
    throw invalid(
      'prepareAheadMs',
      `must be at most half of leaseSafetyMarginMs (${prepareAheadLimit} ms), got ${options.prepareAheadMs}`,
    );
  }
  return {
    nodeId: options.nodeId,
    shardCount: integerIn('shardCount', options.shardCount, d.shardCount, 1, 4_096),
    leaseTtlMs,
    leaseRenewalIntervalMs: integerIn(
      'leaseRenewalIntervalMs',
      options.leaseRenewalIntervalMs,
      defaultLeaseRenewalIntervalMs(leaseTtlMs),
      10,
      Math.floor(leaseTtlMs / 2),
    ),
    leaseSafetyMarginMs,
    databaseClock,
    lookAheadMs,
    recordAheadMs: integerIn('recordAheadMs', options.recordAheadMs, Math.floor(lookAheadMs / 2), 0, 600_000),
    tickIntervalMs: integerIn(
      'tickIntervalMs',
      options.tickIntervalMs,
      d.tickIntervalMs,
      10,
      lookAheadMs - 1,
    ),
    misfireWindowMs: integerIn('misfireWindowMs', options.misfireWindowMs, d.misfireWindowMs, 0, 86_400_000),
    prepareAheadMs: integerIn(
      'prepareAheadMs',
      options.prepareAheadMs,
      Math.min(d.prepareAheadMs, prepareAheadLimit),
      0,
      1_000,
    ),
    wheelResolutionMs: integerIn(
      'wheelResolutionMs',
      options.wheelResolutionMs,
      d.wheelResolutionMs,
      1,
      1_000,
    ),
    claimBatchSize: integerIn('claimBatchSize', options.claimBatchSize, d.claimBatchSize, 1, 10_000),
    recoveryPageSize: integerIn('recoveryPageSize', options.recoveryPageSize, d.recoveryPageSize, 1, 100_000),
    maxBacklog: integerIn('maxBacklog', options.maxBacklog, d.maxBacklog, 1, 10_000_000),
    // With databaseClock the engine runs on the local clock corrected to the database's: one
    // object, whose offset the leases measure every round and the planner reads.
    clock: databaseClock && !(clock instanceof DatabaseClock) ? new DatabaseClock(clock) : clock,
    logger: loggerOption(options.logger),
  };
}

function loggerOption(logger: SchedulingLogger | undefined): SchedulingLogger {
  if (logger === undefined) return consoleLogger;
  if (
    typeof logger?.error !== 'function' ||
    typeof logger.warn !== 'function' ||
    typeof logger.info !== 'function'
  ) {
    throw invalid('logger', 'must have error(), warn() and info() (a pino logger fits)');
  }
  return logger;
}
