/**
 * The workflow engine: starts runs, moves them on when their nodes end, and carries out an
 * operator's levers (stop a run, retry a node, mark a node).
 *
 * Every change of a run is one step: read the run and its nodes' fire records, compute the next
 * state (run-state.ts), write it with a compare-and-set of the run's version together with the
 * fire records and nested runs of the nodes it starts (store/workflows.ts `commitRun`), then hand
 * the new records to the fire pipeline. A step computed from a stale read writes nothing and is
 * computed again, so two server nodes that see two siblings end at the same moment, or one
 * callback delivered twice, advance the run once. A node that dies after the commit leaves
 * pending records (the planner's recovery sends them) and a run the sweep (monitor.ts) moves on.
 *
 * What triggers a step: the result hook after records finish (`afterRuns`), the end of a nested
 * run (its parent's step), the sweep, and the levers.
 */
import {
  fillWorkflowParam,
  WORKFLOW_LIMITS,
  type WorkflowNode,
  type WorkflowRunStatus,
  type WorkflowTriggerType,
} from '@tickwheel/protocol';
import type { Logger } from 'pino';
import type { FirePipeline } from '../dispatch/fire-pipeline.js';
import type { InFlightFires } from '../scheduling/in-flight.js';
import type {
  FinishedFire,
  FireRow,
  JobRow,
  NewFire,
  NewWorkflowRun,
  StartedRun,
  Store,
  WorkflowFire,
  WorkflowRow,
  WorkflowRunRow,
} from '../store/index.js';
import {
  type Definition,
  initialState,
  isEnded,
  type NodeOutcome,
  type NodeState,
  outputsOf,
  progress,
  type RunState,
  reopenAfter,
  upstreamOf,
} from './run-state.js';

export interface WorkflowEngineOptions {
  store: Pick<Store, 'workflows' | 'fires' | 'jobs'>;
  pipeline: Pick<FirePipeline, 'dispatchCreated'>;
  /** Each node record goes in as soon as it exists, so a recovery of its shard leaves it to this dispatch. */
  inFlight: Pick<InFlightFires, 'add'>;
  clock: { now(): number };
  logger: Pick<Logger, 'error' | 'warn' | 'info' | 'debug'>;
  /** Stops a node's run: kills it on its executor when it was sent, and records it killed. */
  stopFire(fire: FireRow, message: string): Promise<void>;
  /** Sends the alarm of a failed run through the workflow's channels (called once per run). */
  alarmRunFailed?(workflow: WorkflowRow, run: WorkflowRunRow, reason: string): void;
}

/** What a trigger asks: a run now (or for a scheduled time), with a param every node sees. */
export interface RunRequest {
  triggerType: WorkflowTriggerType;
  param?: string | null;
  /** The fire time a scheduled run is for (default now). */
  scheduledAt?: number;
  /** A scheduled run: compare-and-set of the workflow's `next_fire_at`. */
  schedule?: { expected: number; next: number | null };
}

/** An operator's lever refused: the run or node is not in a state it applies to. */
export class WorkflowConflict extends Error {}

/** Steps of one run computed again after losing a compare-and-set, before giving up to the sweep. */
const MAX_ATTEMPTS = 20;

const RETRY_PENDING: ReadonlySet<string> = new Set(['failed', 'timeout', 'dispatch_failed']);

type Lever = (state: RunState, run: WorkflowRunRow, definition: Definition) => WorkflowRunStatus;

export class WorkflowEngine {
  private readonly options: WorkflowEngineOptions;
  /** Steps of one run in this process run one after another (the compare-and-set covers other processes). */
  private readonly queues = new Map<number, Promise<unknown>>();

  constructor(options: WorkflowEngineOptions) {
    this.options = options;
  }

