/**
 * LEAST_FREQUENTLY_USED: per job, the candidate this job used least often today. As in XXL-JOB,
 * an address new to the job starts at a random count in [0, candidates) so that jobs do not all
 * start on the same executor, a count past 1,000,000 starts over the same way, addresses gone
 * from the candidates are forgotten, and all counts start over each UTC day (see PerJobState).
 * Ties go to the earlier candidate.
 */
import type { ExecutorAddress } from '../executor-client.js';
import type { PerJobState } from './per-job-state.js';
import { pickedOne, type Route, type RoutePick, type RouteRequest } from './route.js';

const COUNT_LIMIT = 1_000_000;

export type UseCounts = Map<string, number>;

export class LeastFrequentlyUsedRoute implements Route {
  readonly strategy = 'LEAST_FREQUENTLY_USED';

  constructor(
    private readonly counts: PerJobState<UseCounts>,
    private readonly random: () => number,
  ) {}

  pick({ jobId, candidates }: RouteRequest): RoutePick {
    const counts = this.counts.stateOf(jobId, () => new Map());
    this.forgetGone(counts, candidates);
    let least: ExecutorAddress | undefined;
    let leastCount = Number.POSITIVE_INFINITY;
    for (const candidate of candidates) {
      let count = counts.get(candidate.address);
      if (count === undefined || count > COUNT_LIMIT) {
        count = Math.floor(this.random() * candidates.length);
        counts.set(candidate.address, count);
      }
      if (count < leastCount) {
        least = candidate;
        leastCount = count;
      }
    }
    const chosen = least!;
    counts.set(chosen.address, leastCount + 1);
    return pickedOne(
      this.strategy,
      chosen,
      `job ${jobId} count ${leastCount} today, the lowest of ${candidates.length}`,
    );
  }

  private forgetGone(counts: UseCounts, candidates: readonly ExecutorAddress[]): void {
    if (counts.size <= candidates.length) return;
    const present = new Set(candidates.map((c) => c.address));
    for (const address of counts.keys()) if (!present.has(address)) counts.delete(address);
  }
}
