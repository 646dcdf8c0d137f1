/**
 * Applies the pending migrations of the store's dialect, in order, each recorded in
 * `schema_migrations`. Safe when several server nodes start at once: PostgreSQL takes a session
 * advisory lock, MySQL/MariaDB a named lock (GET_LOCK), SQLite its write lock (BEGIN IMMEDIATE);
 * whoever comes second finds the work done. Each migration runs in a transaction where the
 * dialect allows DDL in one (PostgreSQL, SQLite); MySQL commits DDL implicitly, so its
 * migrations are written to be re-run.
 *
 * Whatever stops it (the database unreachable, the lock held too long, a statement refused) is
 * thrown as `TW_ERR_STORE_UNAVAILABLE` with the driver's error as its cause: the store cannot be
 * used until the schema is up to date.
 */
import { isTickwheelError, TickwheelError } from '@tickwheel/protocol';
import type { PoolConnection as MysqlPoolConnection } from 'mysql2/promise';
import type pg from 'pg';
import type { MysqlConnection, PostgresConnection, SqliteConnection, StoreConnection } from './connection.js';
import { MIGRATIONS, type Migration, splitStatements } from './migrations/index.js';

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER NOT NULL PRIMARY KEY,
  name VARCHAR(128) NOT NULL,
  applied_at BIGINT NOT NULL
)`;

/** Key of the PostgreSQL advisory lock; the second key is the schema's hash, so schemas migrate independently. */
const PG_MIGRATION_LOCK = 0x7457;
/** How long a MySQL node waits for another node's migration, in seconds. */
const MYSQL_LOCK_WAIT_S = 120;

/**
 * Brings the schema up to date and returns the versions this call applied (empty when another
 * node, or an earlier start, already did).
 *
 * @throws TickwheelError `TW_ERR_STORE_UNAVAILABLE` when the schema could not be brought up to date.
 *
 * @example
 * const store = await openStore({ database: 'postgres://tickwheel@db/tickwheel', migrate: false });
 * await migrate(store);
 */
export async function migrate(store: { connection: StoreConnection }): Promise<number[]> {
  const conn = store.connection;
  const migrations = MIGRATIONS[conn.dialect];
  try {
    if (conn.dialect === 'sqlite') return await migrateSqlite(conn, migrations);
    if (conn.dialect === 'postgres') return await migratePostgres(conn, migrations);
    return await migrateMysql(conn, migrations);
  } catch (err) {
    throw migrationFailed(err);
  }
}

function migrationFailed(err: unknown): TickwheelError {
  if (isTickwheelError(err)) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new TickwheelError('TW_ERR_STORE_UNAVAILABLE', `schema migration failed: ${reason}`, undefined, {
    cause: err,
  });
}

async function migrateSqlite(conn: SqliteConnection, migrations: readonly Migration[]): Promise<number[]> {
  return conn.db.connection().execute(async () => {
    const applied: number[] = [];
    for (const migration of migrations) {
      // The check runs inside the write transaction, so a second process waits and then skips.
      const ran = conn.sqlite
        .transaction(() => {
          conn.sqlite.exec(CREATE_MIGRATIONS_TABLE);
          const done = conn.sqlite
            .prepare('SELECT 1 FROM schema_migrations WHERE version = ?')
            .get(migration.version);
          if (done !== undefined) return false;
          conn.sqlite.exec(migration.sql);
          conn.sqlite
            .prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
            .run(migration.version, migration.name, Date.now());
          return true;
        })
        .immediate();
      if (ran) applied.push(migration.version);
    }
    return applied;
  });
}

async function migratePostgres(
  conn: PostgresConnection,
  migrations: readonly Migration[],
): Promise<number[]> {
  const client = await conn.pool.connect();
  let healthy = false;
  try {
    await client.query("SELECT pg_advisory_lock($1, hashtext(coalesce(current_schema(), '')))", [
      PG_MIGRATION_LOCK,
    ]);
    try {
      const applied = await applyPostgres(client, migrations);
      healthy = true;
      return applied;
    } finally {
      await client.query("SELECT pg_advisory_unlock($1, hashtext(coalesce(current_schema(), '')))", [
        PG_MIGRATION_LOCK,
      ]);
    }
  } finally {
    client.release(!healthy);
  }
}

async function applyPostgres(client: pg.PoolClient, migrations: readonly Migration[]): Promise<number[]> {
  await client.query(CREATE_MIGRATIONS_TABLE);
  const done = new Set(
    (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map(
      (r) => r.version,
    ),
  );
  const applied: number[] = [];
  for (const migration of migrations) {
    if (done.has(migration.version)) continue;
    await client.query('BEGIN');
    try {
      for (const statement of splitStatements(migration.sql)) await client.query(statement);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        Date.now(),
      ]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
    applied.push(migration.version);
  }
  return applied;
}

async function migrateMysql(conn: MysqlConnection, migrations: readonly Migration[]): Promise<number[]> {
  const connection = await conn.pool.getConnection();
  const lockName = "LEFT(CONCAT('tickwheel:migrate:', DATABASE()), 64)";
  let healthy = false;
  try {
    const [rows] = await connection.query(`SELECT GET_LOCK(${lockName}, ?) AS locked`, [MYSQL_LOCK_WAIT_S]);
    if ((rows as { locked: number | null }[])[0]?.locked !== 1) {
      throw new TickwheelError(
        'TW_ERR_STORE_UNAVAILABLE',
        `another node held the migration lock for more than ${MYSQL_LOCK_WAIT_S} s`,
      );
    }
    try {
      const applied = await applyMysql(connection, migrations);
      healthy = true;
      return applied;
    } finally {
      await connection.query(`SELECT RELEASE_LOCK(${lockName})`);
    }
  } finally {
    if (healthy) connection.release();
    else connection.destroy();
  }
}

async function applyMysql(
  connection: MysqlPoolConnection,
  migrations: readonly Migration[],
): Promise<number[]> {
  await connection.query(CREATE_MIGRATIONS_TABLE);
  const [rows] = await connection.query('SELECT version FROM schema_migrations');
  const done = new Set((rows as { version: number }[]).map((r) => r.version));
  const applied: number[] = [];
  for (const migration of migrations) {
    if (done.has(migration.version)) continue;
    for (const statement of splitStatements(migration.sql)) await connection.query(statement);
    await connection.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
      migration.version,
      migration.name,
      Date.now(),
    ]);
    applied.push(migration.version);
  }
  return applied;
}
