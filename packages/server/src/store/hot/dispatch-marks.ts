/**
 * Dispatch marks: after the dispatcher sent (or failed to send) `run`, the fire records take the
 * dispatch's outcome in batches, one multi-row statement and one transaction per batch.
 *
 * Rows are locked in id order (the marks are sorted, and PostgreSQL and MySQL lock them with an
 * ordered locking read first), as finish.ts does: a mark batch and a result batch over the same
 * records then queue behind each other instead of deadlocking.
 *
 * The status moves only from `pending`: a result can race ahead of its own dispatch mark (a
 * fast job's callback is written before the dispatcher's batch), and a mark must never pull a
 * finished record back. The dispatch fields (time, address, instance, code, message) are written
 * either way, because the dispatch did happen.
 */
import {
  inMysqlTransaction,
  inSqliteHot,
  type MysqlConnection,
  type PostgresConnection,
  prepared,
  type SqliteConnection,
  type SqliteStatements,
  type StoreConnection,
  sqliteHotParts,
} from '../connection.js';
import { pgBigints, pgInts, pgTexts } from './pg-array.js';

/** The outcome of one dispatch. */
export interface DispatchMark {
  fireId: number;
  /** When `run` was sent. */
  triggerAt: number;
  /** The executor that was (or would have been) called; null when no executor was online. */
  executorAddress: string | null;
  /** ReturnT code of the `run` call: 200 accepted, 500 refused or unreachable. */
  triggerCode: number;
  /** What the dispatch did, for the console (route, address, response). */
  triggerMsg: string;
  /**
   * The executor instance that answered `run` (its `Tickwheel-Instance` header); null or absent
   * when it announced none (XXL-JOB executors) or did not answer.
   */
  executorInstance?: string | null;
}

type MarkStatus = 'dispatched' | 'dispatch_failed';

/** Records accepted dispatches: pending → dispatched. Returns how many records changed status. */
export async function markDispatched(conn: StoreConnection, marks: readonly DispatchMark[]): Promise<number> {
  return markDispatch(conn, marks, 'dispatched');
}

/** Records failed dispatches: pending → dispatch_failed. Returns how many records changed status. */
export async function markDispatchFailed(
  conn: StoreConnection,
  marks: readonly DispatchMark[],
): Promise<number> {
  return markDispatch(conn, marks, 'dispatch_failed');
}

async function markDispatch(
  conn: StoreConnection,
  marks: readonly DispatchMark[],
  to: MarkStatus,
): Promise<number> {
  const unique = lastMarkPerFire(marks);
  if (unique.length === 0) return 0;
  if (conn.dialect === 'postgres') return markPostgres(conn, unique, to);
  if (conn.dialect === 'mysql') return markMysql(conn, unique, to);
  return markSqlite(conn, unique, to);
}

/** A batch may carry a fire twice (a re-dispatch); the later mark wins, as it would one by one. In id order. */
function lastMarkPerFire(marks: readonly DispatchMark[]): DispatchMark[] {
  return [...new Map(marks.map((mark) => [mark.fireId, mark])).values()].sort((a, b) => a.fireId - b.fireId);
}

// `locked` takes the row locks in id order before the UPDATE touches a row, and reads each row's
// status as it is once locked (a locking read sees the newest committed version): that is the
// status before this mark, for the count.
const PG_MARK = `WITH locked AS (
  SELECT id, status FROM fire WHERE id = ANY($2::bigint[]) ORDER BY id FOR UPDATE
), marked AS (
  UPDATE fire AS f
  SET status = CASE WHEN f.status = 'pending' THEN $1 ELSE f.status END,
      trigger_at = v.trigger_at, executor_address = v.executor_address,
      trigger_code = v.trigger_code, trigger_msg = v.trigger_msg, executor_instance = v.executor_instance
  FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::int[], $6::text[], $7::text[])
         AS v(id, trigger_at, executor_address, trigger_code, trigger_msg, executor_instance),
       locked
  WHERE f.id = v.id AND locked.id = f.id
  RETURNING locked.status AS status_before
)
SELECT count(*) AS changed FROM marked WHERE status_before = 'pending'`;

async function markPostgres(conn: PostgresConnection, marks: readonly DispatchMark[], to: MarkStatus) {
  // One statement on its own (its own transaction): no BEGIN and COMMIT round trips around it.
  const result = await conn.pool.query<{ changed: number }>({
    name: 'tw_mark_dispatch_instance',
    text: PG_MARK,
    values: [
      to,
      pgBigints(marks.map((m) => m.fireId)),
      pgBigints(marks.map((m) => m.triggerAt)),
      pgTexts(marks.map((m) => m.executorAddress)),
      pgInts(marks.map((m) => m.triggerCode)),
      pgTexts(marks.map((m) => m.triggerMsg)),
      pgTexts(marks.map((m) => m.executorInstance ?? null)),
    ],
  });
  return Number(result.rows[0]?.changed ?? 0);
}

