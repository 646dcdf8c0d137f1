/**
 * The claim: turns due jobs into fire records, one short transaction per batch, per dialect.
 *
 * Why it cannot record a fire twice, even when two nodes both believe they own a shard:
 * 1. the job rows are read under a row lock (PostgreSQL and MySQL `FOR UPDATE SKIP LOCKED`: a
 *    second claimer skips them rather than waits; SQLite: `BEGIN IMMEDIATE`, one writer at all);
 * 2. `next_fire_at` moves by compare-and-set on the value read, and only while the claimer's
 *    shard lease still carries the epoch it was granted (the fencing token) and is unexpired;
 * 3. the fire record goes in under UNIQUE (job_id, scheduled_at, claim_job_id) — a claimed
 *    fire's claim_job_id is its job_id — with "on conflict do nothing", so whatever slipped past
 *    1 and 2 still finds the time taken (on PostgreSQL a plain insert first, which a taken time
 *    fails: the claim is then rolled back and made again with "on conflict do nothing").
 * Each due job is planned inside the transaction by the planner's pure decision
 * (scheduling/plan-due-job.ts: which times fire, which are misfires, where the schedule
 * continues), and what it decided comes back with the claimed fires (`ClaimResult.planned`), so
 * the planner learns it from the answer, not through a callback. Nothing in the transaction waits
 * on the network.
 *
 * A plan may also record a fire as already `skipped` (a DO_NOTHING misfire): it goes in with the
 * same transaction, under the same key, so no crash can leave it `pending` for recovery to find,
 * and it comes back in `ClaimResult.skipped`, never among the fires to dispatch.
 */
import type { TriggerType } from '@tickwheel/protocol';
import type { PoolConnection as MysqlPoolConnection, RowDataPacket } from 'mysql2/promise';
import { planDueJob } from '../../scheduling/plan-due-job.js';
import {
  inMysqlTransaction,
  inPostgresTransaction,
  inSqliteHot,
  type MysqlConnection,
  type PostgresConnection,
  prepared,
  type SqliteConnection,
  type SqliteStatements,
  type StoreConnection,
} from '../connection.js';
import { shardLeaseName } from '../leases.js';
import type { JobRow } from '../schema.js';
import { SENDING_JOB_COLUMNS } from './due-load.js';
import { pgBigints, pgInts, pgSmallints, pgTexts } from './pg-array.js';

/** A shard this node holds a lease on, with the epoch the lease was granted at. */
export interface OwnedShard {
  index: number;
  epoch: number;
}

/** The statuses a claim may record a fire in. */
export type PlannedFireStatus = 'pending' | 'skipped';

/** One fire the planner wants recorded for a job. */
export interface PlannedFire {
  scheduledAt: number;
  /** CRON for a regular fire, MISFIRE for a missed time (fired once now, or skipped). */
  triggerType: TriggerType;
  /** `pending` (default): to dispatch. `skipped`: recorded as final, for the log only. */
  status?: PlannedFireStatus;
  /** Why the fire was skipped, written to `handle_msg` (with `handle_at` = the claim's now). */
  handleMsg?: string;
}

/**
 * The columns of a due job the claim reads: what planning it and recording its fires need, and
 * what sending them needs (the route, block strategy, timeout and script, with the `updated_at`
 * they were read at), so a claimed fire is sent without reading its job again: the send fence
 * admits it only while the job's `updated_at` is still the one read here (send-fence.ts). A row
 * becomes a JavaScript object column by column; the whole job row (thirty columns) cost the claim
 * about three times these.
 */
export const CLAIMED_JOB_COLUMNS = [
  'id',
  'app_id',
  'trigger_status',
  'schedule_type',
  'schedule_conf',
  'time_zone',
  'misfire_strategy',
  'next_fire_at',
  'executor_handler',
  'executor_param',
  'executor_fail_retry_count',
  ...SENDING_JOB_COLUMNS,
  'updated_at',
] as const;

/** A due job as the claim read it. */
export type ClaimedJob = Pick<JobRow, (typeof CLAIMED_JOB_COLUMNS)[number]>;

const CLAIMED_JOB_SQL = CLAIMED_JOB_COLUMNS.join(', ');

