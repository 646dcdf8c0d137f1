/**
 * Scheduling nodes for the planner and lease suites: a real store, the real leases and planner
 * on a manual clock, and a stand-in for the dispatch pipeline that records what it was handed and
 * marks the records dispatched, as the real pipeline does.
 */

import type { Clock, TimerHandle } from '../../src/scheduling/clock.js';
import { InFlightFires } from '../../src/scheduling/in-flight.js';
import { ShardLeases } from '../../src/scheduling/leases.js';
import {
  resolveSchedulingOptions,
  type SchedulingLogger,
  type SchedulingOptions,
} from '../../src/scheduling/options.js';
import { type FirePipeline, Planner } from '../../src/scheduling/planner.js';
import type { ClaimedFire } from '../../src/store/hot/claim.js';
import type { FireRow, NewJob, Store } from '../../src/store/index.js';
import type { ManualClock } from './clock.js';

/** One fire the pipeline was handed: its id and the clock's time then. */
export interface Handed {
  fireId: number;
  at: number;
}

/** The pipeline's stand-in: records hand-overs and marks the records dispatched in the store. */
export class RecordingPipeline implements FirePipeline {
  readonly handed: Handed[] = [];
  /** Fires handed over whose dispatch mark could not be written. */
  readonly unmarked: number[] = [];
  /** Due fires not dispatched yet, as a real pipeline would report them; set it to test back-pressure. */
  backlog = 0;
  private marking: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Asks the planner for what the claim read of each fire (as a pipeline sending claimed fires as read does). */
  sendsAsClaimed = true;
  /** What the claim read for each fire handed over with it (recovered fires come without). */
  readonly claimed = new Map<number, ClaimedFire>();

  onDue(fireIds: number[], claimed?: readonly (ClaimedFire | undefined)[]): void {
    const at = this.clock.now();
    for (const [i, fireId] of fireIds.entries()) {
      this.handed.push({ fireId, at });
      const read = claimed?.[i];
      if (read !== undefined) this.claimed.set(fireId, read);
    }
    const marks = fireIds.map((fireId) => ({
      fireId,
      triggerAt: at,
      executorAddress: 'http://127.0.0.1:9999/',
      triggerCode: 200,
      triggerMsg: 'recorded by the test pipeline',
    }));
    // A node whose database is gone cannot mark: its records stay pending for the next holder.
    this.marking = this.marking
      .then(() => this.store.fires.markDispatched(marks))
      .catch(() => {
        this.unmarked.push(...fireIds);
      });
  }

  /** Resolves when every dispatch mark so far is written. */
  idle(): Promise<unknown> {
    return this.marking;
  }

  ids(): number[] {
    return this.handed.map((h) => h.fireId);
  }
}

/**
 * A node's view of the shared manual clock that can be killed: a killed node's timers never run
 * again and it sets no new ones, as if its process had died on the spot.
 */
export class NodeClock implements Clock {
  private readonly timers = new Set<TimerHandle>();
  private dead = false;

  constructor(private readonly clock: ManualClock) {}

  now(): number {
    return this.clock.now();
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    if (this.dead) return { timer: undefined };
    const handle = this.clock.setTimer(() => {
      this.timers.delete(handle);
      fn();
    }, ms);
    this.timers.add(handle);
    return handle;
  }

  clearTimer(handle: TimerHandle): void {
    this.timers.delete(handle);
    this.clock.clearTimer(handle);
  }

  kill(): void {
    this.dead = true;
    for (const handle of this.timers) this.clock.clearTimer(handle);
    this.timers.clear();
  }
}

/** Collects what the engine logs, so a test can assert on warnings and stay quiet. */
export class MemoryLogger implements SchedulingLogger {
  readonly lines: { level: string; message: string; details: object }[] = [];
  error(details: object, message: string): void {
    this.lines.push({ level: 'error', message, details });
  }
  warn(details: object, message: string): void {
    this.lines.push({ level: 'warn', message, details });
  }
  info(details: object, message: string): void {
    this.lines.push({ level: 'info', message, details });
  }
  errors(): string[] {
    return this.lines.filter((l) => l.level === 'error').map((l) => l.message);
  }
}

export interface TestNode {
  nodeId: string;
  store: Store;
  clock: NodeClock;
  leases: ShardLeases;
  planner: Planner;
  /** What this node is dispatching: the planner's hand-overs, and what a test adds as a trigger would. */
  inFlight: InFlightFires;
  pipeline: RecordingPipeline;
  logger: MemoryLogger;
  /** The backlog at each tick the planner held its claims back (`onHeldBack`). */
  heldBack: number[];
  /** Takes leases and starts the planner. */
  start(): Promise<void>;
  /** Waits until nothing this node started is in flight. */
  idle(): Promise<void>;
  /** Graceful stop: planner, then leases released. */
  stop(): Promise<void>;
  /** Dies on the spot: no more timers, nothing released, the wheel's contents gone. */
  crash(): void;
}

export function createTestNode(
  store: Store,
  clock: ManualClock,
  options: Omit<SchedulingOptions, 'clock' | 'logger'>,
): TestNode {
  const nodeClock = new NodeClock(clock);
  const logger = new MemoryLogger();
  // Each fire handed over at its own time on a 5 ms grid unless a test asks otherwise: the
  // planner's tests read hand-over times as due times (the lead is tested on its own).
  const resolved = resolveSchedulingOptions({
    prepareAheadMs: 0,
    wheelResolutionMs: 5,
    ...options,
    clock: nodeClock,
    logger,
  });
  const leases = new ShardLeases({ ...resolved, leases: store.leases });
  const pipeline = new RecordingPipeline(store, nodeClock);
  const heldBack: number[] = [];
  const inFlight = new InFlightFires(nodeClock);
  const planner = new Planner({
    ...resolved,
    fires: store.fires,
    jobs: store.jobs,
    leases,
    pipeline,
    inFlight,
    onHeldBack: (backlog) => heldBack.push(backlog),
  });
  let crashed = false;
  return {
    nodeId: resolved.nodeId,
    store,
    clock: nodeClock,
    leases,
    planner,
    inFlight,
    pipeline,
    logger,
    heldBack,
    async start() {
      await leases.start();
      planner.start();
    },
    async idle() {
      if (crashed) return;
      await leases.idle();
      await planner.idle();
      await pipeline.idle();
    },
    async stop() {
      await planner.stop();
      await leases.stop();
      await pipeline.idle();
    },
    crash() {
      crashed = true;
      nodeClock.kill();
    },
  };
}

/** Makes `clock.advance` wait, after each timer, for every node to finish what the timer started. */
export function settleNodes(clock: ManualClock, nodes: () => readonly TestNode[]): void {
  clock.settle = async () => {
    for (let round = 0; round < 3; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      for (const node of nodes()) await node.idle();
    }
  };
}

/** A started job on app 1 (the schema keeps no foreign key from job to app). */
export async function createJob(
  store: Store,
  job: Partial<NewJob> & Pick<NewJob, 'schedule_type'>,
  now: number,
) {
  return store.jobs.createJob({ app_id: 1, name: 'test job', trigger_status: 1, ...job }, now);
}

/** Every claimed fire record (broadcast children and retries aside), in (job, time) order. */
export async function claimedFires(store: Store): Promise<FireRow[]> {
  return store.db
    .selectFrom('fire')
    .selectAll()
    .where('claim_job_id', 'is not', null)
    .orderBy('job_id')
    .orderBy('scheduled_at')
    .execute();
}
