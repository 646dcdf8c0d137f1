/**
 * Finalising fire records with the results executors call back with, in batches.
 *
 * Idempotent by construction: a record changes only while its status is one a result may
 * finalise (FINISHABLE_STATUSES), and the function returns exactly the records this call
 * changed. One exception: a record the lost-run monitor failed (`lost_at` set) still takes the
 * run's real result when it comes after all (a callback that was in flight or spilled while the
 * monitor gave up), which replaces the failure and clears `lost_at`: a run that did execute
 * always has its result stored. A second lost verdict never replaces anything. A duplicated callback, or the same result reaching two server nodes, therefore
 * finalises a record once and triggers its child jobs once. Unknown ids change nothing.
 *
 * A success of a job with child jobs owes them: the same statement sets the record's
 * `children_status` to OWED (child-fires.ts), so a node that dies right after leaves the debt
 * on the record for the owed-children sweep.
 */
import type { PoolConnection as MysqlPoolConnection, RowDataPacket } from 'mysql2/promise';
import {
  inMysqlTransaction,
  inSqliteHot,
  type MysqlConnection,
  type PostgresConnection,
  prepared,
  type SqliteConnection,
  type SqliteStatements,
  type StoreConnection,
  sqliteHotParts,
} from '../connection.js';
import {
  CHILDREN_STATUS,
  FINISHABLE_STATUSES,
  type FinishedStatus,
  pgStatusById,
  statusForHandleCode,
} from '../fire-status.js';
import type { DispatchMark } from './dispatch-marks.js';
import { pgBigints, pgInts, pgTexts } from './pg-array.js';

/** One run's result. */
export interface FireResult {
  fireId: number;
  handleCode: number;
  handleMsg: string | null;
  handleAt: number;
  /** Overrides the status the handle code implies (e.g. `killed` when the server killed the run). */
  status?: FinishedStatus;
  /**
   * The lost-run monitor's verdict, not a result the run reported: the record is marked
   * (`lost_at` = `handleAt`), and the run's real result, should it come later, replaces it.
   */
  lost?: boolean;
  /** The app whose token sent the result: only a record of that app takes it. */
  fromApp?: number;
  /** The executor that sent the result (a Tickwheel executor names itself): only a record sent there takes it. */
  fromAddress?: string;
  /** A workflow node's output, JSON text (bounded by the caller); kept when the result has none. */
  output?: string | null;
  /**
   * The run's dispatch mark, not written yet (mark-batcher.ts holds the marks of runs accepted by
   * an executor that refuses a logId twice): the same statement writes it with the result, one
   * write of the record instead of two. Only a record this call changes takes it; the caller
   * writes the marks of the others. Its five fields are all set (an accepted run's mark).
   */
  dispatch?: DispatchMark;
}

/** A record this call finalised, with what the caller needs for child jobs, retries and alarms. */
export interface FinishedFire {
  fireId: number;
  jobId: number;
  appId: number;
  parentFireId: number | null;
  scheduledAt: number;
  triggerType: string;
  executorAddress: string | null;
  status: FinishedStatus;
  handleCode: number;
  retryCount: number;
  /** A success whose job has child jobs: their records are owed (child-jobs/child-trigger.ts). */
  childrenOwed: boolean;
  /** The workflow run the record is a node's run of, which its end moves on (workflows/engine.ts). */
  workflowRunId: number | null;
  /**
   * The record's job is FIX_DELAY (read in the finishing statement): its run's end sets the job's
   * next fire time (dispatch/fix-delay.ts). False when the job is gone.
   */
  fixDelay: boolean;
}

interface FinishedFireRow {
  id: number;
  job_id: number;
  app_id: number;
  parent_fire_id: number | null;
  scheduled_at: number;
  trigger_type: string;
  executor_address: string | null;
  status: FinishedStatus;
  handle_code: number;
  retry_count: number;
  children_status: number;
  workflow_run_id: number | null;
  /** 1 when the record's job is FIX_DELAY (FIX_DELAY_OF), else 0 or NULL. */
  fix_delay: number | null;
}

const RETURNED_COLUMNS =
  'id, job_id, app_id, parent_fire_id, scheduled_at, trigger_type, executor_address, status, handle_code, retry_count, children_status, workflow_run_id';

/** 1 when the job row `job` is FIX_DELAY, else 0. */
const JOB_FIX_DELAY = (job: string) => `CASE WHEN ${job}.schedule_type = 'FIX_DELAY' THEN 1 ELSE 0 END`;