/** A due job read as an array, its columns in CLAIMED_JOB_COLUMNS order. */
function claimedJobOf(row: unknown[]): ClaimedJob {
  const r = row as ClaimedJobRow;
  return {
    id: r[0],
    app_id: r[1],
    trigger_status: r[2],
    schedule_type: r[3],
    schedule_conf: r[4],
    time_zone: r[5],
    misfire_strategy: r[6],
    next_fire_at: r[7],
    executor_handler: r[8],
    executor_param: r[9],
    executor_fail_retry_count: r[10],
    executor_route_strategy: r[11],
    executor_block_strategy: r[12],
    executor_timeout: r[13],
    glue_type: r[14],
    glue_source: r[15],
    glue_updated_at: r[16],
    updated_at: r[17],
  };
}

type ClaimedJobRow = [
  ClaimedJob['id'],
  ClaimedJob['app_id'],
  ClaimedJob['trigger_status'],
  ClaimedJob['schedule_type'],
  ClaimedJob['schedule_conf'],
  ClaimedJob['time_zone'],
  ClaimedJob['misfire_strategy'],
  ClaimedJob['next_fire_at'],
  ClaimedJob['executor_handler'],
  ClaimedJob['executor_param'],
  ClaimedJob['executor_fail_retry_count'],
  ClaimedJob['executor_route_strategy'],
  ClaimedJob['executor_block_strategy'],
  ClaimedJob['executor_timeout'],
  ClaimedJob['glue_type'],
  ClaimedJob['glue_source'],
  ClaimedJob['glue_updated_at'],
  ClaimedJob['updated_at'],
];

/** What the planner decides for one due job. */
export interface FirePlan {
  /** Fires to record, pending or skipped; empty when nothing is to be recorded. */
  fires: readonly PlannedFire[];
  /** The job's next fire time; null when nothing is to fire until something else sets it (FIX_DELAY). */
  nextFireAt: number | null;
  /** Stop the job (trigger_status = 0): its schedule has no more times (ONCE). */
  stop?: boolean;
}

export interface ClaimRequest {
  /** This node's id, as written in the lease rows. */
  nodeId: string;
  nowMs: number;
  /** Claim jobs whose next_fire_at is at or before this instant (epoch ms): now + look-ahead. */
  horizonMs: number;
  /**
   * A claimed CRON or FIX_RATE job has each of its times up to this instant recorded by the one
   * claim (at least its due time; at most MAX_TIMES_PER_CLAIM): its row is locked, read and
   * advanced once for them all. Default: the due time only (and every time up to now, late).
   */
  recordUntilMs?: number;
  /** The number of shards the job space is split into (shard of a job = id % shardTotal). */
  shardTotal: number;
  /** The shards to claim from, each with this node's lease epoch. */
  shards: readonly OwnedShard[];
  /** At most this many jobs per batch. */
  limit: number;
  /** A time claimed later than this after it was due is a misfire (misfire.ts). */
  misfireWindowMs: number;
  /**
   * Jobs given a fire-now misfire already this tick: a further misfire of theirs is skipped, so a
   * stalled node fires a job's missed times once, not in a burst. Default none.
   */
  firedNow?: readonly number[];
}

/** What planning one due job decided that the planner must remember. */
export interface PlanOutcome {
  jobId: number;
  /** [scheduled time, time to send] of each fire to arm. */
  dueAts: [number, number][];
  /** The job got a fire-now misfire. */
  firedNow: boolean;
  /** Why its schedule could not be read (it is stopped). */
  error?: string;
}

/** A fire the claim recorded: pending and ready for the wheel, or (in `skipped`) final already. */
export interface ClaimedFire {
  fireId: number;
  scheduledAt: number;
  triggerType: TriggerType;
  /** The job as claimed (shared by every fire of the job in this batch). */
  job: ClaimedJob;
  /** When the claim recorded it (the record's `created_at`). */
  claimedAt: number;
}

export interface ClaimResult {
  /** Pending fires, to arm and dispatch. */
  fires: ClaimedFire[];
  /** Fires recorded `skipped` by this claim: never to dispatch. */
  skipped: ClaimedFire[];
  /** Due jobs the batch looked at; equal to `limit` means more may be due. */
  scanned: number;
  /**
   * What planning each due job decided that the planner must remember (the due times of its
   * fires, a fire-now misfire, a schedule that no longer reads and stopped the job), whether or
   * not its claim went through.
   */
  planned: PlanOutcome[];
}

