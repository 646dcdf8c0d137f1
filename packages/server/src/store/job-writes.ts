/**
 * The REST API's multi-step job writes, each in one transaction: a job and the script version
 * it saves are written together or not at all. (The store's `saveGlueVersion` opens its own
 * transaction, so it cannot share one with the job's other columns; both keep versions through
 * the store's `insertGlueVersion`.)
 */

import { editedAt } from './edited-at.js';
import { insertReturningId } from './insert-id.js';
import { insertGlueVersion } from './jobs.js';
import type { JobRow, JobUpdate, NewJobRow } from './schema.js';
import type { Store } from './store.js';

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
    if (glue !== null) await insertGlueVersion(trx, jobId, glue, nowMs);
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
      .set({ ...patch, updated_at: editedAt(nowMs) })
      .where('id', '=', id)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return false;
    if (glue !== null) await insertGlueVersion(trx, id, glue, nowMs);
    return true;
  });
}
