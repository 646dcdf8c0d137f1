/**
 * How a broadcast's claimed fire ends. SHARDING_BROADCAST sends one run per executor, each under
 * its own child record (`parent_fire_id` = the claimed fire); results finish the children. The
 * claimed fire is finished here, once every shard has settled, so the job's own record (what
 * FIX_DELAY, child jobs and the console look at) says how the whole broadcast went:
 *
 * - every shard succeeded → `succeeded` (200);
 * - otherwise → the status the unsuccessful shards share (`timeout` 502, `killed` 500), or
 *   `failed` (500) when they differ; a shard whose dispatch failed counts as failed.
 *
 * A shard is settled once it is final or its dispatch failed (no result is expected then). Retry
 * records hang off the claimed fire too; they are not shards and are left out.
 */
import { HandleCode } from '@tickwheel/protocol';
import type { FinishedFire, FinishedStatus, FireRepository, FireResult, FireRow } from '../store/index.js';
import { FINAL_STATUSES, FINISHABLE_STATUSES } from '../store/index.js';

const SETTLED_STATUSES: ReadonlySet<string> = new Set([...FINAL_STATUSES, 'dispatch_failed']);
const OPEN_STATUSES: ReadonlySet<string> = new Set(FINISHABLE_STATUSES);
/** Shards listed by name in the parent's message; the rest are counted. */
const LISTED_SHARDS = 20;

export type BroadcastFires = Pick<FireRepository, 'findFireById' | 'findChildFires' | 'finishFires'>;

/**
 * Finishes the claimed fires among `parentFireIds` whose broadcast shards have all settled, and
 * returns the ones this call changed (finishing is idempotent, so two nodes settling the same
 * parent change it once).
 */
export async function settleBroadcastParents(
  fires: BroadcastFires,
  parentFireIds: Iterable<number>,
  nowMs: number,
): Promise<FinishedFire[]> {
  const results: FireResult[] = [];
  for (const parentFireId of new Set(parentFireIds)) {
    const parent = await fires.findFireById(parentFireId);
    if (parent === undefined || !OPEN_STATUSES.has(parent.status)) continue;
    const shards = (await fires.findChildFires(parentFireId)).filter(
      (child) => child.trigger_type !== 'RETRY',
    );
    const outcome = broadcastOutcome(shards);
    if (outcome !== null) results.push({ fireId: parentFireId, handleAt: nowMs, ...outcome });
  }
  return fires.finishFires(results);
}

/** The parent's result from its shards, or null while a shard has not settled (or there are none). */
export function broadcastOutcome(
  shards: readonly FireRow[],
): { status: FinishedStatus; handleCode: number; handleMsg: string } | null {
  if (shards.length === 0 || shards.some((shard) => !SETTLED_STATUSES.has(shard.status))) return null;
  const unsuccessful = shards.filter((shard) => shard.status !== 'succeeded');
  const total = shards.length;
  if (unsuccessful.length === 0) {
    return {
      status: 'succeeded',
      handleCode: HandleCode.SUCCESS,
      handleMsg: `broadcast: all ${total} shards succeeded`,
    };
  }
  const statuses = new Set(unsuccessful.map((shard) => shard.status));
  const [only] = statuses;
  const status: FinishedStatus =
    statuses.size === 1 && (only === 'timeout' || only === 'killed') ? only : 'failed';
  const listed = unsuccessful
    .slice(0, LISTED_SHARDS)
    .map((shard) => `shard ${shard.shard_index} ${shard.status}`)
    .join(', ');
  const more = unsuccessful.length > LISTED_SHARDS ? ` and ${unsuccessful.length - LISTED_SHARDS} more` : '';
  return {
    status,
    handleCode: status === 'timeout' ? HandleCode.TIMEOUT : HandleCode.FAIL,
    handleMsg: `broadcast: ${total - unsuccessful.length} of ${total} shards succeeded; ${listed}${more}`,
  };
}