/** A claim that recorded nothing after looking at `scanned` due jobs. */
const nothingClaimed = (scanned = 0, planned: PlanOutcome[] = []): ClaimResult => ({
  fires: [],
  skipped: [],
  scanned,
  planned,
});

/** A due job with its plan and the lease its shard is held under. */
interface PlannedJob {
  job: ClaimedJob;
  plan: FirePlan;
  outcome: PlanOutcome;
  lease: string;
  epoch: number;
}

/** Claims due jobs of the owned shards and records their fires; see the file comment for why it is safe. */
export async function claimDueFires(conn: StoreConnection, request: ClaimRequest): Promise<ClaimResult> {
  if (request.shards.length === 0 || request.limit <= 0) return nothingClaimed();
  if (conn.dialect === 'postgres') return claimPostgres(conn, request);
  if (conn.dialect === 'mysql') return claimMysql(conn, request);
  return claimSqlite(conn, request);
}

/** Plans each due job (plan-due-job.ts), a job given a fire-now misfire counting for those after it. */
function planJobs(jobs: readonly ClaimedJob[], request: ClaimRequest): PlannedJob[] {
  const epochs = new Map(request.shards.map((shard) => [shard.index, shard.epoch]));
  const firedNow = new Set(request.firedNow);
  return jobs.map((job) => {
    const index = job.id % request.shardTotal;
    const { plan, ...outcome } = planDueJob(
      job,
      request.nowMs,
      request.misfireWindowMs,
      firedNow,
      request.recordUntilMs,
    );
    if (outcome.firedNow) firedNow.add(job.id);
    return { job, plan, outcome, lease: shardLeaseName(index), epoch: epochs.get(index) ?? -1 };
  });
}

/** Sorts the recorded fires of `planned` into pending and skipped; `idOf` gives a fire's new id, or undefined when it was not recorded. */
function claimResult(
  planned: readonly PlannedJob[],
  idOf: (jobId: number, scheduledAt: number) => number | undefined,
  scanned: number,
  claimedAt: number,
): ClaimResult {
  const result = nothingClaimed(
    scanned,
    planned.map((p) => p.outcome),
  );
  for (const { job, plan } of planned) {
    for (const fire of plan.fires) {
      const fireId = idOf(job.id, fire.scheduledAt);
      if (fireId === undefined) continue;
      const claimed = {
        fireId,
        scheduledAt: fire.scheduledAt,
        triggerType: fire.triggerType,
        job,
        claimedAt,
      };
      (isSkipped(fire) ? result.skipped : result.fires).push(claimed);
    }
  }
  return result;
}

const isSkipped = (fire: PlannedFire) => fire.status === 'skipped';

/** The status, handle_at and handle_msg a planned fire is recorded with. */
function recordedState(fire: PlannedFire, nowMs: number): [PlannedFireStatus, number | null, string | null] {
  return isSkipped(fire) ? ['skipped', nowMs, fire.handleMsg ?? null] : ['pending', null, null];
}

const fireKey = (jobId: number, scheduledAt: number) => `${jobId}:${scheduledAt}`;

// ---------------------------------------------------------------------------------------------
// PostgreSQL: SKIP LOCKED select, then one statement that advances the jobs (UPDATE … FROM
// unnest) and inserts the fires of exactly the advanced jobs (INSERT … ON CONFLICT DO NOTHING
// RETURNING). Both texts are constant, so they run as named prepared statements.
//
// The leases this node holds are read once per statement (an uncorrelated ARRAY(…), run once
// before the rows) and each row's `name@epoch` looked up in them. Written as a join or EXISTS
// against `lease`, the statement's generic plan (a prepared statement's from its sixth run on)
// had no row counts to go by when the tables carry no statistics (autovacuum off, or before the
// first analyse), put the lease rows outside a nested loop and unnested the batch's arrays
// again for each of them: 64 leases × 500 jobs, about 9 ms of a 17 ms statement
// (store-hot-plans-postgres.test.ts).

// The look for due jobs must walk job_due_idx in time order and stop at the batch's size. On a
// table without statistics the planner expects a row or two and may instead collect every job
// due within the look-ahead through a bitmap of the index, read them all and sort them: with
// jobs that fire every second that is every enabled job (10,000 rows read and sorted for a batch
// of 500). The claim's transaction turns bitmap scans off (PG_CLAIM_SETTINGS), which leaves the
// index walk (store-hot-plans-postgres.test.ts).
export const PG_CLAIM_SETTINGS = 'SET LOCAL enable_bitmapscan = off';

