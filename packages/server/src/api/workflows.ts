/**
 * Workflows: `listWorkflows`, `getWorkflow`, `createWorkflow`, `updateWorkflow`,
 * `deleteWorkflow`, `startWorkflow`, `stopWorkflow`, `triggerWorkflow`, and their runs:
 * `listWorkflowRuns`, `getWorkflowRun`, `stopWorkflowRun`, `retryWorkflowNode`,
 * `markWorkflowNode`. A workflow is checked as a whole before it is written (its app, schedule,
 * graph, the jobs and workflows its nodes name, decision expressions), with the same permission
 * rule as jobs: its app and every job it runs must be the author's.
 */
import {
  checkWorkflowGraph,
  validateSchedule,
  WORKFLOW_LIMITS,
  type WorkflowNode,
  type WorkflowNodeStatus,
  type WorkflowNodeType,
  type WorkflowRunStatus,
} from '@tickwheel/protocol';
import type { FastifyInstance } from 'fastify';
import type { WorkflowRow, WorkflowRunRow } from '../store/index.js';
import { decisionSyntaxError } from '../workflows/decision.js';
import { WorkflowConflict } from '../workflows/engine.js';
import type { Definition, RunState } from '../workflows/run-state.js';
import { checkAlarmChannelIds, checkJobAlarmEmail } from './alarm-channels.js';
import { recordAudit } from './audit-trail.js';
import { canAccessApp, type Principal } from './auth.js';
import { type ApiContext, appFilter, principalOf, requireVisible, SECURITY } from './context.js';
import { conflict, errorResponses, invalidField, notFound, unknownInField } from './errors.js';
import { checkByteLength } from './jobs.js';
import { firstFireAt } from './next-fire-at.js';
import { IdParams, LIMITS, Page } from './schemas.js';
import {
  MarkWorkflowNodeBody,
  NewWorkflowBody,
  TriggerWorkflowBody,
  TriggerWorkflowResult,
  Workflow,
  WorkflowNodeParams,
  WorkflowPatchBody,
  WorkflowQuery,
  WorkflowRun,
  WorkflowRunQuery,
  WorkflowRunSummary,
} from './workflow-schemas.js';

const TAGS = ['workflows'];

/** A workflow's editable fields, camelCase. */
type WorkflowFields = Omit<Workflow, 'id' | 'triggerStatus' | 'nextFireAt' | 'createdAt' | 'updatedAt'>;

