/**
 * Fire records (XXL-JOB's xxl_job_log). The hot statements — claim, dispatch marks, finalise —
 * are per dialect in hot/; this file adds the rest through the query builder: records the
 * dispatcher creates itself (manual and API triggers, broadcast children, retries), recovery
 * queries, the console's listing, alarms and retention.
 */
import { performance } from 'node:perf_hooks';
import type { TriggerType } from '@tickwheel/protocol';
import { sql } from 'kysely';
import { readAside, type StoreConnection } from './connection.js';
import { type FireStatus, pgStatusById } from './fire-status.js';
import { type ClaimRequest, type ClaimResult, claimDueFires } from './hot/claim.js';
import { type DispatchMark, markDispatched, markDispatchFailed } from './hot/dispatch-marks.js';
import { type FinishedFire, type FireResult, finishFires } from './hot/finish.js';
import { fenceSends, type SendFenceAnswer, type SendFenceRequest } from './hot/send-fence.js';
import { insertReturningId } from './insert-id.js';
import type { FireRow, FireTable } from './schema.js';

/** The per-batch statements of a fire's path: claim, send fence, dispatch marks, results. */
export type HotStage = 'claim' | 'fence' | 'mark' | 'finish';

/** What the server is told of the hot statements (stage metrics). */
export interface HotStatementObserver {
  /** One statement (a batch) of `stage` took `ms` for `records` records. */
  statement(stage: HotStage, ms: number, records: number): void;
  /** A claim at `nowMs` recorded these fires (their scheduled times say how far ahead it ran). */
  claimed?(result: ClaimResult, nowMs: number): void;
}

/** A record the dispatcher creates itself (not through the planner's claim). */
export interface NewFire {
  jobId: number;
  appId: number;
  scheduledAt: number;
  triggerType: TriggerType;
  executorHandler: string;
  executorParam: string | null;
  /** The claimed fire a broadcast child or a retry hangs off. */
  parentFireId?: number | null;
  shardIndex?: number;
  shardTotal?: number;
  retryCount?: number;
  /** PARENT fires: the parent job's record whose success triggered this one. */
  triggeredByFireId?: number | null;
  /** Trigger-once: the executors to run on instead of the job's route (checked by the caller). */
  addressOverride?: readonly string[];
  /** A workflow node's run: the run, the node, and what its run request carries (JSON). */
  workflow?: { runId: number; nodeKey: string; context: string };
}

export interface FireFilter {
  appId?: number;
  /** Only these apps (a user's permitted apps); empty matches nothing. */
  appIds?: readonly number[];
  jobId?: number;
  status?: FireStatus | readonly FireStatus[];
  /** scheduled_at >= from. */
  from?: number;
  /** scheduled_at < to. */
  to?: number;
  limit?: number;
  offset?: number;
}

export interface PendingFireQuery {
  shardTotal: number;
  shardIndexes: readonly number[];
  /** Only records scheduled at or before this instant. */
  scheduledBefore: number;
  limit: number;
  /**
   * Only root records (parent_fire_id NULL): the planner's claimed fires and trigger-once
   * records. Not broadcast children, which are sent again through their parent (the dispatch of
   * the parent reuses them).
   */
  rootOnly?: boolean;
  /**
   * Keyset cursor: only records after this one in (scheduled_at, id) order; pass the last record
   * of the previous page. Records change status while a caller pages, so an offset would skip some.
   */
  after?: { scheduledAt: number; id: number };
}

/** What `clearFires` deletes: an app's (or job's) records older than an instant and/or a boundary. */
export interface FireDeletion {
  appId: number;
  jobId?: number;
  /** Only records scheduled before this instant. */
  before?: number;
  /** Only records before this one in (scheduled_at, id) order: the oldest not kept by keepLast. */
  olderThan?: { scheduledAt: number; id: number };
}

export interface LostRunQuery {
  /** Dispatched at or before this instant (XXL-JOB: 10 minutes ago). */
  dispatchedBefore: number;
  /** An executor whose registry row was refreshed after this instant counts as online. */
  aliveSince: number;
  limit: number;
}

