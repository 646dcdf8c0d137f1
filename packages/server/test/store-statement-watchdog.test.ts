/**
 * The statement watchdog on a network path that goes silent: the statement that gets no answer
 * fails at the limit, and the connections idle in the pool are closed with it, so the statements
 * after the path is back each open a fresh connection instead of finding the next silent one.
 */
import { startTcpProxy, type TcpProxy } from '@tickwheel/test-fixtures/tcp-proxy';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../src/store/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';

const PORT = { postgres: 5432, mysql: 3306 } as const;
const LIMIT_MS = 800;
const POOL = 5;

let database: TestDatabase | undefined;
let proxy: TcpProxy | undefined;

afterEach(async () => {
  proxy?.restore();
  await database?.drop();
  await proxy?.close();
  database = undefined;
  proxy = undefined;
});

function sleepStatement(store: Store): Promise<unknown> {
  return store.connection.dialect === 'postgres'
    ? sql`SELECT pg_sleep(0.1)`.execute(store.db)
    : sql`SELECT SLEEP(0.1)`.execute(store.db);
}

/** A store on a fresh database of `dialect`, reached through a TCP proxy of this test's own. */
async function openThroughProxy(dialect: 'postgres' | 'mysql'): Promise<{ store: Store; through: TcpProxy }> {
  database = await createTestDatabase(dialect);
  const through = await startTcpProxy(PORT[dialect]);
  const url = new URL(database.url);
  url.port = String(through.port);
  const store = await openStore({
    database: url.toString(),
    migrate: false,
    statementTimeoutMs: LIMIT_MS,
    connectTimeoutMs: LIMIT_MS,
    poolSize: POOL,
  });
  return { store, through };
}

describe.each(['postgres', 'mysql'] as const)('the statement watchdog on %s', (dialect) => {
  it('closes the idle connections with the one that got no answer, so the next statements do not wait again', async () => {
    const { store: proxied, through } = await openThroughProxy(dialect);
    proxy = through;
    try {
      // Fill the pool: POOL connections, idle once their statements are answered.
      await Promise.all(Array.from({ length: POOL }, () => sleepStatement(proxied)));

      proxy.blackHole();
      const startedAt = Date.now();
      await expect(sql`SELECT 1`.execute(proxied.db)).rejects.toThrow(/no answer within 800 ms/);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(LIMIT_MS - 50);
      proxy.restore();

      // Every statement from here finds a fresh connection: none waits out the limit again.
      for (let i = 0; i < POOL; i++) {
        const at = Date.now();
        const rows = await sql<{ one: number }>`SELECT 1 AS one`.execute(proxied.db);
        expect(Number(rows.rows[0]?.one)).toBe(1);
        expect(Date.now() - at).toBeLessThan(LIMIT_MS / 2);
      }
    } finally {
      await proxied.close();
    }
  });

  it('closes a connection that was checked out during the stall at its next statement, which fails at once', async () => {
    const { store: proxied, through } = await openThroughProxy(dialect);
    proxy = through;
    try {
      // Two connections: one idle in the pool, one held between two statements (as in a
      // transaction) while the path goes silent.
      await Promise.all([sleepStatement(proxied), sleepStatement(proxied)]);
      const held = await checkOut(proxied);
      await held.query('SELECT 1');
      proxy.blackHole();
      await expect(sql`SELECT 1`.execute(proxied.db)).rejects.toThrow(/no answer within 800 ms/);
      proxy.restore();

      const at = Date.now();
      try {
        await expect(held.query('SELECT 1')).rejects.toThrow(
          /has not answered since a statement got no answer/,
        );
        expect(Date.now() - at).toBeLessThan(LIMIT_MS / 2);
      } finally {
        held.release();
      }
      const rows = await sql<{ one: number }>`SELECT 1 AS one`.execute(proxied.db);
      expect(Number(rows.rows[0]?.one)).toBe(1);
    } finally {
      await proxied.close();
    }
  });

  it('has the database end a transaction left open on the silent path, so its locks do not outlast the stall', async () => {
    const { store: proxied, through } = await openThroughProxy(dialect);
    proxy = through;
    try {
      await sql`CREATE TABLE lock_probe (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)`.execute(proxied.db);
      await sql`INSERT INTO lock_probe (id, v) VALUES (1, 0)`.execute(proxied.db);
      // A transaction holds the row's lock between two statements when the path goes silent: the
      // node gives its connection up, but the database still has the session and its lock.
      const held = await checkOut(proxied);
      await held.query(dialect === 'postgres' ? 'BEGIN' : 'START TRANSACTION');
      await held.query('UPDATE lock_probe SET v = 1 WHERE id = 1');
      proxy.blackHole();
      await expect(held.query('UPDATE lock_probe SET v = 2 WHERE id = 1')).rejects.toThrow(
        /no answer within 800 ms/,
      );
      proxy.restore();
      held.release();

      // Idle in its transaction past the limit (800 ms; 1 s on MariaDB, which counts seconds),
      // the session is ended by the database and its lock freed: the row is written at once.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const at = Date.now();
      await sql`UPDATE lock_probe SET v = 2 WHERE id = 1`.execute(proxied.db);
      expect(Date.now() - at).toBeLessThan(LIMIT_MS / 2);
      const rows = await sql<{ v: number }>`SELECT v FROM lock_probe WHERE id = 1`.execute(proxied.db);
      expect(Number(rows.rows[0]?.v)).toBe(2);
    } finally {
      await proxied.close();
    }
  });

  it('adds one close listener per connection, however often it goes back to the pool', async () => {
    database = await createTestDatabase(dialect);
    const store = await database.open({ migrate: false, statementTimeoutMs: LIMIT_MS, poolSize: 1 });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 30; i++) await sql`SELECT 1`.execute(store.db);
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});

/** A connection taken from the store's pool, with a plain query and a release. */
async function checkOut(store: Store): Promise<{ query(text: string): Promise<unknown>; release(): void }> {
  const conn = store.connection;
  if (conn.dialect === 'postgres') {
    const client = await conn.pool.connect();
    return { query: (text) => client.query(text), release: () => client.release(true) };
  }
  if (conn.dialect === 'mysql') {
    const connection = await conn.pool.getConnection();
    return { query: (text) => connection.query(text), release: () => connection.destroy() };
  }
  throw new Error('PostgreSQL and MySQL only');
}
