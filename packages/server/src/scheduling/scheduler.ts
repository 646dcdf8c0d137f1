import type { Store } from '../store/index.js';
import type { Clock } from './clock.js';
import { DatabaseClock } from './clock.js';
import { InFlightFires } from './in-flight.js';
import { ShardLeases } from './leases.js';
import { resolveSchedulingOptions, type SchedulingOptions } from './options.js';
import { type FirePipeline, Planner } from './planner.js';
import type { DueFire } from './wheel.js';

/** Jobs per claim batch on SQLite unless set: about 2–4 ms of the event loop each. */
const SQLITE_CLAIM_BATCH_SIZE = 100;

/** What `createScheduler` takes besides the scheduling options. */
export interface CreateSchedulerOptions extends SchedulingOptions {
  /**
   * This node's address, written with its heartbeat in `cluster_node` (read at every heartbeat:
   * a function when it is known only once the node listens).
   */
  address?: string | (() => string);
  /** Called for each claim cut short or skipped because the pipeline is `maxBacklog` behind. */
  onHeldBack?: (backlog: number) => void;
  /**
   * The records this process is dispatching (in-flight.ts), shared with the pipeline and the
   * trigger paths. Default: one of the scheduler's own (nothing else then dispatches).
   */
  inFlight?: InFlightFires;
}

/** The scheduling engine of one server node: its shard leases and its planner (with the wheel). */
export interface Scheduler {
  readonly leases: ShardLeases;
  /**
   * The clock the engine runs on: with `databaseClock`, the local clock corrected to the
   * database's (its offset is measured every renewal round).
   */
  readonly clock: Clock;
  readonly planner: Planner;
  /** Takes the shard leases it can, then starts the planner (which first recovers those shards). */
  start(): Promise<void>;
  /**
   * Stops the planner, then gives the leases up so another node takes the shards at once.
   * Returns the fires that were still waiting: they stay `pending` for the next holder.
   */
  stop(): Promise<DueFire[]>;
}

/**
 * Builds the scheduling engine over a store, handing due fires to `pipeline`.
 *
 * @example
 * const scheduler = createScheduler(store, pipeline, { nodeId: `${os.hostname()}:${port}` });
 * await scheduler.start();
 * // ... at shutdown:
 * await scheduler.stop();
 */
export function createScheduler(
  store: Store,
  pipeline: FirePipeline,
  { address, onHeldBack, inFlight, ...options }: CreateSchedulerOptions,
): Scheduler {
  const resolved = resolveSchedulingOptions({
    // SQLite claims on the event loop (a synchronous driver): smaller batches keep each stall short.
    ...(store.dialect === 'sqlite' ? { claimBatchSize: SQLITE_CLAIM_BATCH_SIZE } : {}),
    ...options,
  });
  const databaseClock = !resolved.databaseClock
    ? undefined
    : resolved.clock instanceof DatabaseClock
      ? resolved.clock
      : new DatabaseClock(resolved.clock);
  const clock = databaseClock ?? resolved.clock;
  let planner: Planner | undefined;
  const leases = new ShardLeases({
    ...resolved,
    clock,
    leases: store.leases,
    nodes: store.nodes,
    node: {
      get address() {
        return (typeof address === 'function' ? address() : address) ?? '';
      },
      startedAt: resolved.clock.now(),
    },
    ...(databaseClock === undefined ? {} : { clockSync: databaseClock }),
    // A planner tick that read the shards before they were given up ends before they are released.
    beforeRelease: async () => planner?.idle(),
  });
  planner = new Planner({
    ...resolved,
    clock,
    fires: store.fires,
    jobs: store.jobs,
    leases,
    pipeline,
    inFlight: inFlight ?? new InFlightFires(clock),
    ...(onHeldBack === undefined ? {} : { onHeldBack }),
  });
  return {
    leases,
    planner,
    clock,
    async start() {
      await leases.start();
      planner.start();
    },
    async stop() {
      const waiting = await planner.stop();
      await leases.stop();
      return waiting;
    },
  };
}
