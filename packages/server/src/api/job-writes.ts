/**
 * The REST API's multi-step job writes, each in one transaction: a job and the script version
 * it saves are written together or not at all. (The store's `saveGlueVersion` opens its own
 * transaction, so it cannot share one with the job's other columns.)
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database, JobRow, JobUpdate, NewJobRow, Store } from '../store/index.js';
import { insertReturningId } from '../store/insert-id.js';

/** Versions kept per job, as XXL-JOB keeps 30. */
export const GLUE_VERSIONS_KEPT = 30;

export interface GlueSave {
  glueType: string;
  glueSource: string;
  glueRemark: string;
}

/** Inserts the job and, when given, its first script version. */
export async function insertJob(
  store: Store,
  row: NewJobRow,
  glue: GlueSave | null,
  nowMs: number,
): Promise<JobRow> {
  const id = await store.db.transaction().execute(async (trx) => {
    const jobId = await insertReturningId(store.dialect, trx.insertInto('job').values(row));
    if (glue !== null) await saveGlue(trx, jobId, glue, nowMs);
    return jobId;
  });
  return (await store.jobs.findJobById(id))!;
}

/** Updates the job's columns and, when given, saves a script version; false when the job is gone. */
export async function updateJob(
  store: Store,
  id: number,
  patch: JobUpdate,
  glue: GlueSave | null,
  nowMs: number,
): Promise<boolean> {
  return store.db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('job')
      .set({ ...patch, updated_at: nowMs })
      .where('id', '=', id)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return false;
    if (glue !== null) await saveGlue(trx, id, glue, nowMs);
    return true;
  });
}

async function saveGlue(
  trx: Transaction<Database> | Kysely<Database>,
  jobId: number,
  glue: GlueSave,
  nowMs: number,
) {
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
    .limit(GLUE_VERSIONS_KEPT)
    .execute();
  const oldestKept = kept.at(-1)?.id;
  if (kept.length === GLUE_VERSIONS_KEPT && oldestKept !== undefined) {
    await trx.deleteFrom('job_glue').where('job_id', '=', jobId).where('id', '<', oldestKept).execute();
  }
}
