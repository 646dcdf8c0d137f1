/**
 * Opens the store named by the `database` option: the driver pool, the Kysely instance over it,
 * the migrations, and the repositories (store.ts).
 */
import { TickwheelError } from '@tickwheel/protocol';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, type SqliteDatabase, SqliteDialect } from 'kysely';
import { createPool as createMysqlPool, type Connection as MysqlCoreConnection } from 'mysql2';
import pg from 'pg';
import type { MysqlConnection, PostgresConnection, SqliteConnection, StoreConnection } from './connection.js';
import type { ConnectionErrorHandler } from './connection-faults.js';
import { type DatabaseTarget, parseDatabaseUrl } from './database-url.js';
import { migrate } from './migrate.js';
import type { Database } from './schema.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';
import { makeSqliteFilesOwnerOnly } from './sqlite-files.js';
import { SqliteHotDialect } from './sqlite-hot-dialect.js';
import { SqliteHotThread } from './sqlite-hot-thread.js';
import { SqliteReaderThread } from './sqlite-reader-thread.js';
import {
  mysqlSocket,
  postgresSocket,
  StatementWatchdog,
  watchMysqlConnection,
  watchPostgresClient,
} from './statement-watchdog.js';
import { createStore, type Store } from './store.js';

export interface StoreOptions {
  /** `sqlite:<path>`, `sqlite::memory:`, `postgres://…[?schema=name]`, `mysql://…` or `mariadb://…`. */
  database: string;
  /** Directory a relative SQLite path is resolved against. Default: the working directory. */
  dataDir?: string;
  /** Apply pending migrations while opening. Default: true. */
  migrate?: boolean;
  /** Connections per pool (PostgreSQL, MySQL). Default: 10. */
  poolSize?: number;
  /** How long a SQLite writer waits for the write lock, in ms. Default: 5000. */
  busyTimeoutMs?: number;
  /**
   * PostgreSQL `application_name` of the pool's connections, so operators (and `pg_stat_activity`)
   * can tell one node's connections apart. Default: `tickwheel`. An `application_name` in the URL wins.
   */
  applicationName?: string;
  /**
   * Told about each pooled connection the database drops while idle (PostgreSQL, MySQL). The pool
   * discards such a connection either way; the process never dies of it. Default: ignore.
   */
  onConnectionError?: ConnectionErrorHandler;
  /**
   * Longest wait for a new connection (PostgreSQL, MySQL), so a database host that drops packets
   * fails statements in seconds instead of holding them for the operating system's TCP timeout.
   * Default: 10000 ms.
   */
  connectTimeoutMs?: number;
  /**
   * Longest wait for the answer to one statement (PostgreSQL, MySQL) once migrations are done: a
   * statement still unanswered then closes its connection (statement-watchdog.ts), so a stalled
   * database or a silently dropped network path fails statements instead of wedging the
   * scheduler. Default: 10000 ms (the scheduler's statements take milliseconds; the longest, a console query over a large fire table, seconds); 0 turns it off.
   */
  statementTimeoutMs?: number;
}

interface ResolvedStoreOptions {
  target: DatabaseTarget;
  migrate: boolean;
  poolSize: number;
  busyTimeoutMs: number;
  applicationName: string;
  onConnectionError: ConnectionErrorHandler;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
}

/**
 * Opens a store and brings its schema up to date.
 *
 * @example
 * const store = await openStore({ database: 'sqlite:tickwheel.db', dataDir: '/var/lib/tickwheel' });
 * const job = await store.jobs.findById(1);
 * await store.close();
 */
export async function openStore(options: StoreOptions): Promise<Store> {
  const resolved = resolveStoreOptions(options);
  // Off while migrating: an index build on a large table may keep the socket quiet for minutes.
  const watchdog = new StatementWatchdog();
  const connection = connect(resolved, watchdog);
  const store = createStore(connection);
  if (resolved.migrate) {
    try {
      await migrate(store);
    } catch (err) {
      await store.close();
      throw err;
    }
  }
  watchdog.timeoutMs = resolved.statementTimeoutMs;
  return store;
}

