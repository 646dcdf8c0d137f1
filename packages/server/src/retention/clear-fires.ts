/**
 * `clearFires` (XXL-JOB's "clear logs"): deletes an app's or a job's finished fire records by
 * age and/or beyond the newest N, in batches. Each batch is one short statement; between two,
 * the event loop gets a turn (on SQLite the driver is synchronous, so a loop of statements
 * would otherwise hold the whole node) and the scheduler's claims slip in.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FireDeletion, FireRepository } from '../store/index.js';

export interface ClearFiresRequest {
  appId: number;
  jobId?: number;
  /** Delete records scheduled before this instant. */
  before?: number;
  /** Keep the newest this many records (by scheduled time); 0 deletes them all. */
  keepLast?: number;
}

export const CLEAR_FIRES_BATCH_SIZE = 1_000;

/** Deletes what `request` names; returns how many records went. */
export async function clearFires(
  fires: Pick<FireRepository, 'findNthNewestFire' | 'deleteFinishedFires'>,
  request: ClearFiresRequest,
  batchSize = CLEAR_FIRES_BATCH_SIZE,
): Promise<number> {
  const scope = { appId: request.appId, ...(request.jobId === undefined ? {} : { jobId: request.jobId }) };
  const deletion: FireDeletion = { ...scope };
  if (request.before !== undefined) deletion.before = request.before;
  if (request.keepLast !== undefined && request.keepLast > 0) {
    // The boundary is fixed once: records arriving while the batches run are newer and stay.
    const lastKept = await fires.findNthNewestFire(scope, request.keepLast - 1);
    if (lastKept === undefined) return 0;
    deletion.olderThan = { scheduledAt: lastKept.scheduled_at, id: lastKept.id };
  }
  let deleted = 0;
  for (;;) {
    const batch = await fires.deleteFinishedFires(deletion, batchSize);
    deleted += batch;
    if (batch < batchSize) return deleted;
    await nextTurn();
  }
}