export const PG_SELECT_DUE = `SELECT ${CLAIMED_JOB_SQL} FROM job
WHERE trigger_status = 1 AND next_fire_at <= $1 AND (id % $2) = ANY($3::bigint[])
ORDER BY next_fire_at
LIMIT $4
FOR UPDATE SKIP LOCKED`;

/** The advance and the record; `onConflict` what the INSERT does on a time already taken. */
const advanceAndRecord = (onConflict: string) => `WITH advanced AS (
  UPDATE job AS j
  SET next_fire_at = v.next_fire_at, trigger_status = v.trigger_status
  FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::smallint[], $6::text[], $7::bigint[])
    AS v(id, old_next_fire_at, next_fire_at, trigger_status, lease_name, epoch)
  WHERE j.id = v.id
    AND j.next_fire_at = v.old_next_fire_at
    AND v.lease_name || '@' || v.epoch = ANY (ARRAY(SELECT l.name || '@' || l.epoch FROM lease l
                                                    WHERE l.owner_node = $8 AND l.expires_at > $1))
  RETURNING j.id
)
INSERT INTO fire (job_id, app_id, claim_job_id, scheduled_at, trigger_type, executor_handler, executor_param,
                  shard_index, shard_total, status, handle_at, handle_msg, retry_count, alarm_status,
                  claimed_by_epoch, created_at)
SELECT f.job_id, f.app_id, f.job_id, f.scheduled_at, f.trigger_type, f.executor_handler, f.executor_param,
       0, 1, f.status, f.handle_at, f.handle_msg, f.retry_count, 0, f.epoch, $1
FROM unnest($9::bigint[], $10::bigint[], $11::bigint[], $12::text[], $13::text[], $14::text[], $15::int[], $16::bigint[],
            $17::text[], $18::bigint[], $19::text[])
  AS f(job_id, app_id, scheduled_at, trigger_type, executor_handler, executor_param, retry_count, epoch,
       status, handle_at, handle_msg)
JOIN advanced a ON a.id = f.job_id
${onConflict}RETURNING id, job_id, scheduled_at`;

/**
 * The advance and the record, the fires inserted under "on conflict do nothing" (guarantee 3 at
 * the top of this file): what a claim runs for a minute after a claim met a time already taken.
 */
export const PG_ADVANCE_AND_RECORD = advanceAndRecord(
  'ON CONFLICT (job_id, scheduled_at, claim_job_id) DO NOTHING\n',
);

/**
 * The same with a plain INSERT, what a claim runs otherwise. A time already taken fails the
 * statement on the unique key (which an INSERT checks all the same), the claim is rolled back
 * whole and made again with PG_ADVANCE_AND_RECORD: nothing is recorded twice either way. A time
 * is taken only when a job's schedule was moved back onto a time recorded ahead, and PostgreSQL's
 * "on conflict" costs every row a speculative insertion (a look into the key before the insert,
 * and one more log record to confirm it): about a quarter of the insert's time a row.
 */
export const PG_ADVANCE_AND_RECORD_PLAIN = advanceAndRecord('');

/** How long the claims of a store insert under "on conflict do nothing" after one met a taken time. */
const DEDUPE_MS = 60_000;

/** Per store connection: until when its claims insert under "on conflict do nothing". */
const dedupeUntil = new WeakMap<PostgresConnection, number>();

/** A PostgreSQL unique violation (the claim key: the only unique key the claim's insert can meet). */
const isUniqueViolation = (err: unknown) => (err as { code?: unknown } | null)?.code === '23505';

async function claimPostgres(conn: PostgresConnection, request: ClaimRequest): Promise<ClaimResult> {
  if ((dedupeUntil.get(conn) ?? 0) > request.nowMs) return claimPostgresOnce(conn, request, true);
  try {
    return await claimPostgresOnce(conn, request, false);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    dedupeUntil.set(conn, request.nowMs + DEDUPE_MS);
    return claimPostgresOnce(conn, request, true);
  }
}

