/**
 * The send fence: the statement between choosing an executor for a fire and sending it `run`.
 * It writes the chosen address on the `pending` record (`sent_to`, in no index, so the update
 * touches no index: a heap-only update on PostgreSQL, in place on InnoDB), and only
 *
 * - while the record is still `pending` (nobody marked, finished or skipped it meanwhile),
 * - when the record has no address yet, or this same one (a record sent before and re-sent goes
 *   to the executor it went to, whose logId check then refuses a second run), and
 * - for a fire of the planner (`lease` given): while this node holds the fire's shard lease under
 *   the epoch the fire was armed with, unexpired on the database's clock and on the node's own —
 *   checked in the same statement (PostgreSQL) or transaction (MySQL, SQLite, under a shared
 *   lock on the lease rows there).
 *
 * On PostgreSQL the lease rows are read, not locked (a share lock on 64 lease rows per statement
 * cost more than the whole fence): a takeover that commits while the statement runs is not seen
 * by it. That needs the lease to expire within the few milliseconds the statement runs while the
 * node still acts on it, which it stops doing `leaseSafetyMarginMs` (600 ms) before the expiry it
 * knows (a node whose event loop stalled past that margin is the case left: the new holder's
 * recovery may then read the record before this statement commits, and route it afresh).
 *
 * A fire sent as its claim read it, its record and job not loaded again (fire-pipeline.ts), carries
 * the `updated_at` its job and app were read at (`readAt`): it passes only while both are still
 * those and the job still runs, so an edit of the job or app made since the claim reaches the fire
 * as it does one loaded at its due time: the answer is `stale`, and the fire is loaded and routed
 * again.
 *
 * A record that passed the fence is `pending` with an address: its send's outcome is not known
 * until the dispatch mark. Whoever dispatches it next (the shard's next holder, a restart) sends
 * it to that address again.
 *
 * On MySQL the records are locked in id order first, as the dispatch marks and results lock them
 * (dispatch-marks.ts); on PostgreSQL the UPDATE locks each record it changes, which no mark or
 * result of that record can hold yet (they follow the send).
 */

import type { PoolConnection as MysqlPoolConnection } from 'mysql2/promise';
import {
  inMysqlTransaction,
  inSqliteHot,
  type MysqlConnection,
  type PostgresConnection,
  prepared,
  type SqliteConnection,
  type SqliteStatements,
  type StoreConnection,
} from '../connection.js';
import { pgStatusById } from '../fire-status.js';
import { DATABASE_NOW_MS_SQL } from '../leases.js';
import { pgBigints, pgTexts } from './pg-array.js';

/** One send to fence. */
export interface SendFenceRequest {
  fireId: number;
  /** The executor the run is about to be sent to. */
  address: string;
  /** The shard lease the sender must hold (`shard:<n>`) and at which epoch; null for a trigger-once. */
  lease: { name: string; epoch: number } | null;
  /**
   * For a fire sent as its claim read it: its job and app and the `updated_at` each was read at.
   * Admitted only while both are unchanged and the job is running; `stale` otherwise.
   */
  readAt?: { jobId: number; jobUpdatedAt: number; appId: number; appUpdatedAt: number };
}

/** The fence's answer for one send. */
export type SendFenceAnswer =
  | { fireId: number; admitted: true }
  /** The record went to another executor before: re-send it there. */
  | { fireId: number; admitted: false; sentTo: string }
  /**
   * Not sent: the record is no longer pending, gone, or its shard is not held by this node; or
   * (`stale`) its job or app changed since the claim read them: load it again.
   */
  | { fireId: number; admitted: false; reason: 'not-pending' | 'not-owner' | 'stale' };

export interface FireState {
  id: number;
  status: string;
  sent_to: string | null;
}

const PG_NOW_MS = DATABASE_NOW_MS_SQL.postgres;
const MYSQL_NOW_MS = DATABASE_NOW_MS_SQL.mysql;

