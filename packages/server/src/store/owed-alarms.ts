/**
 * The store side of owed alarms. The failure decision that alarms a record sets its
 * `alarm_status` to OWED in the same statement that takes the decision (retries.ts), with
 * `alarm_held_until` = a little while on: the alarm queue of that node holds the alarm and
 * renews the hold until it records SENT or FAILED. An owed alarm whose hold ran out was lost
 * with its node's memory (a crash, a restart); the owed-alarm sweep takes it over by a
 * compare-and-set on the hold as read and sends it again.
 */
import { type Kysely, sql } from 'kysely';
import type { StoreConnection } from './connection.js';
import type { Database, FireRow } from './schema.js';

/** `alarm_status` of an alarm decided and not yet settled (XXL-JOB's "locked" value, -1). */
export const ALARM_OWED = -1;

/** What a failure decision that alarms writes with the decision. */
export interface OwedAlarm {
  /** The queue of the deciding node vouches for the alarm until then. */
  heldUntil: number;
}

export interface OwedAlarmQuery {
  /** Only alarms whose hold ran out before this instant. */
  heldBefore: number;
  limit: number;
}

export function createOwedAlarmRepository(conn: StoreConnection) {
  const { db } = conn;

  /**
   * Owed alarms no queue vouches for any more, longest unheld first. The status is a literal,
   * not a parameter, so PostgreSQL and SQLite read the partial index of owed alarms (0006).
   */
  async function findUnheldAlarms(query: OwedAlarmQuery): Promise<FireRow[]> {
    return selectUnheldAlarms(db, query).execute();
  }

  /**
   * Takes an unheld alarm over: a compare-and-set of its hold as `fire` read it. True when this
   * call won it (of two sweeps, or a sweep and a late renewal, one does).
   */
  async function takeUnheldAlarm(
    fire: Pick<FireRow, 'id' | 'alarm_held_until'>,
    heldUntil: number,
  ): Promise<boolean> {
    const result = await db
      .updateTable('fire')
      .set({ alarm_held_until: heldUntil })
      .where('id', '=', fire.id)
      .where('alarm_status', '=', ALARM_OWED)
      .where('alarm_held_until', '=', fire.alarm_held_until ?? 0)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Extends the hold of the owed alarms among `fireIds` (a queue still has them); returns how many. */
  async function renewAlarmHolds(fireIds: readonly number[], heldUntil: number): Promise<number> {
    if (fireIds.length === 0) return 0;
    const result = await db
      .updateTable('fire')
      .set({ alarm_held_until: heldUntil })
      .where('id', 'in', [...fireIds])
      .where('alarm_status', '=', ALARM_OWED)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  return { findUnheldAlarms, takeUnheldAlarm, renewAlarmHolds };
}

export type OwedAlarmRepository = ReturnType<typeof createOwedAlarmRepository>;

/** The owed-alarm sweep's query (exported for the query-plan tests). */
export function selectUnheldAlarms(db: Kysely<Database>, query: OwedAlarmQuery) {
  return db
    .selectFrom('fire')
    .selectAll()
    .where('alarm_status', '=', sql.lit(ALARM_OWED))
    .where('alarm_held_until', '<', query.heldBefore)
    .orderBy('alarm_held_until')
    .orderBy('id')
    .limit(query.limit);
}