/** One claim transaction; `dedupe`: the fires go in under "on conflict do nothing". */
async function claimPostgresOnce(
  conn: PostgresConnection,
  request: ClaimRequest,
  dedupe: boolean,
): Promise<ClaimResult> {
  return inPostgresTransaction(
    conn,
    async (tx) => {
      const due = await tx.query<ClaimedJob>({
        name: 'tw_claim_select_due',
        text: PG_SELECT_DUE,
        values: [
          request.horizonMs,
          request.shardTotal,
          pgBigints(request.shards.map((s) => s.index)),
          request.limit,
        ],
      });
      if (due.rows.length === 0) return nothingClaimed();
      const planned = planJobs(due.rows, request);
      const fireRows = planned.flatMap(({ job, plan, epoch }) =>
        plan.fires.map((fire) => ({ job, fire, epoch, state: recordedState(fire, request.nowMs) })),
      );
      const recorded = await tx.queryAndCommit<{ id: number; job_id: number; scheduled_at: number }>({
        name: dedupe ? 'tw_claim_advance_and_record' : 'tw_claim_advance_and_record_plain',
        text: dedupe ? PG_ADVANCE_AND_RECORD : PG_ADVANCE_AND_RECORD_PLAIN,
        values: [
          request.nowMs,
          pgBigints(planned.map((p) => p.job.id)),
          pgBigints(planned.map((p) => p.job.next_fire_at)),
          pgBigints(planned.map((p) => p.plan.nextFireAt)),
          pgSmallints(planned.map((p) => (p.plan.stop ? 0 : 1))),
          pgTexts(planned.map((p) => p.lease)),
          pgBigints(planned.map((p) => p.epoch)),
          request.nodeId,
          pgBigints(fireRows.map((r) => r.job.id)),
          pgBigints(fireRows.map((r) => r.job.app_id)),
          pgBigints(fireRows.map((r) => r.fire.scheduledAt)),
          pgTexts(fireRows.map((r) => r.fire.triggerType)),
          pgTexts(fireRows.map((r) => r.job.executor_handler)),
          pgTexts(fireRows.map((r) => r.job.executor_param)),
          pgInts(fireRows.map((r) => r.job.executor_fail_retry_count)),
          pgBigints(fireRows.map((r) => r.epoch)),
          pgTexts(fireRows.map((r) => r.state[0])),
          pgBigints(fireRows.map((r) => r.state[1])),
          pgTexts(fireRows.map((r) => r.state[2])),
        ],
      });
      const ids = new Map(recorded.rows.map((row) => [fireKey(row.job_id, row.scheduled_at), row.id]));
      return claimResult(planned, (jobId, at) => ids.get(fireKey(jobId, at)), due.rows.length, request.nowMs);
    },
    PG_CLAIM_SETTINGS,
  );
}

// ---------------------------------------------------------------------------------------------
// MySQL / MariaDB (10.6+ for SKIP LOCKED): no RETURNING, so the transaction checks the leases
// up front, advances the jobs with one UPDATE … JOIN over the batch (rolled back whole if any
// row fails the compare-and-set), notes which (job, time) pairs already have a record, inserts
// the rest with one multi-row INSERT IGNORE and reads the new ids back by the unique key.
// Sessions run READ COMMITTED (connect.ts), so the locking read takes no gap locks.

export const MYSQL_SELECT_DUE = `SELECT ${CLAIMED_JOB_SQL} FROM job
WHERE trigger_status = 1 AND next_fire_at <= ? AND MOD(id, ?) IN (?)
ORDER BY next_fire_at
LIMIT ?
FOR UPDATE SKIP LOCKED`;

const MYSQL_VALID_LEASES = `SELECT name, epoch FROM lease WHERE name IN (?) AND owner_node = ? AND expires_at > ?`;

// The claimed records of the batch's jobs from the earliest time on, by the claim key's leading
// (job_id, scheduled_at); broadcast shards and retries (claim_job_id NULL) are not claims.
export const MYSQL_EXISTING_FIRES = `SELECT job_id, scheduled_at FROM fire
WHERE job_id IN (?) AND scheduled_at >= ? AND claim_job_id IS NOT NULL`;

const MYSQL_INSERT_FIRES = `INSERT IGNORE INTO fire (job_id, app_id, claim_job_id, scheduled_at, trigger_type,
  executor_handler, executor_param, shard_index, shard_total, status, handle_at, handle_msg, retry_count,
  alarm_status, claimed_by_epoch, created_at) VALUES ?`;