/** A dispatched run the lost-run monitor looks at (restarted executors, idle checks). */
export interface DispatchedRun {
  id: number;
  job_id: number;
  executor_address: string;
  /** The executor instance that accepted the run; null when it announced none. */
  executor_instance: string | null;
  trigger_at: number;
}

export interface OtherInstanceRunQuery {
  /** The executor address the runs were dispatched to. */
  address: string;
  /** The instance now at the address: runs accepted by any other (known) instance are listed. */
  instance: string;
  limit: number;
}

export interface RestartedRunQuery {
  /** A registration refreshed after this instant counts as the executor's current one. */
  aliveSince: number;
  limit: number;
}

export interface UnconfirmedRunQuery {
  /** Dispatched at or before this instant (the idle check's grace). */
  dispatchedBefore: number;
  /** Only runs whose executor address has a registration refreshed after this instant. */
  aliveSince: number;
  /** Only ids above this one (a sweep goes through them page by page). */
  afterId: number;
  limit: number;
}

const DISPATCHED_RUN_COLUMNS = [
  'f.id',
  'f.job_id',
  'f.executor_address',
  'f.executor_instance',
  'f.trigger_at',
] as const;

const FAILED_STATUSES: readonly FireStatus[] = ['failed', 'timeout', 'dispatch_failed'];

/** The row of a record the dispatcher creates itself: pending, no claim key, nothing owed. */
export function newFireRow(fire: NewFire, nowMs: number): Omit<FireTable, 'id'> {
  return {
    job_id: fire.jobId,
    app_id: fire.appId,
    parent_fire_id: fire.parentFireId ?? null,
    claim_job_id: null,
    scheduled_at: fire.scheduledAt,
    trigger_type: fire.triggerType,
    trigger_at: null,
    executor_address: null,
    executor_handler: fire.executorHandler,
    executor_param: fire.executorParam,
    shard_index: fire.shardIndex ?? 0,
    shard_total: fire.shardTotal ?? 1,
    trigger_code: null,
    trigger_msg: null,
    handle_at: null,
    handle_code: null,
    handle_msg: null,
    status: 'pending',
    retry_count: fire.retryCount ?? 0,
    alarm_status: 0,
    claimed_by_epoch: 0,
    triggered_by_fire_id: fire.triggeredByFireId ?? null,
    address_override: fire.addressOverride?.length ? JSON.stringify(fire.addressOverride) : null,
    ...(fire.workflow === undefined
      ? {}
      : {
          workflow_run_id: fire.workflow.runId,
          workflow_node_key: fire.workflow.nodeKey,
          workflow_context: fire.workflow.context,
        }),
    created_at: nowMs,
  };
}

/**
 * `fire.status` as the statements that find their records by id and then check the status write
 * it: an expression no index serves, so the planner reads the records by primary key and not
 * through the (status, scheduled_at) index's range of that status, which keeps an entry for
 * every version of every record that ever had it until a vacuum (fire-status.ts, `pgStatusById`;
 * SQLite's `+status` likewise). MySQL's InnoDB purges old versions itself: the plain column.
 */
function statusById(conn: StoreConnection) {
  if (conn.dialect === 'postgres') return sql.raw<string>(pgStatusById('fire'));
  if (conn.dialect === 'sqlite') return sql<string>`+status`;
  return sql.ref<string>('status');
}

/** The statement of `skipPendingFires` (exported for the plan tests). */
export function skipPendingStatement(
  conn: StoreConnection,
  ids: readonly number[],
  message: string,
  nowMs: number,
  triggerType?: TriggerType,
) {
  return conn.db
    .updateTable('fire')
    .set({
      status: 'skipped',
      handle_at: nowMs,
      handle_msg: message,
      ...(triggerType === undefined ? {} : { trigger_type: triggerType }),
    })
    .where('id', 'in', ids)
    .where(statusById(conn), '=', 'pending');
}

/** The statement of `setPendingTriggerType` (exported for the plan tests). */
export function setPendingTriggerTypeStatement(
  conn: StoreConnection,
  ids: readonly number[],
  triggerType: TriggerType,
) {
  return conn.db
    .updateTable('fire')
    .set({ trigger_type: triggerType })
    .where('id', 'in', ids)
    .where(statusById(conn), '=', 'pending');
}