/** True when the job row `job` has child jobs (`child_job_ids` is never NULL). */
const JOB_HAS_CHILDREN = (job: string) => `${job}.child_job_ids <> ''`;

/**
 * 1 when the job of the fire record `fire` is FIX_DELAY, read where the record is finished, so
 * whoever sets the next fire time from the run's end needs neither a memory of what was sent
 * nor a read of every finished record's job. NULL when the job is gone.
 */
const FIX_DELAY_OF = (fire: string) =>
  `(SELECT ${JOB_FIX_DELAY('job')} FROM job WHERE job.id = ${fire}.job_id) AS fix_delay`;

/** True when the job of the fire record `fire` has child jobs. */
const HAS_CHILDREN = (fire: string) =>
  `EXISTS (SELECT 1 FROM job WHERE job.id = ${fire}.job_id AND ${JOB_HAS_CHILDREN('job')})`;

const FINISHABLE_SQL = FINISHABLE_STATUSES.map((status) => `'${status}'`).join(', ');
/**
 * A record a real result may finalise (`f` the fire; `real` true when the result is not a lost
 * verdict; `status` the status as the statement reads it).
 */
const TAKES_RESULT = (f: string, real: string, status = `${f}.status`) =>
  `(${status} IN (${FINISHABLE_SQL}) OR (${real} AND ${status} = 'failed' AND ${f}.lost_at IS NOT NULL))`;

/** The columns a held dispatch mark writes with the result, in the order of `markValues`. */
const MARK_COLUMNS = ['trigger_at', 'executor_address', 'trigger_code', 'trigger_msg', 'executor_instance'];

/** A result's held dispatch mark as the finish statements take it: five nulls without one. */
function markValues({ dispatch }: FireResult): (string | number | null)[] {
  if (dispatch === undefined) return [null, null, null, null, null];
  return [
    dispatch.triggerAt,
    dispatch.executorAddress,
    dispatch.triggerCode,
    dispatch.triggerMsg,
    dispatch.executorInstance ?? null,
  ];
}

/** Finalises the records of `results`; returns the ones this call changed. */
export async function finishFires(
  conn: StoreConnection,
  results: readonly FireResult[],
): Promise<FinishedFire[]> {
  // In id order, so concurrent finishes of overlapping batches (a callback retried to two nodes)
  // lock their rows in the same order and never deadlock each other.
  const unique = firstResultPerFire(results).sort((a, b) => a.fireId - b.fireId);
  if (unique.length === 0) return [];
  const statuses = unique.map((r) => r.status ?? statusForHandleCode(r.handleCode));
  let rows: FinishedFireRow[];
  if (conn.dialect === 'postgres') rows = await finishPostgres(conn, unique, statuses);
  else if (conn.dialect === 'mysql') rows = await finishMysql(conn, unique, statuses);
  else rows = await finishSqlite(conn, unique, statuses);
  return rows.map(toFinishedFire);
}

/**
 * A run has one result: when a batch carries a fire twice, the first result wins, as one by one;
 * a real result wins over a lost verdict whatever the order, as it would replace it one by one.
 */
function firstResultPerFire(results: readonly FireResult[]): FireResult[] {
  const byId = new Map<number, FireResult>();
  for (const result of results) {
    const first = byId.get(result.fireId);
    if (first === undefined || (first.lost === true && result.lost !== true)) byId.set(result.fireId, result);
  }
  return [...byId.values()];
}

/** The `lost_at` a result writes: its time for a lost verdict, NULL (cleared) for a real result. */
function lostAtOf(result: FireResult): number | null {
  return result.lost === true ? result.handleAt : null;
}

function toFinishedFire(row: FinishedFireRow): FinishedFire {
  return {
    fireId: row.id,
    jobId: row.job_id,
    appId: row.app_id,
    parentFireId: row.parent_fire_id,
    scheduledAt: row.scheduled_at,
    triggerType: row.trigger_type,
    executorAddress: row.executor_address,
    status: row.status,
    handleCode: row.handle_code,
    retryCount: row.retry_count,
    childrenOwed: Number(row.children_status) === CHILDREN_STATUS.OWED,
    workflowRunId: row.workflow_run_id === null ? null : Number(row.workflow_run_id),
    fixDelay: Number(row.fix_delay) === 1,
  };
}

