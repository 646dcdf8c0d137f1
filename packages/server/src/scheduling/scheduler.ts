import type { Store } from '../store/index.js';
import { type Clock, DatabaseClock } from './clock.js';
import { InFlightFires } from './in-flight.js';
import { ShardLeases } from './leases.js';
import type { ResolvedSchedulingOptions } from './options.js';
import { type FirePipeline, Planner } from './planner.js';
import type { DueFire } from './wheel.js';

/** What `createScheduler` takes besides its resolved scheduling options. */
export interface SchedulerParts {
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
  /**
   * The node's shard leases, made before the scheduler with `createShardLeases` (the send fence
   * reads them, and it is made before the pipeline the scheduler hands fires to). Default: made
   * here from the same options.
   */
  leases?: ShardLeases;
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
 * The shard leases of this node (leases.ts) over a store, on the engine's clock: with
 * `databaseClock`, leases are granted and compared in the database's clock. Takes the options as
 * `resolveSchedulingOptions` resolved them, once, for the leases and the planner alike.
 *
 * @example
 * const scheduling = resolveSchedulingOptions({ nodeId, logger });
 * const leases = createShardLeases(store, scheduling, () => url);
 * const scheduler = createScheduler(store, pipeline, scheduling, { leases });
 */
export function createShardLeases(
  store: Store,
  scheduling: ResolvedSchedulingOptions,
  address?: SchedulerParts['address'],
): ShardLeases {
  const { clock } = scheduling;
  return new ShardLeases({
    ...scheduling,
    leases: store.leases,
    nodes: store.nodes,
    node: {
      get address() {
        return (typeof address === 'function' ? address() : address) ?? '';
      },
      startedAt: clock.now(),
    },
    ...(clock instanceof DatabaseClock ? { clockSync: clock } : {}),
  });
}

/**
 * Builds the scheduling engine over a store, handing due fires to `pipeline`.
 *
 * @example
 * const scheduler = createScheduler(store, pipeline, resolveSchedulingOptions({ nodeId: `${os.hostname()}:${port}` }));
 * await scheduler.start();
 * // ... at shutdown:
 * await scheduler.stop();
 */
export function createScheduler(
  store: Store,
  pipeline: FirePipeline,
  scheduling: ResolvedSchedulingOptions,
  { address, onHeldBack, inFlight, leases: made }: SchedulerParts = {},
): Scheduler {
  const { clock } = scheduling;
  const leases = made ?? createShardLeases(store, scheduling, address);
  const planner = new Planner({
    ...scheduling,
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