  /** Starts a run of `workflow`; null when a scheduled run lost its compare-and-set to another node. */
  async trigger(workflow: WorkflowRow, request: RunRequest): Promise<StartedRun | null> {
    const now = this.options.clock.now();
    const run: NewWorkflowRun = {
      ...this.newRun(workflow, request.param ?? null, now),
      trigger_type: request.triggerType,
      scheduled_at: request.scheduledAt ?? now,
    };
    const started = await this.options.store.workflows.startRun({
      workflowId: workflow.id,
      concurrency: workflow.concurrency,
      run,
      ...(request.schedule === undefined ? {} : { schedule: request.schedule }),
    });
    if (started?.status === 'running') await this.advance(started.runId);
    return started;
  }

  /**
   * Moves the runs of `finished` records on (the result hook). Returns at once: the steps go on
   * in the background (`idle` waits for them), so the next batch of results is not held up by
   * them; a step a crash cuts short is the sweep's. Never rejects.
   */
  afterRuns(finished: readonly FinishedFire[]): void {
    const runIds = new Set<number>();
    for (const fire of finished) if (fire.workflowRunId !== null) runIds.add(fire.workflowRunId);
    for (const runId of runIds) void this.advance(runId);
  }

  /** One step of a run (and of what its end moves on). Never rejects: the sweep tries again. */
  advance(runId: number): Promise<void> {
    return this.serial(runId, () => this.step(runId)).catch((err: unknown) => {
      this.options.logger.error({ err, runId }, 'could not move a workflow run on; the sweep will');
    });
  }

  /** Stops a run: nothing more starts, waiting nodes are stopped, running ones killed. */
  async stopRun(runId: number, by: string): Promise<WorkflowRunRow> {
    const run = await this.lever(runId, (state, current) => {
      if (current.status !== 'running' && current.status !== 'waiting') {
        throw new WorkflowConflict(`workflow run ${runId} has already ended (${current.status})`);
      }
      for (const node of Object.values(state.nodes)) {
        if (node.status === 'waiting') {
          node.status = 'stopped';
          node.message = `stopped by ${by}`;
        }
      }
      return 'stopped';
    });
    const state = JSON.parse(run.state) as RunState;
    const fires = await this.options.store.workflows.findRunFires(runId);
    const byId = new Map(fires.map((fire) => [fire.id, fire]));
    await Promise.all(
      Object.entries(state.nodes).map(async ([key, node]) => {
        if (node.status !== 'running') return;
        try {
          if (node.childRunId !== undefined) {
            await this.stopRun(node.childRunId, by).catch((err: unknown) => {
              if (!(err instanceof WorkflowConflict)) throw err;
            });
          } else if (node.fireId !== undefined) {
            const last = latestAttempt(node.fireId, byId);
            if (last !== undefined && !isFinal(last.status)) {
              const row = await this.options.store.fires.findFireById(last.id);
              if (row !== undefined)
                await this.options.stopFire(row, `stopped with workflow run ${runId} by ${by}`);
            }
          }
        } catch (err) {
          this.options.logger.warn(
            { err, runId, node: key },
            'could not stop a node of a stopped workflow run',
          );
        }
      }),
    );
    await this.advance(runId);
    return (await this.options.store.workflows.findRunById(runId)) ?? run;
  }

  /** Runs a failed (or stopped) node again; its successors skipped because of it get their turn again. */
  retryNode(runId: number, key: string, by: string): Promise<WorkflowRunRow> {
    return this.lever(runId, (state, run, definition) => {
      const node = state.nodes[key];
      if (node === undefined) throw new WorkflowConflict(`workflow run ${runId} has no node '${key}'`);
      if (node.status !== 'failed' && node.status !== 'stopped') {
        throw new WorkflowConflict(
          `node '${key}' of workflow run ${runId} is ${node.status}; only a failed or stopped node is retried`,
        );
      }
      if (run.status === 'waiting') throw new WorkflowConflict(`workflow run ${runId} has not started`);
      state.nodes[key] = {
        status: 'waiting',
        startedAt: null,
        finishedAt: null,
        message: `retried by ${by}`,
      };
      reopenAfter(definition, state.nodes, key);
      reopenStopped(state);
      return 'running';
    });
  }

