/**
 * The store side of child jobs: what a success owes, and the child records that pay it.
 *
 * `fire.children_status` says it: the statement that finishes a record as `succeeded` sets it
 * to OWED when the record's job has child jobs (hot/finish.ts), in that same statement, so a
 * success never exists without its debt. The child records are inserted in one transaction with
 * a compare-and-set of the parent from OWED to FIRED: they exist exactly when the parent says
 * FIRED, and of two nodes (the result hook and the sweep after a crash) only one creates them.
 */
import { type Kysely, sql } from 'kysely';
import { inSqliteWrite, prepared, type SqliteConnection, type StoreConnection } from './connection.js';
import { CHILDREN_STATUS } from './fire-status.js';
import { type NewFire, newFireRow } from './fires.js';
import { insertReturningId } from './insert-id.js';
import type { Database, FireRow, FireTable } from './schema.js';

export interface OwedChildrenQuery {
  /** Only records scheduled at or after this instant (the sweep looks back a bounded window). */
  scheduledFrom: number;
  /** Only records finished at or before this instant (the result hook's own turn comes first). */
  finishedBefore: number;
  limit: number;
}

export function createChildFireRepository(conn: StoreConnection) {
  const { db } = conn;

  /**
   * Pays the children `parentFireId` owes: moves it from OWED to FIRED and inserts `children`
   * (pending, no claim key) in one transaction. Returns the child records' ids in order, or null
   * when the parent owed nothing any more (another node paid it, or it never owed).
   */
  async function createChildFires(
    parentFireId: number,
    children: readonly NewFire[],
    nowMs: number,
  ): Promise<number[] | null> {
    const rows = children.map((child) => newFireRow(child, nowMs));
    if (conn.dialect === 'sqlite') return createChildFiresSqlite(conn, parentFireId, rows);
    return db.transaction().execute(async (trx) => {
      const taken = await trx
        .updateTable('fire')
        .set({ children_status: CHILDREN_STATUS.FIRED })
        .where('id', '=', parentFireId)
        .where('children_status', '=', CHILDREN_STATUS.OWED)
        .executeTakeFirst();
      if (taken.numUpdatedRows === 0n) return null;
      if (rows.length === 0) return [];
      if (conn.dialect === 'postgres') {
        const inserted = await trx.insertInto('fire').values(rows).returning('id').execute();
        return inserted.map((row) => row.id);
      }
      // MySQL reports only the first id of a multi-row insert (see fires.ts): one by one.
      const ids: number[] = [];
      for (const row of rows) ids.push(await insertReturningId('mysql', trx.insertInto('fire').values(row)));
      return ids;
    });
  }

  /**
   * Settles records that owed children but fire none (a shard's success: its broadcast fires
   * them; a job that no longer has child jobs): OWED → NONE. Returns how many it changed.
   */
  async function clearOwedChildren(fireIds: readonly number[]): Promise<number> {
    if (fireIds.length === 0) return 0;
    const result = await db
      .updateTable('fire')
      .set({ children_status: CHILDREN_STATUS.NONE })
      .where('id', 'in', [...fireIds])
      .where('children_status', '=', CHILDREN_STATUS.OWED)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * Records whose children are still owed (their node stopped between the result and the child
   * records), oldest first. The status is a literal, not a parameter, so PostgreSQL and SQLite
   * read the partial index of owed records (migration 0006): the few owed records, however
   * many million others there are.
   */
  async function findOwedChildren(query: OwedChildrenQuery): Promise<FireRow[]> {
    return selectOwedChildren(db, query).execute();
  }

  return { createChildFires, clearOwedChildren, findOwedChildren };
}

export type ChildFireRepository = ReturnType<typeof createChildFireRepository>;

/** The owed-children sweep's query (exported for the query-plan tests). */
export function selectOwedChildren(db: Kysely<Database>, query: OwedChildrenQuery) {
  return db
    .selectFrom('fire')
    .selectAll()
    .where('children_status', '=', sql.lit(CHILDREN_STATUS.OWED))
    .where('scheduled_at', '>=', query.scheduledFrom)
    .where('handle_at', '<=', query.finishedBefore)
    .orderBy('scheduled_at')
    .orderBy('id')
    .limit(query.limit);
}

/**
 * The compare-and-set and the inserts in one `BEGIN IMMEDIATE` transaction (see retries.ts for
 * why not a Kysely transaction on SQLite).
 */
function createChildFiresSqlite(
  conn: SqliteConnection,
  parentFireId: number,
  rows: readonly Omit<FireTable, 'id'>[],
): Promise<number[] | null> {
  const { db } = conn;
  return inSqliteWrite(conn, () => {
    const take = db
      .updateTable('fire')
      .set({ children_status: CHILDREN_STATUS.FIRED })
      .where('id', '=', parentFireId)
      .where('children_status', '=', CHILDREN_STATUS.OWED)
      .compile();
    if (prepared(conn, take.sql).run(...take.parameters).changes === 0) return null;
    return rows.map((row) => {
      const insert = db.insertInto('fire').values(row).returning('id').compile();
      return (prepared(conn, insert.sql).get(...insert.parameters) as { id: number }).id;
    });
  });
}
