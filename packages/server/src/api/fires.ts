/**
 * Fire records (the log): `listFires`, `getFire`, `getFireLog`, `getFireKillScope`, `killFire`.
 * The log and the kill go only to the executor address recorded on the fire — never to an
 * address a caller gives.
 */
import type { ProtocolGeneration } from '@tickwheel/protocol';
import type { FastifyInstance } from 'fastify';
import { alarmStatusName } from '../alarms/alarm-status.js';
import type { ExecutorAddress } from '../dispatch/executor-client.js';
import type { RecordedRun } from '../dispatch/kill.js';
import { type FireRow, isFinalStatus } from '../store/index.js';
import { sameAddress } from './addresses.js';
import { recordAudit } from './audit-trail.js';
import type { Principal } from './auth.js';
import { type ApiContext, appFilter, principalOf, requireVisible, SECURITY } from './context.js';
import { ApiError, conflict, errorResponses, invalidField, notFound } from './errors.js';
import { Fire, FireKillScope, FireLog, FireQuery, IdParams, LogQuery, Page } from './schemas.js';

const TAGS = ['fires'];

export function registerFires(api: FastifyInstance, ctx: ApiContext): void {
  const { store, clock } = ctx.deps;

  api.get<{ Querystring: FireQuery }>(
    '/fires',
    {
      schema: {
        operationId: 'listFires',
        tags: TAGS,
        summary: 'List fire records, newest scheduled first, by app, job, status and scheduled time',
        security: SECURITY,
        querystring: FireQuery,
        response: { 200: Page(Fire), ...errorResponses(400, 403) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const { appId, jobId, status, from, to, limit = 50, offset = 0 } = request.query;
      if (from !== undefined && to !== undefined && to <= from) {
        throw invalidField('to', 'to: must be after from');
      }
      // A user's listing is limited to their apps: a jobId of another app finds nothing.
      const filter = {
        ...appFilter(principal, appId),
        ...(jobId === undefined ? {} : { jobId }),
        ...(status === undefined || status.length === 0 ? {} : { status }),
        ...(from === undefined ? {} : { from }),
        ...(to === undefined ? {} : { to }),
      };
      const [rows, total] = await Promise.all([
        store.fires.listFires({ ...filter, limit, offset }),
        store.fires.countFires(filter),
      ]);
      return { items: rows.map(toFire), total, limit, offset };
    },
  );

  api.get<{ Params: IdParams }>(
    '/fires/:id',
    {
      schema: {
        operationId: 'getFire',
        tags: TAGS,
        summary: 'One fire record',
        security: SECURITY,
        params: IdParams,
        response: { 200: Fire, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => toFire(await findAccessibleFire(ctx, principalOf(ctx, request), request.params.id)),
  );

  api.get<{ Params: IdParams; Querystring: LogQuery }>(
    '/fires/:id/log',
    {
      schema: {
        operationId: 'getFireLog',
        tags: TAGS,
        summary:
          "One page of the run's log from fromLineNum on (at most 2,000 lines and 1 MiB), read from the executor the fire was sent to",
        security: SECURITY,
        params: IdParams,
        querystring: LogQuery,
        response: { 200: FireLog, ...errorResponses(400, 403, 404, 409, 502) },
      },
    },
    async (request) => {
      const fire = await findAccessibleFire(ctx, principalOf(ctx, request), request.params.id);
      const run = await recordedRun(ctx, fire, 'has no log');
      const read = await ctx.deps.dispatcher.readLog(run, request.query.fromLineNum ?? 1);
      if (!read.ok || read.result === null) {
        throw new ApiError(
          'TW_ERR_EXECUTOR_CALL_FAILED',
          `reading the log from ${fire.executor_address} failed: ${read.msg ?? 'no answer'}`,
        );
      }
      const { fromLineNum, toLineNum, logContent } = read.result;
      // The executor's isEnd only says its file had nothing more (or no file yet, as just before a
      // run's first line): the log is over once the fire had finished before this read and the read
      // brought nothing new. A page cut to the page limits has more behind it.
      const nothingNew = (logContent ?? '') === '' || toLineNum < fromLineNum;
      const isEnd = isFinalStatus(fire.status) && !read.more && (read.result.isEnd || nothingNew);
      return { fromLineNum, toLineNum, logContent: logContent ?? '', isEnd };
    },
  );

  api.get<{ Params: IdParams }>(
    '/fires/:id/kill-scope',
    {
      schema: {
        operationId: 'getFireKillScope',
        tags: TAGS,
        summary:
          "What killFire would stop, asked of the fire's executor now: the run alone (a Tickwheel executor), or every run of the job on that executor (an XXL-JOB executor)",
        security: SECURITY,
        params: IdParams,
        response: { 200: FireKillScope, ...errorResponses(400, 403, 404, 409, 502) },
      },
    },
    async (request) => {
      const fire = await findAccessibleFire(ctx, principalOf(ctx, request), request.params.id);
      requireKillable(fire);
      const run = await recordedRun(ctx, fire, 'has nothing to kill');
      const answer = await ctx.deps.dispatcher.killScope(run);
      if (!answer.ok) {
        throw new ApiError(
          'TW_ERR_EXECUTOR_CALL_FAILED',
          `the executor at ${fire.executor_address} did not answer: ${answer.msg}`,
        );
      }
      return { scope: answer.scope, executorAddress: fire.executor_address ?? '', jobId: fire.job_id };
    },
  );

  api.post<{ Params: IdParams }>(
    '/fires/:id/kill',
    {
      schema: {
        operationId: 'killFire',
        tags: TAGS,
        summary:
          "Stop the fire's run on the executor it was sent to, and record it killed. A Tickwheel executor stops that run alone; an XXL-JOB executor stops the job's running run and drops its queued runs too, each recorded killed when the executor reports it (see getFireKillScope)",
        security: SECURITY,
        params: IdParams,
        response: { 200: Fire, ...errorResponses(400, 403, 404, 409, 502) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const fire = await findAccessibleFire(ctx, principal, request.params.id);
      requireKillable(fire);
      const run = await recordedRun(ctx, fire, 'has nothing to kill');
      const outcome = await ctx.deps.dispatcher.kill(run);
      if (!outcome.ok) {
        throw new ApiError(
          'TW_ERR_EXECUTOR_CALL_FAILED',
          `the executor at ${fire.executor_address} did not kill the run: ${outcome.msg ?? 'no answer'}`,
        );
      }
      await ctx.deps.finishFires([
        {
          fireId: fire.id,
          handleCode: 500,
          handleMsg: `killed by ${principal.username} through the API`,
          handleAt: clock.now(),
          status: 'killed',
        },
      ]);
      await recordAudit(ctx, request, {
        action: 'KILL',
        targetType: 'FIRE',
        targetId: fire.id,
        appId: fire.app_id,
        detail: { jobId: fire.job_id, scope: outcome.scope ?? 'job' },
      });
      return toFire((await store.fires.findFireById(fire.id)) ?? fire);
    },
  );
}

/** Only a dispatched run (or one whose dispatch outcome is unknown) is on an executor to be killed. */
function requireKillable(fire: FireRow): void {
  if (isFinalStatus(fire.status)) throw conflict(`fire ${fire.id} has already finished (${fire.status})`);
  // A pending record with an address passed the send fence: its run may be on that executor.
  if (fire.status === 'pending' && (fire.sent_to ?? null) === null) {
    throw conflict(`fire ${fire.id} has not been dispatched yet; stop the job to keep it from running`);
  }
}

async function findAccessibleFire(ctx: ApiContext, principal: Principal, id: number): Promise<FireRow> {
  const fire = await ctx.deps.store.fires.findFireById(id);
  if (fire === undefined) throw notFound('fire', id);
  requireVisible(principal, fire.app_id, 'fire', id);
  return fire;
}

/**
 * Where the fire's run went, from the record alone: its address, the generation that executor
 * registered with (G2 when it is no longer registered, which every generation understands for
 * `log` and `kill`), and its app's name.
 */
async function recordedRun(ctx: ApiContext, fire: FireRow, nothing: string): Promise<RecordedRun> {
  // A pending record the send fence admitted has its executor in `sent_to` until it is marked.
  const address = fire.executor_address ?? fire.sent_to ?? null;
  if (address === null) {
    throw conflict(`fire ${fire.id} was not delivered to any executor; it ${nothing}`);
  }
  const app = await ctx.deps.store.apps.findAppById(fire.app_id);
  const appName = app?.app_name ?? '';
  const entries = appName === '' ? [] : await ctx.deps.store.registry.listAlive(0, appName);
  const entry = entries.find((row) => sameAddress(row.registry_value, address));
  const executor: ExecutorAddress = {
    address,
    protocol: (entry?.protocol ?? 'G2') as ProtocolGeneration,
    appName,
  };
  return { fireId: fire.id, jobId: fire.job_id, logDateTime: fire.scheduled_at, executor };
}

export function toFire(row: FireRow): Fire {
  return {
    id: row.id,
    jobId: row.job_id,
    appId: row.app_id,
    parentFireId: row.parent_fire_id,
    scheduledAt: row.scheduled_at,
    triggerAt: row.trigger_at,
    triggerType: row.trigger_type,
    executorAddress: row.executor_address,
    executorHandler: row.executor_handler,
    executorParam: row.executor_param,
    shardIndex: row.shard_index,
    shardTotal: row.shard_total,
    triggerCode: row.trigger_code,
    triggerMsg: row.trigger_msg,
    handleAt: row.handle_at,
    handleCode: row.handle_code,
    handleMsg: row.handle_msg,
    status: row.status,
    retryCount: row.retry_count,
    // 0 marks a failure decided without a retry (store/retries.ts): no record to point at.
    retryFireId: row.retry_fire_id ? row.retry_fire_id : null,
    triggeredByFireId: row.triggered_by_fire_id ?? null,
    alarmStatus: alarmStatusName(row.alarm_status),
    alarmMsg: row.alarm_msg ?? null,
    workflowRunId: row.workflow_run_id ?? null,
    workflowNodeKey: row.workflow_node_key ?? null,
    ...outputOf(row.output),
  };
}

/** The stored output, parsed (left out when the record has none). */
function outputOf(text: string | null | undefined): { output?: unknown } {
  if (text === null || text === undefined) return {};
  try {
    return { output: JSON.parse(text) };
  } catch {
    return { output: text };
  }
}
