/**
 * The long reads' thread (sqlite-reader-thread.ts): its own read-only connection to the store's
 * file. Each read is answered with its rows (or the error), its statement prepared once and kept
 * for the next read of the same SQL; `{ type: 'close' }` closes the connection.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type { SqliteReadAnswer, SqliteReadCall, SqliteReaderThreadData } from './sqlite-reader-thread.js';

const port = parentPort;
if (port === null) throw new Error('sqlite-reader-thread-entry.js runs only as a worker thread');
const data = workerData as SqliteReaderThreadData;

// Linux: the lowest CPU priority for this thread alone (a thread's task id is its own).
try {
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0) setPriority(tid, 19);
} catch {}

let db: BetterSqlite3.Database | undefined;
const statements = new Map<string, BetterSqlite3.Statement<unknown[]>>();
try {
  db = new BetterSqlite3(data.file, { readonly: true, fileMustExist: true });
  db.pragma(`busy_timeout = ${Number(data.busyTimeoutMs)}`);
  port.postMessage({ type: 'ready' });
} catch (err) {
  port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
}

port.on('message', (message: SqliteReadCall) => {
  if (message.type === 'close') {
    try {
      db?.close();
    } catch {}
    port.close();
    return;
  }
  port.postMessage(answer(message));
});

function answer({ seq, sql, parameters }: Extract<SqliteReadCall, { type: 'read' }>): SqliteReadAnswer {
  try {
    if (db === undefined) throw new Error('the reader thread has no connection');
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return { type: 'rows', seq, rows: statement.all(...parameters) };
  } catch (err) {
    return { type: 'error', seq, message: err instanceof Error ? err.message : String(err) };
  }
}