function mysqlMarkStatement(count: number): string {
  const row =
    'SELECT ? AS id, ? AS trigger_at, ? AS executor_address, ? AS trigger_code, ? AS trigger_msg, ? AS executor_instance';
  const rows = [row, ...Array.from({ length: count - 1 }, () => 'SELECT ?, ?, ?, ?, ?, ?')].join(
    ' UNION ALL ',
  );
  // `status` is assigned first: MySQL evaluates SET left to right and the CASE must see the old status.
  return `UPDATE fire f JOIN (${rows}) v ON f.id = v.id
SET f.status = CASE WHEN f.status = 'pending' THEN ? ELSE f.status END,
    f.trigger_at = v.trigger_at, f.executor_address = v.executor_address,
    f.trigger_code = v.trigger_code, f.trigger_msg = v.trigger_msg, f.executor_instance = v.executor_instance`;
}

async function markMysql(conn: MysqlConnection, marks: readonly DispatchMark[], to: MarkStatus) {
  return inMysqlTransaction(conn, async (connection) => {
    // Every row of the batch, in id order, before the UPDATE … JOIN locks any in its own order.
    const [locked] = await connection.query(
      'SELECT id, status FROM fire WHERE id IN (?) ORDER BY id FOR UPDATE',
      [marks.map((m) => m.fireId)],
    );
    await connection.query(mysqlMarkStatement(marks.length), [
      ...marks.flatMap((m) => [
        m.fireId,
        m.triggerAt,
        m.executorAddress,
        m.triggerCode,
        m.triggerMsg,
        m.executorInstance ?? null,
      ]),
      to,
    ]);
    return (locked as { status: string }[]).filter((row) => row.status === 'pending').length;
  });
}

// Each row of the JSON array: [id, trigger_at, executor_address, trigger_code, trigger_msg,
// executor_instance]. One
// writer at a time (BEGIN IMMEDIATE), so the count read first is the status before the UPDATE. The
// unary `+` keeps SQLite off the status index (it would scan every pending record). The count
// takes the ids alone: picking them out of the mark rows cost it a JSON parse per row.
export const SQLITE_PENDING = `SELECT count(*) AS n FROM fire
WHERE id IN (SELECT value FROM json_each(?)) AND +status = 'pending'`;

export const SQLITE_MARK = `UPDATE fire
SET status = CASE WHEN status = 'pending' THEN ? ELSE status END,
    trigger_at = v.value ->> 1, executor_address = v.value ->> 2,
    trigger_code = v.value ->> 3, trigger_msg = v.value ->> 4, executor_instance = v.value ->> 5
FROM json_each(?) AS v
WHERE fire.id = v.value ->> 0`;

async function markSqlite(conn: SqliteConnection, marks: readonly DispatchMark[], to: MarkStatus) {
  const parts = sqliteHotParts(conn, marks);
  if (parts.length === 1) return markSqlitePart(conn, marks, to);
  const counts = await Promise.all(parts.map((part) => markSqlitePart(conn, part, to)));
  return counts.reduce((sum, n) => sum + n, 0);
}

async function markSqlitePart(conn: SqliteConnection, marks: readonly DispatchMark[], to: MarkStatus) {
  const rows = JSON.stringify(
    marks.map((m) => [
      m.fireId,
      m.triggerAt,
      m.executorAddress,
      m.triggerCode,
      m.triggerMsg,
      m.executorInstance ?? null,
    ]),
  );
  const arg: SqliteMarkArg = { to, rows, ids: JSON.stringify(marks.map((m) => m.fireId)) };
  return inSqliteHot(conn, 'mark', arg, () => markSqliteRows(conn, arg), marks.length);
}

/** A batch of marks as the SQLite statements take it (JSON rows as above, the ids alone). */
export interface SqliteMarkArg {
  to: MarkStatus;
  rows: string;
  ids: string;
}

/** The marks on a SQLite connection (the server's or the hot thread's), in its write transaction. */
export function markSqliteRows(conn: SqliteStatements, { to, rows, ids }: SqliteMarkArg): number {
  const pending = prepared(conn, SQLITE_PENDING).get(ids) as { n: number };
  prepared(conn, SQLITE_MARK).run(to, rows);
  return pending.n;
}
