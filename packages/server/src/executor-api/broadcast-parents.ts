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
 * A shard is settled once it is final or its dispatch failed (no result is expected then), and
 * no retry of it is still to come: a failed shard with retries left is retried on its own (see
 * retries/), and the shard's outcome is that of the last record of its retry chain. So the
 * broadcast's record says how the broadcast ended after its retries, and its child jobs fire
 * once, after every shard succeeded. A retry of the claimed fire itself hangs off it too; it is
 * not a shard and is left out (retries/fire-chain.ts tells them apart).
 */
import { HandleCode } from '@tickwheel/protocol';
import { isRetryOf, lastAttempt } from '../retries/fire-chain.js';
import type { FinishedFire, FinishedStatus, FireRepository, FireResult, FireRow } from '../store/index.js';
import { FINAL_STATUSES, FINISHABLE_STATUSES, RETRYABLE_STATUSES } from '../store/index.js';

const SETTLED_STATUSES: ReadonlySet<string> = new Set([...FINAL_STATUSES, 'dispatch_failed']);
/** A broadcast still waiting for its shards (a skipped one is not: only a late run's own result finishes it). */
const OPEN_STATUSES: ReadonlySet<string> = new Set(FINISHABLE_STATUSES.filter((s) => s !== 'skipped'));
const RETRYABLE: ReadonlySet<string> = new Set(RETRYABLE_STATUSES);
/** Records walked up from a finished one to its broadcast (a retry chain of a shard); a guard against bad data. */
const MAX_WALK = 1_002;
/** Shards listed by name in the parent's message; the rest are counted. */
const LISTED_SHARDS = 20;

export type BroadcastFires = Pick<FireRepository, 'findFireById' | 'findChildFires' | 'finishFires'>;

/**
 * Finishes the claimed fires among `parentFireIds` whose broadcast shards have all settled, and
 * returns the ones this call changed (finishing is idempotent, so two nodes settling the same
 * parent change it once). An id of a record that is final already (a shard, or a record a retry
 * hangs off) stands for the broadcast above it: the walk goes up to the first open record.
 */
export async function settleBroadcastParents(
  fires: BroadcastFires,
  parentFireIds: Iterable<number>,
  nowMs: number,
): Promise<FinishedFire[]> {
  const results: FireResult[] = [];
  const seen = new Set<number>();
  for (const parentFireId of new Set(parentFireIds)) {
    const parent = await openAncestor(fires, parentFireId);
    if (parent === undefined || seen.has(parent.id)) continue;
    seen.add(parent.id);
    const shards = (await fires.findChildFires(parent.id)).filter((child) => !isRetryOf(child, parent));
    const attempts = await Promise.all(shards.map((shard) => lastAttempt(fires, shard)));
    const outcome = broadcastOutcome(attempts);
    if (outcome !== null) results.push({ fireId: parent.id, handleAt: nowMs, ...outcome });
  }
  return fires.finishFires(results);
}

/**
 * The record of `id` when it may be a broadcast waiting for its shards, else the first such one
 * above it; undefined when none. A final record is not one, and neither is a retried one (a
 * refused dispatch that was retried is an attempt: its outcome is its retry chain's).
 */
async function openAncestor(fires: BroadcastFires, id: number): Promise<FireRow | undefined> {
  let next: number | null = id;
  for (let step = 0; next !== null && step < MAX_WALK; step++) {
    const record = await fires.findFireById(next);
    if (record === undefined) return undefined;
    if (OPEN_STATUSES.has(record.status) && !((record.retry_fire_id ?? 0) > 0)) return record;
    next = record.parent_fire_id;
  }
  return undefined;
}

/** Settled: final or refused, with no retry still to be decided (a failed attempt with retries left). */
function isSettled(attempt: FireRow): boolean {
  if (!SETTLED_STATUSES.has(attempt.status)) return false;
  const undecided = attempt.retry_fire_id === null || attempt.retry_fire_id === undefined;
  return !(RETRYABLE.has(attempt.status) && attempt.retry_count > 0 && undecided);
}

/**
 * The parent's result from its shards (each the last attempt of its retry chain), or null while
 * a shard has not settled (or there are none).
 */
export function broadcastOutcome(
  shards: readonly FireRow[],
): { status: FinishedStatus; handleCode: number; handleMsg: string } | null {
  if (shards.length === 0 || shards.some((shard) => !isSettled(shard))) return null;
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
