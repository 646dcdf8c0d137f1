/**
 * FAILOVER: the first candidate, in order, whose `beat` answers code 200. Executors are asked
 * one at a time as XXL-JOB does, so a healthy first executor costs one extra call per fire, not n;
 * a hung one costs the call timeout before the next is tried.
 */
import type { ExecutorClient } from '../executor-client.js';
import { askInTurn } from './ask-in-turn.js';
import type { Route, RoutePick, RouteRequest } from './route.js';

export class FailoverRoute implements Route {
  readonly strategy = 'FAILOVER';

  constructor(private readonly client: ExecutorClient) {}

  pick({ candidates }: RouteRequest): Promise<RoutePick> {
    return askInTurn(this.strategy, 'beat', candidates, (target) => this.client.beat(target));
  }
}