const MYSQL_NEW_FIRE_IDS = `SELECT id, job_id, scheduled_at FROM fire
WHERE job_id IN (?) AND scheduled_at >= ? AND claim_job_id IS NOT NULL`;

/** Thrown inside the MySQL transaction to roll a batch back when a compare-and-set lost a race. */
class ClaimRaceLost extends Error {}

function mysqlAdvanceStatement(count: number): string {
  const row =
    'SELECT ? AS id, ? AS old_next_fire_at, ? AS next_fire_at, ? AS trigger_status, ? AS lease_name, ? AS epoch';
  const rows = [row, ...Array.from({ length: count - 1 }, () => 'SELECT ?, ?, ?, ?, ?, ?')].join(
    ' UNION ALL ',
  );
  return `UPDATE job j JOIN (${rows}) v ON j.id = v.id
SET j.next_fire_at = v.next_fire_at, j.trigger_status = v.trigger_status
WHERE j.next_fire_at = v.old_next_fire_at
  AND EXISTS (SELECT 1 FROM lease l
              WHERE l.name = v.lease_name AND l.owner_node = ? AND l.epoch = v.epoch AND l.expires_at > ?)`;
}

async function claimMysql(conn: MysqlConnection, request: ClaimRequest): Promise<ClaimResult> {
  try {
    return await inMysqlTransaction(conn, async (connection) => {
      const [due] = await connection.query<(ClaimedJob & RowDataPacket)[]>(MYSQL_SELECT_DUE, [
        request.horizonMs,
        request.shardTotal,
        request.shards.map((s) => s.index),
        request.limit,
      ]);
      if (due.length === 0) return nothingClaimed();
      const [leases] = await connection.query<({ name: string; epoch: number } & RowDataPacket)[]>(
        MYSQL_VALID_LEASES,
        [request.shards.map((s) => shardLeaseName(s.index)), request.nodeId, request.nowMs],
      );
      const valid = new Map(leases.map((lease) => [lease.name, lease.epoch]));
      const all = planJobs(due, request);
      const planned = all.filter((p) => valid.get(p.lease) === p.epoch);
      if (planned.length === 0) return nothingClaimed(due.length, outcomesOf(all));

      const advanceValues = planned.flatMap((p) => [
        p.job.id,
        p.job.next_fire_at,
        p.plan.nextFireAt,
        p.plan.stop ? 0 : 1,
        p.lease,
        p.epoch,
      ]);
      const [advanced] = await connection.query(mysqlAdvanceStatement(planned.length), [
        ...advanceValues,
        request.nodeId,
        request.nowMs,
      ]);
      if ((advanced as { affectedRows: number }).affectedRows !== planned.length) throw new ClaimRaceLost();

      return recordMysqlFires(connection, planned, request.nowMs, due.length, outcomesOf(all));
    });
  } catch (err) {
    if (err instanceof ClaimRaceLost) return nothingClaimed();
    throw err;
  }
}

const outcomesOf = (planned: readonly PlannedJob[]) => planned.map((p) => p.outcome);

async function recordMysqlFires(
  connection: MysqlPoolConnection,
  planned: readonly PlannedJob[],
  nowMs: number,
  scanned: number,
  outcomes: PlanOutcome[],
): Promise<ClaimResult> {
  const withFires = planned.filter((p) => p.plan.fires.length > 0);
  if (withFires.length === 0) return nothingClaimed(scanned, outcomes);
  const jobIds = withFires.map((p) => p.job.id);
  const earliest = Math.min(...withFires.flatMap((p) => p.plan.fires.map((f) => f.scheduledAt)));
  const [existingRows] = await connection.query<({ job_id: number; scheduled_at: number } & RowDataPacket)[]>(
    MYSQL_EXISTING_FIRES,
    [jobIds, earliest],
  );
  const existing = new Set(existingRows.map((row) => fireKey(row.job_id, row.scheduled_at)));
  const values = withFires.flatMap(({ job, plan, epoch }) =>
    plan.fires
      .filter((fire) => !existing.has(fireKey(job.id, fire.scheduledAt)))
      .map((fire) => [
        job.id,
        job.app_id,
        job.id,
        fire.scheduledAt,
        fire.triggerType,
        job.executor_handler,
        job.executor_param,
        0,
        1,
        ...recordedState(fire, nowMs),
        job.executor_fail_retry_count,
        0,
        epoch,
        nowMs,
      ]),
  );
  if (values.length === 0) return nothingClaimed(scanned, outcomes);
  await connection.query(MYSQL_INSERT_FIRES, [values]);
  const [rows] = await connection.query<
    ({ id: number; job_id: number; scheduled_at: number } & RowDataPacket)[]
  >(MYSQL_NEW_FIRE_IDS, [jobIds, earliest]);
  const ids = new Map(
    rows
      .map((row) => [fireKey(row.job_id, row.scheduled_at), row.id] as const)
      .filter(([key]) => !existing.has(key)),
  );
  return {
    ...claimResult(withFires, (jobId, at) => ids.get(fireKey(jobId, at)), scanned, nowMs),
    planned: outcomes,
  };
}

