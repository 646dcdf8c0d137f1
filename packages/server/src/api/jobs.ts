/**
 * Jobs: `listJobs`, `getJob`, `createJob`, `updateJob`, `deleteJob`, `startJob`, `stopJob`,
 * `triggerJob`. A job is checked as a whole before it is written (schedule, handler, caps,
 * child jobs), `nextFireAt` follows its schedule while it runs, and a change of its script
 * saves a script version in the same transaction.
 */
import {
  isPullAddress,
  isStreamAddress,
  JOB_FIELD_DEFAULTS,
  type TriggerType,
  validateSchedule,
} from '@tickwheel/protocol';
import type { FastifyInstance } from 'fastify';
import { findChildJobCycle } from '../child-jobs/child-job-cycles.js';
import { backoffOf } from '../retries/backoff.js';
import type { JobRow, JobUpdate, NewJobRow } from '../store/index.js';
import { type GlueSave, insertJob, updateJob } from '../store/job-writes.js';
import { normaliseExecutorAddress, sameAddress, splitAddressList } from './addresses.js';
import { checkAlarmChannelIds, checkJobAlarmEmail } from './alarm-channels.js';
import { onlineAddresses } from './apps.js';
import { recordAudit } from './audit-trail.js';
import { canAccessApp, type Principal } from './auth.js';
import { type ApiContext, appFilter, principalOf, requireVisible, SECURITY } from './context.js';
import { errorResponses, invalidField, notFound, unknownInField } from './errors.js';
import { firstFireAt } from './next-fire-at.js';
import {
  IdParams,
  Job,
  type JobPatchBody,
  JobPatchBody as JobPatchSchema,
  JobQuery,
  LIMITS,
  type NewJobBody,
  NewJobBody as NewJobSchema,
  Page,
  type RetryBackoff,
  type TriggerBody,
  TriggerResult,
  TriggerBody as TriggerSchema,
} from './schemas.js';

const TAGS = ['jobs'];

/** A job's editable fields, camelCase, as a body gives them merged over the stored job. */
type JobFields = Omit<
  Job,
  'id' | 'glueUpdatedAt' | 'triggerStatus' | 'nextFireAt' | 'createdAt' | 'updatedAt'
>;