/**
 * Fences a batch of sends; `nowMs` is this node's (corrected) time. A lease must be unexpired on
 * both clocks, the database's and this node's, so a node whose clock runs ahead stops first.
 */
export async function fenceSends(
  conn: StoreConnection,
  nodeId: string,
  nowMs: number,
  sends: readonly SendFenceRequest[],
): Promise<SendFenceAnswer[]> {
  if (sends.length === 0) return [];
  const unique = [...new Map(sends.map((s) => [s.fireId, s])).values()].sort((a, b) => a.fireId - b.fireId);
  let admitted: Set<number>;
  let states: Map<number, FireState>;
  let heldLeases: Set<string>;
  if (conn.dialect === 'postgres')
    ({ admitted, states, heldLeases } = await fencePostgres(conn, nodeId, nowMs, unique));
  else if (conn.dialect === 'mysql')
    ({ admitted, states, heldLeases } = await fenceMysql(conn, nodeId, nowMs, unique));
  else ({ admitted, states, heldLeases } = await fenceSqlite(conn, nodeId, nowMs, unique));
  const fenced = new Map(unique.map((s) => [s.fireId, s.address]));
  return sends.map((send) => {
    // The same record asked twice in one batch: only the address that went in is admitted.
    const address = fenced.get(send.fireId);
    if (admitted.has(send.fireId) && address !== send.address && address !== undefined) {
      return { fireId: send.fireId, admitted: false, sentTo: address };
    }
    return answerOf(send, admitted, states.get(send.fireId), heldLeases);
  });
}

function answerOf(
  send: SendFenceRequest,
  admitted: ReadonlySet<number>,
  state: FireState | undefined,
  heldLeases: ReadonlySet<string>,
): SendFenceAnswer {
  const { fireId } = send;
  if (admitted.has(fireId)) return { fireId, admitted: true };
  if (state === undefined || state.status !== 'pending')
    return { fireId, admitted: false, reason: 'not-pending' };
  if (send.lease !== null && !heldLeases.has(leaseKey(send.lease))) {
    return { fireId, admitted: false, reason: 'not-owner' };
  }
  if (state.sent_to !== null && state.sent_to !== send.address) {
    return { fireId, admitted: false, sentTo: state.sent_to };
  }
  // Everything else would have let it through: what it was read with is out of date.
  if (send.readAt !== undefined) return { fireId, admitted: false, reason: 'stale' };
  return { fireId, admitted: false, reason: 'not-pending' };
}

const leaseKey = (lease: { name: string; epoch: number }) => `${lease.name}@${lease.epoch}`;

/**
 * One statement: the lease rows of the batch that this node holds unexpired on both clocks, then
 * the update of the records that pass (the UPDATE re-checks `status` and `sent_to` on each row
 * once it holds its lock, so two fences of one record cannot both pass with different
 * executors); it answers with the ids that passed, the asked records that did not as they were
 * (for their answers; read by primary key, the passed ones not again), and the held leases on a
 * row of their own (id NULL).
 */
export const PG_FENCE = `WITH v AS (
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[])
    AS v(id, address, lease_name, epoch, job_id, job_updated_at, app_id, app_updated_at)
  WHERE v.job_updated_at IS NULL
    OR ((SELECT CASE WHEN j.trigger_status = 1 THEN j.updated_at END FROM job j WHERE j.id = v.job_id) = v.job_updated_at
      AND (SELECT a.updated_at FROM app_group a WHERE a.id = v.app_id) = v.app_updated_at)
), held AS (
  SELECT l.name, l.epoch FROM lease l
  WHERE l.name = ANY($3::text[]) AND l.owner_node = $5 AND l.expires_at > GREATEST($6::bigint, ${PG_NOW_MS})
), fenced AS (
  UPDATE fire AS f SET sent_to = v.address
  FROM v
  WHERE f.id = v.id AND ${pgStatusById('f')} = 'pending' AND (f.sent_to IS NULL OR f.sent_to = v.address)
    AND (v.lease_name IS NULL OR EXISTS (SELECT 1 FROM held WHERE held.name = v.lease_name AND held.epoch = v.epoch))
  RETURNING f.id
)
SELECT id, NULL::text AS status, NULL::text AS sent_to, TRUE AS admitted, NULL::text[] AS held FROM fenced
UNION ALL
SELECT f.id, f.status, f.sent_to, FALSE, NULL FROM fire f
WHERE f.id = ANY(ARRAY(SELECT a.id FROM unnest($1::bigint[]) AS a(id) WHERE a.id NOT IN (SELECT id FROM fenced)))
UNION ALL
SELECT NULL, NULL, NULL, NULL, (SELECT coalesce(array_agg(held.name || '@' || held.epoch), '{}') FROM held)`;

