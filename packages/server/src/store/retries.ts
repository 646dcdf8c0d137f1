/**
 * The store side of retries: the failure decision on a failed record, the RETRY records it
 * makes, and the claim a node takes on a due RETRY record before dispatching it.
 *
 * A failed record is decided exactly once, whichever node sees it first (the node that wrote
 * its result, the node whose dispatch failed, the sweep after a crash): the decision is a
 * compare-and-set of `retry_fire_id` from NULL, and a retry's record is inserted in the same
 * transaction, so a retry exists exactly when its failure says so, and never twice. A decision
 * that alarms records the alarm as owed in the same statement (owed-alarms.ts), so an alarm is
 * owed exactly when its failure says so, whatever becomes of the node that is to send it.
 */
import { type Kysely, sql } from 'kysely';
import {
  inSqliteWrite,
  prepared,
  readAside,
  type SqliteConnection,
  type StoreConnection,
} from './connection.js';
import type { FireStatus } from './fire-status.js';
import { insertReturningId } from './insert-id.js';
import { ALARM_OWED, type OwedAlarm } from './owed-alarms.js';
import type { Database, FireRow, FireTable } from './schema.js';

/** Statuses a retry and an alarm follow: a failed run, a timed-out run, a dispatch nobody took. */
export const RETRYABLE_STATUSES: readonly FireStatus[] = ['failed', 'timeout', 'dispatch_failed'];

export interface DueRetryQuery {
  nowMs: number;
  /** A claim older than this is taken to have died with its node (its record is still pending). */
  claimedBefore: number;
  limit: number;
}

export interface UndecidedFailureQuery {
  /** Only records scheduled at or after this instant (the sweep looks back a bounded window). */
  scheduledFrom: number;
  limit: number;
}

/**
 * The due RETRY records: still pending and not claimed (or claimed by a node that died before
 * dispatching), oldest first. Only retries proper: a broadcast retry's own shards are RETRY
 * records too, but they are sent through their parent.
 *
 * The partial index `fire_retry_due_idx` (migration 0017: pending RETRY records only) serves it.
 * Its two conditions are written as literals, not parameters: a planner uses a partial index only
 * for a query whose own conditions imply the index's, which a parameter's unknown value cannot.
 * Through the (status, scheduled_at) index instead, each round read past every pending record due
 * by now, and on PostgreSQL past every entry a record left there when it stopped being pending
 * (until a vacuum): at 5,000 fires a second, about 100,000 entries and 40 ms a round, twice a
 * second. MySQL has no partial index; InnoDB purges such entries soon after their rows change.
 */
export function selectDueRetries(db: Kysely<Database>, query: DueRetryQuery) {
  return db
    .selectFrom('fire as f')
    .selectAll('f')
    .where('f.status', '=', sql.lit('pending'))
    .where('f.trigger_type', '=', sql.lit('RETRY'))
    .where('f.scheduled_at', '<=', query.nowMs)
    .where('f.dispatch_claimed_at', '<=', query.claimedBefore)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('fire as p')
          .select('p.id')
          .whereRef('p.id', '=', 'f.parent_fire_id')
          .whereRef('p.retry_fire_id', '=', 'f.id'),
      ),
    )
    .orderBy('f.scheduled_at')
    .orderBy('f.id')
    .limit(query.limit);
}

