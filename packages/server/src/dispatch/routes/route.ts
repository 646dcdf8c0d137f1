/**
 * The contract every route strategy implements: from the candidate executors of one fire, pick
 * the one (or, for a broadcast, all) to deliver to, and say what was picked and why.
 */
import type { RouteStrategy } from '@tickwheel/protocol';
import type { ExecutorAddress } from '../executor-client.js';

export interface RouteRequest {
  jobId: number;
  /**
   * The executors to choose from, never empty: the app's online addresses sorted by address
   * (as XXL-JOB sorts its registry list), or a fire's address override in the order given.
   */
  candidates: readonly ExecutorAddress[];
}

export interface RoutePick {
  /** The chosen executors; empty when none could be picked. A broadcast picks all, shard i = position i. */
  picked: ExecutorAddress[];
  /** What was picked and why, for the fire record's `triggerMsg` (`route FIRST: http://a/ (first of 2)`). */
  message: string;
}

export interface Route {
  readonly strategy: RouteStrategy;
  /** Synchronous for all but the routes that ask executors first (FAILOVER, BUSYOVER). */
  pick(request: RouteRequest): RoutePick | Promise<RoutePick>;
}

/** One pick with its message, `route <STRATEGY>: <address> (<why>)`. */
export function pickedOne(strategy: RouteStrategy, target: ExecutorAddress, why: string): RoutePick {
  return { picked: [target], message: `route ${strategy}: ${target.address} (${why})` };
}