/** A row of PG_FENCE's answer, as an array: id (NULL on the held leases' row), status, sent_to, admitted, held. */
type PgFenceRow = [string | number | null, string | null, string | null, boolean | null, string[] | null];

const NO_READ_AT = [pgBigints([]), pgBigints([]), pgBigints([]), pgBigints([])];

/**
 * PG_FENCE's $7–$10: each send's `readAt`, or four empty arrays when no send has one (`unnest`
 * pads a shorter array with NULLs, so each send then reads as not checked).
 */
function readAtArrays(sends: readonly SendFenceRequest[]): Buffer[] {
  if (!sends.some((s) => s.readAt !== undefined)) return NO_READ_AT;
  return [
    pgBigints(sends.map((s) => s.readAt?.jobId ?? null)),
    pgBigints(sends.map((s) => s.readAt?.jobUpdatedAt ?? null)),
    pgBigints(sends.map((s) => s.readAt?.appId ?? null)),
    pgBigints(sends.map((s) => s.readAt?.appUpdatedAt ?? null)),
  ];
}

async function fencePostgres(
  conn: PostgresConnection,
  nodeId: string,
  nowMs: number,
  sends: readonly SendFenceRequest[],
) {
  const result = await conn.pool.query<PgFenceRow>({
    name: 'tw_fence_sends',
    text: PG_FENCE,
    rowMode: 'array',
    values: [
      pgBigints(sends.map((s) => s.fireId)),
      pgTexts(sends.map((s) => s.address)),
      pgTexts(sends.map((s) => s.lease?.name ?? null)),
      pgBigints(sends.map((s) => s.lease?.epoch ?? null)),
      nodeId,
      nowMs,
      ...readAtArrays(sends),
    ],
  });
  const admitted = new Set<number>();
  const states = new Map<number, FireState>();
  let heldLeases = new Set<string>();
  for (const [rawId, status, sentTo, passed, held] of result.rows) {
    if (rawId === null) heldLeases = new Set(held ?? []);
    else if (passed === true) admitted.add(Number(rawId));
    else {
      const id = Number(rawId);
      states.set(id, { id, status: status!, sent_to: sentTo });
    }
  }
  // The statement's rows are as of its start: a record another fence took meanwhile (its UPDATE
  // waited for that one, then found the record taken) still looks free. Read those again.
  const raced = sends.filter(
    (send) => !admitted.has(send.fireId) && passes(send, states.get(send.fireId), heldLeases),
  );
  if (raced.length > 0) {
    const again = await conn.pool.query<FireState>(
      'SELECT id, status, sent_to FROM fire WHERE id = ANY($1::bigint[])',
      [raced.map((send) => send.fireId)],
    );
    for (const row of again.rows) states.set(Number(row.id), { ...row, id: Number(row.id) });
  }
  return { admitted, states, heldLeases };
}

