/** FIRST: the first candidate (the lowest address, as candidates are sorted). */
import { pickedOne, type Route, type RoutePick, type RouteRequest } from './route.js';

export class FirstRoute implements Route {
  readonly strategy = 'FIRST';

  pick({ candidates }: RouteRequest): RoutePick {
    return pickedOne(this.strategy, candidates[0]!, `first of ${candidates.length}`);
  }
}