export function registerJobs(api: FastifyInstance, ctx: ApiContext): void {
  const { store, clock } = ctx.deps;

  api.get<{ Querystring: JobQuery }>(
    '/jobs',
    {
      schema: {
        operationId: 'listJobs',
        tags: TAGS,
        summary: 'List jobs, newest first',
        security: SECURITY,
        querystring: JobQuery,
        response: { 200: Page(Job), ...errorResponses(400, 403) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const { appId, name, executorHandler, author, triggerStatus, limit = 50, offset = 0 } = request.query;
      const filter = {
        ...appFilter(principal, appId),
        ...(name ? { name } : {}),
        ...(executorHandler ? { handler: executorHandler } : {}),
        ...(author ? { author } : {}),
        ...(triggerStatus === undefined ? {} : { triggerStatus: triggerStatus as 0 | 1 }),
      };
      const [rows, total] = await Promise.all([
        store.jobs.listJobs({ ...filter, limit, offset }),
        store.jobs.countJobs(filter),
      ]);
      return { items: rows.map(toJob), total, limit, offset };
    },
  );

  api.get<{ Params: IdParams }>(
    '/jobs/:id',
    {
      schema: {
        operationId: 'getJob',
        tags: TAGS,
        summary: 'One job',
        security: SECURITY,
        params: IdParams,
        response: { 200: Job, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => toJob(await findAccessibleJob(ctx, principalOf(ctx, request), request.params.id)),
  );

  api.post<{ Body: NewJobBody }>(
    '/jobs',
    {
      schema: {
        operationId: 'createJob',
        tags: TAGS,
        summary: 'Create a job (stopped unless triggerStatus is 1)',
        security: SECURITY,
        body: NewJobSchema,
        response: { 201: Job, ...errorResponses(400, 403, 413) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(ctx, request);
      const now = clock.now();
      const { triggerStatus = JOB_FIELD_DEFAULTS.triggerStatus, ...given } = request.body;
      const fields = withDefaults(given);
      await checkJob(ctx, principal, fields, { now, scheduleChanged: true, starting: triggerStatus === 1 });
      const row: NewJobRow = {
        ...toColumns(fields),
        trigger_status: triggerStatus,
        next_fire_at: triggerStatus === 1 ? firstFireAt(fields, now) : null,
        last_run_end_at: null,
        glue_updated_at: now,
        created_at: now,
        updated_at: now,
      };
      const glue = fields.glueType === 'BEAN' ? null : glueOf(fields);
      const job = await insertJob(store, row, glue, now);
      await recordAudit(ctx, request, {
        action: 'CREATE',
        targetType: 'JOB',
        targetId: job.id,
        appId: job.app_id,
        detail: { name: job.name, ...(job.origin === null ? {} : { origin: job.origin }) },
      });
      reply.code(201);
      return toJob(job);
    },
  );

  api.patch<{ Params: IdParams; Body: JobPatchBody }>(
    '/jobs/:id',
    {
      schema: {
        operationId: 'updateJob',
        tags: TAGS,
        summary:
          'Change a job; fields left out keep their value. A running job re-plans when its schedule changes.',
        security: SECURITY,
        params: IdParams,
        body: JobPatchSchema,
        response: { 200: Job, ...errorResponses(400, 403, 404, 413) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const existing = await findAccessibleJob(ctx, principal, request.params.id);
      const now = clock.now();
      const before = fieldsOf(existing);
      const fields: JobFields = { ...before, ...request.body };
      const scheduleChanged =
        fields.scheduleType !== before.scheduleType ||
        fields.scheduleConf !== before.scheduleConf ||
        fields.timeZone !== before.timeZone;
      const running = existing.trigger_status === 1;
      await checkJob(ctx, principal, fields, {
        now,
        scheduleChanged,
        starting: running,
        jobId: existing.id,
        alarmEmailBefore: before.alarmEmail,
      });
      const glueChanged =
        fields.glueType !== before.glueType ||
        fields.glueSource !== before.glueSource ||
        fields.glueRemark !== before.glueRemark;
      const patch: JobUpdate = {
        ...toColumns(fields),
        ...(glueChanged ? { glue_updated_at: now } : {}),
        ...(running && scheduleChanged ? { next_fire_at: firstFireAt(fields, now) } : {}),
      };
      const glue = glueChanged && fields.glueType !== 'BEAN' ? glueOf(fields) : null;
      if (!(await updateJob(store, existing.id, patch, glue, now))) throw notFound('job', existing.id);
      await recordAudit(ctx, request, {
        action: 'UPDATE',
        targetType: 'JOB',
        targetId: existing.id,
        appId: fields.appId,
        detail: {
          fields: Object.keys(request.body),
          ...(fields.appId === existing.app_id ? {} : { fromAppId: existing.app_id }),
        },
      });
      return toJob((await store.jobs.findJobById(existing.id))!);
    },
  );

  api.delete<{ Params: IdParams }>(
    '/jobs/:id',
    {
      schema: {
        operationId: 'deleteJob',
        tags: TAGS,
        summary: 'Delete a job and its script versions (its fire records stay in the log)',
        security: SECURITY,
        params: IdParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => {
      const job = await findAccessibleJob(ctx, principalOf(ctx, request), request.params.id);
      if (!(await store.jobs.deleteJob(job.id))) throw notFound('job', job.id);
      await recordAudit(ctx, request, {
        action: 'DELETE',
        targetType: 'JOB',
        targetId: job.id,
        appId: job.app_id,
        detail: { name: job.name },
      });
      reply.code(204);
    },
  );

  api.post<{ Params: IdParams }>(
    '/jobs/:id/start',
    {
      schema: {
        operationId: 'startJob',
        tags: TAGS,
        summary: 'Start scheduling a job from its next fire time after now',
        security: SECURITY,
        params: IdParams,
        response: { 200: Job, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const job = await findAccessibleJob(ctx, principal, request.params.id);
      const now = clock.now();
      const fields = fieldsOf(job);
      checkStartable(fields, now);
      if (!(await store.jobs.startJob(job.id, firstFireAt(fields, now), now))) throw notFound('job', job.id);
      await recordAudit(ctx, request, {
        action: 'START',
        targetType: 'JOB',
        targetId: job.id,
        appId: job.app_id,
      });
      return toJob((await store.jobs.findJobById(job.id))!);
    },
  );

  api.post<{ Params: IdParams }>(
    '/jobs/:id/stop',
    {
      schema: {
        operationId: 'stopJob',
        tags: TAGS,
        summary: 'Stop scheduling a job (it can still be triggered)',
        security: SECURITY,
        params: IdParams,
        response: { 200: Job, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const job = await findAccessibleJob(ctx, principalOf(ctx, request), request.params.id);
      if (!(await store.jobs.stopJob(job.id, clock.now()))) throw notFound('job', job.id);
      await recordAudit(ctx, request, {
        action: 'STOP',
        targetType: 'JOB',
        targetId: job.id,
        appId: job.app_id,
      });
      return toJob((await store.jobs.findJobById(job.id))!);
    },
  );

  api.post<{ Params: IdParams; Body: TriggerBody }>(
    '/jobs/:id/trigger',
    {
      schema: {
        operationId: 'triggerJob',
        tags: TAGS,
        summary:
          "Fire a job once now, optionally with another param and among given addresses (each one of the app's known addresses)",
        security: SECURITY,
        params: IdParams,
        body: TriggerSchema,
        response: { 200: TriggerResult, ...errorResponses(400, 403, 404, 413) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const job = await findAccessibleJob(ctx, principal, request.params.id);
      const { executorParam, addressList } = request.body;
      if (executorParam !== undefined)
        checkByteLength('executorParam', executorParam, LIMITS.executorParamBytes);
      const addresses = addressList === undefined ? [] : await knownAddresses(ctx, job.app_id, addressList);
      const triggerType: TriggerType = principal.via === 'bearer' ? 'API' : 'MANUAL';
      const fireIds = await ctx.deps.triggerJob(job, {
        param: executorParam ?? job.executor_param,
        addresses,
        triggerType,
      });
      await recordAudit(ctx, request, {
        action: 'TRIGGER',
        targetType: 'JOB',
        targetId: job.id,
        appId: job.app_id,
        detail: { fireIds },
      });
      return { fireIds };
    },
  );
}

/** The job of `id` when it exists and the caller may see its app (else 404 either way). */
async function findAccessibleJob(ctx: ApiContext, principal: Principal, id: number): Promise<JobRow> {
  const job = await ctx.deps.store.jobs.findJobById(id);
  if (job === undefined) throw notFound('job', id);
  requireVisible(principal, job.app_id, 'job', id);
  return job;
}

interface CheckContext {
  now: number;
  /** The schedule is new or changed: check it reads and fires. */
  scheduleChanged: boolean;
  /** The job is (or stays) running, so a new schedule needs a time to fire. */
  starting: boolean;
  /** The job's own id (an update), which its child jobs must not include. */
  jobId?: number;
  /** The job's alarmEmail before an update: only addresses new to it must be mailed by a channel. */
  alarmEmailBefore?: string;
}

/** Checks a whole job before it is written; throws the first problem as a 400 naming the field. */
async function checkJob(
  ctx: ApiContext,
  principal: Principal,
  fields: JobFields,
  check: CheckContext,
): Promise<void> {
  const { store } = ctx.deps;
  const app = await store.apps.findAppById(fields.appId);
  // Another app's id answers as a missing one: a user must not learn which ids exist.
  if (app === undefined || !canAccessApp(principal, app.id)) {
    throw unknownInField('appId', 'app', fields.appId);
  }
  checkByteLength('executorParam', fields.executorParam, LIMITS.executorParamBytes);
  checkByteLength('glueSource', fields.glueSource, LIMITS.glueSourceBytes);
  if (fields.glueType === 'BEAN' && fields.executorHandler.trim() === '') {
    throw invalidField('executorHandler', 'executorHandler: a BEAN job needs the name of the handler to run');
  }
  await checkAlarmChannelIds(store.alarmChannels, fields.alarmChannelIds);
  await checkJobAlarmEmail(store.alarmChannels, fields, check.alarmEmailBefore ?? '');
  if (check.scheduleChanged) {
    if (check.starting) checkStartable(fields, check.now);
    else validateSchedule(fields, check.now);
  }
  checkRetryBackoff(fields.retryBackoff);
  await checkChildJobs(ctx, principal, fields.childJobIds, check.jobId);
}

/**
 * A job may run when its schedule reads and fires again after now; NONE jobs only run when
 * triggered, so they cannot be started.
 */
function checkStartable(
  fields: Pick<JobFields, 'scheduleType' | 'scheduleConf' | 'timeZone'>,
  now: number,
): void {
  if (fields.scheduleType === 'NONE') {
    throw invalidField(
      'scheduleType',
      'scheduleType: a NONE job runs only when triggered; give it a schedule before starting it',
    );
  }
  validateSchedule(fields, now);
}

/**
 * Child jobs must exist, be in apps the caller may operate (a child job runs with the parent's
 * say-so: naming another app's job would let a user run it — XXL-JOB's CVE-2024-42681), and
 * must not close a loop through this job. Another app's job answers as a missing one, so the
 * refusal does not tell a user which ids exist.
 */
async function checkChildJobs(
  ctx: ApiContext,
  principal: Principal,
  childJobIds: number[],
  jobId: number | undefined,
): Promise<void> {
  if (jobId !== undefined && childJobIds.includes(jobId)) {
    throw invalidField('childJobIds', `childJobIds: job ${jobId} cannot be its own child`);
  }
  if (childJobIds.length === 0) return;
  const children = await ctx.deps.store.jobs.findJobsByIds(childJobIds);
  const visible = new Set(
    children.filter((child) => canAccessApp(principal, child.app_id)).map((child) => child.id),
  );
  const missing = childJobIds.find((id) => !visible.has(id));
  if (missing !== undefined) throw unknownInField('childJobIds', 'job', missing);
  const cycle = await findChildJobCycle(ctx.deps.store.jobs, jobId, childJobIds);
  if (cycle !== null) {
    throw invalidField(
      'childJobIds',
      `childJobIds: job ${jobId} would trigger itself through its child jobs: ${cycle.join(' → ')}`,
    );
  }
  if (childJobIds.join(',').length > 255) {
    throw invalidField(
      'childJobIds',
      'childJobIds: the list is longer than the 255 characters it is stored in',
    );
  }
}

function checkRetryBackoff(backoff: RetryBackoff): void {
  if (backoff.strategy === 'EXPONENTIAL' && backoff.maxDelaySeconds < backoff.delaySeconds) {
    throw invalidField(
      'retryBackoff.maxDelaySeconds',
      `retryBackoff.maxDelaySeconds: must be at least delaySeconds (${backoff.delaySeconds})`,
    );
  }
}

/** @throws ApiError 400 naming `field` when `value` takes more than `maxBytes` in UTF-8. */
export function checkByteLength(field: string, value: string, maxBytes: number): void {
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > maxBytes)
    throw invalidField(field, `${field}: is ${bytes} bytes; at most ${maxBytes} are accepted`);
}

/**
 * The override addresses as the app knows them (online or listed). Anything else is refused,
 * so a trigger cannot make the server call an address of someone's choosing. A pull address
 * (`pull://<instance>/`) or a stream address (`stream://<instance>/`) is taken only as one of the
 * app's online executors.
 */
async function knownAddresses(ctx: ApiContext, appId: number, given: readonly string[]): Promise<string[]> {
  const app = await ctx.deps.store.apps.findAppById(appId);
  const online = (await onlineAddresses(ctx, app?.app_name ?? '')).map((row) => row.registry_value);
  const known = [...online, ...splitAddressList(app?.address_list ?? null)];
  return given.map((text, i) => {
    if (isPullAddress(text.trim()) || isStreamAddress(text.trim())) {
      const match = online.find((k) => sameAddress(k, text.trim()));
      if (match === undefined) {
        throw invalidField(
          'addressList',
          `addressList: ${text.trim()} is not an online executor of app ${app?.app_name ?? appId}`,
        );
      }
      return match;
    }
    const address = normaliseExecutorAddress(text, `addressList[${i}]`);
    const match = known.find((k) => sameAddress(k, address));
    if (match === undefined) {
      throw invalidField(
        'addressList',
        `addressList: ${address} is not an address of app ${app?.app_name ?? appId} (known: ${known.join(', ') || 'none'})`,
      );
    }
    return match;
  });
}

function withDefaults(body: Omit<NewJobBody, 'triggerStatus'>): JobFields {
  const d = JOB_FIELD_DEFAULTS;
  return {
    appId: body.appId,
    name: body.name,
    author: body.author ?? d.author,
    alarmEmail: body.alarmEmail ?? d.alarmEmail,
    alarmChannelIds: body.alarmChannelIds ?? [...d.alarmChannelIds],
    scheduleType: body.scheduleType ?? d.scheduleType,
    scheduleConf: body.scheduleConf ?? d.scheduleConf,
    timeZone: body.timeZone ?? d.timeZone,
    misfireStrategy: body.misfireStrategy ?? d.misfireStrategy,
    executorRouteStrategy: body.executorRouteStrategy ?? d.executorRouteStrategy,
    executorHandler: body.executorHandler ?? d.executorHandler,
    executorParam: body.executorParam ?? d.executorParam,
    executorBlockStrategy: body.executorBlockStrategy ?? d.executorBlockStrategy,
    executorTimeout: body.executorTimeout ?? d.executorTimeout,
    executorFailRetryCount: body.executorFailRetryCount ?? d.executorFailRetryCount,
    retryBackoff: body.retryBackoff ?? { ...d.retryBackoff },
    alarmOn: body.alarmOn ?? d.alarmOn,
    glueType: body.glueType ?? d.glueType,
    glueSource: body.glueSource ?? d.glueSource,
    glueRemark: body.glueRemark ?? d.glueRemark,
    childJobIds: body.childJobIds ?? [...d.childJobIds],
    origin: body.origin ?? null,
  };
}

function glueOf(fields: JobFields): GlueSave {
  return { glueType: fields.glueType, glueSource: fields.glueSource, glueRemark: fields.glueRemark };
}

function toColumns(fields: JobFields) {
  return {
    app_id: fields.appId,
    name: fields.name,
    author: fields.author,
    alarm_email: fields.alarmEmail,
    alarm_channel_ids: fields.alarmChannelIds.join(','),
    schedule_type: fields.scheduleType,
    schedule_conf: fields.scheduleConf,
    time_zone: fields.timeZone,
    misfire_strategy: fields.misfireStrategy,
    executor_route_strategy: fields.executorRouteStrategy,
    executor_handler: fields.executorHandler,
    executor_param: fields.executorParam,
    executor_block_strategy: fields.executorBlockStrategy,
    executor_timeout: fields.executorTimeout,
    executor_fail_retry_count: fields.executorFailRetryCount,
    retry_backoff_strategy: fields.retryBackoff.strategy,
    retry_delay_seconds: fields.retryBackoff.delaySeconds,
    retry_max_delay_seconds: fields.retryBackoff.maxDelaySeconds,
    alarm_on: fields.alarmOn,
    glue_type: fields.glueType,
    glue_source: fields.glueSource,
    glue_remark: fields.glueRemark,
    child_job_ids: fields.childJobIds.join(','),
    origin: fields.origin,
  };
}

function fieldsOf(row: JobRow): JobFields {
  const {
    id: _id,
    glueUpdatedAt: _glueUpdatedAt,
    triggerStatus: _triggerStatus,
    nextFireAt: _nextFireAt,
    createdAt: _createdAt,
    updatedAt: _updatedAt,
    ...fields
  } = toJob(row);
  return fields;
}

export function toJob(row: JobRow): Job {
  return {
    id: row.id,
    appId: row.app_id,
    name: row.name,
    author: row.author,
    alarmEmail: row.alarm_email,
    alarmChannelIds: splitIds(row.alarm_channel_ids),
    scheduleType: row.schedule_type,
    scheduleConf: row.schedule_conf,
    timeZone: row.time_zone,
    misfireStrategy: row.misfire_strategy,
    executorRouteStrategy: row.executor_route_strategy,
    executorHandler: row.executor_handler,
    executorParam: row.executor_param,
    executorBlockStrategy: row.executor_block_strategy,
    executorTimeout: row.executor_timeout,
    executorFailRetryCount: row.executor_fail_retry_count,
    retryBackoff: backoffOf(row),
    alarmOn: row.alarm_on,
    glueType: row.glue_type,
    glueSource: row.glue_source,
    glueRemark: row.glue_remark,
    glueUpdatedAt: row.glue_updated_at,
    childJobIds: splitIds(row.child_job_ids),
    origin: row.origin,
    triggerStatus: row.trigger_status,
    nextFireAt: row.next_fire_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function splitIds(stored: string): number[] {
  return stored
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
}