async function fenceMysql(
  conn: MysqlConnection,
  nodeId: string,
  nowMs: number,
  sends: readonly SendFenceRequest[],
) {
  const leaseNames = [...new Set(sends.flatMap((s) => (s.lease === null ? [] : [s.lease.name])))];
  return inMysqlTransaction(conn, async (connection) => {
    let heldLeases = new Set<string>();
    if (leaseNames.length > 0) {
      const [leases] = await connection.query(
        `SELECT name, epoch FROM lease WHERE name IN (?) AND owner_node = ?
         AND expires_at > GREATEST(?, ${MYSQL_NOW_MS}) LOCK IN SHARE MODE`,
        [leaseNames, nodeId, nowMs],
      );
      heldLeases = new Set((leases as { name: string; epoch: number }[]).map((l) => leaseKey(l)));
    }
    const [rows] = await connection.query(
      'SELECT id, status, sent_to FROM fire WHERE id IN (?) ORDER BY id FOR UPDATE',
      [sends.map((s) => s.fireId)],
    );
    const states = new Map(
      (rows as FireState[]).map((row) => [Number(row.id), { ...row, id: Number(row.id) }]),
    );
    const current = await mysqlReadAtCheck(connection, sends);
    const passing = sends.filter(
      (send) => passes(send, states.get(send.fireId), heldLeases) && current(send),
    );
    if (passing.length > 0) {
      const cases = passing.map(() => 'WHEN ? THEN ?').join(' ');
      await connection.query(`UPDATE fire SET sent_to = CASE id ${cases} END WHERE id IN (?)`, [
        ...passing.flatMap((s) => [s.fireId, s.address]),
        passing.map((s) => s.fireId),
      ]);
    }
    return { admitted: new Set(passing.map((s) => s.fireId)), states, heldLeases };
  });
}

/**
 * The `readAt` check on MySQL: the jobs' and apps' `updated_at` now, read without a lock (a
 * locking read of the job rows would make the claim's SKIP LOCKED pass them by).
 */
async function mysqlReadAtCheck(
  connection: MysqlPoolConnection,
  sends: readonly SendFenceRequest[],
): Promise<(send: SendFenceRequest) => boolean> {
  const ids = readAtIds(sends);
  if (ids === undefined) return () => true;
  const [jobs] = await connection.query('SELECT id, updated_at, trigger_status FROM job WHERE id IN (?)', [
    ids.jobIds,
  ]);
  const [apps] = await connection.query('SELECT id, updated_at FROM app_group WHERE id IN (?)', [ids.appIds]);
  return readAtCheck(jobs as VersionRow[], apps as VersionRow[]);
}

/** The jobs and apps the sends' `readAt` name, each once; undefined when no send has one. */
function readAtIds(sends: readonly SendFenceRequest[]): { jobIds: number[]; appIds: number[] } | undefined {
  const read = sends.flatMap((s) => (s.readAt === undefined ? [] : [s.readAt]));
  if (read.length === 0) return undefined;
  return { jobIds: [...new Set(read.map((r) => r.jobId))], appIds: [...new Set(read.map((r) => r.appId))] };
}

/** A job's or app's `updated_at` now (a job's with whether it runs). */
interface VersionRow {
  id: number;
  updated_at: number;
  trigger_status?: number;
}

/** Whether a send's `readAt` is still the job's and app's `updated_at` in `jobs` and `apps` (true without one). */
function readAtCheck(
  jobs: readonly VersionRow[],
  apps: readonly VersionRow[],
): (send: SendFenceRequest) => boolean {
  const jobAt = new Map(
    jobs.filter((j) => Number(j.trigger_status) === 1).map((j) => [Number(j.id), Number(j.updated_at)]),
  );
  const appAt = new Map(apps.map((a) => [Number(a.id), Number(a.updated_at)]));
  return ({ readAt }) =>
    readAt === undefined ||
    (jobAt.get(readAt.jobId) === readAt.jobUpdatedAt && appAt.get(readAt.appId) === readAt.appUpdatedAt);
}