  /** Marks a failed node succeeded or skipped so the run goes on (audited by the caller). */
  markNode(runId: number, key: string, status: 'succeeded' | 'skipped', by: string): Promise<WorkflowRunRow> {
    return this.lever(runId, (state, run, definition) => {
      const node = state.nodes[key];
      if (node === undefined) throw new WorkflowConflict(`workflow run ${runId} has no node '${key}'`);
      if (node.status !== 'failed' && node.status !== 'stopped') {
        throw new WorkflowConflict(
          `node '${key}' of workflow run ${runId} is ${node.status}; only a failed or stopped node is marked`,
        );
      }
      if (run.status === 'waiting') throw new WorkflowConflict(`workflow run ${runId} has not started`);
      state.nodes[key] = { ...node, status, markedBy: by, message: `marked ${status} by ${by}` };
      reopenAfter(definition, state.nodes, key);
      reopenStopped(state);
      return 'running';
    });
  }

  /** Resolves once every step under way in this process has ended (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.queues.size > 0) await Promise.allSettled([...this.queues.values()]);
  }

  private newRun(
    workflow: WorkflowRow,
    param: string | null,
    now: number,
  ): Omit<NewWorkflowRun, 'trigger_type' | 'scheduled_at'> {
    const definition = JSON.parse(workflow.definition) as Definition;
    return {
      workflow_id: workflow.id,
      app_id: workflow.app_id,
      param,
      started_at: null,
      finished_at: null,
      parent_run_id: null,
      parent_node_key: null,
      definition: workflow.definition,
      state: JSON.stringify(initialState(definition)),
      created_at: now,
      updated_at: now,
    };
  }

  private serial<T>(runId: number, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(runId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(runId, settled);
    void settled.then(() => {
      if (this.queues.get(runId) === settled) this.queues.delete(runId);
    });
    return next;
  }

  /** Applies an operator's change to a run's state, then steps it, in one write. */
  private lever(runId: number, change: Lever): Promise<WorkflowRunRow> {
    return this.serial(runId, async () => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const run = await this.options.store.workflows.findRunById(runId);
        if (run === undefined) throw new WorkflowConflict(`workflow run ${runId} not found`);
        const definition = JSON.parse(run.definition) as Definition;
        const state = JSON.parse(run.state) as RunState;
        const status = change(state, run, definition);
        const written = await this.write(run, definition, state, status, new Map(), true);
        if (written) return (await this.options.store.workflows.findRunById(runId))!;
      }
      throw new Error(`workflow run ${runId} kept changing; try again`);
    });
  }

  private async step(runId: number): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const run = await this.options.store.workflows.findRunById(runId);
      if (run === undefined || run.finished_at !== null) return;
      if (run.status !== 'running' && run.status !== 'stopped') return;
      const definition = JSON.parse(run.definition) as Definition;
      const state = JSON.parse(run.state) as RunState;
      const outcomes = await this.outcomesOf(run, state);
      if (await this.write(run, definition, state, run.status as WorkflowRunStatus, outcomes, false)) return;
    }
    this.options.logger.warn(
      { runId },
      'a workflow run kept changing under this node; the sweep moves it on',
    );
  }

  /**
   * Computes the step from `state` (already changed by a lever, when `force`) and writes it.
   * Returns false when the run's version moved on meanwhile.
   */
  private async write(
    run: WorkflowRunRow,
    definition: Definition,
    state: RunState,
    status: WorkflowRunStatus,
    outcomes: ReadonlyMap<string, NodeOutcome>,
    force: boolean,
  ): Promise<boolean> {
    const { store, clock } = this.options;
    const now = clock.now();
    let result = progress({
      definition,
      state,
      runStatus: status,
      run: { id: run.id, param: run.param },
      outcomes,
      now,
    });
    // Nodes whose job or workflow is gone fail at once; the step is computed again past them.
    let prepared = await this.prepareStarts(run, definition, result.state, result.start);
    while (prepared.missing.size > 0) {
      for (const [key, message] of prepared.missing) {
        result.state.nodes[key] = { ...result.state.nodes[key]!, status: 'failed', finishedAt: now, message };
      }
      const again = progress({
        definition,
        state: result.state,
        runStatus: result.runStatus,
        run: { id: run.id, param: run.param },
        outcomes: new Map(),
        now,
      });
      const kept = result.start.filter((node) => !prepared.missing.has(node.key));
      result = { ...again, start: [...kept, ...again.start], changed: true };
      prepared = await this.prepareStarts(run, definition, result.state, result.start);
    }
    if (!result.changed && !force) return true;
    const ended =
      result.runStatus !== 'running' && result.runStatus !== 'waiting' && !hasRunning(result.state);
    const workflow =
      ended && result.runStatus === 'failed'
        ? await store.workflows.findWorkflowById(run.workflow_id)
        : undefined;
    const owesAlarm = workflow !== undefined && namesTargets(workflow);
    const committed = await store.workflows.commitRun(
      {
        runId: run.id,
        version: run.version,
        fires: prepared.fires.map((entry) => entry.fire),
        runs: prepared.runs.map((entry) => entry.run),
        columns: ({ fireIds, runIds }) => {
          prepared.fires.forEach((entry, i) => {
            result.state.nodes[entry.key]!.fireId = fireIds[i]!;
          });
          prepared.runs.forEach((entry, i) => {
            result.state.nodes[entry.key]!.childRunId = runIds[i]!;
          });
          return {
            status: result.runStatus,
            state: JSON.stringify(result.state),
            ...(run.started_at === null && result.runStatus === 'running' ? { started_at: now } : {}),
            finished_at: ended ? now : null,
            ...(owesAlarm ? { alarm_status: 1 } : {}),
          };
        },
      },
      now,
    );
    if (!committed) return false;
    await this.afterCommit(run, result.state, prepared, ended ? result.runStatus : null, workflow);
    return true;
  }

  /** What the nodes becoming running need: a fire record per JOB node, a nested run per WORKFLOW node. */
  private async prepareStarts(
    run: WorkflowRunRow,
    definition: Definition,
    state: RunState,
    start: readonly WorkflowNode[],
  ): Promise<{
    fires: { key: string; fire: NewFire }[];
    runs: { key: string; run: NewWorkflowRun }[];
    missing: Map<string, string>;
  }> {
    const { store, clock } = this.options;
    const now = clock.now();
    const fires: { key: string; fire: NewFire }[] = [];
    const runs: { key: string; run: NewWorkflowRun }[] = [];
    const missing = new Map<string, string>();
    const jobIds = start.flatMap((node) => ((node.type ?? 'JOB') === 'JOB' ? [node.jobId!] : []));
    const jobs = new Map<number, JobRow>(
      (await store.jobs.findJobsByIds([...new Set(jobIds)])).map((job) => [job.id, job]),
    );
    const outputs = outputsOf(state.nodes);
    for (const node of start) {
      if ((node.type ?? 'JOB') === 'WORKFLOW') {
        const child = await store.workflows.findWorkflowById(node.workflowId!);
        if (child === undefined) {
          missing.set(node.key, `workflow ${node.workflowId} no longer exists`);
          continue;
        }
        if ((await this.depthOf(run)) + 1 >= WORKFLOW_LIMITS.nestingDepth) {
          missing.set(node.key, `nested deeper than ${WORKFLOW_LIMITS.nestingDepth} workflows`);
          continue;
        }
        const param = node.param == null ? run.param : fillWorkflowParam(node.param, run, outputs);
        runs.push({
          key: node.key,
          run: {
            ...this.newRun(child, param, now),
            status: 'running',
            started_at: now,
            trigger_type: 'PARENT',
            scheduled_at: now,
            parent_run_id: run.id,
            parent_node_key: node.key,
          },
        });
        continue;
      }
      const job = jobs.get(node.jobId!);
      if (job === undefined) {
        missing.set(node.key, `job ${node.jobId} no longer exists`);
        continue;
      }
      const template = node.param ?? job.executor_param;
      const context = {
        runId: run.id,
        nodeKey: node.key,
        param: run.param,
        upstream: upstreamOf(node.key, definition, state.nodes),
        ...(node.timeoutSeconds == null ? {} : { timeoutSeconds: node.timeoutSeconds }),
      };
      fires.push({
        key: node.key,
        fire: {
          jobId: job.id,
          appId: job.app_id,
          scheduledAt: now,
          triggerType: 'WORKFLOW',
          executorHandler: job.executor_handler,
          executorParam: fillWorkflowParam(template, run, outputs),
          retryCount: node.retryCount ?? job.executor_fail_retry_count,
          workflow: { runId: run.id, nodeKey: node.key, context: JSON.stringify(context) },
        },
      });
    }
    return { fires, runs, missing };
  }

  private async depthOf(run: WorkflowRunRow): Promise<number> {
    let depth = 0;
    let parent = run.parent_run_id;
    while (parent !== null && depth < WORKFLOW_LIMITS.nestingDepth) {
      depth++;
      parent = (await this.options.store.workflows.findRunById(parent))?.parent_run_id ?? null;
    }
    return depth;
  }

  private async afterCommit(
    run: WorkflowRunRow,
    state: RunState,
    prepared: { fires: { key: string }[]; runs: { key: string }[] },
    ended: WorkflowRunStatus | null,
    workflow: WorkflowRow | undefined,
  ): Promise<void> {
    const { store, pipeline, inFlight, logger } = this.options;
    const fireIds = prepared.fires.map((entry) => state.nodes[entry.key]!.fireId!);
    if (fireIds.length > 0) {
      inFlight.add(fireIds);
      for (const record of await store.fires.findFiresByIds(fireIds)) void pipeline.dispatchCreated(record);
    }
    for (const entry of prepared.runs) void this.advance(state.nodes[entry.key]!.childRunId!);
    if (ended === null) return;
    logger.info({ runId: run.id, workflowId: run.workflow_id, status: ended }, 'workflow run ended');
    if (run.parent_run_id !== null) void this.advance(run.parent_run_id);
    else void this.promote(run.workflow_id);
    if (ended === 'failed' && workflow !== undefined && namesTargets(workflow)) void this.sendAlarm(run.id);
  }

  /** Starts the next waiting run of a SERIAL workflow. */
  async promote(workflowId: number): Promise<void> {
    try {
      const next = await this.options.store.workflows.promoteWaiting(workflowId, this.options.clock.now());
      if (next !== null) await this.advance(next);
    } catch (err) {
      this.options.logger.error(
        { err, workflowId },
        'could not start the next waiting workflow run; the sweep will',
      );
    }
  }

  /** Sends a failed run's owed alarm, once (compare-and-set of its alarm status). */
  async sendAlarm(runId: number): Promise<void> {
    const { store, logger } = this.options;
    try {
      if (!(await store.workflows.takeRunAlarm(runId))) return;
      const run = (await store.workflows.findRunById(runId))!;
      const workflow = await store.workflows.findWorkflowById(run.workflow_id);
      if (workflow === undefined) return;
      this.options.alarmRunFailed?.(workflow, run, describeFailedRun(run));
    } catch (err) {
      logger.error({ err, runId }, 'could not send the alarm of a failed workflow run');
    }
  }

  /** The end of each running node that ended: from its latest fire record, or its nested run. */
  private async outcomesOf(run: WorkflowRunRow, state: RunState): Promise<Map<string, NodeOutcome>> {
    const outcomes = new Map<string, NodeOutcome>();
    const running = Object.entries(state.nodes).filter(([, node]) => node.status === 'running');
    if (running.length === 0) return outcomes;
    const fires = running.some(([, node]) => node.fireId !== undefined)
      ? await this.options.store.workflows.findRunFires(run.id)
      : [];
    const byId = new Map(fires.map((fire) => [Number(fire.id), fire]));
    for (const [key, node] of running) {
      const outcome = node.childRunId !== undefined ? await this.childOutcome(node) : fireOutcome(node, byId);
      if (outcome !== undefined) outcomes.set(key, outcome);
    }
    return outcomes;
  }

  private async childOutcome(node: NodeState): Promise<NodeOutcome | undefined> {
    const child = await this.options.store.workflows.findRunById(node.childRunId!);
    if (child === undefined)
      return { status: 'failed', message: `nested run ${node.childRunId} no longer exists` };
    if (child.finished_at === null) return undefined;
    const childState = JSON.parse(child.state) as RunState;
    const output = outputsOf(childState.nodes);
    if (child.status === 'succeeded') return { status: 'succeeded', output };
    return {
      status: child.status === 'stopped' ? 'stopped' : 'failed',
      output,
      message: `nested workflow run ${child.id} ${child.status}`,
    };
  }
}

