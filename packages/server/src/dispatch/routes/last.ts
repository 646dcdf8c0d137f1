/** LAST: the last candidate (the highest address, as candidates are sorted). */
import { pickedOne, type Route, type RoutePick, type RouteRequest } from './route.js';

export class LastRoute implements Route {
  readonly strategy = 'LAST';

  pick({ candidates }: RouteRequest): RoutePick {
    return pickedOne(this.strategy, candidates[candidates.length - 1]!, `last of ${candidates.length}`);
  }
}
