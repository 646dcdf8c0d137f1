/**
 * Workflows and their runs (migration 0014). Three writes carry the guarantees:
 *
 * - `startRun` makes a run under the workflow row's lock (`run_seq` bumped first), so the
 *   concurrency rule (SERIAL waits, DISCARD skips) sees every run another node started; a
 *   scheduled run also moves `next_fire_at` by compare-and-set in that statement, so of two
 *   nodes firing the same due time one makes the run.
 * - `commitRun` writes a step of a run: a compare-and-set of its `version` first, then the fire
 *   records and nested runs of the nodes it starts, then the new state, in one transaction. A
 *   step computed from a stale read changes nothing (the caller reads again), so a node's
 *   completion advances its run once whatever nodes crash or callbacks repeat.
 * - `promoteWaiting` starts the oldest waiting run of a SERIAL workflow when none runs, under
 *   the same lock.
 *
 * The transactions are written once, as generators of statements (tx-steps.ts), and run
 * synchronously inside `BEGIN IMMEDIATE` on SQLite and in a pooled transaction elsewhere.
 */
import { sql } from 'kysely';
import type { StoreConnection } from './connection.js';
import { containsText } from './contains-text.js';
import { type NewFire, newFireRow } from './fires.js';
import { insertReturningId } from './insert-id.js';
import type { NewWorkflowRow, WorkflowRow, WorkflowRunRow, WorkflowRunTable } from './schema.js';
import { runSteps, type Step } from './tx-steps.js';

export type WorkflowFields = Omit<NewWorkflowRow, 'id' | 'run_seq'>;
export type WorkflowPatch = Partial<Omit<WorkflowFields, 'created_at'>>;

export interface WorkflowFilter {
  appId?: number;
  /** Only these apps (a user's permitted apps); empty matches nothing. */
  appIds?: readonly number[];
  /** Substring of the name. */
  name?: string;
  triggerStatus?: 0 | 1;
  limit?: number;
  offset?: number;
}

export interface WorkflowRunFilter {
  workflowId?: number;
  appId?: number;
  appIds?: readonly number[];
  status?: string;
  /** Only runs made at or after this instant. */
  since?: number;
  limit?: number;
  offset?: number;
}

export type NewWorkflowRun = Omit<WorkflowRunTable, 'id' | 'version' | 'alarm_status' | 'status'> & {
  status?: string;
};

/** A node's fire record with what the engine reads of it. */
export interface WorkflowFire {
  id: number;
  workflow_node_key: string | null;
  parent_fire_id: number | null;
  status: string;
  retry_count: number;
  retry_fire_id: number | null;
  handle_msg: string | null;
  output: string | null;
  shard_total: number;
}

export interface StartRunRequest {
  workflowId: number;
  /** SERIAL, DISCARD or PARALLEL, as the workflow says. */
  concurrency: string;
  run: NewWorkflowRun;
  /** A scheduled run: the `next_fire_at` it fires (compare-and-set) and the one after it. */
  schedule?: { expected: number; next: number | null };
  /** Nested runs start whatever the child workflow's concurrency (they are one step of their parent). */
  ignoreConcurrency?: boolean;
}

export interface StartedRun {
  runId: number;
  status: 'running' | 'waiting' | 'skipped';
}

/** A step of a run to write: the new columns, and what to create for the nodes it starts. */
export interface RunCommit {
  runId: number;
  /** The version the step was computed from. */
  version: number;
  fires: readonly NewFire[];
  runs: readonly NewWorkflowRun[];
  /** The columns to write, given the ids of the fires and runs created (in order). */
  columns(ids: {
    fireIds: number[];
    runIds: number[];
  }): Partial<
    Pick<WorkflowRunTable, 'status' | 'state' | 'started_at' | 'finished_at' | 'alarm_status' | 'updated_at'>
  >;
}

