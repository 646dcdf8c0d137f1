/**
 * The workflows of an export document applied to a server, after its apps and jobs: a workflow
 * is matched by (appName, name) and created when missing, updated (only the fields that differ;
 * nodes and edges together) when it differs, left alone when it does not. A workflow that nests
 * another comes after it, so the nested one has its id on this server when the node needs it.
 *
 * References are resolved to this server's ids: a JOB node's `job` to the job the import just
 * wrote or, failing that, the server's job of that app and name; a WORKFLOW node's `workflow`
 * likewise. A reference that resolves to nothing refuses the workflow, naming it and the node.
 * Alarm channels travel by name; one this server does not have is left out with a note. As with
 * jobs, an import never starts or stops a workflow's schedule.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  type ApiClient,
  type App,
  type Body,
  call,
  type Job,
  type Workflow,
  type WorkflowNode,
} from '../api-client.js';
import { CliFailure } from '../rest-command.js';
import {
  type ExportedWorkflow,
  type ExportedWorkflowNode,
  type JobRef,
  jobKey,
  type WorkflowRef,
} from './document.js';
import {
  listAll,
  listAllJobs,
  listAllWorkflows,
  type ServerCapabilities,
  workflowFields,
} from './server-state.js';

export type Outcome = 'created' | 'updated' | 'unchanged';

/** What importing the workflows needs of the import so far. */
export interface WorkflowImportContext {
  client: ApiClient;
  capabilities: ServerCapabilities;
  /** Every app by appName: the document's as imported, and the server's others. */
  apps: ReadonlyMap<string, App>;
  /** The document's jobs as they are on the server now, by `jobKey`. */
  jobs: ReadonlyMap<string, Job>;
  dryRun: boolean;
  /** Records one workflow's outcome, or why it was not imported. */
  done(workflow: ExportedWorkflow, outcome: Outcome | { failed: string }): void;
  note(text: string): void;
  /** Runs one write; a refusal is recorded as the workflow's failure (undefined) and the import goes on. */
  guard<T>(workflow: ExportedWorkflow, write: () => Promise<T>): Promise<T | undefined>;
}

/** Ids the dry run gives the workflows it would create: negative, never a server's. */
let plannedIds = 0;

export async function importWorkflows(
  docWorkflows: ExportedWorkflow[],
  ctx: WorkflowImportContext,
): Promise<void> {
  if (docWorkflows.length === 0) return;
  if (!ctx.capabilities.operations.has('createWorkflow')) {
    for (const workflow of docWorkflows) ctx.done(workflow, { failed: 'this server has no workflows' });
    return;
  }
  const appNameById = new Map([...ctx.apps.values()].map((app) => [app.id, app.appName]));
  const existing = new Map<string, Workflow[]>();
  for (const workflow of await listAllWorkflows(ctx.client)) {
    const key = jobKey({ appName: appNameById.get(workflow.appId) ?? '', name: workflow.name });
    existing.set(key, [...(existing.get(key) ?? []), workflow]);
  }
  const resolver = new RefResolver(ctx, existing);
  const fields = workflowFields(ctx.capabilities);
  const { ordered, cyclic } = nestingOrder(docWorkflows);
  for (const workflow of cyclic) {
    ctx.done(workflow, {
      failed: 'it nests itself through its WORKFLOW nodes (a workflow cannot run itself)',
    });
  }
  for (const workflow of ordered) {
    const applied = await ctx.guard(workflow, () =>
      applyWorkflow(workflow, existing.get(jobKey(workflow)) ?? [], fields, resolver, ctx),
    );
    if (applied === undefined) continue;
    resolver.imported.set(jobKey(workflow), applied.workflow);
    ctx.done(workflow, applied.outcome);
  }
}