function resolveStoreOptions(options: StoreOptions): ResolvedStoreOptions {
  if (typeof options.database !== 'string' || options.database === '') {
    throw new TickwheelError('TW_ERR_INVALID_OPTION', 'database is required', 'database');
  }
  const poolSize = options.poolSize ?? 10;
  if (!Number.isInteger(poolSize) || poolSize < 1) {
    throw new TickwheelError('TW_ERR_INVALID_OPTION', 'poolSize must be an integer >= 1', 'poolSize');
  }
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new TickwheelError(
      'TW_ERR_INVALID_OPTION',
      'busyTimeoutMs must be an integer >= 0',
      'busyTimeoutMs',
    );
  }
  return {
    target: parseDatabaseUrl(options.database, options.dataDir),
    migrate: options.migrate ?? true,
    poolSize,
    busyTimeoutMs,
    applicationName: options.applicationName ?? 'tickwheel',
    onConnectionError: options.onConnectionError ?? (() => undefined),
    connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    statementTimeoutMs: nonNegativeInteger('statementTimeoutMs', options.statementTimeoutMs, 10_000),
  };
}

function connect(options: ResolvedStoreOptions, watchdog: StatementWatchdog): StoreConnection {
  const { target } = options;
  if (target.dialect === 'sqlite') return connectSqlite(target.file, options.busyTimeoutMs);
  if (target.dialect === 'postgres')
    return connectPostgres(target.connectionString, target.schema, options, watchdog);
  return connectMysql(target.uri, options, watchdog);
}

function nonNegativeInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) {
    throw new TickwheelError('TW_ERR_INVALID_OPTION', `${name} must be an integer >= 0`, name);
  }
  return value;
}

function connectSqlite(file: string, busyTimeoutMs: number): SqliteConnection {
  // Before SQLite opens the file: it holds secrets, and SQLite makes its -wal and -shm with the
  // file's mode, so a 0600 file keeps them 0600 too, without touching the process-wide umask.
  const looseModes = file === ':memory:' ? [] : makeSqliteFilesOwnerOnly(file);
  const sqlite = new BetterSqlite3(file);
  if (file !== ':memory:') sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // NORMAL in WAL mode keeps the database consistent on power loss; it may lose the last commits, never corrupt.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  const database = withStatementCache(sqlite);
  if (file === ':memory:') {
    // One connection holds an in-memory database: no thread can open it too.
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
    return { dialect: 'sqlite', db, sqlite, statements: new Map() };
  }
  const hot = new SqliteHotThread(sqlite);
  // Writes outside transactions go to the hot thread while it runs (sqlite-hot-dialect.ts).
  const db = new Kysely<Database>({ dialect: new SqliteHotDialect({ database }, hot) });
  return {
    dialect: 'sqlite',
    db,
    sqlite,
    statements: new Map(),
    reader: new SqliteReaderThread(sqlite, db),
    checkpointer: new SqliteCheckpointer(sqlite),
    hot,
    looseModes,
  };
}

/** Statements the query builder's SQLite driver keeps prepared, least recently used dropped first. */
const KYSELY_STATEMENT_CACHE = 500;

/**
 * The database as Kysely's SQLite driver sees it, with its statements kept prepared: the driver
 * prepares every statement it runs anew, and SQLite then parses and plans the same SQL on each
 * call (a fifth of the server's thread in the workflow bench). The SQL of a query is its cache
 * key; a statement is reused only after the call that ran it returned (the driver runs `all` or
 * `run` to the end, and the server streams no query through it).
 */
function withStatementCache(sqlite: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement === undefined) {
        statement = sqlite.prepare(sql);
        if (cache.size >= KYSELY_STATEMENT_CACHE) cache.delete(cache.keys().next().value!);
      } else {
        cache.delete(sql);
      }
      cache.set(sql, statement);
      return statement;
    },
  };
}

/** BIGINT (20) and NUMERIC (1700) as JS numbers: ids and epoch milliseconds stay far below 2^53. */
const PG_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    return format === undefined ? pg.types.getTypeParser(oid) : pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