export function createFireRepository(conn: StoreConnection) {
  const { db } = conn;

  /**
   * Records fires the dispatcher creates itself, pending, and returns their ids in order. They
   * have no claim key (claim_job_id NULL), so any number may share a job and a time.
   */
  async function createFires(fires: readonly NewFire[], nowMs: number): Promise<number[]> {
    if (fires.length === 0) return [];
    const rows = fires.map((fire) => newFireRow(fire, nowMs));
    if (conn.dialect !== 'mysql') {
      const inserted = await db.insertInto('fire').values(rows).returning('id').execute();
      return inserted.map((row) => row.id);
    }
    // MySQL reports only the first id of a multi-row insert, and consecutive ids are not
    // guaranteed (innodb_autoinc_lock_mode 2): insert one by one in one transaction.
    return db.transaction().execute(async (trx) => {
      const ids: number[] = [];
      for (const row of rows) ids.push(await insertReturningId('mysql', trx.insertInto('fire').values(row)));
      return ids;
    });
  }

  async function findFireById(id: number): Promise<FireRow | undefined> {
    return db.selectFrom('fire').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async function findFiresByIds(ids: readonly number[]): Promise<FireRow[]> {
    if (ids.length === 0) return [];
    return db.selectFrom('fire').selectAll().where('id', 'in', ids).orderBy('id').execute();
  }

  /** The broadcast children and retries of a claimed fire. */
  async function findChildFires(parentFireId: number): Promise<FireRow[]> {
    const parent = await findFireById(parentFireId);
    if (parent === undefined) return [];
    // Children share the parent's job and scheduled time, so the (job_id, scheduled_at) index finds them.
    return db
      .selectFrom('fire')
      .selectAll()
      .where('job_id', '=', parent.job_id)
      .where('scheduled_at', '=', parent.scheduled_at)
      .where('parent_fire_id', '=', parentFireId)
      .orderBy('id')
      .execute();
  }

  /**
   * Pending records of the given shards scheduled at or before `scheduledBefore`, one page in
   * (scheduled_at, id) order: fires a node claimed or created (trigger-once) and did not
   * dispatch (it died, or it is this node restarting). The new owner dispatches them again; the
   * executor refuses a logId it already accepted. The (status, scheduled_at) index serves every page from the cursor on: on
   * SQLite and InnoDB its entries end with the row id, so they come in page order already;
   * PostgreSQL sorts the range's matches (recovery is rare, and only pending records are read).
   */
  async function findPendingFires(query: PendingFireQuery): Promise<FireRow[]> {
    if (query.shardIndexes.length === 0) return [];
    let select = db
      .selectFrom('fire')
      .selectAll()
      .where('status', '=', 'pending')
      .where('scheduled_at', '<=', query.scheduledBefore)
      .where((eb) => eb(eb('job_id', '%', query.shardTotal), 'in', [...query.shardIndexes]));
    if (query.rootOnly === true) select = select.where('parent_fire_id', 'is', null);
    const { after } = query;
    if (after !== undefined) {
      // The plain lower bound lets the index range start at the cursor; the OR then drops the
      // records of the cursor's own millisecond it already returned.
      select = select
        .where('scheduled_at', '>=', after.scheduledAt)
        .where((eb) => eb.or([eb('scheduled_at', '>', after.scheduledAt), eb('id', '>', after.id)]));
    }
    return select.orderBy('scheduled_at').orderBy('id').limit(query.limit).execute();
  }

  /**
   * Records dispatched long ago whose executor is no longer online: their result will never
   * come (XXL-JOB's JobCompleteHelper). The lost-runs monitor fails them.
   */
  async function findLostRuns(query: LostRunQuery): Promise<FireRow[]> {
    return readAside(
      conn,
      db
        .selectFrom('fire as f')
        .selectAll('f')
        .where('f.status', '=', 'dispatched')
        // A broadcast parent has no address: it is settled from its shards, never lost itself.
        .where('f.executor_address', 'is not', null)
        .where('f.trigger_at', '<=', query.dispatchedBefore)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('registry as r')
                .select('r.id')
                .whereRef('r.registry_value', '=', 'f.executor_address')
                .where('r.updated_at', '>', query.aliveSince),
            ),
          ),
        )
        .orderBy('f.trigger_at')
        .limit(query.limit)
        .compile(),
    );
  }

  /**
   * Runs still `dispatched` to `address` that an executor instance other than `instance` accepted
   * (runs whose instance is unknown are not listed): the process that had them is gone.
   */
  async function findRunsOfOtherInstances(query: OtherInstanceRunQuery): Promise<DispatchedRun[]> {
    const rows = await readAside(
      conn,
      db
        .selectFrom('fire as f')
        .select(DISPATCHED_RUN_COLUMNS)
        .where('f.status', '=', 'dispatched')
        .where('f.executor_address', '=', query.address)
        .where('f.executor_instance', 'is not', null)
        .where('f.executor_instance', '<>', query.instance)
        .orderBy('f.id')
        .limit(query.limit)
        .compile(),
    );
    return rows as DispatchedRun[];
  }

  /**
   * Runs still `dispatched` whose accepting instance differs from the instance a live
   * registration of their address carries, registered after the dispatch: the executor
   * restarted at the same address. (A registration older than the dispatch may be the previous
   * instance's, not yet replaced by the one that accepted the run.)
   */
  async function findRestartedRuns(query: RestartedRunQuery): Promise<DispatchedRun[]> {
    const rows = await readAside(
      conn,
      db
        .selectFrom('fire as f')
        .select(DISPATCHED_RUN_COLUMNS)
        .where('f.status', '=', 'dispatched')
        .where('f.executor_address', 'is not', null)
        .where('f.executor_instance', 'is not', null)
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('registry as r')
              .select('r.id')
              .whereRef('r.registry_value', '=', 'f.executor_address')
              .where('r.updated_at', '>', query.aliveSince)
              .where('r.instance', 'is not', null)
              .whereRef('r.instance', '<>', 'f.executor_instance')
              .whereRef('r.updated_at', '>', 'f.trigger_at'),
          ),
        )
        .orderBy('f.id')
        .limit(query.limit)
        .compile(),
    );
    return rows as DispatchedRun[];
  }

  /**
   * Runs still `dispatched` since `dispatchedBefore` or earlier, to an executor that announced no
   * instance (XXL-JOB executors) and is registered: the lost-run monitor asks their executors
   * (`idleBeat`) whether they still have them. In id order, from `afterId`.
   */
  async function findUnconfirmedRuns(query: UnconfirmedRunQuery): Promise<DispatchedRun[]> {
    const rows = await readAside(
      conn,
      db
        .selectFrom('fire as f')
        .select(DISPATCHED_RUN_COLUMNS)
        .where('f.status', '=', 'dispatched')
        .where('f.executor_address', 'is not', null)
        .where('f.executor_instance', 'is', null)
        .where('f.trigger_at', '<=', query.dispatchedBefore)
        .where('f.id', '>', query.afterId)
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('registry as r')
              .select('r.id')
              .whereRef('r.registry_value', '=', 'f.executor_address')
              .where('r.updated_at', '>', query.aliveSince),
          ),
        )
        .orderBy('f.id')
        .limit(query.limit)
        .compile(),
    );
    return rows as DispatchedRun[];
  }

  function filtered(filter: FireFilter) {
    let query = db.selectFrom('fire');
    if (filter.appId !== undefined) query = query.where('app_id', '=', filter.appId);
    if (filter.appIds !== undefined) {
      const ids = [...filter.appIds];
      // An empty IN list is not SQL; an empty OR is Kysely's false.
      query = ids.length === 0 ? query.where((eb) => eb.or([])) : query.where('app_id', 'in', ids);
    }
    if (filter.jobId !== undefined) query = query.where('job_id', '=', filter.jobId);
    if (typeof filter.status === 'string') query = query.where('status', '=', filter.status);
    else if (filter.status !== undefined && filter.status.length > 0) {
      query = query.where('status', 'in', [...filter.status]);
    }
    if (filter.from !== undefined) query = query.where('scheduled_at', '>=', filter.from);
    if (filter.to !== undefined) query = query.where('scheduled_at', '<', filter.to);
    return query;
  }

  /** The console's listing: newest first, filtered, one page. */
  async function listFires(filter: FireFilter = {}): Promise<FireRow[]> {
    return filtered(filter)
      .selectAll()
      .orderBy('scheduled_at', 'desc')
      .orderBy('id', 'desc')
      .limit(filter.limit ?? 50)
      .offset(filter.offset ?? 0)
      .execute();
  }

  async function countFires(filter: FireFilter = {}): Promise<number> {
    const row = await filtered(filter)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Record counts by status for records scheduled in [from, to): the daily report's input. */
  async function countFiresByStatus(from: number, to: number): Promise<Partial<Record<FireStatus, number>>> {
    const rows = await db
      .selectFrom('fire')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('scheduled_at', '>=', from)
      .where('scheduled_at', '<', to)
      .groupBy('status')
      .execute();
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
  }

  /**
   * Marks pending records skipped (their job was stopped or deleted before dispatch, or they
   * missed their time); returns how many. `triggerType`, when given, is recorded with the skip
   * (a recovered fire skipped as a misfire says MISFIRE, as a claim's skip does).
   */
  async function skipPendingFires(
    ids: readonly number[],
    message: string,
    nowMs: number,
    triggerType?: TriggerType,
  ): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await skipPendingStatement(conn, ids, message, nowMs, triggerType).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * Sets the trigger type of pending records, in one statement: recovery fires a claimed record
   * missed by more than the window under FIRE_ONCE_NOW, and the record says MISFIRE, as a late
   * claim's does. Returns how many it changed (a record dispatched meanwhile keeps its type).
   */
  async function setPendingTriggerType(ids: readonly number[], triggerType: TriggerType): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await setPendingTriggerTypeStatement(conn, ids, triggerType).executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Failed records the alarm/retry monitor has not looked at yet, oldest first. */
  async function findUnalarmedFailures(limit: number): Promise<FireRow[]> {
    return db
      .selectFrom('fire')
      .selectAll()
      .where('status', 'in', [...FAILED_STATUSES])
      .where('alarm_status', '=', 0)
      .orderBy('scheduled_at')
      .limit(limit)
      .execute();
  }

  /**
   * Moves `alarm_status` from `from` to `to` as a compare-and-set, so of several nodes only one
   * takes a failure for alarming and retrying. True when this call moved it.
   */
  async function setAlarmStatus(id: number, from: number, to: number): Promise<boolean> {
    const result = await db
      .updateTable('fire')
      .set({ alarm_status: to })
      .where('id', '=', id)
      .where('alarm_status', '=', from)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Records how an alarm of the fire went (alarms/alarm-status.ts has the values) and what each
   * channel answered, which settles an owed alarm (owed-alarms.ts). Written once the alarm queue
   * settled every channel; unconditional, since the queue is the only writer of these values.
   */
  async function recordAlarmResult(id: number, alarmStatus: number, alarmMsg: string | null): Promise<void> {
    await db
      .updateTable('fire')
      .set({ alarm_status: alarmStatus, alarm_msg: alarmMsg, alarm_held_until: 0 })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Deletes up to `limit` records scheduled before `cutoff` (retention); returns how many. One
   * read of the scheduled_at index's oldest entries, then one delete by primary key: on every
   * dialect a batch locks only its own rows (SQLite: holds the write lock for one short
   * statement), so claims and results go on between batches.
   */
  async function deleteFiresBefore(cutoff: number, limit: number): Promise<number> {
    const ids = await db
      .selectFrom('fire')
      .select('id')
      .where('scheduled_at', '<', cutoff)
      .orderBy('scheduled_at')
      .limit(limit)
      .execute();
    if (ids.length === 0) return 0;
    const result = await db
      .deleteFrom('fire')
      .where(
        'id',
        'in',
        ids.map((row) => row.id),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * The record `offset` places from the newest of an app (or job), in the console's order
   * (scheduled_at, id): `clearFires`' keepLast boundary.
   */
  async function findNthNewestFire(
    scope: { appId: number; jobId?: number },
    offset: number,
  ): Promise<{ id: number; scheduled_at: number } | undefined> {
    let query = db.selectFrom('fire').select(['id', 'scheduled_at']).where('app_id', '=', scope.appId);
    if (scope.jobId !== undefined) query = query.where('job_id', '=', scope.jobId);
    return query
      .orderBy('scheduled_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .offset(offset)
      .executeTakeFirst();
  }

  /**
   * Deletes up to `limit` finished records of an app (or job) matching the deletion, oldest
   * first; returns how many (`clearFires` calls it until a batch comes back short). Records
   * still pending or dispatched are kept: their run is in flight.
   */
  async function deleteFinishedFires(deletion: FireDeletion, limit: number): Promise<number> {
    let query = db
      .selectFrom('fire')
      .select('id')
      .where('app_id', '=', deletion.appId)
      .where('status', 'not in', ['pending', 'dispatched']);
    if (deletion.jobId !== undefined) query = query.where('job_id', '=', deletion.jobId);
    if (deletion.before !== undefined) query = query.where('scheduled_at', '<', deletion.before);
    const { olderThan } = deletion;
    if (olderThan !== undefined) {
      query = query
        .where('scheduled_at', '<=', olderThan.scheduledAt)
        .where((eb) => eb.or([eb('scheduled_at', '<', olderThan.scheduledAt), eb('id', '<', olderThan.id)]));
    }
    const ids = await query.orderBy('scheduled_at').limit(limit).execute();
    if (ids.length === 0) return 0;
    const result = await db
      .deleteFrom('fire')
      .where(
        'id',
        'in',
        ids.map((row) => row.id),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Told how long each hot statement took (`observeHotStatements`); none by default. */
  let observer: HotStatementObserver | undefined;
  /** Runs `statement`, timed from before it is called: a statement may do its work before its first await. */
  async function timed<T>(stage: HotStage, records: number, statement: () => Promise<T>): Promise<T> {
    if (observer === undefined) return statement();
    const started = performance.now();
    const result = await statement();
    observer.statement(stage, performance.now() - started, records);
    return result;
  }

  return {
    claimDueFires: async (request: ClaimRequest): Promise<ClaimResult> => {
      if (observer === undefined) return claimDueFires(conn, request);
      const started = performance.now();
      const result = await claimDueFires(conn, request);
      observer.statement('claim', performance.now() - started, result.fires.length + result.skipped.length);
      observer.claimed?.(result, request.nowMs);
      return result;
    },
    markDispatched: (marks: readonly DispatchMark[]): Promise<number> =>
      timed('mark', marks.length, () => markDispatched(conn, marks)),
    markDispatchFailed: (marks: readonly DispatchMark[]): Promise<number> =>
      timed('mark', marks.length, () => markDispatchFailed(conn, marks)),
    finishFires: (results: readonly FireResult[]): Promise<FinishedFire[]> =>
      timed('finish', results.length, () => finishFires(conn, results)),
    fenceSends: (
      nodeId: string,
      nowMs: number,
      sends: readonly SendFenceRequest[],
    ): Promise<SendFenceAnswer[]> =>
      timed('fence', sends.length, () => fenceSends(conn, nodeId, nowMs, sends)),
    /** Reports each hot statement's duration from now on (the server's stage metrics). */
    observeHotStatements(next: HotStatementObserver): void {
      observer = next;
    },
    createFires,
    findFireById,
    findFiresByIds,
    findChildFires,
    findPendingFires,
    findLostRuns,
    findRunsOfOtherInstances,
    findRestartedRuns,
    findUnconfirmedRuns,
    listFires,
    countFires,
    countFiresByStatus,
    skipPendingFires,
    setPendingTriggerType,
    findUnalarmedFailures,
    setAlarmStatus,
    recordAlarmResult,
    deleteFiresBefore,
    findNthNewestFire,
    deleteFinishedFires,
  };
}

export type FireRepository = ReturnType<typeof createFireRepository>;
