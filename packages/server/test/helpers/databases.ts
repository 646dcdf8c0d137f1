/**
 * Real databases for the store suites: a fresh SQLite file, PostgreSQL schema or MariaDB
 * database per call, dropped by `drop()`. PostgreSQL and MariaDB default to the local servers;
 * TW_TEST_POSTGRES_URL and TW_TEST_MYSQL_URL point elsewhere (an admin connection to an
 * existing database).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { type DialectName, openStore, type Store, type StoreOptions } from '../../src/store/index.js';

export const DIALECTS: readonly DialectName[] = ['sqlite', 'postgres', 'mysql'];

/**
 * The store as the hot statements meet it: each dialect, and SQLite with its hot statements on
 * their own thread (store/sqlite-hot-thread.ts), as a started server runs them.
 */
export type StoreVariant = DialectName | 'sqlite-hot-thread';
export const STORE_VARIANTS: readonly StoreVariant[] = ['sqlite', 'sqlite-hot-thread', 'postgres', 'mysql'];

const POSTGRES_URL = process.env.TW_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MYSQL_URL = process.env.TW_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

export interface TestDatabase {
  dialect: DialectName;
  /** The `database` option that reaches this database. */
  url: string;
  /** Opens a store on it (a new pool each time, as a second server node would have). */
  open(options?: Omit<StoreOptions, 'database'>): Promise<Store>;
  /** Runs plain SQL as the admin connection, inside the test database (for EXPLAIN and set-up). */
  query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** Drops the schema/database/file and closes every store opened here. */
  drop(): Promise<void>;
}

export async function createTestDatabase(variant: StoreVariant): Promise<TestDatabase> {
  const dialect: DialectName = variant === 'sqlite-hot-thread' ? 'sqlite' : variant;
  const name = `tw_test_${randomBytes(6).toString('hex')}`;
  const stores: Store[] = [];
  const open = async (url: string, options: Omit<StoreOptions, 'database'> = {}) => {
    const store = await openStore({ database: url, ...options });
    stores.push(store);
    if (variant === 'sqlite-hot-thread' && store.connection.dialect === 'sqlite') {
      const started = await store.connection.hot?.start(
        { warn: (detail, message) => console.warn(message, detail) },
        { checkpointing: false },
      );
      if (started !== true) throw new Error('the hot statements thread did not start (is dist/ built?)');
    }
    return store;
  };
  const closeStores = async () => {
    await Promise.all(stores.map((store) => store.close()));
  };

  if (dialect === 'sqlite') {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tw-store-'));
    const url = `sqlite:${path.join(dir, 'tickwheel.db')}`;
    let admin: Store | undefined;
    return {
      dialect,
      url,
      open: (options) => open(url, options),
      async query<T>(sql: string) {
        admin ??= await openStore({ database: url, migrate: false });
        if (admin.connection.dialect !== 'sqlite') throw new Error('unreachable');
        return admin.connection.sqlite.prepare(sql).all() as T[];
      },
      async drop() {
        await closeStores();
        await admin?.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }

  if (dialect === 'postgres') {
    const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
    await admin.query(`CREATE SCHEMA ${name}`);
    const url = `${POSTGRES_URL}?schema=${name}`;
    return {
      dialect,
      url,
      open: (options) => open(url, options),
      async query<T>(sql: string) {
        const client = await admin.connect();
        try {
          await client.query(`SET search_path = ${name}`);
          return (await client.query(sql)).rows as T[];
        } finally {
          client.release();
        }
      },
      async drop() {
        await closeStores();
        await admin.query(`DROP SCHEMA ${name} CASCADE`);
        await admin.end();
      },
    };
  }

  const admin = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 2, supportBigNumbers: true });
  await admin.query(`CREATE DATABASE ${name}`);
  const url = `${MYSQL_URL.replace(/\/[^/]*$/, '')}/${name}`;
  return {
    dialect,
    url,
    open: (options) => open(url, options),
    async query<T>(sql: string) {
      const connection = await admin.getConnection();
      try {
        await connection.query(`USE ${name}`);
        return (await connection.query(sql))[0] as T[];
      } finally {
        connection.release();
      }
    },
    async drop() {
      await closeStores();
      await admin.query(`DROP DATABASE ${name}`);
      await admin.end();
    },
  };
}

/** An app and `count` enabled jobs due at `dueAt`, for claim and fire suites. Returns the job ids. */
export async function seedDueJobs(
  store: Store,
  count: number,
  dueAt: number,
): Promise<{ appId: number; jobIds: number[] }> {
  const app = await store.apps.createApp(
    { appName: `app-${randomBytes(3).toString('hex')}`, title: 'Test app', addressType: 'AUTO' },
    dueAt,
  );
  const jobIds: number[] = [];
  for (let i = 0; i < count; i++) {
    const job = await store.jobs.createJob(
      {
        app_id: app.id,
        name: `job ${i}`,
        schedule_type: 'FIX_RATE',
        schedule_conf: '1',
        executor_handler: 'demo',
        executor_param: `param ${i}`,
        executor_fail_retry_count: 2,
        trigger_status: 1,
        next_fire_at: dueAt,
      },
      dueAt,
    );
    jobIds.push(job.id);
  }
  return { appId: app.id, jobIds };
}
