/**
 * Jobs (XXL-JOB's xxl_job_info) and their script versions (xxl_job_logglue). The planner's
 * claim on `next_fire_at` is in hot/claim.ts; this file is everything else.
 */

import { JOB_FIELD_DEFAULTS } from '@tickwheel/protocol';
import type { Kysely } from 'kysely';
import type { StoreConnection } from './connection.js';
import { containsText } from './contains-text.js';
import { editedAt } from './edited-at.js';
import { insertReturningId } from './insert-id.js';
import type { Database, JobGlueRow, JobRow, JobTable } from './schema.js';

/** The columns a job is created with; what is left out takes JOB_DEFAULTS. */
export type JobFields = Omit<JobTable, 'id' | 'created_at' | 'updated_at'>;
export type NewJob = Partial<JobFields> & Pick<JobFields, 'app_id' | 'name'>;
export type JobPatch = Partial<JobFields>;

const d = JOB_FIELD_DEFAULTS;
/**
 * Column values of a job nobody said otherwise about: the protocol's `JOB_FIELD_DEFAULTS` as
 * columns (the tables carry no SQL defaults, so all three dialects agree).
 */
export const JOB_DEFAULTS: Omit<JobFields, 'app_id' | 'name' | 'glue_updated_at'> = {
  author: d.author,
  alarm_email: d.alarmEmail,
  schedule_type: d.scheduleType,
  schedule_conf: d.scheduleConf,
  time_zone: d.timeZone,
  misfire_strategy: d.misfireStrategy,
  executor_route_strategy: d.executorRouteStrategy,
  executor_handler: d.executorHandler,
  executor_param: d.executorParam,
  executor_block_strategy: d.executorBlockStrategy,
  executor_timeout: d.executorTimeout,
  executor_fail_retry_count: d.executorFailRetryCount,
  glue_type: d.glueType,
  glue_source: d.glueSource,
  glue_remark: d.glueRemark,
  child_job_ids: d.childJobIds.join(','),
  retry_backoff_strategy: d.retryBackoff.strategy,
  retry_delay_seconds: d.retryBackoff.delaySeconds,
  retry_max_delay_seconds: d.retryBackoff.maxDelaySeconds,
  alarm_on: d.alarmOn,
  alarm_channel_ids: d.alarmChannelIds.join(','),
  trigger_status: d.triggerStatus,
  next_fire_at: null,
  last_run_end_at: null,
  origin: null,
};

export interface JobFilter {
  appId?: number;
  /** Only these apps (a user's permitted apps); empty matches nothing. */
  appIds?: readonly number[];
  /** Substring of the name. */
  name?: string;
  /** Substring of the handler. */
  handler?: string;
  /** Substring of the author. */
  author?: string;
  triggerStatus?: 0 | 1;
  limit?: number;
  offset?: number;
}

export interface GlueVersion {
  glueType: string;
  glueSource: string;
  glueRemark: string;
}

/** Script versions kept per job, as XXL-JOB keeps 30. */
export const GLUE_VERSIONS_KEPT = 30;

/**
 * Inserts a script version and deletes the job's versions older than the `keep` newest, inside
 * the caller's transaction (the job's own columns are the caller's to write with it).
 */
export async function insertGlueVersion(
  trx: Kysely<Database>,
  jobId: number,
  glue: GlueVersion,
  nowMs: number,
  keep = GLUE_VERSIONS_KEPT,
): Promise<void> {
  await trx
    .insertInto('job_glue')
    .values({
      job_id: jobId,
      glue_type: glue.glueType,
      glue_source: glue.glueSource,
      glue_remark: glue.glueRemark,
      created_at: nowMs,
    })
    .execute();
  const kept = await trx
    .selectFrom('job_glue')
    .select('id')
    .where('job_id', '=', jobId)
    .orderBy('id', 'desc')
    .limit(keep)
    .execute();
  const oldestKept = kept.at(-1)?.id;
  if (kept.length === keep && oldestKept !== undefined) {
    await trx.deleteFrom('job_glue').where('job_id', '=', jobId).where('id', '<', oldestKept).execute();
  }
}