const RUN_FIRE_COLUMNS = [
  'id',
  'workflow_node_key',
  'parent_fire_id',
  'status',
  'retry_count',
  'retry_fire_id',
  'handle_msg',
  'output',
  'shard_total',
] as const;

export function createWorkflowRepository(conn: StoreConnection) {
  const { db } = conn;

  async function insertWorkflow(fields: WorkflowFields): Promise<WorkflowRow> {
    const id = await insertReturningId(conn.dialect, db.insertInto('workflow').values(fields));
    return (await findWorkflowById(id))!;
  }

  async function updateWorkflow(id: number, patch: WorkflowPatch): Promise<boolean> {
    const result = await db.updateTable('workflow').set(patch).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async function deleteWorkflow(id: number): Promise<boolean> {
    const result = await db.deleteFrom('workflow').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  function findWorkflowById(id: number): Promise<WorkflowRow | undefined> {
    return db.selectFrom('workflow').selectAll().where('id', '=', id).executeTakeFirst();
  }

  function findWorkflowByName(appId: number, name: string): Promise<WorkflowRow | undefined> {
    return db
      .selectFrom('workflow')
      .selectAll()
      .where('app_id', '=', appId)
      .where('name', '=', name)
      .executeTakeFirst();
  }

  async function findWorkflowsByIds(ids: readonly number[]): Promise<WorkflowRow[]> {
    if (ids.length === 0) return [];
    return db
      .selectFrom('workflow')
      .selectAll()
      .where('id', 'in', [...ids])
      .execute();
  }

  function filtered(filter: WorkflowFilter) {
    let query = db.selectFrom('workflow');
    if (filter.appId !== undefined) query = query.where('app_id', '=', filter.appId);
    if (filter.appIds !== undefined) {
      query =
        filter.appIds.length === 0
          ? query.where(sql<boolean>`1 = 0`)
          : query.where('app_id', 'in', [...filter.appIds]);
    }
    if (filter.name) query = query.where(containsText('name', filter.name));
    if (filter.triggerStatus !== undefined) query = query.where('trigger_status', '=', filter.triggerStatus);
    return query;
  }

  function listWorkflows(filter: WorkflowFilter = {}): Promise<WorkflowRow[]> {
    return filtered(filter)
      .selectAll()
      .orderBy('id', 'desc')
      .limit(filter.limit ?? 100)
      .offset(filter.offset ?? 0)
      .execute();
  }

  async function countWorkflows(filter: WorkflowFilter = {}): Promise<number> {
    const row = await filtered(filter)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Running workflows due by `until`, soonest first (the scheduler's poll; the due index serves it). */
  function findDueWorkflows(until: number, limit: number): Promise<WorkflowRow[]> {
    return db
      .selectFrom('workflow')
      .selectAll()
      .where('trigger_status', '=', 1)
      .where('next_fire_at', '<=', until)
      .orderBy('next_fire_at')
      .limit(limit)
      .execute();
  }

  /** Moves a due workflow's `next_fire_at` from `expected` to `next` without a run (a misfire skipped). */
  async function skipFireTime(id: number, expected: number, next: number | null): Promise<boolean> {
    const result = await db
      .updateTable('workflow')
      .set({ next_fire_at: next })
      .where('id', '=', id)
      .where('trigger_status', '=', 1)
      .where('next_fire_at', '=', expected)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Makes a run under the workflow's lock; null when a scheduled run lost its compare-and-set or the workflow is gone. */
  function startRun(request: StartRunRequest): Promise<StartedRun | null> {
    return runSteps(conn, function* (): Generator<Step, StartedRun | null, unknown> {
      let lock = db
        .updateTable('workflow')
        .set((eb) => ({ run_seq: eb('run_seq', '+', 1) }))
        .where('id', '=', request.workflowId);
      if (request.schedule !== undefined) {
        lock = lock
          .set({ next_fire_at: request.schedule.next })
          .where('trigger_status', '=', 1)
          .where('next_fire_at', '=', request.schedule.expected);
      }
      if (((yield { kind: 'exec', query: lock.compile() }) as number) === 0) return null;
      let status: StartedRun['status'] = 'running';
      if (!request.ignoreConcurrency && request.concurrency !== 'PARALLEL') {
        const active = (yield {
          kind: 'rows',
          query: db
            .selectFrom('workflow_run')
            .select('id')
            .where('workflow_id', '=', request.workflowId)
            .where('status', 'in', ['running', 'waiting'])
            // A nested run is a step of its parent, not one of this workflow's own runs.
            .where('parent_run_id', 'is', null)
            .limit(1)
            .compile(),
        }) as unknown[];
        if (active.length > 0) status = request.concurrency === 'SERIAL' ? 'waiting' : 'skipped';
      }
      const now = request.run.created_at;
      const row = {
        ...request.run,
        status,
        version: 0,
        alarm_status: 0,
        started_at: status === 'running' ? now : null,
        finished_at: status === 'skipped' ? now : null,
      };
      const runId = (yield { kind: 'insert', table: 'workflow_run', values: row }) as number;
      return { runId, status };
    });
  }

  /** Writes one step of a run; false when its version moved on (another step was written first). */
  function commitRun(commit: RunCommit, now: number): Promise<boolean> {
    return runSteps(conn, function* (): Generator<Step, boolean, unknown> {
      const take = db
        .updateTable('workflow_run')
        .set((eb) => ({ version: eb('version', '+', 1) }))
        .where('id', '=', commit.runId)
        .where('version', '=', commit.version)
        .compile();
      if (((yield { kind: 'exec', query: take }) as number) === 0) return false;
      const fireIds: number[] = [];
      for (const fire of commit.fires) {
        fireIds.push((yield { kind: 'insert', table: 'fire', values: newFireRow(fire, now) }) as number);
      }
      const runIds: number[] = [];
      for (const run of commit.runs) {
        const row = { status: 'running', ...run, version: 0, alarm_status: 0 };
        runIds.push((yield { kind: 'insert', table: 'workflow_run', values: row }) as number);
      }
      yield {
        kind: 'exec',
        query: db
          .updateTable('workflow_run')
          .set({ updated_at: now, ...commit.columns({ fireIds, runIds }) })
          .where('id', '=', commit.runId)
          .compile(),
      };
      return true;
    });
  }

  /** Starts the oldest waiting run of a workflow when none of its runs is running; returns it. */
  function promoteWaiting(workflowId: number, now: number): Promise<number | null> {
    return runSteps(conn, function* (): Generator<Step, number | null, unknown> {
      yield {
        kind: 'exec',
        query: db
          .updateTable('workflow')
          .set((eb) => ({ run_seq: eb('run_seq', '+', 1) }))
          .where('id', '=', workflowId)
          .compile(),
      };
      const running = (yield {
        kind: 'rows',
        query: db
          .selectFrom('workflow_run')
          .select('id')
          .where('workflow_id', '=', workflowId)
          .where('status', '=', 'running')
          .where('parent_run_id', 'is', null)
          .limit(1)
          .compile(),
      }) as unknown[];
      if (running.length > 0) return null;
      const waiting = (yield {
        kind: 'rows',
        query: db
          .selectFrom('workflow_run')
          .select('id')
          .where('workflow_id', '=', workflowId)
          .where('status', '=', 'waiting')
          .orderBy('id')
          .limit(1)
          .compile(),
      }) as { id: number }[];
      const next = waiting[0];
      if (next === undefined) return null;
      yield {
        kind: 'exec',
        query: db
          .updateTable('workflow_run')
          .set((eb) => ({
            status: 'running',
            started_at: now,
            updated_at: now,
            version: eb('version', '+', 1),
          }))
          .where('id', '=', next.id)
          .where('status', '=', 'waiting')
          .compile(),
      };
      return Number(next.id);
    });
  }

  function findRunById(id: number): Promise<WorkflowRunRow | undefined> {
    return db.selectFrom('workflow_run').selectAll().where('id', '=', id).executeTakeFirst();
  }

  function filteredRuns(filter: WorkflowRunFilter) {
    let query = db.selectFrom('workflow_run');
    if (filter.workflowId !== undefined) query = query.where('workflow_id', '=', filter.workflowId);
    if (filter.appId !== undefined) query = query.where('app_id', '=', filter.appId);
    if (filter.appIds !== undefined) {
      query =
        filter.appIds.length === 0
          ? query.where(sql<boolean>`1 = 0`)
          : query.where('app_id', 'in', [...filter.appIds]);
    }
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.since !== undefined) query = query.where('created_at', '>=', filter.since);
    return query;
  }

  function listRuns(filter: WorkflowRunFilter = {}): Promise<WorkflowRunRow[]> {
    return filteredRuns(filter)
      .selectAll()
      .orderBy('id', 'desc')
      .limit(filter.limit ?? 50)
      .offset(filter.offset ?? 0)
      .execute();
  }

  async function countRuns(filter: WorkflowRunFilter = {}): Promise<number> {
    const row = await filteredRuns(filter)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Runs by status made since `since` (the dashboard's figures). */
  async function countRunsByStatus(
    since: number,
    appIds?: readonly number[],
  ): Promise<Record<string, number>> {
    const rows = await filteredRuns({ since, ...(appIds === undefined ? {} : { appIds }) })
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('status')
      .execute();
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
  }

  /** The fire records of a run's nodes (a broadcast's shards are not among them). */
  function findRunFires(runId: number): Promise<WorkflowFire[]> {
    return db
      .selectFrom('fire')
      .select([...RUN_FIRE_COLUMNS])
      .where('workflow_run_id', '=', runId)
      .orderBy('id')
      .execute() as Promise<WorkflowFire[]>;
  }

  /** Running runs not changed since `before`, oldest first: the sweep moves on what a dead node left. */
  function findStaleRuns(before: number, limit: number): Promise<WorkflowRunRow[]> {
    return db
      .selectFrom('workflow_run')
      .selectAll()
      .where('status', 'in', ['running', 'stopped'])
      .where('updated_at', '<=', before)
      .where('finished_at', 'is', null)
      .orderBy('updated_at')
      .limit(limit)
      .execute();
  }

  /** SERIAL workflows with a waiting run and none running (a node died between a run's end and the next's start). */
  async function findWorkflowsWithWaitingRuns(limit: number): Promise<number[]> {
    const rows = await db
      .selectFrom('workflow_run')
      .select('workflow_id')
      .distinct()
      .where('status', '=', 'waiting')
      .limit(limit)
      .execute();
    return rows.map((row) => Number(row.workflow_id));
  }

  /** Failed runs whose alarm is owed (1 → 2 by compare-and-set: one node sends it). */
  async function takeRunAlarm(runId: number): Promise<boolean> {
    const result = await db
      .updateTable('workflow_run')
      .set({ alarm_status: 2 })
      .where('id', '=', runId)
      .where('alarm_status', '=', 1)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  function findOwedRunAlarms(before: number, limit: number): Promise<WorkflowRunRow[]> {
    return db
      .selectFrom('workflow_run')
      .selectAll()
      .where('alarm_status', '=', 1)
      .where('updated_at', '<=', before)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  return {
    insertWorkflow,
    updateWorkflow,
    deleteWorkflow,
    findWorkflowById,
    findWorkflowByName,
    findWorkflowsByIds,
    listWorkflows,
    countWorkflows,
    findDueWorkflows,
    skipFireTime,
    startRun,
    commitRun,
    promoteWaiting,
    findRunById,
    listRuns,
    countRuns,
    countRunsByStatus,
    findRunFires,
    findStaleRuns,
    findWorkflowsWithWaitingRuns,
    takeRunAlarm,
    findOwedRunAlarms,
  };
}

export type WorkflowRepository = ReturnType<typeof createWorkflowRepository>;
