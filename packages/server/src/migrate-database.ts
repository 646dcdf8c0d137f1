/**
 * `tickwheel migrate`: brings a database's schema up to date without starting a server, for
 * operators who apply schema changes as a separate deployment step. The server applies the same
 * migrations itself at start, so this is never required.
 */

import { resolveServerOptions, type ServerOptions } from './options.js';
import { openStore } from './store/connect.js';
import type { DialectName } from './store/database-url.js';
import { migrate } from './store/migrate.js';
import { MIGRATIONS } from './store/migrations/index.js';

export type MigrateDatabaseOptions = Pick<ServerOptions, 'database' | 'dataDir'>;

export interface MigrationReport {
  /** The database, with any password in its URL masked. */
  database: string;
  dialect: DialectName;
  /** Migrations this call applied, in order (empty when the schema was up to date). */
  applied: { version: number; name: string }[];
  /** The schema version the database is at now. */
  version: number;
}

/**
 * Applies the pending migrations of the database the server would use with the same options
 * (default: `sqlite:tickwheel.db` in `./data`).
 *
 * @example
 * const report = await migrateDatabase({ database: 'postgres://tickwheel@db/tickwheel' });
 * console.log(report.applied.map((m) => `${m.version} ${m.name}`));
 */
export async function migrateDatabase(options: MigrateDatabaseOptions = {}): Promise<MigrationReport> {
  const resolved = resolveServerOptions({ database: options.database, dataDir: options.dataDir, env: {} });
  const store = await openStore({ database: resolved.database, dataDir: resolved.dataDir, migrate: false });
  try {
    const versions = await migrate(store);
    const all = MIGRATIONS[store.dialect];
    return {
      database: maskDatabasePassword(resolved.database),
      dialect: store.dialect,
      applied: all
        .filter((m) => versions.includes(m.version))
        .map((m) => ({ version: m.version, name: m.name })),
      version: Math.max(0, ...all.map((m) => m.version)),
    };
  } finally {
    await store.close();
  }
}

/** `postgres://tw:secret@db/tw` → `postgres://tw:***@db/tw`, for logs and banners. */
export function maskDatabasePassword(database: string): string {
  return database.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}