// ---------------------------------------------------------------------------------------------
// SQLite: BEGIN IMMEDIATE makes the whole record step one writer, so the leases are checked once
// up front and nothing can change them before the commit. The jobs advance with one UPDATE … FROM
// json_each (compare-and-set per row on the next_fire_at read and the job still started,
// RETURNING the ids that moved) and the fires of exactly those go in with one INSERT … SELECT FROM
// json_each: two statements per batch instead of two per job.
//
// The due jobs are read, planned and recorded in that one transaction, on the hot thread
// (sqlite-hot-thread.ts) while it runs, else on the server's connection: the request is plain
// data, so the thread takes it as it is and answers with the result.

export const SQLITE_SELECT_DUE = `SELECT ${CLAIMED_JOB_SQL} FROM job
WHERE trigger_status = 1 AND next_fire_at <= ? AND (id % ?) IN (SELECT value FROM json_each(?))
ORDER BY next_fire_at
LIMIT ?`;

export const SQLITE_VALID_LEASES = `SELECT name, epoch FROM lease
WHERE name IN (SELECT value FROM json_each(?)) AND owner_node = ? AND expires_at > ?`;

// Each row of the JSON array: [id, old next_fire_at, next_fire_at, trigger_status]. The unary `+`
// keeps SQLite off the (trigger_status, next_fire_at) index: it would scan every started job
// instead of looking up the batch's ids.
export const SQLITE_ADVANCE = `UPDATE job SET next_fire_at = v.value ->> 2, trigger_status = v.value ->> 3
FROM json_each(?) AS v
WHERE job.id = v.value ->> 0 AND job.next_fire_at = v.value ->> 1 AND +job.trigger_status = 1
RETURNING job.id`;

// Each row: [job_id, app_id, scheduled_at, trigger_type, executor_handler, executor_param, status,
// handle_at, handle_msg, retry_count, epoch]. `WHERE true` keeps ON CONFLICT from reading as a join.
export const SQLITE_RECORD = `INSERT INTO fire (job_id, app_id, claim_job_id, scheduled_at, trigger_type, executor_handler,
  executor_param, shard_index, shard_total, status, handle_at, handle_msg, retry_count, alarm_status,
  claimed_by_epoch, created_at)
SELECT f.value ->> 0, f.value ->> 1, f.value ->> 0, f.value ->> 2, f.value ->> 3, f.value ->> 4, f.value ->> 5,
       0, 1, f.value ->> 6, f.value ->> 7, f.value ->> 8, f.value ->> 9, 0, f.value ->> 10, ?
FROM json_each(?) AS f WHERE true
ON CONFLICT (job_id, scheduled_at, claim_job_id) DO NOTHING
RETURNING id, claim_job_id, scheduled_at`;

/** What the due jobs are read with. */
interface SqliteDueArg {
  horizonMs: number;
  shardTotal: number;
  /** The shard indexes, JSON. */
  shards: string;
  limit: number;
}

/** What the record step takes: the planned jobs, each with its lease and its rows. */
interface SqliteClaimArg {
  nodeId: string;
  nowMs: number;
  /** The lease names of the shards claimed from, JSON. */
  leaseNames: string;
  jobs: {
    id: number;
    lease: string;
    epoch: number;
    /** [id, old next_fire_at, next_fire_at, trigger_status] */
    advance: unknown[];
    /** SQLITE_RECORD's rows for the job's fires. */
    fires: unknown[][];
  }[];
}

/** A fire SQLITE_RECORD inserted: its id, claim_job_id and scheduled_at (a raw row). */
type RecordedFireRow = [id: number, claimJobId: number, scheduledAt: number];

