/**
 * The pipeline's read of due fires: the records, their jobs and their apps, by id, three
 * statements per batch. On SQLite they are cached prepared statements run in one go (a Kysely
 * query there costs a fresh `prepare` and the query builder each time, which at thousands of
 * fires a second was a tenth of the server's CPU); on PostgreSQL named prepared statements over
 * an array of ids; MySQL goes through Kysely, whose cost there is small beside the round trips.
 *
 * Only the columns a dispatch reads are read: a row becomes a JavaScript object column by
 * column, and the whole fire and job rows (thirty columns each) cost about three times these.
 * The job is read at dispatch time, not taken from the claim, so an edit made after the claim
 * (route, block strategy, timeout, script) applies to the fire, as it does in XXL-JOB.
 */
import type { Kysely } from 'kysely';
import {
  inSqliteHot,
  type PostgresConnection,
  prepared,
  type SqliteStatements,
  type StoreConnection,
} from '../connection.js';
import type { AppGroupRow, Database, FireRow, JobRow } from '../schema.js';
import { pgArray } from './pg-array.js';

/** What dispatching a fire reads of its record (a broadcast's shard records are made from these). */
export const DUE_FIRE_COLUMNS = [
  'id',
  'job_id',
  'app_id',
  'claim_job_id',
  'scheduled_at',
  'trigger_type',
  'executor_handler',
  'executor_param',
  'status',
  'retry_count',
  'retry_fire_id',
  'created_at',
  'address_override',
  'sent_to',
  'workflow_context',
] as const;

/** How a fire of a job is sent: its route, block strategy, timeout and script (the claim reads them too). */
export const SENDING_JOB_COLUMNS = [
  'executor_route_strategy',
  'executor_block_strategy',
  'executor_timeout',
  'glue_type',
  'glue_source',
  'glue_updated_at',
] as const;

/** What dispatching a fire reads of its job: whether it still runs, how to send it, FIX_DELAY's schedule. */
export const DUE_JOB_COLUMNS = [
  'id',
  'trigger_status',
  'schedule_type',
  'schedule_conf',
  'time_zone',
  'next_fire_at',
  ...SENDING_JOB_COLUMNS,
] as const;

export type DueFire = Pick<FireRow, (typeof DUE_FIRE_COLUMNS)[number]>;
export type DueJob = Pick<JobRow, (typeof DUE_JOB_COLUMNS)[number]>;

export interface DueFireRows {
  fires: DueFire[];
  jobs: DueJob[];
  apps: AppGroupRow[];
}

export const SQLITE_FIRES = `SELECT ${DUE_FIRE_COLUMNS.join(', ')} FROM fire
WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`;
export const SQLITE_JOBS = `SELECT ${DUE_JOB_COLUMNS.join(', ')} FROM job WHERE id IN (SELECT value FROM json_each(?))`;
export const SQLITE_APPS = 'SELECT * FROM app_group WHERE id IN (SELECT value FROM json_each(?))';

/**
 * The `pending` records among `ids`, with the jobs and apps they belong to (a job or app that
 * no longer exists is simply missing).
 */
export async function loadDueFires(conn: StoreConnection, ids: readonly number[]): Promise<DueFireRows> {
  if (ids.length === 0) return { fires: [], jobs: [], apps: [] };
  if (conn.dialect === 'sqlite') {
    // On the hot thread, or through Kysely's connection, so the reads never run inside a
    // transaction someone holds open on it.
    return inSqliteHot(conn, 'load', ids, () => loadSqlite(conn, ids), ids.length);
  }
  if (conn.dialect === 'postgres') return loadPostgres(conn, ids);
  return loadWithKysely(conn.db, ids);
}

/**
 * The rows come back as arrays and become objects here: better-sqlite3 builds a row object
 * property by property in native code, which costs more than the whole read of the row.
 */
export function loadSqlite(conn: SqliteStatements, ids: readonly number[]): DueFireRows {
  const fireRows = prepared(conn, SQLITE_FIRES).raw(true).all(JSON.stringify(ids)) as unknown[][];
  const fires = fireRows.map(dueFireOf).filter(isPending);
  if (fires.length === 0) return { fires, jobs: [], apps: [] };
  const jobRows = prepared(conn, SQLITE_JOBS)
    .raw(true)
    .all(JSON.stringify(uniqueOf(fires, 'job_id')));
  const jobs = (jobRows as unknown[][]).map(dueJobOf);
  const apps = prepared(conn, SQLITE_APPS).all(JSON.stringify(uniqueOf(fires, 'app_id'))) as AppGroupRow[];
  return { fires, jobs, apps };
}

