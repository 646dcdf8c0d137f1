/** RANDOM: a uniformly random candidate. */
import { pickedOne, type Route, type RoutePick, type RouteRequest } from './route.js';

export class RandomRoute implements Route {
  readonly strategy = 'RANDOM';

  constructor(private readonly random: () => number) {}

  pick({ candidates }: RouteRequest): RoutePick {
    const index = Math.min(candidates.length - 1, Math.floor(this.random() * candidates.length));
    return pickedOne(this.strategy, candidates[index]!, `random pick of ${candidates.length}`);
  }
}
