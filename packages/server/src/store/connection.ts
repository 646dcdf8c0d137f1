/**
 * The driver handles behind a store. Everything that is not hot goes through the Kysely
 * instance; the hot statements (hot/) use the same pool or database handle directly so each
 * dialect gets its own SQL and its own transaction shape.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery, Kysely } from 'kysely';
import type { Pool as MysqlPool, PoolConnection as MysqlPoolConnection } from 'mysql2/promise';
import type pg from 'pg';
import type { LooseMode } from '../security/owner-only-files.js';
import type { Database } from './schema.js';
import type { SqliteCheckpointer } from './sqlite-checkpointer.js';
import type { SqliteHotOp, SqliteHotThread } from './sqlite-hot-thread.js';
import type { SqliteReaderThread } from './sqlite-reader-thread.js';

export interface SqliteConnection {
  dialect: 'sqlite';
  db: Kysely<Database>;
  sqlite: BetterSqlite3.Database;
  /** Prepared statements by SQL text, compiled once per connection. */
  statements: Map<string, BetterSqlite3.Statement>;
  /** Long reads (a day of fire records) off the server's thread; none for an in-memory database. */
  reader?: SqliteReaderThread;
  /** The WAL checkpoints off the server's thread, once the server starts it; none for an in-memory database. */
  checkpointer?: SqliteCheckpointer;
  /** The hot statements (claim, load, fence, marks, results) off the server's thread, once the server starts it; none for an in-memory database. */
  hot?: SqliteHotThread;
  /**
   * The store's directory and files found open to other users when it was opened, now narrowed
   * to owner-only (sqlite-files.ts), for the server to warn about; none for an in-memory database.
   */
  looseModes?: LooseMode[];
}

export interface PostgresConnection {
  dialect: 'postgres';
  db: Kysely<Database>;
  pool: pg.Pool;
}

export interface MysqlConnection {
  dialect: 'mysql';
  db: Kysely<Database>;
  pool: MysqlPool;
}

export type StoreConnection = SqliteConnection | PostgresConnection | MysqlConnection;

/** A SQLite database handle and its prepared statements: the server's connection or the hot thread's. */
export type SqliteStatements = Pick<SqliteConnection, 'sqlite' | 'statements'>;

/** The prepared statement for `sql`, compiled on first use. */
export function prepared(conn: SqliteStatements, sql: string): BetterSqlite3.Statement {
  let statement = conn.statements.get(sql);
  if (statement === undefined) {
    statement = conn.sqlite.prepare(sql);
    conn.statements.set(sql, statement);
  }
  return statement;
}

/**
 * Runs `work` in one `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so two
 * writers queue on busy_timeout instead of failing on a lock upgrade. The work is synchronous
 * and runs while holding Kysely's connection, so it never lands inside a Kysely transaction that
 * is waiting on an await.
 */
export async function inSqliteWrite<T>(conn: SqliteConnection, work: () => T): Promise<T> {
  return conn.db.connection().execute(async () => conn.sqlite.transaction(work).immediate());
}

/**
 * Runs a read that may scan (a sweep's, a report's) off the event loop: on SQLite on the reader
 * thread (sqlite-reader-thread.ts), since better-sqlite3 runs a statement on the thread that calls
 * it — at 10,000 fires a second the monitors' sweeps held the server's thread 20 to 150 ms each,
 * 7 s in 80 (bench/fire). It sees the last committed state, as the server's connection would.
 * Elsewhere it runs on the pool as any statement.
 */
export function readAside<R>(conn: StoreConnection, query: CompiledQuery<R>): Promise<R[]> {
  const reader = conn.dialect === 'sqlite' ? conn.reader : undefined;
  if (reader === undefined) return conn.db.executeQuery(query).then((result) => result.rows);
  return reader.read(query);
}

/** The hot ops that only read; every other is a write, run in a `BEGIN IMMEDIATE` transaction of its own. */
export const SQLITE_HOT_READS: ReadonlySet<SqliteHotOp> = new Set(['load']);

/**
 * Calls of at most this many rows run on the server's connection instead of the hot thread when
 * the thread has nothing to do (inSqliteHot). At a hundred fires a second each fire's load, fence
 * and result were a call of one row each, and each call two wakes of a sleeping thread (the hot
 * thread's, then the server's for the answer): about 80 µs of CPU a call on a virtual machine,
 * more than a one-row statement itself (docs/benchmarks.md, a seventeenth session). A call this
 * small holds the event loop a fraction of a millisecond; the busy thread of high rates keeps all
 * of them.
 */
export const SQLITE_INLINE_ROWS = 8;

/**
 * Runs a hot statement's work: on the hot thread (`op` with `arg`, sqlite-hot-thread.ts) while it
 * runs, otherwise `local` on the server's connection — in a write transaction, or for the reads
 * (SQLITE_HOT_READS) under Kysely's connection. Both run the same function of the same module; only
 * the connection and the thread differ.
 *
 * `rows`: the call's size. A call of SQLITE_INLINE_ROWS rows or fewer runs `local` on the server's
 * connection when the hot thread is idle (no call on it or waiting for it), checked again once
 * Kysely's connection is held: the thread then holds no lock the write would wait for on the
 * event loop, and every call before it has been answered. The claim passes none (it stays on the
 * thread: a hundred jobs' planning).
 */
export async function inSqliteHot<T>(
  conn: SqliteConnection,
  op: SqliteHotOp,
  arg: unknown,
  local: () => T,
  rows = Number.POSITIVE_INFINITY,
): Promise<T> {
  const hot = conn.hot;
  if (hot?.running && (rows > SQLITE_INLINE_ROWS || !hot.idle)) return hot.run<T>(op, arg);
  return conn.db.connection().execute(async () => {
    // A small call whose thread took calls meanwhile goes behind them.
    if (hot?.running && !hot.idle) return hot.run<T>(op, arg);
    return SQLITE_HOT_READS.has(op) ? local() : conn.sqlite.transaction(local).immediate();
  });
}