// `locked` takes the row locks in id order before the UPDATE touches a row (an UPDATE … FROM
// unnest locks in whatever order its join runs), as the dispatch marks do. The UPDATE then
// re-checks its WHERE on the newest row version, so of two concurrent finishes of one record the
// second sees the final status and changes nothing.
//
// `locked` also reads what the finish needs of each record's job (FIX_DELAY, child jobs) in the
// same pass, by one join; as correlated subqueries they looked the job up twice for every row
// (bench/fire PostgreSQL spread 5,000: 5 % of the database's CPU in their subplans). `FOR UPDATE
// OF l` locks the records only: the job rows are read, never locked, so a finish never waits on a
// claim that holds them. A record whose job is gone gets fix_delay NULL and owes no children, as
// with the subqueries.
//
// It is one statement, run on its own (its own transaction, its locks held until it ends): in an
// explicit BEGIN … COMMIT it took three round trips instead of one.
export const PG_FINISH = `WITH locked AS (
  SELECT l.id,
    CASE WHEN j.id IS NULL THEN NULL ELSE ${JOB_FIX_DELAY('j')} END AS fix_delay,
    (${JOB_HAS_CHILDREN('j')}) AS has_children
  FROM fire AS l LEFT JOIN job AS j ON j.id = l.job_id
  WHERE l.id = ANY($1::bigint[]) AND ${TAKES_RESULT('l', 'TRUE', pgStatusById('l'))}
  ORDER BY l.id
  FOR UPDATE OF l
)
UPDATE fire AS f
SET status = v.status, handle_code = v.handle_code, handle_msg = v.handle_msg, handle_at = v.handle_at,
  lost_at = v.lost_at, output = COALESCE(v.output, f.output),
  children_status = CASE WHEN v.status = 'succeeded' AND locked.has_children THEN ${CHILDREN_STATUS.OWED} ELSE f.children_status END,
  ${MARK_COLUMNS.map((c) => `${c} = COALESCE(v.${c}, f.${c})`).join(', ')}
FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::text[], $9::text[],
    $10::bigint[], $11::text[], $12::int[], $13::text[], $14::text[])
  AS v(id, status, handle_code, handle_msg, handle_at, lost_at, from_app, from_address, output, ${MARK_COLUMNS.join(', ')}),
  locked
WHERE f.id = v.id AND locked.id = f.id AND ${TAKES_RESULT('f', 'v.lost_at IS NULL', pgStatusById('f'))}
  AND (v.from_app IS NULL OR f.app_id = v.from_app)
  AND (v.from_address IS NULL OR rtrim(COALESCE(f.executor_address, f.sent_to), '/') = rtrim(v.from_address, '/'))
RETURNING ${RETURNED_COLUMNS.split(', ')
  .map((column) => `f.${column}`)
  .join(', ')}, locked.fix_delay`;

async function finishPostgres(
  conn: PostgresConnection,
  results: readonly FireResult[],
  statuses: readonly string[],
) {
  const updated = await conn.pool.query<unknown[]>({
    name: 'tw_finish_fires_mark',
    text: PG_FINISH,
    // Arrays, made objects by finishedRowOf as SQLite's: the client builds no row object first.
    rowMode: 'array',
    values: [
      pgBigints(results.map((r) => r.fireId)),
      pgTexts(statuses),
      pgInts(results.map((r) => r.handleCode)),
      pgTexts(results.map((r) => r.handleMsg)),
      pgBigints(results.map((r) => r.handleAt)),
      pgBigints(results.map(lostAtOf)),
      pgBigints(results.map((r) => r.fromApp ?? null)),
      pgTexts(results.map((r) => r.fromAddress ?? null)),
      pgTexts(results.map((r) => r.output ?? null)),
      pgBigints(results.map((r) => r.dispatch?.triggerAt ?? null)),
      pgTexts(results.map((r) => r.dispatch?.executorAddress ?? null)),
      pgInts(results.map((r) => r.dispatch?.triggerCode ?? null)),
      pgTexts(results.map((r) => r.dispatch?.triggerMsg ?? null)),
      pgTexts(results.map((r) => r.dispatch?.executorInstance ?? null)),
    ],
  });
  return updated.rows.map(finishedRowOf);
}

