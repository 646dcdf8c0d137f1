/**
 * SHARDING_BROADCAST: every candidate gets the fire; shard index i goes to candidate i, so with
 * sorted candidates the index follows the address order and is stable while the set is.
 */
import type { Route, RoutePick, RouteRequest } from './route.js';

export class ShardingBroadcastRoute implements Route {
  readonly strategy = 'SHARDING_BROADCAST';

  pick({ candidates }: RouteRequest): RoutePick {
    return {
      picked: [...candidates],
      message: `route ${this.strategy}: ${candidates.length} shards, index by address order`,
    };
  }
}