async function applyWorkflow(
  doc: ExportedWorkflow,
  matches: Workflow[],
  fields: string[],
  resolver: RefResolver,
  ctx: WorkflowImportContext,
): Promise<{ workflow: Workflow; outcome: Outcome }> {
  const app = ctx.apps.get(doc.appName);
  if (app === undefined) throw new CliFailure('TW_ERR_INVALID_FIELD', `app ${doc.appName} does not exist`);
  if (matches.length > 1) {
    throw new CliFailure(
      'TW_ERR_CONFLICT',
      `${matches.length} workflows of app ${doc.appName} are named "${doc.name}" (ids ${matches.map((m) => m.id).join(', ')}); rename all but one`,
    );
  }
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    const value = doc[field];
    if (value !== undefined) body[field] = value;
  }
  body.nodes = await Promise.all(doc.nodes.map((node) => resolver.node(doc, node)));
  body.edges = doc.edges;
  if (doc.alarmChannels !== undefined) body.alarmChannelIds = await resolver.channels(doc);

  const [found] = matches;
  if (found === undefined) {
    const create = { ...body, appId: app.id, name: doc.name };
    if (ctx.dryRun)
      return { workflow: { ...create, id: --plannedIds } as unknown as Workflow, outcome: 'created' };
    // The fields are the server's (its OpenAPI document's), which may be newer than this CLI's types.
    const created = await call(
      ctx.client.POST('/api/v1/workflows', { body: create as Body<'createWorkflow'> }),
    );
    return { workflow: created, outcome: 'created' };
  }
  const current: Record<string, unknown> = found;
  const patch = Object.fromEntries(
    Object.entries(body).filter(
      ([field, value]) => !isDeepStrictEqual(comparable(field, current[field]), comparable(field, value)),
    ),
  );
  // The server checks edges against nodes: one changed, both go.
  if ('nodes' in patch || 'edges' in patch) Object.assign(patch, { nodes: body.nodes, edges: body.edges });
  if (Object.keys(patch).length === 0) return { workflow: found, outcome: 'unchanged' };
  if (ctx.dryRun) return { workflow: { ...found, ...patch } as Workflow, outcome: 'updated' };
  const updated = await call(
    ctx.client.PATCH('/api/v1/workflows/{id}', {
      params: { path: { id: found.id } },
      body: patch as Body<'updateWorkflow'>,
    }),
  );
  return { workflow: updated, outcome: 'updated' };
}

/**
 * A field's value as compared: nodes and edges without what is only a default spelled out (a
 * node's type JOB, an edge's condition SUCCESS, false flags, null fields), channel ids in order;
 * so a hand-written document that leaves defaults out is not "updated" at every import.
 */
function comparable(field: string, value: unknown): unknown {
  if (field === 'nodes' && Array.isArray(value))
    return value.map((node) => withoutDefaults(node, { type: 'JOB' }));
  if (field === 'edges' && Array.isArray(value))
    return value.map((edge) => withoutDefaults(edge, { condition: 'SUCCESS' }));
  if (field === 'alarmChannelIds' && Array.isArray(value)) return [...value].sort((a, b) => a - b);
  return value;
}

function withoutDefaults(
  item: Record<string, unknown>,
  defaults: Record<string, unknown>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(item).filter(
      ([key, value]) => value !== null && value !== undefined && value !== false && defaults[key] !== value,
    ),
  );
}

/**
 * The document's workflows with each after those it nests (of the document), and those caught
 * in a nesting cycle, which no order can create.
 */
function nestingOrder(workflows: ExportedWorkflow[]): {
  ordered: ExportedWorkflow[];
  cyclic: ExportedWorkflow[];
} {
  const byKey = new Map(workflows.map((workflow) => [jobKey(workflow), workflow]));
  const state = new Map<string, 'open' | 'done' | 'cyclic'>();
  const ordered: ExportedWorkflow[] = [];
  const cyclic: ExportedWorkflow[] = [];
  const visit = (workflow: ExportedWorkflow): boolean => {
    const key = jobKey(workflow);
    const seen = state.get(key);
    if (seen === 'done') return true;
    if (seen !== undefined) return false;
    state.set(key, 'open');
    let fine = true;
    for (const node of workflow.nodes) {
      const nested = node.workflow === undefined ? undefined : byKey.get(jobKey(node.workflow));
      if (nested !== undefined && !visit(nested)) fine = false;
    }
    state.set(key, fine ? 'done' : 'cyclic');
    (fine ? ordered : cyclic).push(workflow);
    return fine;
  };
  for (const workflow of workflows) visit(workflow);
  return { ordered, cyclic };
}