// MySQL has no RETURNING: lock the rows first (a locking read sees the newest committed
// version), keep the finishable ones, update exactly those. The job's child jobs are read in a
// subquery, which a locking read does not lock (nor would READ COMMITTED), so a finish never
// waits on a claim that holds the job row.
async function finishMysql(
  conn: MysqlConnection,
  results: readonly FireResult[],
  statuses: readonly string[],
) {
  return inMysqlTransaction(conn, async (connection) => {
    const [candidates] = await connection.query<
      (FinishedFireRow & {
        has_children: number;
        lost_at: number | null;
        sent_to: string | null;
      } & RowDataPacket)[]
    >(
      `SELECT ${RETURNED_COLUMNS}, ${FIX_DELAY_OF('fire')}, lost_at, sent_to, ${HAS_CHILDREN('fire')} AS has_children FROM fire WHERE id IN (?) AND ${TAKES_RESULT('fire', 'TRUE')} ORDER BY id FOR UPDATE`,
      [results.map((r) => r.fireId)],
    );
    const lostVerdicts = new Set(results.filter((r) => r.lost === true).map((r) => r.fireId));
    const resultOf = new Map(results.map((r) => [r.fireId, r]));
    // A lost verdict finalises only a record still open; a real result also replaces a lost one.
    const locked = candidates.filter(
      (row) =>
        (!lostVerdicts.has(row.id) || (FINISHABLE_STATUSES as readonly string[]).includes(row.status)) &&
        sentBy(resultOf.get(row.id), row),
    );
    if (locked.length === 0) return [];
    const lockedById = new Map(locked.map((row) => [row.id, row]));
    const changes = results.flatMap((result, i) => {
      const row = lockedById.get(result.fireId);
      if (row === undefined) return [];
      const status = statuses[i]!;
      const owes = status === 'succeeded' && Number(row.has_children) === 1;
      return [{ result, status, childrenStatus: owes ? CHILDREN_STATUS.OWED : row.children_status }];
    });
    await updateMysql(connection, changes);
    const byId = new Map(changes.map((c) => [c.result.fireId, c]));
    return locked.map(({ has_children: _, lost_at: __, sent_to: ___, ...row }) => {
      const change = byId.get(row.id)!;
      return {
        ...row,
        status: change.status as FinishedStatus,
        handle_code: change.result.handleCode,
        children_status: change.childrenStatus,
        executor_address: change.result.dispatch?.executorAddress ?? row.executor_address,
      };
    });
  });
}

/** Whether the record `row` takes `result` from its sender (its app, and its address when named). */
function sentBy(
  result: FireResult | undefined,
  row: { app_id: number; executor_address: string | null; sent_to: string | null },
): boolean {
  if (result === undefined) return false;
  if (result.fromApp !== undefined && Number(row.app_id) !== result.fromApp) return false;
  if (result.fromAddress === undefined) return true;
  const sentTo = row.executor_address ?? row.sent_to;
  return sentTo !== null && withoutSlash(sentTo) === withoutSlash(result.fromAddress);
}

function withoutSlash(address: string): string {
  return address.endsWith('/') ? address.slice(0, -1) : address;
}

async function updateMysql(
  connection: MysqlPoolConnection,
  changes: readonly { result: FireResult; status: string; childrenStatus: number }[],
) {
  // CAST keeps each mark column's type when the first row of the union has no mark (NULL).
  const row = `SELECT ? AS id, ? AS status, ? AS handle_code, ? AS handle_msg, ? AS handle_at, ? AS children_status, ? AS lost_at, ? AS output,
    CAST(? AS SIGNED) AS trigger_at, CAST(? AS CHAR) AS executor_address, CAST(? AS SIGNED) AS trigger_code,
    CAST(? AS CHAR) AS trigger_msg, CAST(? AS CHAR) AS executor_instance`;
  const rows = [
    row,
    ...Array.from({ length: changes.length - 1 }, () => 'SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?'),
  ].join(' UNION ALL ');
  await connection.query(
    `UPDATE fire f JOIN (${rows}) v ON f.id = v.id
SET f.status = v.status, f.handle_code = v.handle_code, f.handle_msg = v.handle_msg, f.handle_at = v.handle_at,
  f.children_status = v.children_status, f.lost_at = v.lost_at, f.output = COALESCE(v.output, f.output),
  ${MARK_COLUMNS.map((c) => `f.${c} = COALESCE(v.${c}, f.${c})`).join(', ')}`,
    changes.flatMap(({ result, status, childrenStatus }) => [
      result.fireId,
      status,
      result.handleCode,
      result.handleMsg,
      result.handleAt,
      childrenStatus,
      lostAtOf(result),
      result.output ?? null,
      ...markValues(result),
    ]),
  );
}

