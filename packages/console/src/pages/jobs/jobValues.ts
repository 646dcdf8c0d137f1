/**
 * The job form's values and how they map to the API: a stored job (to edit or copy) becomes form
 * values, and form values become a `createJob` / `updateJob` body.
 */
import { JOB_FIELD_DEFAULTS } from '@tickwheel/protocol';
import type { Body, Job } from '../../api/types';
import {
  ALARM_ON,
  type AlarmOn,
  BACKOFF_STRATEGIES,
  type BackoffStrategy,
  BLOCK_STRATEGIES,
  type BlockStrategy,
  browserTimeZone,
  GLUE_TYPES,
  type GlueType,
  isScriptJob,
  MISFIRE_STRATEGIES,
  type MisfireStrategy,
  oneOf,
  ROUTE_STRATEGIES,
  type RouteStrategy,
  SCHEDULE_TYPES,
  type ScheduleType,
} from './options';

export interface JobFormValues {
  appId: number | undefined;
  name: string;
  author: string;
  scheduleType: ScheduleType | undefined;
  scheduleConf: string;
  timeZone: string;
  misfireStrategy: MisfireStrategy | undefined;
  executorRouteStrategy: RouteStrategy | undefined;
  executorBlockStrategy: BlockStrategy | undefined;
  executorTimeout: number;
  executorFailRetryCount: number;
  retryBackoff: {
    strategy: BackoffStrategy | undefined;
    delaySeconds: number;
    maxDelaySeconds: number;
  };
  alarmOn: AlarmOn | undefined;
  glueType: GlueType | undefined;
  /** Absent when the form hides the field: a script job has no handler. */
  executorHandler: string | undefined;
  executorParam: string;
  childJobIds: number[];
  alarmChannelIds: number[];
  alarmEmail: string;
  /** New jobs only: schedule it as soon as it is saved. */
  startNow: boolean;
}

/** What the form carries that has no field: the script of a copied GLUE job. */
export interface Carried {
  glueSource?: string;
  glueRemark?: string;
}

/**
 * A new job's values: the server's defaults (the protocol's `JOB_FIELD_DEFAULTS`), except the
 * zone, which is the browser's, and the schedule type, CRON (a form's job is mostly scheduled).
 */
export function newJobValues(appId: number | undefined): JobFormValues {
  const d = JOB_FIELD_DEFAULTS;
  return {
    appId,
    name: '',
    author: d.author,
    scheduleType: 'CRON',
    scheduleConf: d.scheduleConf,
    timeZone: browserTimeZone(),
    misfireStrategy: d.misfireStrategy,
    executorRouteStrategy: d.executorRouteStrategy,
    executorBlockStrategy: d.executorBlockStrategy,
    executorTimeout: d.executorTimeout,
    executorFailRetryCount: d.executorFailRetryCount,
    retryBackoff: { ...d.retryBackoff },
    alarmOn: d.alarmOn,
    glueType: d.glueType,
    executorHandler: d.executorHandler,
    executorParam: d.executorParam,
    childJobIds: [...d.childJobIds],
    alarmChannelIds: [...d.alarmChannelIds],
    alarmEmail: d.alarmEmail,
    startNow: d.triggerStatus === 1,
  };
}

/** A stored job's values. A value this console does not know is left empty for the user to choose. */
export function jobValues(job: Job): JobFormValues {
  return {
    appId: job.appId,
    name: job.name,
    author: job.author,
    scheduleType: oneOf(SCHEDULE_TYPES, job.scheduleType),
    scheduleConf: job.scheduleConf,
    timeZone: job.timeZone,
    misfireStrategy: oneOf(MISFIRE_STRATEGIES, job.misfireStrategy),
    executorRouteStrategy: oneOf(ROUTE_STRATEGIES, job.executorRouteStrategy),
    executorBlockStrategy: oneOf(BLOCK_STRATEGIES, job.executorBlockStrategy),
    executorTimeout: job.executorTimeout,
    executorFailRetryCount: job.executorFailRetryCount,
    retryBackoff: {
      strategy: oneOf(BACKOFF_STRATEGIES, job.retryBackoff.strategy),
      delaySeconds: job.retryBackoff.delaySeconds,
      maxDelaySeconds: job.retryBackoff.maxDelaySeconds,
    },
    alarmOn: oneOf(ALARM_ON, job.alarmOn),
    glueType: oneOf(GLUE_TYPES, job.glueType),
    executorHandler: job.executorHandler,
    executorParam: job.executorParam,
    childJobIds: job.childJobIds,
    alarmChannelIds: job.alarmChannelIds,
    alarmEmail: job.alarmEmail,
    startNow: false,
  };
}

type JobFields = Omit<Body<'createJob'>, 'triggerStatus' | 'glueSource' | 'glueRemark'>;

/**
 * The body fields of submitted values. The form's rules require every select, so the
 * non-null assertions hold for anything `onFinish` hands over.
 */
export function jobFields(values: JobFormValues): JobFields {
  const scheduleType = values.scheduleType!;
  const glueType = values.glueType!;
  return {
    appId: values.appId!,
    name: values.name.trim(),
    author: values.author.trim(),
    scheduleType,
    // NONE takes no configuration; a leftover expression from another type would be refused.
    scheduleConf: scheduleType === 'NONE' ? '' : values.scheduleConf.trim(),
    timeZone: values.timeZone,
    misfireStrategy: values.misfireStrategy!,
    executorRouteStrategy: values.executorRouteStrategy!,
    executorBlockStrategy: values.executorBlockStrategy!,
    executorTimeout: values.executorTimeout,
    executorFailRetryCount: values.executorFailRetryCount,
    retryBackoff: {
      strategy: values.retryBackoff.strategy!,
      delaySeconds: values.retryBackoff.delaySeconds,
      maxDelaySeconds: values.retryBackoff.maxDelaySeconds,
    },
    alarmOn: values.alarmOn!,
    glueType,
    // A script job runs its script, not a handler: the form hides the field, and a name left
    // from before the job became a script would only mislead.
    executorHandler: isScriptJob(glueType) ? '' : (values.executorHandler ?? '').trim(),
    executorParam: values.executorParam,
    childJobIds: values.childJobIds,
    alarmChannelIds: values.alarmChannelIds,
    alarmEmail: values.alarmEmail.trim(),
  };
}

export function createJobBody(values: JobFormValues, carried: Carried): Body<'createJob'> {
  return { ...jobFields(values), ...carried, triggerStatus: values.startNow ? 1 : 0 };
}
