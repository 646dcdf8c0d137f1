/**
 * ROUND: round-robin per job. As in XXL-JOB, each job has its own counter that starts at a
 * random value in [0, 100) (so that after a restart not every job sends its next run to the
 * same first executor), goes up by one per fire, and the pick is `counter % candidates`. The
 * counters start over each UTC day and past 1,000,000 (see PerJobState).
 */
import type { PerJobState } from './per-job-state.js';
import { pickedOne, type Route, type RoutePick, type RouteRequest } from './route.js';

const RANDOM_START = 100;
const COUNTER_LIMIT = 1_000_000;

interface Counter {
  turn: number;
}

export class RoundRoute implements Route {
  readonly strategy = 'ROUND';

  constructor(
    private readonly counters: PerJobState<Counter>,
    private readonly random: () => number,
  ) {}

  pick({ jobId, candidates }: RouteRequest): RoutePick {
    const turn = this.nextTurn(jobId);
    const index = turn % candidates.length;
    return pickedOne(
      this.strategy,
      candidates[index]!,
      `job ${jobId} turn ${turn}, index ${index} of ${candidates.length}`,
    );
  }

  private nextTurn(jobId: number): number {
    let fresh = false;
    const counter = this.counters.stateOf(jobId, () => {
      fresh = true;
      return { turn: this.randomStart() };
    });
    if (!fresh) counter.turn = counter.turn >= COUNTER_LIMIT ? this.randomStart() : counter.turn + 1;
    return counter.turn;
  }

  private randomStart(): number {
    return Math.floor(this.random() * RANDOM_START);
  }
}
