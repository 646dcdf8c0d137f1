/**
 * `sync-with-abort`: an in-process job that copies records in batches and honours its
 * AbortSignal between batches, so a timeout, a kill or a COVER_EARLY replacement stops it cleanly
 * after the batch in hand.
 *
 * Parameter: the number of batches (default 10). Each batch takes 300 ms.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobContext, StopReason } from '@tickwheel/executor';

const DEFAULT_BATCHES = 10;
const BATCH_MS = 300;

export default async function syncWithAbort(ctx: JobContext): Promise<string> {
  const batches = batchesFrom(ctx.param);
  for (let batch = 1; batch <= batches; batch++) {
    // Checked between batches, never inside one: a batch is one transaction, not to be cut in half.
    if (ctx.signal.aborted) {
      // The executor has already reported the stop; returning ends the work instead of letting it
      // run on in the background, unseen.
      ctx.fail(`${describeStop(ctx.signal.reason)} after ${batch - 1} of ${batches} batches`);
      return '';
    }
    await copyBatch(batch);
    ctx.log(`batch ${batch}/${batches} copied`);
  }
  return `synced ${batches} batches`;
}

/** Stands in for real work that should not be cut in the middle (one database transaction). */
async function copyBatch(_batch: number): Promise<void> {
  await sleep(BATCH_MS);
}

function describeStop(reason: unknown): string {
  const stop = reason as StopReason | undefined;
  return stop?.kind === 'timeout' ? 'timed out' : 'stopped';
}

function batchesFrom(param: string): number {
  const batches = Number.parseInt(param, 10);
  return Number.isInteger(batches) && batches > 0 ? batches : DEFAULT_BATCHES;
}