/** A row of SQLITE_FIRES, its columns in DUE_FIRE_COLUMNS order. */
function dueFireOf(row: unknown[]): DueFire {
  const r = row as DueFireRow;
  return {
    id: r[0],
    job_id: r[1],
    app_id: r[2],
    claim_job_id: r[3],
    scheduled_at: r[4],
    trigger_type: r[5],
    executor_handler: r[6],
    executor_param: r[7],
    status: r[8],
    retry_count: r[9],
    retry_fire_id: r[10],
    created_at: r[11],
    address_override: r[12],
    sent_to: r[13],
    workflow_context: r[14],
  };
}

/** A row of SQLITE_JOBS, its columns in DUE_JOB_COLUMNS order. */
function dueJobOf(row: unknown[]): DueJob {
  const r = row as DueJobRow;
  return {
    id: r[0],
    trigger_status: r[1],
    schedule_type: r[2],
    schedule_conf: r[3],
    time_zone: r[4],
    next_fire_at: r[5],
    executor_route_strategy: r[6],
    executor_block_strategy: r[7],
    executor_timeout: r[8],
    glue_type: r[9],
    glue_source: r[10],
    glue_updated_at: r[11],
  };
}

type DueFireRow = [
  DueFire['id'],
  DueFire['job_id'],
  DueFire['app_id'],
  DueFire['claim_job_id'],
  DueFire['scheduled_at'],
  DueFire['trigger_type'],
  DueFire['executor_handler'],
  DueFire['executor_param'],
  DueFire['status'],
  DueFire['retry_count'],
  DueFire['retry_fire_id'],
  DueFire['created_at'],
  DueFire['address_override'],
  DueFire['sent_to'],
  DueFire['workflow_context'],
];

type DueJobRow = [
  DueJob['id'],
  DueJob['trigger_status'],
  DueJob['schedule_type'],
  DueJob['schedule_conf'],
  DueJob['time_zone'],
  DueJob['next_fire_at'],
  DueJob['executor_route_strategy'],
  DueJob['executor_block_strategy'],
  DueJob['executor_timeout'],
  DueJob['glue_type'],
  DueJob['glue_source'],
  DueJob['glue_updated_at'],
];

const PG_FIRES = `SELECT ${DUE_FIRE_COLUMNS.join(', ')} FROM fire WHERE id = ANY($1::bigint[]) ORDER BY id`;
const PG_JOBS = `SELECT ${DUE_JOB_COLUMNS.join(', ')} FROM job WHERE id = ANY($1::bigint[])`;
const PG_APPS = 'SELECT * FROM app_group WHERE id = ANY($1::bigint[])';

/**
 * PostgreSQL: named prepared statements over one array parameter each. A Kysely `IN (…)` list
 * makes a new statement text for every batch size, which PostgreSQL parses and plans afresh
 * each time (a batch of a few hundred ids is as many parameters).
 */
async function loadPostgres(conn: PostgresConnection, ids: readonly number[]): Promise<DueFireRows> {
  const fireRows = await conn.pool.query<DueFire>({
    name: 'tw_load_fires',
    text: PG_FIRES,
    values: [pgArray(ids)],
  });
  const fires = fireRows.rows.filter(isPending);
  if (fires.length === 0) return { fires, jobs: [], apps: [] };
  const [jobs, apps] = await Promise.all([
    conn.pool.query<DueJob>({
      name: 'tw_load_jobs',
      text: PG_JOBS,
      values: [pgArray(uniqueOf(fires, 'job_id'))],
    }),
    conn.pool.query<AppGroupRow>({
      name: 'tw_load_apps',
      text: PG_APPS,
      values: [pgArray(uniqueOf(fires, 'app_id'))],
    }),
  ]);
  return { fires, jobs: jobs.rows, apps: apps.rows };
}

async function loadWithKysely(db: Kysely<Database>, ids: readonly number[]): Promise<DueFireRows> {
  const fires = (
    await db.selectFrom('fire').select(DUE_FIRE_COLUMNS).where('id', 'in', ids).orderBy('id').execute()
  ).filter(isPending);
  if (fires.length === 0) return { fires, jobs: [], apps: [] };
  const [jobs, apps] = await Promise.all([
    db.selectFrom('job').select(DUE_JOB_COLUMNS).where('id', 'in', uniqueOf(fires, 'job_id')).execute(),
    db.selectFrom('app_group').selectAll().where('id', 'in', uniqueOf(fires, 'app_id')).execute(),
  ]);
  return { fires, jobs, apps };
}

const isPending = (fire: DueFire) => fire.status === 'pending';

function uniqueOf(fires: readonly DueFire[], column: 'job_id' | 'app_id'): number[] {
  return [...new Set(fires.map((fire) => fire[column]))];
}
