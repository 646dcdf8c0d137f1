/**
 * BUSYOVER: the first candidate, in order, whose `idleBeat` for this job answers code 200, i.e.
 * whose lane for the job is neither running nor queueing. Asked one at a time, as XXL-JOB does.
 */
import type { ExecutorClient } from '../executor-client.js';
import { askInTurn } from './ask-in-turn.js';
import type { Route, RoutePick, RouteRequest } from './route.js';

export class BusyoverRoute implements Route {
  readonly strategy = 'BUSYOVER';

  constructor(private readonly client: ExecutorClient) {}

  pick({ jobId, candidates }: RouteRequest): Promise<RoutePick> {
    return askInTurn(this.strategy, 'idleBeat', candidates, (target) => this.client.idleBeat(target, jobId));
  }
}
