/**
 * A fresh database per case, dropped afterwards: a SQLite file in a temporary folder, or a
 * PostgreSQL schema `tw_bench_<random>` in the given database.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '@tickwheel/server/internal';

export type StoreName = 'sqlite' | 'postgres';

export interface BenchDatabase {
  /** The server's `database` option. */
  url: string;
  /** A temporary folder of the case (the SQLite file, the child logs). */
  dir: string;
  drop(): Promise<void>;
}

export async function createDatabase(store: StoreName, postgresUrl: string): Promise<BenchDatabase> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tw-bench-fire-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  if (store === 'sqlite')
    return { url: `sqlite:${path.join(dir, 'bench.db')}`, dir, drop: async () => removeDir() };

  const schema = `tw_bench_${randomBytes(6).toString('hex')}`;
  await onAdminConnection(postgresUrl, (db) => db.schema.createSchema(schema).execute());
  return {
    url: `${postgresUrl}${postgresUrl.includes('?') ? '&' : '?'}schema=${schema}`,
    dir,
    drop: async () => {
      await onAdminConnection(postgresUrl, (db) =>
        db.schema.dropSchema(schema).ifExists().cascade().execute(),
      );
      removeDir();
    },
  };
}

type Db = Awaited<ReturnType<typeof openStore>>['db'];

/** Runs `work` on a one-connection store of `url` that migrates nothing, then closes it. */
export async function onAdminConnection(url: string, work: (db: Db) => Promise<unknown>): Promise<void> {
  const admin = await openStore({ database: url, migrate: false, poolSize: 1 });
  try {
    await work(admin.db);
  } finally {
    await admin.close();
  }
}