/** The last attempt of a node: its record, or the retry at the end of the chain hanging off it. */
function latestAttempt(fireId: number, byId: ReadonlyMap<number, WorkflowFire>): WorkflowFire | undefined {
  let fire = byId.get(fireId);
  for (let hops = 0; fire?.retry_fire_id && hops < 1000; hops++) {
    const next = byId.get(Number(fire.retry_fire_id));
    if (next === undefined) break;
    fire = next;
  }
  return fire;
}

/** A record's status after which its node's attempt is over (dispatch_failed: unless a retry comes). */
const FINAL: ReadonlySet<string> = new Set([
  'succeeded',
  'failed',
  'timeout',
  'dispatch_failed',
  'killed',
  'skipped',
]);

function isFinal(status: string): boolean {
  return FINAL.has(status);
}

/**
 * A JOB node's end from its records: succeeded, or failed once no retry is to come (the record
 * has none left, or its failure was decided without one), or stopped when killed.
 */
function fireOutcome(node: NodeState, byId: ReadonlyMap<number, WorkflowFire>): NodeOutcome | undefined {
  if (node.fireId === undefined) return undefined;
  const last = latestAttempt(node.fireId, byId);
  if (last === undefined || !isFinal(last.status)) return undefined;
  const output = parseOutput(last.output);
  if (last.status === 'succeeded') return { status: 'succeeded', output, message: last.handle_msg };
  if (last.status === 'killed') return { status: 'stopped', message: last.handle_msg };
  if (last.status === 'skipped')
    return { status: 'failed', message: last.handle_msg ?? 'its fire record was skipped' };
  if (RETRY_PENDING.has(last.status) && last.retry_fire_id === null && last.retry_count > 0) return undefined;
  return { status: 'failed', output, message: last.handle_msg };
}