export function createJobRepository(conn: StoreConnection) {
  const { db } = conn;

  async function createJob(job: NewJob, nowMs: number): Promise<JobRow> {
    const id = await insertReturningId(
      conn.dialect,
      db.insertInto('job').values({
        ...JOB_DEFAULTS,
        glue_updated_at: nowMs,
        ...job,
        created_at: nowMs,
        updated_at: nowMs,
      }),
    );
    return (await findJobById(id))!;
  }

  /** Changes the given columns; true when the job exists. */
  async function updateJob(id: number, patch: JobPatch, nowMs: number): Promise<boolean> {
    const result = await db
      .updateTable('job')
      .set({ ...patch, updated_at: editedAt(nowMs) })
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async function deleteJob(id: number): Promise<boolean> {
    const result = await db.deleteFrom('job').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async function findJobById(id: number): Promise<JobRow | undefined> {
    return db.selectFrom('job').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async function findJobsByIds(ids: readonly number[]): Promise<JobRow[]> {
    if (ids.length === 0) return [];
    return db.selectFrom('job').selectAll().where('id', 'in', ids).execute();
  }

  function filtered(filter: JobFilter) {
    let query = db.selectFrom('job');
    if (filter.appId !== undefined) query = query.where('app_id', '=', filter.appId);
    if (filter.appIds !== undefined) {
      const ids = [...filter.appIds];
      // An empty IN list is not SQL; an empty OR is Kysely's false.
      query = ids.length === 0 ? query.where((eb) => eb.or([])) : query.where('app_id', 'in', ids);
    }
    if (filter.triggerStatus !== undefined) query = query.where('trigger_status', '=', filter.triggerStatus);
    if (filter.name) query = query.where(containsText('name', filter.name));
    if (filter.handler) query = query.where(containsText('executor_handler', filter.handler));
    if (filter.author) query = query.where(containsText('author', filter.author));
    return query;
  }

  async function listJobs(filter: JobFilter = {}): Promise<JobRow[]> {
    return filtered(filter)
      .selectAll()
      .orderBy('id', 'desc')
      .limit(filter.limit ?? 100)
      .offset(filter.offset ?? 0)
      .execute();
  }

  async function countJobs(filter: JobFilter = {}): Promise<number> {
    const row = await filtered(filter)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Starts a job from `nextFireAt` (trigger_status = 1). */
  async function startJob(id: number, nextFireAt: number | null, nowMs: number): Promise<boolean> {
    return updateJob(id, { trigger_status: 1, next_fire_at: nextFireAt }, nowMs);
  }

  /** Stops a job: no more fires until started again. */
  async function stopJob(id: number, nowMs: number): Promise<boolean> {
    return updateJob(id, { trigger_status: 0, next_fire_at: null }, nowMs);
  }

  /**
   * Records the end of a run and, for a running job, its next fire time (FIX_DELAY schedules
   * from the end of the last run). Returns false for a stopped or deleted job.
   */
  async function recordRunEnd(id: number, endedAt: number, nextFireAt: number | null): Promise<boolean> {
    const result = await db
      .updateTable('job')
      .set({ last_run_end_at: endedAt, next_fire_at: nextFireAt })
      .where('id', '=', id)
      .where('trigger_status', '=', 1)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Saves a new script version, makes it the job's current script, and keeps only the
   * `keep` newest versions (XXL-JOB keeps 30).
   */
  async function saveGlueVersion(
    jobId: number,
    glue: GlueVersion,
    nowMs: number,
    keep = GLUE_VERSIONS_KEPT,
  ): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('job')
        .set({
          glue_type: glue.glueType,
          glue_source: glue.glueSource,
          glue_remark: glue.glueRemark,
          glue_updated_at: nowMs,
          updated_at: editedAt(nowMs),
        })
        .where('id', '=', jobId)
        .executeTakeFirst();
      if (updated.numUpdatedRows === 0n) return false;
      await insertGlueVersion(trx, jobId, glue, nowMs, keep);
      return true;
    });
  }

  async function listGlueVersions(jobId: number): Promise<JobGlueRow[]> {
    return db.selectFrom('job_glue').selectAll().where('job_id', '=', jobId).orderBy('id', 'desc').execute();
  }

  async function findGlueVersion(id: number): Promise<JobGlueRow | undefined> {
    return db.selectFrom('job_glue').selectAll().where('id', '=', id).executeTakeFirst();
  }

  return {
    createJob,
    updateJob,
    deleteJob,
    findJobById,
    findJobsByIds,
    listJobs,
    countJobs,
    startJob,
    stopJob,
    recordRunEnd,
    saveGlueVersion,
    listGlueVersions,
    findGlueVersion,
  };
}

export type JobRepository = ReturnType<typeof createJobRepository>;
