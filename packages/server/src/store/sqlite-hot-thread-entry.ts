/**
 * The hot statements' thread (sqlite-hot-thread.ts): its own connection to the store's file, and
 * each call run by the same function of the hot module the server's connection would run, a
 * write in a `BEGIN IMMEDIATE` transaction of its own. Calls are answered one at a time, in the
 * order they came; `{ type: 'close' }` closes the connection once the calls before it are done.
 */
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { planDueJob } from '../scheduling/plan-due-job.js';
import type { SqliteStatements } from './connection.js';
import {
  claimSqliteRows,
  claimSqliteWhole,
  type PlanOutcome,
  type SqliteClaimArg,
  type SqliteDueArg,
  type SqliteWholeClaimAnswer,
  type SqliteWholeClaimArg,
  selectDueSqlite,
} from './hot/claim.js';
import { markSqliteRows, type SqliteMarkArg } from './hot/dispatch-marks.js';
import { loadSqlite } from './hot/due-load.js';
import { finishSqliteRows } from './hot/finish.js';
import { fenceSqliteRows, type SqliteFenceArg } from './hot/send-fence.js';
import type {
  SqliteHotAnswer,
  SqliteHotCall,
  SqliteHotOp,
  SqliteHotThreadData,
} from './sqlite-hot-thread.js';

const port = parentPort;
if (port === null) throw new Error('sqlite-hot-thread-entry.js runs only as a worker thread');
const data = workerData as SqliteHotThreadData;

/** Each call: whether it writes (a transaction of its own), and what it runs. */
const OPS: Record<SqliteHotOp, { write: boolean; run: (conn: SqliteStatements, arg: never) => unknown }> = {
  wholeClaim: { write: true, run: (conn, arg: SqliteWholeClaimArg) => wholeClaim(conn, arg) },
  due: { write: false, run: (conn, arg: SqliteDueArg) => selectDueSqlite(conn, arg) },
  claim: { write: true, run: (conn, arg: SqliteClaimArg) => claimSqliteRows(conn, arg) },
  load: { write: false, run: (conn, ids: number[]) => loadSqlite(conn, ids) },
  fence: { write: true, run: (conn, arg: SqliteFenceArg) => fenceSqliteRows(conn, arg) },
  mark: { write: true, run: (conn, arg: SqliteMarkArg) => markSqliteRows(conn, arg) },
  finish: { write: true, run: (conn, rows: string) => finishSqliteRows(conn, rows) },
};

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
    const { write, run } = OPS[op];
    const connection = conn;
    const result = write
      ? connection.sqlite.transaction(() => run(connection, arg as never)).immediate()
      : run(connection, arg as never);
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

/** The whole claim, planned here as the planner would (plan-due-job.ts); the planner applies the outcomes. */
function wholeClaim(conn: SqliteStatements, arg: SqliteWholeClaimArg): SqliteWholeClaimAnswer {
  const firedNow = new Set(arg.firedNow);
  const outcomes: PlanOutcome[] = [];
  const result = claimSqliteWhole(conn, arg.request, (job) => {
    const { plan, ...outcome } = planDueJob(job, arg.request.nowMs, arg.misfireWindowMs, firedNow);
    if (outcome.firedNow) firedNow.add(job.id);
    outcomes.push(outcome);
    return plan;
  });
  return { result, outcomes };
}