export function registerWorkflows(api: FastifyInstance, ctx: ApiContext): void {
  const { store, clock } = ctx.deps;

  api.get<{ Querystring: WorkflowQuery }>(
    '/workflows',
    {
      schema: {
        operationId: 'listWorkflows',
        tags: TAGS,
        summary: 'List workflows, newest first',
        security: SECURITY,
        querystring: WorkflowQuery,
        response: { 200: Page(Workflow), ...errorResponses(400, 403) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const { appId, name, triggerStatus, limit = 50, offset = 0 } = request.query;
      const filter = {
        ...appFilter(principal, appId),
        ...(name ? { name } : {}),
        ...(triggerStatus === undefined ? {} : { triggerStatus: triggerStatus as 0 | 1 }),
      };
      const [rows, total] = await Promise.all([
        store.workflows.listWorkflows({ ...filter, limit, offset }),
        store.workflows.countWorkflows(filter),
      ]);
      return { items: rows.map(toWorkflow), total, limit, offset };
    },
  );

  api.get<{ Params: IdParams }>(
    '/workflows/:id',
    {
      schema: {
        operationId: 'getWorkflow',
        tags: TAGS,
        summary: 'One workflow, with its graph',
        security: SECURITY,
        params: IdParams,
        response: { 200: Workflow, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) =>
      toWorkflow(await findAccessibleWorkflow(ctx, principalOf(ctx, request), request.params.id)),
  );

  api.post<{ Body: NewWorkflowBody }>(
    '/workflows',
    {
      schema: {
        operationId: 'createWorkflow',
        tags: TAGS,
        summary: 'Create a workflow (stopped unless triggerStatus is 1)',
        security: SECURITY,
        body: NewWorkflowBody,
        response: { 201: Workflow, ...errorResponses(400, 403, 409, 413) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(ctx, request);
      const now = clock.now();
      const { triggerStatus = 0, ...given } = request.body;
      const fields = withDefaults(given);
      await checkWorkflow(ctx, principal, fields, { now, starting: triggerStatus === 1 });
      const row = await store.workflows.insertWorkflow({
        ...toColumns(fields),
        trigger_status: triggerStatus,
        next_fire_at: triggerStatus === 1 ? firstFireAt(fields, now) : null,
        created_at: now,
        updated_at: now,
      });
      await recordAudit(ctx, request, {
        action: 'CREATE',
        targetType: 'WORKFLOW',
        targetId: row.id,
        appId: row.app_id,
        detail: { name: row.name, nodes: fields.nodes.length },
      });
      reply.code(201);
      return toWorkflow(row);
    },
  );

  api.patch<{ Params: IdParams; Body: WorkflowPatchBody }>(
    '/workflows/:id',
    {
      schema: {
        operationId: 'updateWorkflow',
        tags: TAGS,
        summary:
          'Change a workflow; fields left out keep their value, nodes and edges are replaced whole. Runs under way keep the graph they started with.',
        security: SECURITY,
        params: IdParams,
        body: WorkflowPatchBody,
        response: { 200: Workflow, ...errorResponses(400, 403, 404, 409, 413) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const existing = await findAccessibleWorkflow(ctx, principal, request.params.id);
      const now = clock.now();
      const before = fieldsOf(existing);
      const fields: WorkflowFields = { ...before, ...request.body };
      const running = existing.trigger_status === 1;
      const scheduleChanged =
        fields.scheduleType !== before.scheduleType ||
        fields.scheduleConf !== before.scheduleConf ||
        fields.timeZone !== before.timeZone;
      await checkWorkflow(ctx, principal, fields, {
        now,
        starting: running && scheduleChanged,
        workflowId: existing.id,
        alarmEmailBefore: before.alarmEmail,
      });
      const patch = {
        ...toColumns(fields),
        updated_at: now,
        ...(running && scheduleChanged ? { next_fire_at: firstFireAt(fields, now) } : {}),
      };
      if (!(await updateUnique(ctx, existing.id, patch, fields.name)))
        throw notFound('workflow', existing.id);
      await recordAudit(ctx, request, {
        action: 'UPDATE',
        targetType: 'WORKFLOW',
        targetId: existing.id,
        appId: fields.appId,
        detail: { fields: Object.keys(request.body) },
      });
      return toWorkflow((await store.workflows.findWorkflowById(existing.id))!);
    },
  );

  api.delete<{ Params: IdParams }>(
    '/workflows/:id',
    {
      schema: {
        operationId: 'deleteWorkflow',
        tags: TAGS,
        summary: 'Delete a workflow (its runs and their fire records stay; runs under way finish)',
        security: SECURITY,
        params: IdParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const workflow = await findAccessibleWorkflow(ctx, principalOf(ctx, request), request.params.id);
      const nesting = await nestingWorkflows(ctx, workflow.id);
      if (nesting.length > 0) {
        throw conflict(
          `workflow ${workflow.id} is a step of ${nesting.map((row) => `workflow ${row.id} (${row.name})`).join(', ')}; remove it there first`,
        );
      }
      if (!(await store.workflows.deleteWorkflow(workflow.id))) throw notFound('workflow', workflow.id);
      await recordAudit(ctx, request, {
        action: 'DELETE',
        targetType: 'WORKFLOW',
        targetId: workflow.id,
        appId: workflow.app_id,
        detail: { name: workflow.name },
      });
      reply.code(204);
    },
  );

  api.post<{ Params: IdParams }>(
    '/workflows/:id/start',
    {
      schema: {
        operationId: 'startWorkflow',
        tags: TAGS,
        summary: "Start a workflow's schedule from its next fire time after now",
        security: SECURITY,
        params: IdParams,
        response: { 200: Workflow, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const workflow = await findAccessibleWorkflow(ctx, principalOf(ctx, request), request.params.id);
      const now = clock.now();
      const fields = fieldsOf(workflow);
      checkStartable(fields, now);
      await store.workflows.updateWorkflow(workflow.id, {
        trigger_status: 1,
        next_fire_at: firstFireAt(fields, now),
        updated_at: now,
      });
      await recordAudit(ctx, request, {
        action: 'START',
        targetType: 'WORKFLOW',
        targetId: workflow.id,
        appId: workflow.app_id,
      });
      return toWorkflow((await store.workflows.findWorkflowById(workflow.id))!);
    },
  );

  api.post<{ Params: IdParams }>(
    '/workflows/:id/stop',
    {
      schema: {
        operationId: 'stopWorkflow',
        tags: TAGS,
        summary: "Stop a workflow's schedule (it can still be triggered; runs under way go on)",
        security: SECURITY,
        params: IdParams,
        response: { 200: Workflow, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const workflow = await findAccessibleWorkflow(ctx, principalOf(ctx, request), request.params.id);
      await store.workflows.updateWorkflow(workflow.id, {
        trigger_status: 0,
        next_fire_at: null,
        updated_at: clock.now(),
      });
      await recordAudit(ctx, request, {
        action: 'STOP',
        targetType: 'WORKFLOW',
        targetId: workflow.id,
        appId: workflow.app_id,
      });
      return toWorkflow((await store.workflows.findWorkflowById(workflow.id))!);
    },
  );

  api.post<{ Params: IdParams; Body: TriggerWorkflowBody }>(
    '/workflows/:id/trigger',
    {
      schema: {
        operationId: 'triggerWorkflow',
        tags: TAGS,
        summary:
          'Start one run of a workflow now, optionally with a param every node sees (SERIAL: it waits behind a running run; DISCARD: it is skipped)',
        security: SECURITY,
        params: IdParams,
        body: TriggerWorkflowBody,
        response: { 200: TriggerWorkflowResult, ...errorResponses(400, 403, 404, 413) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const workflow = await findAccessibleWorkflow(ctx, principal, request.params.id);
      const { param } = request.body ?? {};
      if (param !== undefined) checkByteLength('param', param, WORKFLOW_LIMITS.paramBytes);
      const started = await ctx.deps.workflows.trigger(workflow, {
        triggerType: principal.via === 'bearer' ? 'API' : 'MANUAL',
        param: param ?? null,
      });
      if (started === null) throw notFound('workflow', workflow.id);
      await recordAudit(ctx, request, {
        action: 'TRIGGER',
        targetType: 'WORKFLOW',
        targetId: workflow.id,
        appId: workflow.app_id,
        detail: { runId: started.runId, status: started.status },
      });
      return started;
    },
  );

  api.get<{ Querystring: WorkflowRunQuery }>(
    '/workflow-runs',
    {
      schema: {
        operationId: 'listWorkflowRuns',
        tags: TAGS,
        summary: 'List workflow runs, newest first',
        security: SECURITY,
        querystring: WorkflowRunQuery,
        response: { 200: Page(WorkflowRunSummary), ...errorResponses(400, 403) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const { workflowId, appId, status, limit = 50, offset = 0 } = request.query;
      if (workflowId !== undefined) await findAccessibleWorkflow(ctx, principal, workflowId);
      const filter = {
        ...appFilter(principal, appId),
        ...(workflowId === undefined ? {} : { workflowId }),
        ...(status === undefined ? {} : { status }),
      };
      const [rows, total] = await Promise.all([
        store.workflows.listRuns({ ...filter, limit, offset }),
        store.workflows.countRuns(filter),
      ]);
      const names = await workflowNames(ctx, rows);
      return { items: rows.map((row) => toRunSummary(row, names)), total, limit, offset };
    },
  );

  api.get<{ Params: IdParams }>(
    '/workflow-runs/:id',
    {
      schema: {
        operationId: 'getWorkflowRun',
        tags: TAGS,
        summary: "One workflow run: each node's state and fire records, and the graph it runs",
        security: SECURITY,
        params: IdParams,
        response: { 200: WorkflowRun, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => toRun(ctx, await findAccessibleRun(ctx, principalOf(ctx, request), request.params.id)),
  );

  api.post<{ Params: IdParams }>(
    '/workflow-runs/:id/stop',
    {
      schema: {
        operationId: 'stopWorkflowRun',
        tags: TAGS,
        summary: 'Stop a run: its running nodes are killed, the nodes still waiting are marked stopped',
        security: SECURITY,
        params: IdParams,
        response: { 200: WorkflowRun, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const run = await findAccessibleRun(ctx, principal, request.params.id);
      const stopped = await lever(() => ctx.deps.workflows.stopRun(run.id, principal.username));
      await recordAudit(ctx, request, {
        action: 'STOP',
        targetType: 'WORKFLOW_RUN',
        targetId: run.id,
        appId: run.app_id,
        detail: { workflowId: run.workflow_id },
      });
      return toRun(ctx, stopped);
    },
  );

  api.post<{ Params: WorkflowNodeParams }>(
    '/workflow-runs/:id/nodes/:key/retry',
    {
      schema: {
        operationId: 'retryWorkflowNode',
        tags: TAGS,
        summary:
          'Run a failed (or stopped) node again; when it succeeds the run carries on from there (its successors skipped because of it get their turn)',
        security: SECURITY,
        params: WorkflowNodeParams,
        response: { 200: WorkflowRun, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const run = await findAccessibleRun(ctx, principal, request.params.id);
      const retried = await lever(() =>
        ctx.deps.workflows.retryNode(run.id, request.params.key, principal.username),
      );
      await recordAudit(ctx, request, {
        action: 'RETRY_NODE',
        targetType: 'WORKFLOW_RUN',
        targetId: run.id,
        appId: run.app_id,
        detail: { workflowId: run.workflow_id, node: request.params.key },
      });
      return toRun(ctx, retried);
    },
  );

  api.post<{ Params: WorkflowNodeParams; Body: MarkWorkflowNodeBody }>(
    '/workflow-runs/:id/nodes/:key/mark',
    {
      schema: {
        operationId: 'markWorkflowNode',
        tags: TAGS,
        summary: 'Mark a failed (or stopped) node succeeded or skipped, so the run goes on past it',
        security: SECURITY,
        params: WorkflowNodeParams,
        body: MarkWorkflowNodeBody,
        response: { 200: WorkflowRun, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const run = await findAccessibleRun(ctx, principal, request.params.id);
      const marked = await lever(() =>
        ctx.deps.workflows.markNode(run.id, request.params.key, request.body.status, principal.username),
      );
      await recordAudit(ctx, request, {
        action: 'MARK_NODE',
        targetType: 'WORKFLOW_RUN',
        targetId: run.id,
        appId: run.app_id,
        detail: { workflowId: run.workflow_id, node: request.params.key, status: request.body.status },
      });
      return toRun(ctx, marked);
    },
  );
}

/** An operator's lever, its refusal as a 409. */
async function lever<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof WorkflowConflict) throw conflict(err.message);
    throw err;
  }
}

async function findAccessibleWorkflow(
  ctx: ApiContext,
  principal: Principal,
  id: number,
): Promise<WorkflowRow> {
  const workflow = await ctx.deps.store.workflows.findWorkflowById(id);
  if (workflow === undefined) throw notFound('workflow', id);
  requireVisible(principal, workflow.app_id, 'workflow', id);
  return workflow;
}

async function findAccessibleRun(ctx: ApiContext, principal: Principal, id: number): Promise<WorkflowRunRow> {
  const run = await ctx.deps.store.workflows.findRunById(id);
  if (run === undefined) throw notFound('workflow run', id);
  requireVisible(principal, run.app_id, 'workflow run', id);
  return run;
}

interface CheckContext {
  now: number;
  /** The schedule must fire: the workflow is (or stays) scheduled with a new schedule. */
  starting: boolean;
  /** An update: the workflow's own id (its nodes must not nest it). */
  workflowId?: number;
  alarmEmailBefore?: string;
}

/** Checks a whole workflow before it is written; throws the first problem as a 400 naming the field. */
async function checkWorkflow(
  ctx: ApiContext,
  principal: Principal,
  fields: WorkflowFields,
  check: CheckContext,
): Promise<void> {
  const { store } = ctx.deps;
  const app = await store.apps.findAppById(fields.appId);
  if (app === undefined || !canAccessApp(principal, app.id)) {
    throw unknownInField('appId', 'app', fields.appId);
  }
  if (check.starting) checkStartable(fields, check.now);
  else validateSchedule(fields, check.now);
  const problem = checkWorkflowGraph(fields.nodes, fields.edges);
  if (problem !== null) throw invalidField(problem.field, `${problem.field}: ${problem.message}`);
  for (const [i, node] of fields.nodes.entries()) {
    if (node.param != null) checkByteLength(`nodes[${i}].param`, node.param, LIMITS.executorParamBytes);
    if (node.type === 'DECISION') {
      const error = decisionSyntaxError(node.expression ?? '');
      if (error !== null) throw invalidField(`nodes[${i}].expression`, `nodes[${i}].expression: ${error}`);
    }
  }
  await checkNodeTargets(ctx, principal, fields.nodes, check.workflowId);
  await checkAlarmChannelIds(store.alarmChannels, fields.alarmChannelIds);
  await checkJobAlarmEmail(store.alarmChannels, fields, check.alarmEmailBefore ?? '');
  if (fields.name !== undefined) {
    const same = await store.workflows.findWorkflowByName(fields.appId, fields.name);
    if (same !== undefined && same.id !== check.workflowId) {
      throw conflict(
        `app ${fields.appId} already has a workflow named '${fields.name}' (workflow ${same.id})`,
        'name',
      );
    }
  }
}

/**
 * The jobs and workflows the nodes name must exist in apps the caller may use (a node runs its
 * job with the author's say-so, as a child job does), and no nested workflow may lead back to
 * this one. Another app's job answers as a missing one.
 */
async function checkNodeTargets(
  ctx: ApiContext,
  principal: Principal,
  nodes: readonly WorkflowNode[],
  workflowId: number | undefined,
): Promise<void> {
  const { store } = ctx.deps;
  const jobIds = [...new Set(nodes.flatMap((node) => ((node.type ?? 'JOB') === 'JOB' ? [node.jobId!] : [])))];
  const jobs = await store.jobs.findJobsByIds(jobIds);
  const visibleJobs = new Set(jobs.filter((job) => canAccessApp(principal, job.app_id)).map((job) => job.id));
  for (const [i, node] of nodes.entries()) {
    const type = node.type ?? 'JOB';
    if (type === 'JOB' && !visibleJobs.has(node.jobId!)) {
      throw unknownInField(`nodes[${i}].jobId`, 'job', node.jobId!);
    }
    if (type !== 'WORKFLOW') continue;
    if (node.workflowId === workflowId) {
      throw invalidField(`nodes[${i}].workflowId`, `nodes[${i}].workflowId: a workflow cannot run itself`);
    }
    const nested = await store.workflows.findWorkflowById(node.workflowId!);
    if (nested === undefined || !canAccessApp(principal, nested.app_id)) {
      throw invalidField(
        `nodes[${i}].workflowId`,
        `nodes[${i}].workflowId: workflow ${node.workflowId} does not exist`,
      );
    }
    if (workflowId !== undefined) {
      const path = await nestingPath(ctx, nested, workflowId);
      if (path !== null) {
        throw invalidField(
          `nodes[${i}].workflowId`,
          `nodes[${i}].workflowId: workflow ${workflowId} would run itself: ${[workflowId, ...path].join(' → ')}`,
        );
      }
    }
  }
}

/** The ids from `from` down its nested workflows to `target`, or null when it never gets there. */
async function nestingPath(
  ctx: ApiContext,
  from: WorkflowRow,
  target: number,
  depth = 0,
): Promise<number[] | null> {
  if (depth > WORKFLOW_LIMITS.nestingDepth * 4) return null;
  const definition = JSON.parse(from.definition) as Definition;
  for (const node of definition.nodes) {
    if (node.type !== 'WORKFLOW' || node.workflowId === undefined) continue;
    if (node.workflowId === target) return [from.id, target];
    const next = await ctx.deps.store.workflows.findWorkflowById(node.workflowId);
    if (next === undefined) continue;
    const rest = await nestingPath(ctx, next, target, depth + 1);
    if (rest !== null) return [from.id, ...rest];
  }
  return null;
}

/** Workflows whose nodes run `workflowId` as a step. */
async function nestingWorkflows(ctx: ApiContext, workflowId: number): Promise<WorkflowRow[]> {
  const all = await ctx.deps.store.workflows.listWorkflows({ limit: 10_000 });
  return all.filter((row) =>
    (JSON.parse(row.definition) as Definition).nodes.some(
      (node) => node.type === 'WORKFLOW' && node.workflowId === workflowId,
    ),
  );
}

function checkStartable(
  fields: Pick<WorkflowFields, 'scheduleType' | 'scheduleConf' | 'timeZone'>,
  now: number,
): void {
  if (fields.scheduleType === 'NONE') {
    throw invalidField(
      'scheduleType',
      'scheduleType: a NONE workflow runs only when triggered; give it a schedule before starting it',
    );
  }
  validateSchedule(fields, now);
}

/** Writes an update, answering a name another workflow of the app took meanwhile as a 409. */
async function updateUnique(
  ctx: ApiContext,
  id: number,
  patch: Parameters<ApiContext['deps']['store']['workflows']['updateWorkflow']>[1],
  name: string,
): Promise<boolean> {
  try {
    return await ctx.deps.store.workflows.updateWorkflow(id, patch);
  } catch (err) {
    if (/unique|duplicate/i.test(String((err as Error).message))) {
      throw conflict(`the app already has a workflow named '${name}'`, 'name');
    }
    throw err;
  }
}

function withDefaults(body: Omit<NewWorkflowBody, 'triggerStatus'>): WorkflowFields {
  return {
    appId: body.appId,
    name: body.name,
    description: body.description ?? '',
    scheduleType: body.scheduleType ?? 'NONE',
    scheduleConf: body.scheduleConf ?? '',
    timeZone: body.timeZone ?? 'UTC',
    misfireStrategy: body.misfireStrategy ?? 'DO_NOTHING',
    concurrency: body.concurrency ?? 'PARALLEL',
    nodes: body.nodes,
    edges: body.edges,
    alarmEmail: body.alarmEmail ?? '',
    alarmChannelIds: body.alarmChannelIds ?? [],
    origin: body.origin ?? null,
  };
}

function toColumns(fields: WorkflowFields) {
  return {
    app_id: fields.appId,
    name: fields.name,
    description: fields.description,
    schedule_type: fields.scheduleType,
    schedule_conf: fields.scheduleConf,
    time_zone: fields.timeZone,
    misfire_strategy: fields.misfireStrategy,
    concurrency: fields.concurrency,
    definition: JSON.stringify({ nodes: fields.nodes, edges: fields.edges }),
    alarm_email: fields.alarmEmail,
    alarm_channel_ids: fields.alarmChannelIds.join(','),
    origin: fields.origin,
  };
}

function fieldsOf(row: WorkflowRow): WorkflowFields {
  const {
    id: _id,
    triggerStatus: _t,
    nextFireAt: _n,
    createdAt: _c,
    updatedAt: _u,
    ...fields
  } = toWorkflow(row);
  return fields;
}

export function toWorkflow(row: WorkflowRow): Workflow {
  const definition = JSON.parse(row.definition) as Definition;
  return {
    id: row.id,
    appId: row.app_id,
    name: row.name,
    description: row.description,
    scheduleType: row.schedule_type,
    scheduleConf: row.schedule_conf,
    timeZone: row.time_zone,
    misfireStrategy: row.misfire_strategy,
    concurrency: row.concurrency,
    nodes: definition.nodes,
    edges: definition.edges,
    alarmEmail: row.alarm_email,
    alarmChannelIds: row.alarm_channel_ids === '' ? [] : row.alarm_channel_ids.split(',').map(Number),
    origin: row.origin,
    triggerStatus: row.trigger_status,
    nextFireAt: row.next_fire_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

async function workflowNames(ctx: ApiContext, runs: readonly WorkflowRunRow[]): Promise<Map<number, string>> {
  const rows = await ctx.deps.store.workflows.findWorkflowsByIds([
    ...new Set(runs.map((run) => run.workflow_id)),
  ]);
  return new Map(rows.map((row) => [row.id, row.name]));
}

function toRunSummary(row: WorkflowRunRow, names: ReadonlyMap<number, string>): WorkflowRunSummary {
  return {
    id: row.id,
    workflowId: row.workflow_id,
    workflowName: names.get(row.workflow_id) ?? `#${row.workflow_id}`,
    appId: row.app_id,
    status: row.status as WorkflowRunStatus,
    triggerType: row.trigger_type,
    param: row.param,
    scheduledAt: row.scheduled_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    parentRunId: row.parent_run_id,
    parentNodeKey: row.parent_node_key,
  };
}

export async function toRun(ctx: ApiContext, row: WorkflowRunRow): Promise<WorkflowRun> {
  const definition = JSON.parse(row.definition) as Definition;
  const state = JSON.parse(row.state) as RunState;
  const fires = await ctx.deps.store.workflows.findRunFires(row.id);
  const names = await workflowNames(ctx, [row]);
  return {
    ...toRunSummary(row, names),
    definition,
    nodes: definition.nodes.map((node) => {
      const own = state.nodes[node.key] ?? {
        status: 'waiting' as WorkflowNodeStatus,
        startedAt: null,
        finishedAt: null,
      };
      return {
        key: node.key,
        type: (node.type ?? 'JOB') as WorkflowNodeType,
        status: own.status,
        fireIds: fires.filter((fire) => fire.workflow_node_key === node.key).map((fire) => Number(fire.id)),
        ...(own.output === undefined ? {} : { output: own.output }),
        ...(own.decision === undefined ? {} : { decision: own.decision }),
        childRunId: own.childRunId ?? null,
        startedAt: own.startedAt,
        finishedAt: own.finishedAt,
        message: own.message ?? null,
        markedBy: own.markedBy ?? null,
      };
    }),
  };
}
