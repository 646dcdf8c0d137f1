/**
 * A job's defaults: the value of each field a new job does not set. The one definition the
 * server's store and REST API (`createJob`) and the console's job form all take theirs from.
 * Field names are the REST API's (XXL-JOB's in camelCase).
 */
import type { BlockStrategy, GlueType, MisfireStrategy, RouteStrategy, ScheduleType } from './enums.js';

export interface JobFieldDefaults {
  author: string;
  alarmEmail: string;
  alarmChannelIds: readonly number[];
  scheduleType: ScheduleType;
  scheduleConf: string;
  /** IANA time zone of a CRON schedule. */
  timeZone: string;
  misfireStrategy: MisfireStrategy;
  executorRouteStrategy: RouteStrategy;
  executorHandler: string;
  executorParam: string;
  executorBlockStrategy: BlockStrategy;
  /** Seconds; 0 = none. */
  executorTimeout: number;
  executorFailRetryCount: number;
  /** A 10 s pause before each retry; under EXPONENTIAL it doubles up to 10 minutes. */
  retryBackoff: {
    readonly strategy: 'FIXED' | 'EXPONENTIAL';
    readonly delaySeconds: number;
    readonly maxDelaySeconds: number;
  };
  alarmOn: 'EVERY_FAILURE' | 'FINAL_FAILURE';
  glueType: GlueType;
  glueSource: string;
  glueRemark: string;
  childJobIds: readonly number[];
  /** 0: stopped until started; 1: scheduled at once. */
  triggerStatus: 0 | 1;
}

export const JOB_FIELD_DEFAULTS: Readonly<JobFieldDefaults> = Object.freeze({
  author: '',
  alarmEmail: '',
  alarmChannelIds: Object.freeze([]),
  scheduleType: 'NONE',
  scheduleConf: '',
  timeZone: 'UTC',
  misfireStrategy: 'DO_NOTHING',
  executorRouteStrategy: 'FIRST',
  executorHandler: '',
  executorParam: '',
  executorBlockStrategy: 'SERIAL_EXECUTION',
  executorTimeout: 0,
  executorFailRetryCount: 0,
  retryBackoff: Object.freeze({ strategy: 'FIXED', delaySeconds: 10, maxDelaySeconds: 600 }),
  alarmOn: 'EVERY_FAILURE',
  glueType: 'BEAN',
  glueSource: '',
  glueRemark: '',
  childJobIds: Object.freeze([]),
  triggerStatus: 0,
});