/** Turns the document's names into this server's ids, reading the server's jobs and channels once. */
class RefResolver {
  /** The document's workflows as written so far, by `jobKey`. */
  readonly imported = new Map<string, Workflow>();
  private readonly jobsByApp = new Map<string, Promise<Job[]>>();
  private channelIds: Promise<Map<string, number>> | undefined;

  constructor(
    private readonly ctx: WorkflowImportContext,
    private readonly existing: ReadonlyMap<string, Workflow[]>,
  ) {}

  /** The node as the REST API takes it: `job` and `workflow` become `jobId` and `workflowId`. */
  async node(workflow: ExportedWorkflow, node: ExportedWorkflowNode): Promise<WorkflowNode> {
    const { job, workflow: nested, jobId: _jobId, workflowId: _workflowId, ...rest } = node;
    // The document's other fields go as they are: a newer server's may be unknown to these types.
    const resolved = { ...rest, key: node.key } as WorkflowNode;
    const type = node.type ?? 'JOB';
    if (type === 'JOB') resolved.jobId = await this.jobId(workflow, node, job);
    if (type === 'WORKFLOW') resolved.workflowId = this.workflowId(workflow, node, nested);
    return resolved;
  }

  private async jobId(
    workflow: ExportedWorkflow,
    node: ExportedWorkflowNode,
    ref: JobRef | undefined,
  ): Promise<number> {
    if (ref === undefined)
      throw unresolved(workflow, node, 'names no job (it was not visible where it was exported)');
    const imported = this.ctx.jobs.get(jobKey(ref));
    if (imported !== undefined) return imported.id;
    const found = (await this.jobsOf(ref.appName)).filter((job) => job.name === ref.name);
    if (found.length === 1) return found[0]!.id;
    if (found.length > 1) throw unresolved(workflow, node, `${found.length} jobs are named ${label(ref)}`);
    throw unresolved(workflow, node, `job ${label(ref)} is neither in the file nor on the server`);
  }

  private workflowId(
    workflow: ExportedWorkflow,
    node: ExportedWorkflowNode,
    ref: WorkflowRef | undefined,
  ): number {
    if (ref === undefined)
      throw unresolved(workflow, node, 'names no workflow (it was not visible where it was exported)');
    const found = this.imported.get(jobKey(ref)) ?? this.existing.get(jobKey(ref))?.[0];
    if (found !== undefined) return found.id;
    throw unresolved(workflow, node, `workflow ${label(ref)} was not imported and is not on the server`);
  }

  private jobsOf(appName: string): Promise<Job[]> {
    let jobs = this.jobsByApp.get(appName);
    if (jobs === undefined) {
      const app = this.ctx.apps.get(appName);
      // A planned app (dry run) has no jobs yet.
      jobs = app === undefined || app.id < 0 ? Promise.resolve([]) : listAllJobs(this.ctx.client, app.id);
      this.jobsByApp.set(appName, jobs);
    }
    return jobs;
  }

  /** The ids of the workflow's alarm channels on this server; a name it lacks is noted and left out. */
  async channels(workflow: ExportedWorkflow): Promise<number[]> {
    const names = workflow.alarmChannels ?? [];
    if (names.length === 0) return [];
    this.channelIds ??= listAll((limit, offset) =>
      call(this.ctx.client.GET('/api/v1/alarm-channels', { params: { query: { limit, offset } } })),
    ).then((channels) => new Map(channels.map((channel) => [channel.name, channel.id])));
    const byName = await this.channelIds;
    const ids: number[] = [];
    for (const name of names) {
      const id = byName.get(name);
      if (id === undefined)
        this.ctx.note(`workflow ${label(workflow)}: alarm channel "${name}" does not exist here; left out`);
      else ids.push(id);
    }
    return ids;
  }
}

function unresolved(_workflow: ExportedWorkflow, node: ExportedWorkflowNode, reason: string): CliFailure {
  // Reported under the workflow's name (`! workflow billing/month-end: node "send": …`).
  return new CliFailure('TW_ERR_INVALID_FIELD', `node "${node.key}": ${reason}`);
}

function label(ref: JobRef): string {
  return `${ref.appName}/${ref.name}`;
}