// Each row of the JSON array: [id, status, handle_code, handle_msg, handle_at, lost_at, from_app,
// from_address, output, then the held dispatch mark's trigger_at, executor_address, trigger_code,
// trigger_msg, executor_instance (nulls without one)]; one statement per batch. The unary `+`
// keeps SQLite off the status index: it would scan every open record, not look up the batch's ids.
export const SQLITE_FINISH = `UPDATE fire
SET status = v.value ->> 1, handle_code = v.value ->> 2, handle_msg = v.value ->> 3, handle_at = v.value ->> 4,
  lost_at = v.value ->> 5, output = COALESCE(v.value ->> 8, fire.output),
  children_status = CASE WHEN v.value ->> 1 = 'succeeded' AND ${HAS_CHILDREN('fire')} THEN ${CHILDREN_STATUS.OWED} ELSE fire.children_status END,
  ${MARK_COLUMNS.map((c, i) => `${c} = COALESCE(v.value ->> ${9 + i}, fire.${c})`).join(', ')}
FROM json_each(?) AS v
WHERE fire.id = v.value ->> 0 AND (+fire.status IN (${FINISHABLE_SQL})
  OR (v.value ->> 5 IS NULL AND +fire.status = 'failed' AND fire.lost_at IS NOT NULL))
  AND (v.value ->> 6 IS NULL OR fire.app_id = v.value ->> 6)
  AND (v.value ->> 7 IS NULL OR rtrim(COALESCE(fire.executor_address, fire.sent_to), '/') = rtrim(v.value ->> 7, '/'))
RETURNING ${RETURNED_COLUMNS.split(', ')
  .map((column) => `fire.${column}`)
  .join(', ')}, ${FIX_DELAY_OF('fire')}`;

async function finishSqlite(
  conn: SqliteConnection,
  results: readonly FireResult[],
  statuses: readonly string[],
): Promise<FinishedFireRow[]> {
  const statusOf = new Map(results.map((r, i) => [r, statuses[i]!]));
  const parts = sqliteHotParts(conn, results);
  if (parts.length === 1) return finishSqlitePart(conn, results, statusOf);
  return (await Promise.all(parts.map((part) => finishSqlitePart(conn, part, statusOf)))).flat();
}

async function finishSqlitePart(
  conn: SqliteConnection,
  results: readonly FireResult[],
  statusOf: ReadonlyMap<FireResult, string>,
) {
  const rows = JSON.stringify(
    results.map((r) => [
      r.fireId,
      statusOf.get(r),
      r.handleCode,
      r.handleMsg,
      r.handleAt,
      lostAtOf(r),
      r.fromApp ?? null,
      r.fromAddress ?? null,
      r.output ?? null,
      ...markValues(r),
    ]),
  );
  const finished = await inSqliteHot(
    conn,
    'finish',
    rows,
    () => finishSqliteRows(conn, rows),
    results.length,
  );
  return finished.map(finishedRowOf);
}

/**
 * The finish on a SQLite connection (the server's or the hot thread's), in its write transaction.
 * Its rows come back as arrays (RETURNED_COLUMNS, then fix_delay) and become objects on the
 * caller's side (`finishedRowOf`): better-sqlite3 builds a row object property by property in
 * native code, on the thread every hot statement waits for, and an array crosses to the server's
 * thread cheaper than an object.
 */
export function finishSqliteRows(conn: SqliteStatements, rows: string): unknown[][] {
  return prepared(conn, SQLITE_FINISH).raw(true).all(rows) as unknown[][];
}

/** A row of SQLITE_FINISH or PG_FINISH (RETURNED_COLUMNS, then fix_delay) as an object. */
function finishedRowOf(row: unknown[]): FinishedFireRow {
  return {
    id: row[0] as number,
    job_id: row[1] as number,
    app_id: row[2] as number,
    parent_fire_id: row[3] as number | null,
    scheduled_at: row[4] as number,
    trigger_type: row[5] as string,
    executor_address: row[6] as string | null,
    status: row[7] as FinishedStatus,
    handle_code: row[8] as number,
    retry_count: row[9] as number,
    children_status: row[10] as number,
    workflow_run_id: row[11] as number | null,
    fix_delay: row[12] as number | null,
  };
}
