/**
 * The hot statements' thread (sqlite-hot-thread.ts): its own connection to the store's file, and
 * each call run by the same function of the hot module the server's connection would run, a
 * write in a `BEGIN IMMEDIATE` transaction of its own. Calls are answered one at a time, in the
 * order they came; `{ type: 'close' }` closes the connection once the calls before it are done.
 */
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { SQLITE_HOT_READS, type SqliteStatements } from './connection.js';
import { type ClaimRequest, claimSqliteWhole } from './hot/claim.js';
import { markSqliteRows, type SqliteMarkArg } from './hot/dispatch-marks.js';
import { loadSqlite } from './hot/due-load.js';
import { finishSqliteRows } from './hot/finish.js';
import { fenceSqliteRows, type SqliteFenceArg } from './hot/send-fence.js';
import type { SqliteExecResult } from './sqlite-hot-dialect.js';
import type {
  SqliteHotAnswer,
  SqliteHotCall,
  SqliteHotOp,
  SqliteHotThreadData,
} from './sqlite-hot-thread.js';

const port = parentPort;
if (port === null) throw new Error('sqlite-hot-thread-entry.js runs only as a worker thread');
const data = workerData as SqliteHotThreadData;

/** What each call runs; a write (every op but SQLITE_HOT_READS) in a transaction of its own. */
const OPS: Record<SqliteHotOp, (conn: SqliteStatements, arg: never) => unknown> = {
  claim: (conn, request: ClaimRequest) => claimSqliteWhole(conn, request),
  load: (conn, ids: number[]) => loadSqlite(conn, ids),
  fence: (conn, arg: SqliteFenceArg) => fenceSqliteRows(conn, arg),
  mark: (conn, arg: SqliteMarkArg) => markSqliteRows(conn, arg),
  finish: (conn, rows: string) => finishSqliteRows(conn, rows),
  exec: (conn, query: ExecArg) => exec(conn, query),
};

/** One statement of the query builder's (sqlite-hot-dialect.ts). */
interface ExecArg {
  sql: string;
  parameters: readonly unknown[];
}

/** Routed statements kept prepared, least recently used dropped first (their SQL varies with list lengths). */
const EXEC_STATEMENTS = 200;
const execStatements = new Map<string, BetterSqlite3.Statement>();

/** Runs a routed statement as Kysely's SQLite driver would: `all` when it returns rows, else `run`. */
function exec(conn: SqliteStatements, { sql, parameters }: ExecArg): SqliteExecResult {
  let statement = execStatements.get(sql);
  if (statement === undefined) {
    statement = conn.sqlite.prepare(sql);
    if (execStatements.size >= EXEC_STATEMENTS) execStatements.delete(execStatements.keys().next().value!);
  } else {
    execStatements.delete(sql);
  }
  execStatements.set(sql, statement);
  if (statement.reader) return { rows: statement.all(parameters) };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { rows: [], changes, lastInsertRowid };
}

let conn: SqliteStatements | undefined;
try {
  const sqlite = new BetterSqlite3(data.file, { fileMustExist: true });
  sqlite.pragma(`busy_timeout = ${Number(data.busyTimeoutMs)}`);
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // The checkpoint thread folds the WAL back; a commit here never does (as on the server's connection).
  if (data.checkpointing) sqlite.pragma('wal_autocheckpoint = 0');
  conn = { sqlite, statements: new Map() };
  port.postMessage({ type: 'ready' });
} catch (err) {
  port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
}

port.on('message', (message: SqliteHotCall | { type: 'close' }) => {
  if ('type' in message) {
    try {
      conn?.sqlite.close();
    } catch {}
    port.close();
    return;
  }
  port.postMessage(answer(message));
});

function answer({ seq, op, arg }: SqliteHotCall): SqliteHotAnswer {
  try {
    if (conn === undefined) throw new Error('the hot statements thread has no connection');
    const run = OPS[op];
    const connection = conn;
    const result = SQLITE_HOT_READS.has(op)
      ? run(connection, arg as never)
      : connection.sqlite.transaction(() => run(connection, arg as never)).immediate();
    return { seq, ok: true, result };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return {
      seq,
      ok: false,
      message: err instanceof Error ? err.message : String(err),
      ...(typeof code === 'string' ? { code } : {}),
    };
  }
}