/**
 * Rows per record-only call (marks, results) on the hot thread. Such a batch may hold 10,000
 * rows after a burst, which would hold the thread for 100–200 ms while the next second's loads,
 * fences and claims wait; in parts, each a transaction of its own, those go between the parts.
 * A mark or a result is each its own, so nothing needs them in one transaction.
 */
const HOT_PART_ROWS = 250;

/** `items` in parts of HOT_PART_ROWS while the hot thread runs, else whole (one transaction, as before). */
export function sqliteHotParts<T>(conn: SqliteConnection, items: readonly T[]): (readonly T[])[] {
  if (!conn.hot?.running || items.length <= HOT_PART_ROWS) return [items];
  const parts: T[][] = [];
  for (let i = 0; i < items.length; i += HOT_PART_ROWS) parts.push(items.slice(i, i + HOT_PART_ROWS));
  return parts;
}

/**
 * A PostgreSQL transaction whose BEGIN and COMMIT this process does not wait for: the BEGIN is
 * queued with the first statement and the COMMIT with the last. node-postgres sends a client's
 * queued statements one after another, each from its socket handler as the one before is
 * answered, so the next goes out without a turn of the event loop, and the COMMIT without waiting
 * for the code that reads the last answer. On a busy node each wait for an answer is a wait for
 * the event loop as well as for the database: the claim, one transaction at a time, waited four
 * times for its two statements, and now twice.
 */
export interface PostgresTransaction {
  /**
   * Runs the transaction's next statement. The first one goes out behind the BEGIN, and its
   * answer waits for the BEGIN's too, so a transaction that could not begin runs nothing more.
   */
  query<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
  /**
   * Runs the transaction's last statement with the COMMIT right behind it. A statement that
   * fails aborts the transaction, and the COMMIT then rolls it back; the statement's error is
   * what this throws. Nothing may run in the transaction after it.
   */
  queryAndCommit<R extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
}

/**
 * Runs `work` in one transaction on one pooled PostgreSQL connection (see PostgresTransaction).
 * `settings` (`SET LOCAL` statements, constant text) go with the BEGIN and last as long as the
 * transaction. When `work` returns without `queryAndCommit`, the COMMIT follows on its own.
 */
export async function inPostgresTransaction<T>(
  conn: PostgresConnection,
  work: (tx: PostgresTransaction) => Promise<T>,
  settings?: string,
): Promise<T> {
  const client = await conn.pool.connect();
  let begun: Promise<unknown> | undefined = client.query(
    settings === undefined ? 'BEGIN' : `BEGIN; ${settings}`,
  );
  // Its failure is thrown by the first statement's answer, or below when there is none.
  begun.catch(() => {});
  let committed = false;
  const afterBegin = <R>(answer: Promise<R>): Promise<R> => {
    if (begun === undefined) return answer;
    const both = Promise.all([begun, answer]).then(([, result]) => result);
    begun = undefined;
    return both;
  };
  const tx: PostgresTransaction = {
    query: (config) => afterBegin(client.query(config)),
    queryAndCommit: async (config) => {
      const answer = afterBegin(client.query(config));
      const commit = client.query('COMMIT');
      committed = true;
      const [result] = await Promise.all([answer, commit]);
      return result;
    },
  };
  try {
    const result = await work(tx);
    if (begun !== undefined) await begun;
    if (!committed) await client.query('COMMIT');
    client.release();
    return result;
  } catch (err) {
    // A connection that cannot even roll back is broken: destroy it rather than pool it. After a
    // COMMIT that rolled an aborted transaction back, the ROLLBACK only warns.
    const rolledBack = await client.query('ROLLBACK').then(
      () => true,
      () => false,
    );
    client.release(!rolledBack);
    throw err;
  }
}

/**
 * Runs `work` in one transaction on one pooled MySQL connection (READ COMMITTED, set per session
 * at connect). A transaction InnoDB rolls back as a deadlock's victim is run once more, whole, in
 * a new transaction: the hot statements lock their rows in id order, yet two batches of one
 * record set (a duplicated callback reaching two nodes) were once seen to deadlock in CI, and
 * InnoDB asks its clients to retry. `work` must be safe to run again: its only effects are the
 * transaction's, which the rollback undid.
 */
export async function inMysqlTransaction<T>(
  conn: MysqlConnection,
  work: (connection: MysqlPoolConnection) => Promise<T>,
): Promise<T> {
  try {
    return await inMysqlTransactionOnce(conn, work);
  } catch (err) {
    if (!isMysqlDeadlock(err)) throw err;
    return inMysqlTransactionOnce(conn, work);
  }
}

/** True for InnoDB's "Deadlock found when trying to get lock" (the transaction was rolled back). */
function isMysqlDeadlock(err: unknown): boolean {
  return (err as { errno?: number } | null)?.errno === MYSQL_LOCK_DEADLOCK;
}

const MYSQL_LOCK_DEADLOCK = 1213;

async function inMysqlTransactionOnce<T>(
  conn: MysqlConnection,
  work: (connection: MysqlPoolConnection) => Promise<T>,
): Promise<T> {
  const connection = await conn.pool.getConnection();
  try {
    await connection.beginTransaction();
    const result = await work(connection);
    await connection.commit();
    connection.release();
    return result;
  } catch (err) {
    const rolledBack = await connection.rollback().then(
      () => true,
      () => false,
    );
    if (rolledBack) connection.release();
    else connection.destroy();
    throw err;
  }
}