export function createRetryRepository(conn: StoreConnection) {
  const { db } = conn;

  /**
   * Decides `failed` without a retry, owing `alarm` if given; true when this call took the
   * decision (false: someone decided it already, or it is not a record that failed).
   */
  async function decideWithoutRetry(fireId: number, alarm?: OwedAlarm): Promise<boolean> {
    const result = await db
      .updateTable('fire')
      .set({ retry_fire_id: 0, ...owedAlarmColumns(alarm) })
      .where('id', '=', fireId)
      .where('retry_fire_id', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Decides `failed` with a retry: takes the decision (owing `alarm` if given) and inserts the
   * RETRY record (pending, due at `scheduledAt`, one retry fewer left, the same shard,
   * `parent_fire_id` = the failed record) in one transaction. Returns the retry's id, or null
   * when the failure was decided already.
   */
  async function createRetryFire(
    failed: FireRow,
    scheduledAt: number,
    nowMs: number,
    alarm?: OwedAlarm,
  ): Promise<number | null> {
    const retry: Omit<FireTable, 'id'> = {
      job_id: failed.job_id,
      app_id: failed.app_id,
      parent_fire_id: failed.id,
      claim_job_id: null,
      scheduled_at: scheduledAt,
      trigger_type: 'RETRY',
      trigger_at: null,
      executor_address: null,
      executor_handler: failed.executor_handler,
      executor_param: failed.executor_param,
      shard_index: failed.shard_index,
      shard_total: failed.shard_total,
      trigger_code: null,
      trigger_msg: null,
      handle_at: null,
      handle_code: null,
      handle_msg: null,
      status: 'pending',
      retry_count: Math.max(failed.retry_count - 1, 0),
      alarm_status: 0,
      claimed_by_epoch: 0,
      retry_fire_id: null,
      triggered_by_fire_id: null,
      dispatch_claimed_at: 0,
      // A workflow node's retry is the same node's next attempt: its run, node and context go with it.
      workflow_run_id: failed.workflow_run_id ?? null,
      workflow_node_key: failed.workflow_node_key ?? null,
      workflow_context: failed.workflow_context ?? null,
      created_at: nowMs,
    };
    if (conn.dialect === 'sqlite') return createRetryFireSqlite(conn, failed.id, retry, alarm);
    return db.transaction().execute(async (trx) => {
      const taken = await trx
        .updateTable('fire')
        .set({ retry_fire_id: 0, ...owedAlarmColumns(alarm) })
        .where('id', '=', failed.id)
        .where('retry_fire_id', 'is', null)
        .executeTakeFirst();
      if (taken.numUpdatedRows === 0n) return null;
      const id = await insertReturningId(conn.dialect, trx.insertInto('fire').values(retry));
      await trx.updateTable('fire').set({ retry_fire_id: id }).where('id', '=', failed.id).execute();
      return id;
    });
  }

  /** The due RETRY records, oldest first (`selectDueRetries`). */
  async function findDueRetries(query: DueRetryQuery): Promise<FireRow[]> {
    // Off the event loop on SQLite.
    return readAside(conn, selectDueRetries(db, query).compile());
  }

  /**
   * Claims a due RETRY record for dispatch: a compare-and-set on its claim time as it was read,
   * while it is still pending. True when this call won it; of several nodes (or a restarted one
   * and a stale read) exactly one does.
   */
  async function claimRetryDispatch(fire: FireRow, nowMs: number): Promise<boolean> {
    const result = await db
      .updateTable('fire')
      .set({ dispatch_claimed_at: nowMs })
      .where('id', '=', fire.id)
      .where('status', '=', 'pending')
      .where('dispatch_claimed_at', '=', fire.dispatch_claimed_at ?? 0)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Failed records nobody decided yet (their node stopped between the result and the decision). */
  async function findUndecidedFailures(query: UndecidedFailureQuery): Promise<FireRow[]> {
    return db
      .selectFrom('fire')
      .selectAll()
      .where('status', 'in', [...RETRYABLE_STATUSES])
      .where('scheduled_at', '>=', query.scheduledFrom)
      .where('retry_fire_id', 'is', null)
      .orderBy('scheduled_at')
      .limit(query.limit)
      .execute();
  }

  return { decideWithoutRetry, createRetryFire, findDueRetries, claimRetryDispatch, findUndecidedFailures };
}

export type RetryRepository = ReturnType<typeof createRetryRepository>;

/**
 * The same three statements in one `BEGIN IMMEDIATE` transaction: SQLite lets one writer in at a
 * time, and a deferred transaction of a second connection would fail on the lock upgrade instead
 * of waiting its turn.
 */
function createRetryFireSqlite(
  conn: SqliteConnection,
  failedId: number,
  retry: Omit<FireTable, 'id'>,
  alarm: OwedAlarm | undefined,
): Promise<number | null> {
  const { db } = conn;
  return inSqliteWrite(conn, () => {
    const take = db
      .updateTable('fire')
      .set({ retry_fire_id: 0, ...owedAlarmColumns(alarm) })
      .where('id', '=', failedId)
      .where('retry_fire_id', 'is', null)
      .compile();
    if (prepared(conn, take.sql).run(...take.parameters).changes === 0) return null;
    const insert = db.insertInto('fire').values(retry).returning('id').compile();
    const { id } = prepared(conn, insert.sql).get(...insert.parameters) as { id: number };
    const link = db.updateTable('fire').set({ retry_fire_id: id }).where('id', '=', failedId).compile();
    prepared(conn, link.sql).run(...link.parameters);
    return id;
  });
}

/** The columns a decision that alarms sets besides the decision itself. */
function owedAlarmColumns(alarm: OwedAlarm | undefined) {
  return alarm === undefined ? {} : { alarm_status: ALARM_OWED, alarm_held_until: alarm.heldUntil };
}
