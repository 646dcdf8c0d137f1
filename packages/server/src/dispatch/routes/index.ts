/** The ten route strategies by their `ROUTE_STRATEGIES` name, with the state and client they need. */
import type { RouteStrategy } from '@tickwheel/protocol';
import type { ExecutorClient } from '../executor-client.js';
import { BusyoverRoute } from './busyover.js';
import { ConsistentHashRoute } from './consistent-hash.js';
import { FailoverRoute } from './failover.js';
import { FirstRoute } from './first.js';
import { LastRoute } from './last.js';
import { LeastFrequentlyUsedRoute } from './least-frequently-used.js';
import { LeastRecentlyUsedRoute } from './least-recently-used.js';
import { PerJobState } from './per-job-state.js';
import { RandomRoute } from './random.js';
import { RoundRoute } from './round.js';
import type { Route } from './route.js';
import { ShardingBroadcastRoute } from './sharding-broadcast.js';

export type { Route, RoutePick, RouteRequest } from './route.js';

export interface RouteDependencies {
  client: ExecutorClient;
  now: () => number;
  random: () => number;
  maxTrackedJobs: number;
}

export type Routes = Readonly<Record<RouteStrategy, Route>>;

/** One instance of each route; ROUND, LFU and LRU keep per-job state inside their instance. */
export function createRoutes({ client, now, random, maxTrackedJobs }: RouteDependencies): Routes {
  return {
    FIRST: new FirstRoute(),
    LAST: new LastRoute(),
    ROUND: new RoundRoute(new PerJobState(now, maxTrackedJobs), random),
    RANDOM: new RandomRoute(random),
    CONSISTENT_HASH: new ConsistentHashRoute(),
    LEAST_FREQUENTLY_USED: new LeastFrequentlyUsedRoute(new PerJobState(now, maxTrackedJobs), random),
    LEAST_RECENTLY_USED: new LeastRecentlyUsedRoute(new PerJobState(now, maxTrackedJobs)),
    FAILOVER: new FailoverRoute(client),
    BUSYOVER: new BusyoverRoute(client),
    SHARDING_BROADCAST: new ShardingBroadcastRoute(),
  };
}
