/**
 * The choices a job's fields take, in the order the form offers them. Each list is checked
 * against the API's schema at compile time, so a value the server adds or drops breaks the build
 * instead of silently missing from a select.
 */
import type { Body } from '../../api/types';

type JobBody = Body<'createJob'>;
export type ScheduleType = NonNullable<JobBody['scheduleType']>;
export type MisfireStrategy = NonNullable<JobBody['misfireStrategy']>;
export type RouteStrategy = NonNullable<JobBody['executorRouteStrategy']>;
export type BlockStrategy = NonNullable<JobBody['executorBlockStrategy']>;
export type GlueType = NonNullable<JobBody['glueType']>;
export type AlarmOn = NonNullable<JobBody['alarmOn']>;
export type BackoffStrategy = NonNullable<JobBody['retryBackoff']>['strategy'];

/** Every value of the union `T`, each once: a missing value is a type error at the call. */
function everyOf<T extends string>() {
  return <const A extends readonly T[]>(values: A & ([T] extends [A[number]] ? unknown : never)): A => values;
}

export const SCHEDULE_TYPES = everyOf<ScheduleType>()(['CRON', 'FIX_RATE', 'FIX_DELAY', 'ONCE', 'NONE']);
export const MISFIRE_STRATEGIES = everyOf<MisfireStrategy>()(['DO_NOTHING', 'FIRE_ONCE_NOW']);
export const ROUTE_STRATEGIES = everyOf<RouteStrategy>()([
  'FIRST',
  'LAST',
  'ROUND',
  'RANDOM',
  'CONSISTENT_HASH',
  'LEAST_FREQUENTLY_USED',
  'LEAST_RECENTLY_USED',
  'FAILOVER',
  'BUSYOVER',
  'SHARDING_BROADCAST',
]);
export const BLOCK_STRATEGIES = everyOf<BlockStrategy>()([
  'SERIAL_EXECUTION',
  'DISCARD_LATER',
  'COVER_EARLY',
]);
export const GLUE_TYPES = everyOf<GlueType>()([
  'BEAN',
  'GLUE_SHELL',
  'GLUE_PYTHON',
  'GLUE_PYTHON2',
  'GLUE_NODEJS',
  'GLUE_PHP',
  'GLUE_POWERSHELL',
  'GLUE_GROOVY',
]);
export const ALARM_ON = everyOf<AlarmOn>()(['EVERY_FAILURE', 'FINAL_FAILURE']);
export const BACKOFF_STRATEGIES = everyOf<BackoffStrategy>()(['FIXED', 'EXPONENTIAL']);

/** `value` when it is one of `values`, else undefined (a stored value this console does not know). */
export function oneOf<T extends string>(values: readonly T[], value: string): T | undefined {
  return (values as readonly string[]).includes(value) ? (value as T) : undefined;
}

/** A script (GLUE) job keeps its code in the job and runs it on the executor; BEAN runs a handler. */
export function isScriptJob(glueType: string): boolean {
  return glueType !== 'BEAN';
}

/** The browser's own IANA zone, the default zone of a new job. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

let zones: string[] | undefined;

/**
 * Every IANA zone the browser knows. Some browsers leave `UTC` out of `supportedValuesOf`
 * (it is an alias there), yet it is the server's default, so it is always offered.
 */
export function timeZones(): string[] {
  if (zones === undefined) {
    const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
    zones = ['UTC', ...known.filter((zone) => zone !== 'UTC')];
  }
  return zones;
}
