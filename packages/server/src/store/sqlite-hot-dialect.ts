/**
 * Kysely's SQLite dialect with one change: a write the query builder runs outside a transaction
 * (an INSERT, UPDATE or DELETE: the node's heartbeat, its leases, an executor's registration, an
 * edit through the API) goes to the hot statements' thread while that runs
 * (sqlite-hot-thread.ts), instead of the server's connection.
 *
 * SQLite lets one writer at a time, and at high rates the hot thread writes most of every second.
 * A write on the server's connection then waits for the lock on `busy_timeout`, and
 * better-sqlite3 waits synchronously, in SQLite's busy handler, which sleeps 1, 2, 5, 10, 20 ms
 * between tries: the event loop stood still that long for each heartbeat at 10,000 fires a second
 * (bench/fire: 234 heartbeats held it 4.6 s in 80). On the thread the write queues behind the hot
 * statements instead, and the event loop goes on claiming and sending meanwhile.
 *
 * Reads, raw SQL (pragmas, migrations, `sql` templates) and every statement inside a Kysely
 * transaction stay on the server's connection, as before. A routed write is one statement in a
 * transaction of its own on the other connection, which is what an autocommit statement on this
 * one is: it sees what was committed before it, and what runs after its answer sees it.
 */
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  SqliteDialect,
  type SqliteDialectConfig,
  type TransactionSettings,
} from 'kysely';
import type { SqliteHotThread } from './sqlite-hot-thread.js';

/** What the thread answers for one routed statement (`exec`). */
export interface SqliteExecResult {
  rows: unknown[];
  changes?: number;
  lastInsertRowid?: number | bigint;
}

/** The statement kinds that write; anything else stays on the server's connection. */
const WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

/** Kysely's SQLite dialect whose writes outside transactions go to `hot` while it runs. */
export class SqliteHotDialect extends SqliteDialect {
  private readonly hot: SqliteHotThread;

  constructor(config: SqliteDialectConfig, hot: SqliteHotThread) {
    super(config);
    this.hot = hot;
  }

  override createDriver(): Driver {
    return new HotDriver(super.createDriver(), this.hot);
  }
}

/** A connection of the inner driver, with whether a transaction is open on it. */
class HotConnection implements DatabaseConnection {
  inTransaction = false;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly hot: SqliteHotThread,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction || !this.hot.running || !WRITES.has(query.query.kind)) {
      return this.inner.executeQuery(query);
    }
    return this.hot
      .run<SqliteExecResult>('exec', { sql: query.sql, parameters: query.parameters })
      .then((result) => ({
        rows: result.rows as R[],
        ...(result.changes === undefined ? {} : { numAffectedRows: BigInt(result.changes) }),
        ...(result.lastInsertRowid === undefined ? {} : { insertId: BigInt(result.lastInsertRowid) }),
      }));
  }

  streamQuery<R>(query: CompiledQuery, chunkSize = 100): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery(query, chunkSize);
  }
}

class HotDriver implements Driver {
  private readonly wrapped = new WeakMap<DatabaseConnection, HotConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly hot: SqliteHotThread,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let hotConnection = this.wrapped.get(connection);
    if (hotConnection === undefined) {
      hotConnection = new HotConnection(connection, this.hot);
      this.wrapped.set(connection, hotConnection);
    }
    return hotConnection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const hotConnection = connection as HotConnection;
    await this.inner.beginTransaction(hotConnection.inner, settings);
    hotConnection.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const hotConnection = connection as HotConnection;
    try {
      await this.inner.commitTransaction(hotConnection.inner);
    } finally {
      hotConnection.inTransaction = false;
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const hotConnection = connection as HotConnection;
    try {
      await this.inner.rollbackTransaction(hotConnection.inner);
    } finally {
      hotConnection.inTransaction = false;
    }
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.savepoint?.((connection as HotConnection).inner, name, compileQuery);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.rollbackToSavepoint?.((connection as HotConnection).inner, name, compileQuery);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.releaseSavepoint?.((connection as HotConnection).inner, name, compileQuery);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as HotConnection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