const SQLITE_LEASES = `SELECT name, epoch FROM lease
WHERE name IN (SELECT value FROM json_each(?)) AND owner_node = ? AND expires_at > ?`;
const SQLITE_FIRES = `SELECT id, status, sent_to FROM fire WHERE id IN (SELECT value FROM json_each(?))`;
const SQLITE_JOB_VERSIONS = `SELECT id, updated_at, trigger_status FROM job WHERE id IN (SELECT value FROM json_each(?))`;
const SQLITE_APP_VERSIONS = `SELECT id, updated_at FROM app_group WHERE id IN (SELECT value FROM json_each(?))`;
const SQLITE_FENCE = `UPDATE fire SET sent_to = v.value ->> 1
FROM json_each(?) AS v WHERE fire.id = v.value ->> 0`;

async function fenceSqlite(
  conn: SqliteConnection,
  nodeId: string,
  nowMs: number,
  sends: readonly SendFenceRequest[],
) {
  const arg: SqliteFenceArg = {
    nodeId,
    nowMs,
    leaseNames: [...new Set(sends.flatMap((s) => (s.lease === null ? [] : [s.lease.name])))],
    sends,
  };
  return inSqliteHot(conn, 'fence', arg, () => fenceSqliteRows(conn, arg), sends.length);
}

/** A batch of sends to fence, as the SQLite side takes it. */
export interface SqliteFenceArg {
  nodeId: string;
  nowMs: number;
  leaseNames: string[];
  sends: readonly SendFenceRequest[];
}

/** The fence on a SQLite connection (the server's or the hot thread's), in its write transaction. */
export function fenceSqliteRows(
  conn: SqliteStatements,
  { nodeId, nowMs, leaseNames, sends }: SqliteFenceArg,
): { admitted: Set<number>; states: Map<number, FireState>; heldLeases: Set<string> } {
  const leases =
    leaseNames.length === 0
      ? []
      : (prepared(conn, SQLITE_LEASES).all(JSON.stringify(leaseNames), nodeId, nowMs) as {
          name: string;
          epoch: number;
        }[]);
  const heldLeases = new Set(leases.map((l) => leaseKey(l)));
  // Rows as arrays: better-sqlite3 builds a row object property by property in native code.
  const rows = prepared(conn, SQLITE_FIRES)
    .raw(true)
    .all(JSON.stringify(sends.map((s) => s.fireId))) as [number, string, string | null][];
  const states = new Map<number, FireState>();
  for (const [id, status, sent_to] of rows) states.set(id, { id, status, sent_to });
  const current = sqliteReadAtCheck(conn, sends);
  const passing = sends.filter((send) => passes(send, states.get(send.fireId), heldLeases) && current(send));
  if (passing.length > 0) {
    prepared(conn, SQLITE_FENCE).run(JSON.stringify(passing.map((s) => [s.fireId, s.address])));
  }
  const admitted = new Set(passing.map((s) => s.fireId));
  // Only the refused sends' answers read their record's state: the others' stay here, not copied
  // to the server's thread with the answer.
  for (const id of admitted) states.delete(id);
  return { admitted, states, heldLeases };
}

function sqliteReadAtCheck(
  conn: SqliteStatements,
  sends: readonly SendFenceRequest[],
): (send: SendFenceRequest) => boolean {
  const ids = readAtIds(sends);
  if (ids === undefined) return () => true;
  const jobs = prepared(conn, SQLITE_JOB_VERSIONS).all(JSON.stringify(ids.jobIds)) as VersionRow[];
  const apps = prepared(conn, SQLITE_APP_VERSIONS).all(JSON.stringify(ids.appIds)) as VersionRow[];
  return readAtCheck(jobs, apps);
}

/** Whether a send passes the fence, given its record's state and the leases held (`readAt` aside). */
function passes(
  send: SendFenceRequest,
  state: FireState | undefined,
  heldLeases: ReadonlySet<string>,
): boolean {
  if (state === undefined || state.status !== 'pending') return false;
  if (state.sent_to !== null && state.sent_to !== send.address) return false;
  return send.lease === null || heldLeases.has(leaseKey(send.lease));
}
