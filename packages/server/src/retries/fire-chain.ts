/**
 * Reading the links between fire records. Two kinds of record hang off another through
 * `parent_fire_id`:
 *
 * - a broadcast's shards hang off the broadcast's record (the summary of the whole broadcast);
 * - a RETRY record hangs off the record it retries, and that record's `retry_fire_id` points
 *   back at it.
 *
 * So a record is the retry of its parent exactly when the parent's `retry_fire_id` is its id;
 * any other record with a parent is a shard. A retry of a shard is a shard attempt too (it is
 * sent as that one shard), and a shard's outcome is that of the last record of its retry chain.
 */
import type { FireRepository, FireRow } from '../store/index.js';

export type FireLookup = Pick<FireRepository, 'findFireById'>;

/** Retry chains are at most this long (a job's retry count is capped at 1,000); a guard against bad data. */
const MAX_CHAIN = 1_001;

/** True when `fire` retries its parent (and is not one of its parent's shards). */
export function isRetryOf(fire: Pick<FireRow, 'id'>, parent: Pick<FireRow, 'retry_fire_id'>): boolean {
  return parent.retry_fire_id === fire.id;
}

/**
 * 1 for the first run of a fire, n + 1 for its n-th retry: the attempt number of `fire`.
 * Its retry is attempt `attemptOf(fire) + 1`, i.e. retry number `attemptOf(fire)`.
 */
export async function attemptOf(fires: FireLookup, fire: FireRow): Promise<number> {
  let attempt = 1;
  let current = fire;
  while (current.parent_fire_id !== null && attempt < MAX_CHAIN) {
    const parent = await fires.findFireById(current.parent_fire_id);
    if (parent === undefined || !isRetryOf(current, parent)) break;
    attempt++;
    current = parent;
  }
  return attempt;
}

/** True when `fire` runs one shard of a broadcast: a shard, or a retry of one. */
export async function isShardAttempt(fires: FireLookup, fire: FireRow): Promise<boolean> {
  let current = fire;
  for (let step = 0; step < MAX_CHAIN && current.parent_fire_id !== null; step++) {
    const parent = await fires.findFireById(current.parent_fire_id);
    if (parent === undefined) return false;
    if (!isRetryOf(current, parent)) return true;
    current = parent;
  }
  return false;
}

/** The last record of `fire`'s retry chain (`fire` itself when it was not retried). */
export async function lastAttempt(fires: FireLookup, fire: FireRow): Promise<FireRow> {
  let current = fire;
  for (let step = 0; step < MAX_CHAIN; step++) {
    const next = current.retry_fire_id;
    if (next === null || next === undefined || next === 0) return current;
    const retry = await fires.findFireById(next);
    if (retry === undefined) return current;
    current = retry;
  }
  return current;
}

/**
 * True for the record of a whole broadcast (its shards ran, it has no executor of its own and
 * was finished from them). A broadcast no executor took at all (no shards) is an ordinary failed
 * dispatch, retried as a whole.
 */
export async function isBroadcastSummary(
  fires: Pick<FireRepository, 'findChildFires'>,
  fire: FireRow,
): Promise<boolean> {
  if (fire.executor_address !== null) return false;
  const children = await fires.findChildFires(fire.id);
  return children.some((child) => !isRetryOf(child, fire));
}
