/**
 * The pipeline's read of due fires: the records, their jobs and their apps, by id. On SQLite
 * three cached prepared statements run in one go (a Kysely query there costs a fresh `prepare`
 * and the query builder each time, which at thousands of fires a second was a tenth of the
 * server's CPU); on PostgreSQL two named prepared statements at once over an array of ids, the
 * records joined with their jobs; MySQL goes through Kysely, whose cost there is small beside
 * the round trips.
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
import { pgStatusById } from '../fire-status.js';
import type { AppGroupRow, Database, FireRow, JobRow } from '../schema.js';
import { pgBigints } from './pg-array.js';

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
  const jobs = (jobRows as unknown[][]).map((row) => dueJobOf(row));
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

/** A row of SQLITE_JOBS, its columns in DUE_JOB_COLUMNS order from `at` (a joined row's job part). */
function dueJobOf(row: unknown[], at = 0): DueJob {
  return {
    id: row[at] as DueJob['id'],
    trigger_status: row[at + 1] as DueJob['trigger_status'],
    schedule_type: row[at + 2] as DueJob['schedule_type'],
    schedule_conf: row[at + 3] as DueJob['schedule_conf'],
    time_zone: row[at + 4] as DueJob['time_zone'],
    next_fire_at: row[at + 5] as DueJob['next_fire_at'],
    executor_route_strategy: row[at + 6] as DueJob['executor_route_strategy'],
    executor_block_strategy: row[at + 7] as DueJob['executor_block_strategy'],
    executor_timeout: row[at + 8] as DueJob['executor_timeout'],
    glue_type: row[at + 9] as DueJob['glue_type'],
    glue_source: row[at + 10] as DueJob['glue_source'],
    glue_updated_at: row[at + 11] as DueJob['glue_updated_at'],
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

/**
 * PostgreSQL: the pending records with their jobs' columns in one statement (a record whose job is
 * gone has NULLs there), and beside it, on another connection, the apps of those records. Two
 * statements at once instead of three in two rounds: on a busy machine each round trip waits for
 * a core twice (the database's and the server's), and the load is on the way between a fire's
 * due time and its `run`.
 */
export const PG_FIRES_JOBS = `SELECT ${DUE_FIRE_COLUMNS.map((c) => `f.${c}`).join(', ')}, ${DUE_JOB_COLUMNS.map((c) => `j.${c}`).join(', ')}
FROM fire f LEFT JOIN job j ON j.id = f.job_id
WHERE f.id = ANY($1::bigint[]) AND ${pgStatusById('f')} = 'pending' ORDER BY f.id`;
/**
 * The apps of the asked records, pending or not: the two statements run at once, each on its own
 * snapshot, and a record the join finds pending must find its app here whatever became of it
 * meanwhile (a missing app skips the fire).
 */
export const PG_APPS_OF_FIRES =
  'SELECT * FROM app_group WHERE id IN (SELECT f.app_id FROM fire f WHERE f.id = ANY($1::bigint[]))';

/**
 * PostgreSQL: named prepared statements over one array parameter each. A Kysely `IN (…)` list
 * makes a new statement text for every batch size, which PostgreSQL parses and plans afresh
 * each time (a batch of a few hundred ids is as many parameters). The joined rows come as arrays
 * (`rowMode`), each split into its record and its job, a job kept once however many of its
 * records the batch holds.
 */
async function loadPostgres(conn: PostgresConnection, ids: readonly number[]): Promise<DueFireRows> {
  const list = pgBigints(ids);
  const [joined, apps] = await Promise.all([
    conn.pool.query<unknown[]>({
      name: 'tw_load_fires_jobs',
      text: PG_FIRES_JOBS,
      values: [list],
      rowMode: 'array',
    }),
    conn.pool.query<AppGroupRow>({ name: 'tw_load_apps_of_fires', text: PG_APPS_OF_FIRES, values: [list] }),
  ]);
  const fires: DueFire[] = new Array(joined.rows.length);
  const jobs: DueJob[] = [];
  const seen = new Set<number>();
  for (let i = 0; i < joined.rows.length; i++) {
    const row = joined.rows[i]!;
    fires[i] = dueFireOf(row);
    const jobId = row[JOINED_JOB_AT] as number | null;
    if (jobId === null || seen.has(jobId)) continue;
    seen.add(jobId);
    jobs.push(dueJobOf(row, JOINED_JOB_AT));
  }
  if (fires.length === 0) return { fires, jobs: [], apps: [] };
  return { fires, jobs, apps: apps.rows };
}

/** Where a joined row's job columns start. */
const JOINED_JOB_AT = DUE_FIRE_COLUMNS.length;

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
