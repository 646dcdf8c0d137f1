/**
 * The driver handles behind a store. Everything that is not hot goes through the Kysely
 * instance; the hot statements (hot/) use the same pool or database handle directly so each
 * dialect gets its own SQL and its own transaction shape.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Pool as MysqlPool, PoolConnection as MysqlPoolConnection } from 'mysql2/promise';
import type pg from 'pg';
import type { LooseMode } from '../security/owner-only-files.js';
import type { Database } from './schema.js';
import type { SqliteCheckpointer } from './sqlite-checkpointer.js';
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

/** The prepared statement for `sql`, compiled on first use. */
export function prepared(conn: SqliteConnection, sql: string): BetterSqlite3.Statement {
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

/** Runs `work` in one transaction on one pooled PostgreSQL connection. */
export async function inPostgresTransaction<T>(
  conn: PostgresConnection,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await conn.pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (err) {
    // A connection that cannot even roll back is broken: destroy it rather than pool it.
    const rolledBack = await client.query('ROLLBACK').then(
      () => true,
      () => false,
    );
    client.release(!rolledBack);
    throw err;
  }
}

/** Runs `work` in one transaction on one pooled MySQL connection (READ COMMITTED, set per session at connect). */
export async function inMysqlTransaction<T>(
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