function parseOutput(text: string | null): unknown {
  if (text === null || text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function hasRunning(state: RunState): boolean {
  return Object.values(state.nodes).some((node) => node.status === 'running');
}

/** Nodes stopped with their run come back to waiting when the run goes on after a retry or a mark. */
function reopenStopped(state: RunState): void {
  for (const node of Object.values(state.nodes)) {
    if (node.status === 'stopped' && node.fireId === undefined && node.childRunId === undefined) {
      node.status = 'waiting';
      node.message = null;
      node.finishedAt = null;
    }
  }
}

function namesTargets(workflow: Pick<WorkflowRow, 'alarm_channel_ids' | 'alarm_email'>): boolean {
  return workflow.alarm_channel_ids.trim() !== '' || workflow.alarm_email.trim() !== '';
}

/** `workflow run 12 failed: node B failed (…)`, naming every failed node. */
export function describeFailedRun(run: WorkflowRunRow): string {
  const state = JSON.parse(run.state) as RunState;
  const failed = Object.entries(state.nodes)
    .filter(([, node]) => node.status === 'failed')
    .map(([key, node]) => (node.message ? `${key} (${node.message})` : key));
  return `workflow run ${run.id} failed${failed.length > 0 ? `: ${failed.join(', ')} failed` : ''}`;
}

export { isEnded };
