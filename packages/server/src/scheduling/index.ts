/** The scheduling engine: shard leases, planner, wheel and the misfire rule. */
export { type Clock, systemClock, type TimerHandle } from './clock.js';
export { ShardLeases, type ShardLeasesOptions } from './leases.js';
export {
  type ClaimedTime,
  type ClaimedTimes,
  DEFAULT_MISFIRE_WINDOW_MS,
  decideFire,
  type FireDecision,
  MAX_TIMES_PER_CLAIM,
  type MissedTimes,
  nextFixDelayFireAt,
  planClaimedTimes,
} from './misfire.js';
export {
  type ResolvedSchedulingOptions,
  resolveSchedulingOptions,
  SCHEDULING_DEFAULTS,
  type SchedulingLogger,
  type SchedulingOptions,
} from './options.js';
export { type FirePipeline, Planner, type PlannerOptions } from './planner.js';
export { createScheduler, type Scheduler } from './scheduler.js';
export { type DueFire, Wheel, type WheelOptions } from './wheel.js';
