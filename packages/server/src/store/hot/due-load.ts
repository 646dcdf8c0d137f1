/**
 * The pipeline's read of due fires: the records, their jobs and their apps, by id, three
 * statements per batch. On SQLite they are cached prepared statements run in one go (a Kysely
 * query there costs a fresh `prepare` and the query builder each time, which at thousands of
 * fires a second was a tenth of the server's CPU); PostgreSQL and MySQL go through Kysely, whose
 * cost there is small beside the round trips.
 */
import type { Kysely } from 'kysely';
import { prepared, type SqliteConnection, type StoreConnection } from '../connection.js';
import type { AppGroupRow, Database, FireRow, JobRow } from '../schema.js';

export interface DueFireRows {
  fires: FireRow[];
  jobs: JobRow[];
  apps: AppGroupRow[];
}

export const SQLITE_FIRES = 'SELECT * FROM fire WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id';
export const SQLITE_JOBS = 'SELECT * FROM job WHERE id IN (SELECT value FROM json_each(?))';
export const SQLITE_APPS = 'SELECT * FROM app_group WHERE id IN (SELECT value FROM json_each(?))';

/**
 * The `pending` records among `ids`, with the jobs and apps they belong to (a job or app that
 * no longer exists is simply missing).
 */
export async function loadDueFires(conn: StoreConnection, ids: readonly number[]): Promise<DueFireRows> {
  if (ids.length === 0) return { fires: [], jobs: [], apps: [] };
  if (conn.dialect === 'sqlite') {
    // Through Kysely's connection, so the reads never run inside a transaction someone holds open on it.
    return conn.db.connection().execute(async () => loadSqlite(conn, ids));
  }
  return loadWithKysely(conn.db, ids);
}

function loadSqlite(conn: SqliteConnection, ids: readonly number[]): DueFireRows {
  const fires = (prepared(conn, SQLITE_FIRES).all(JSON.stringify(ids)) as FireRow[]).filter(isPending);
  if (fires.length === 0) return { fires, jobs: [], apps: [] };
  const jobs = prepared(conn, SQLITE_JOBS).all(JSON.stringify(uniqueOf(fires, 'job_id'))) as JobRow[];
  const apps = prepared(conn, SQLITE_APPS).all(JSON.stringify(uniqueOf(fires, 'app_id'))) as AppGroupRow[];
  return { fires, jobs, apps };
}

async function loadWithKysely(db: Kysely<Database>, ids: readonly number[]): Promise<DueFireRows> {
  const fires = (
    await db.selectFrom('fire').selectAll().where('id', 'in', ids).orderBy('id').execute()
  ).filter(isPending);
  if (fires.length === 0) return { fires, jobs: [], apps: [] };
  const [jobs, apps] = await Promise.all([
    db.selectFrom('job').selectAll().where('id', 'in', uniqueOf(fires, 'job_id')).execute(),
    db.selectFrom('app_group').selectAll().where('id', 'in', uniqueOf(fires, 'app_id')).execute(),
  ]);
  return { fires, jobs, apps };
}

const isPending = (fire: FireRow) => fire.status === 'pending';

function uniqueOf(fires: readonly FireRow[], column: 'job_id' | 'app_id'): number[] {
  return [...new Set(fires.map((fire) => fire[column]))];
}