async function claimSqlite(conn: SqliteConnection, request: ClaimRequest): Promise<ClaimResult> {
  return inSqliteHot(conn, 'claim', request, () => claimSqliteWhole(conn, request));
}

/**
 * The whole claim on a SQLite connection (the server's or the hot thread's), in its write
 * transaction: the due jobs read, planned, advanced and recorded.
 */
export function claimSqliteWhole(conn: SqliteStatements, request: ClaimRequest): ClaimResult {
  const due = selectDueSqlite(conn, dueArgOf(request)).map(claimedJobOf);
  if (due.length === 0) return nothingClaimed();
  const { planned, arg } = planSqliteClaim(due, request);
  return sqliteClaimResult(planned, claimSqliteRows(conn, arg), due.length, request.nowMs);
}

function dueArgOf(request: ClaimRequest): SqliteDueArg {
  return {
    horizonMs: request.horizonMs,
    shardTotal: request.shardTotal,
    shards: JSON.stringify(request.shards.map((s) => s.index)),
    limit: request.limit,
  };
}

/**
 * The due jobs of the batch, as arrays (made objects by `claimedJobOf`: better-sqlite3 builds row
 * objects in native code, at a cost above the read itself).
 */
function selectDueSqlite(conn: SqliteStatements, arg: SqliteDueArg): unknown[][] {
  return prepared(conn, SQLITE_SELECT_DUE)
    .raw(true)
    .all(arg.horizonMs, arg.shardTotal, arg.shards, arg.limit) as unknown[][];
}

/** Plans the due jobs and builds the record step's rows. */
function planSqliteClaim(due: readonly ClaimedJob[], request: ClaimRequest) {
  const planned = planJobs(due, request);
  const arg: SqliteClaimArg = {
    nodeId: request.nodeId,
    nowMs: request.nowMs,
    leaseNames: JSON.stringify(request.shards.map((s) => shardLeaseName(s.index))),
    jobs: planned.map(({ job, plan, lease, epoch }) => ({
      id: job.id,
      lease,
      epoch,
      advance: [job.id, job.next_fire_at, plan.nextFireAt, plan.stop ? 0 : 1],
      fires: plan.fires.map((fire) => [
        job.id,
        job.app_id,
        fire.scheduledAt,
        fire.triggerType,
        job.executor_handler,
        job.executor_param,
        ...recordedState(fire, request.nowMs),
        job.executor_fail_retry_count,
        epoch,
      ]),
    })),
  };
  return { planned, arg };
}

/**
 * The record step, in its write transaction (the server's connection or the hot thread's): the
 * jobs whose shard lease this node holds at its epoch advance, and the fires of those that moved
 * are inserted. Returns the inserted fires.
 */
function claimSqliteRows(conn: SqliteStatements, arg: SqliteClaimArg): RecordedFireRow[] {
  const leases = prepared(conn, SQLITE_VALID_LEASES).all(arg.leaseNames, arg.nodeId, arg.nowMs) as {
    name: string;
    epoch: number;
  }[];
  const valid = new Map(leases.map((lease) => [lease.name, lease.epoch]));
  const held = arg.jobs.filter((job) => valid.get(job.lease) === job.epoch);
  if (held.length === 0) return [];
  // Rows as arrays: better-sqlite3 builds a row object property by property in native code.
  const moved = prepared(conn, SQLITE_ADVANCE)
    .raw(true)
    .all(JSON.stringify(held.map((job) => job.advance))) as [number][];
  const advanced = new Set(moved.map((row) => row[0]));
  const rows = held.flatMap((job) => (advanced.has(job.id) ? job.fires : []));
  if (rows.length === 0) return [];
  return prepared(conn, SQLITE_RECORD).raw(true).all(arg.nowMs, JSON.stringify(rows)) as RecordedFireRow[];
}

function sqliteClaimResult(
  planned: readonly PlannedJob[],
  recorded: readonly RecordedFireRow[],
  scanned: number,
  claimedAt: number,
): ClaimResult {
  const ids = new Map(recorded.map(([id, jobId, scheduledAt]) => [fireKey(jobId, scheduledAt), id]));
  return claimResult(planned, (jobId, at) => ids.get(fireKey(jobId, at)), scanned, claimedAt);
}
