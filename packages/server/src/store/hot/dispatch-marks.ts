/**
 * Dispatch marks: after the dispatcher sent (or failed to send) `run`, the fire records take the
 * dispatch's outcome in batches, one multi-row statement and one transaction per batch.
 *
 * The status moves only from `pending`: a result can race ahead of its own dispatch mark (a
 * fast job's callback is written before the dispatcher's batch), and a mark must never pull a
 * finished record back. The dispatch fields (time, address, code, message) are written either
 * way, because the dispatch did happen.
 */
import {
  inMysqlTransaction,
  inPostgresTransaction,
  inSqliteWrite,
  type MysqlConnection,
  type PostgresConnection,
  prepared,
  type SqliteConnection,
  type StoreConnection,
} from '../connection.js';

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

/** A batch may carry a fire twice (a re-dispatch); the later mark wins, as it would one by one. */
function lastMarkPerFire(marks: readonly DispatchMark[]): DispatchMark[] {
  return [...new Map(marks.map((mark) => [mark.fireId, mark])).values()];
}

const PG_MARK = `WITH marked AS (
  UPDATE fire AS f
  SET status = CASE WHEN f.status = 'pending' THEN $1 ELSE f.status END,
      trigger_at = v.trigger_at, executor_address = v.executor_address,
      trigger_code = v.trigger_code, trigger_msg = v.trigger_msg
  FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::int[], $6::text[])
         AS v(id, trigger_at, executor_address, trigger_code, trigger_msg),
       fire AS before
  WHERE f.id = v.id AND before.id = f.id
  RETURNING before.status AS status_before
)
SELECT count(*) AS changed FROM marked WHERE status_before = 'pending'`;

async function markPostgres(conn: PostgresConnection, marks: readonly DispatchMark[], to: MarkStatus) {
  // The self-join on `fire AS before` lets RETURNING report the status the row had before.
  return inPostgresTransaction(conn, async (client) => {
    const result = await client.query<{ changed: number }>({
      name: 'tw_mark_dispatch',
      text: PG_MARK,
      values: [
        to,
        marks.map((m) => m.fireId),
        marks.map((m) => m.triggerAt),
        marks.map((m) => m.executorAddress),
        marks.map((m) => m.triggerCode),
        marks.map((m) => m.triggerMsg),
      ],
    });
    return result.rows[0]?.changed ?? 0;
  });
}

function mysqlMarkStatement(count: number): string {
  const row = 'SELECT ? AS id, ? AS trigger_at, ? AS executor_address, ? AS trigger_code, ? AS trigger_msg';
  const rows = [row, ...Array.from({ length: count - 1 }, () => 'SELECT ?, ?, ?, ?, ?')].join(' UNION ALL ');
  // `status` is assigned first: MySQL evaluates SET left to right and the CASE must see the old status.
  return `UPDATE fire f JOIN (${rows}) v ON f.id = v.id
SET f.status = CASE WHEN f.status = 'pending' THEN ? ELSE f.status END,
    f.trigger_at = v.trigger_at, f.executor_address = v.executor_address,
    f.trigger_code = v.trigger_code, f.trigger_msg = v.trigger_msg`;
}

async function markMysql(conn: MysqlConnection, marks: readonly DispatchMark[], to: MarkStatus) {
  return inMysqlTransaction(conn, async (connection) => {
    const [pending] = await connection.query(
      "SELECT COUNT(*) AS n FROM fire WHERE id IN (?) AND status = 'pending' FOR UPDATE",
      [marks.map((m) => m.fireId)],
    );
    await connection.query(mysqlMarkStatement(marks.length), [
      ...marks.flatMap((m) => [m.fireId, m.triggerAt, m.executorAddress, m.triggerCode, m.triggerMsg]),
      to,
    ]);
    return (pending as { n: number }[])[0]?.n ?? 0;
  });
}

const SQLITE_MARK = `UPDATE fire
SET status = CASE WHEN status = 'pending' THEN ? ELSE status END,
    trigger_at = ?, executor_address = ?, trigger_code = ?, trigger_msg = ?
WHERE id = ?
RETURNING status`;

async function markSqlite(conn: SqliteConnection, marks: readonly DispatchMark[], to: MarkStatus) {
  return inSqliteWrite(conn, () => {
    const statusBefore = prepared(conn, 'SELECT status FROM fire WHERE id = ?');
    const mark = prepared(conn, SQLITE_MARK);
    let changed = 0;
    for (const m of marks) {
      const before = statusBefore.get(m.fireId) as { status: string } | undefined;
      if (before === undefined) continue;
      mark.run(to, m.triggerAt, m.executorAddress, m.triggerCode, m.triggerMsg, m.fireId);
      if (before.status === 'pending') changed += 1;
    }
    return changed;
  });
}
