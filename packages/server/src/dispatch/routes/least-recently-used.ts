/**
 * LEAST_RECENTLY_USED: per job, the candidate this job used longest ago. An address this job has
 * not used yet (today) counts as the least recently used, so a joining executor gets the job's
 * next run; XXL-JOB appends new addresses as the most recent instead, which starves a newcomer
 * for a whole cycle. Addresses gone from the candidates are forgotten and the order starts over
 * each UTC day (see PerJobState). Among unused addresses the earlier candidate goes first.
 */
import type { ExecutorAddress } from '../executor-client.js';
import type { PerJobState } from './per-job-state.js';
import { pickedOne, type Route, type RoutePick, type RouteRequest } from './route.js';

export interface UseOrder {
  /** Address → sequence number of its last use by this job. */
  lastUse: Map<string, number>;
  sequence: number;
}

export class LeastRecentlyUsedRoute implements Route {
  readonly strategy = 'LEAST_RECENTLY_USED';

  constructor(private readonly orders: PerJobState<UseOrder>) {}

  pick({ jobId, candidates }: RouteRequest): RoutePick {
    const order = this.orders.stateOf(jobId, () => ({ lastUse: new Map(), sequence: 0 }));
    this.forgetGone(order, candidates);
    let eldest: ExecutorAddress | undefined;
    let eldestUse = Number.POSITIVE_INFINITY;
    for (const candidate of candidates) {
      const used = order.lastUse.get(candidate.address) ?? -1;
      if (used < eldestUse) {
        eldest = candidate;
        eldestUse = used;
        if (used === -1) break;
      }
    }
    const chosen = eldest!;
    order.sequence += 1;
    order.lastUse.set(chosen.address, order.sequence);
    const why =
      eldestUse === -1
        ? `not used by job ${jobId} yet today, of ${candidates.length}`
        : `used longest ago by job ${jobId}, of ${candidates.length}`;
    return pickedOne(this.strategy, chosen, why);
  }

  private forgetGone(order: UseOrder, candidates: readonly ExecutorAddress[]): void {
    if (order.lastUse.size <= candidates.length) return;
    const present = new Set(candidates.map((c) => c.address));
    for (const address of order.lastUse.keys()) if (!present.has(address)) order.lastUse.delete(address);
  }
}