function connectPostgres(
  connectionString: string,
  schema: string | undefined,
  {
    poolSize,
    applicationName,
    onConnectionError,
    connectTimeoutMs,
    statementTimeoutMs,
  }: ResolvedStoreOptions,
  watchdog: StatementWatchdog,
): PostgresConnection {
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    connectionTimeoutMillis: connectTimeoutMs,
    types: PG_TYPES,
    application_name: applicationName,
    ...(schema === undefined ? {} : { options: `-c search_path="${schema}"` }),
    // Before the pool hands a new client out: every statement of it is watched from here on (this
    // first one too: on a silent path it fails at the limit instead of holding the caller's
    // acquire), and its session setting is made. A statement, not a startup parameter: pgbouncer
    // refuses startup parameters it does not know. Awaited here, not queued beside the caller's
    // first statement (a statement sent while another runs on the same client is deprecated in
    // pg 8, its queueing to be removed in pg 9); should it fail, the pool ends the client and the
    // caller gets the error.
    onConnect: async (client: pg.ClientBase) => {
      watchPostgresClient(client as pg.PoolClient, watchdog);
      if (statementTimeoutMs > 0)
        await client.query(`SET idle_in_transaction_session_timeout = ${statementTimeoutMs}`);
    },
  });
  // An unheard `error` event ends the process. pg-pool hears an idle client's and removes it; a
  // checked-out client (between two statements of a transaction) has no listener of its own, so
  // each client gets one for life: its next statement fails, and the pool discards it on release.
  pool.on('error', (err) => reportSafely(onConnectionError, err));
  pool.on('connect', (client) => {
    client.on('error', (err) => {
      if (client.listenerCount('error') === 1) reportSafely(onConnectionError, err);
    });
  });
  pool.on('acquire', (client) => watchdog.busy(client));
  pool.on('release', (_err, client) => watchdog.idle(client, postgresSocket(client)));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { dialect: 'postgres', db, pool };
}

/** Marks a pool connection that got its lasting 'error' listener when it was made. */
const LISTENED = Symbol('tickwheel.listened');

/**
 * Gives every connection of a mysql2 pool a lasting 'error' listener from the moment it is made,
 * before it connects. mysql2 listens once itself; a connection that fails twice while connecting
 * (a stalled network: the connect timeout after an earlier error) would otherwise emit its second
 * error to nobody, and an unheard 'error' ends the process. The pool keeps no hook for a new
 * connection before its handshake, so this wraps the push onto its list of connections (mysql2
 * 3.x internals); without that list, the listener comes at the 'connection' event as before.
 */
function listenFromBirth(pool: ReturnType<typeof createMysqlPool>, onError: (err: Error) => void): void {
  const all = (pool as unknown as { _allConnections?: { push?: (c: unknown) => unknown } })._allConnections;
  if (typeof all?.push !== 'function') return;
  const push = all.push.bind(all);
  all.push = (connection: unknown) => {
    const emitter = connection as {
      on(event: 'error', listener: (err: Error) => void): void;
      [LISTENED]?: boolean;
    };
    emitter.on('error', onError);
    emitter[LISTENED] = true;
    return push(connection);
  };
}

function connectMysql(
  uri: string,
  { poolSize, onConnectionError, connectTimeoutMs, statementTimeoutMs }: ResolvedStoreOptions,
  watchdog: StatementWatchdog,
): MysqlConnection {
  const pool = createMysqlPool({
    uri,
    connectionLimit: poolSize,
    connectTimeout: connectTimeoutMs,
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: true,
    timezone: 'Z',
    charset: 'utf8mb4',
  });
  listenFromBirth(pool, (err) => reportSafely(onConnectionError, err));
  // READ COMMITTED, as on PostgreSQL: a locking read takes no gap locks and lets go of the rows
  // it did not match, so two nodes claiming different shards do not block each other.
  pool.on('connection', (connection) => {
    connection.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
    // MariaDB only (MySQL has no such limit; there the server's wait_timeout ends such a session).
    if (statementTimeoutMs > 0 && isMariaDb(connection)) {
      connection.query(`SET SESSION idle_transaction_timeout = ${Math.ceil(statementTimeoutMs / 1_000)}`);
    }
    // mysql2 drops a failed connection from the pool itself, but only hears its first error;
    // a lasting listener keeps a second one from ending the process, and reports the fault.
    if (!(connection as { [LISTENED]?: boolean })[LISTENED]) {
      connection.on('error', (err) => reportSafely(onConnectionError, err));
    }
    watchMysqlConnection(connection, watchdog);
  });
  pool.on('acquire', (connection) => watchdog.busy(connection));
  pool.on('release', (connection) => watchdog.idle(connection, mysqlSocket(connection)));
  const db = new Kysely<Database>({ dialect: new MysqlDialect({ pool }) });
  return { dialect: 'mysql', db, pool: pool.promise() };
}

/** Whether the server of `connection` is MariaDB (its handshake names it). */
function isMariaDb(connection: MysqlCoreConnection): boolean {
  const handshake = (connection as unknown as { _handshakePacket?: { serverVersion?: string } })
    ._handshakePacket;
  return /mariadb/i.test(handshake?.serverVersion ?? '');
}

function reportSafely(handler: ConnectionErrorHandler, err: Error): void {
  try {
    handler(err);
  } catch {
    // A faulty reporter must not turn a dropped connection into a dead process.
  }
}
