import type { TriggerType } from '@tickwheel/protocol';
import type { DueFire } from '../store/hot/due-load.js';
import type { FireRepository } from '../store/index.js';
import type { ShardTarget } from './dispatcher.js';

/**
 * A SHARDING_BROADCAST fire's shard records: one child record per executor, in shard order
 * (`parent_fire_id` = the fire's own record, which the result recorder finishes once every
 * shard has settled). Children left by an earlier try of the same broadcast (a crash between
 * creating them and marking the fire) are reused when the shard count is the same, so an
 * executor refuses the repeat of a run it already took; those of another count are skipped.
 */
export async function broadcastShardRecords(
  fires: Pick<FireRepository, 'findChildFires' | 'skipPendingFires' | 'createFires'>,
  parent: DueFire,
  shards: readonly ShardTarget[],
  now: number,
): Promise<number[]> {
  const total = shards.length;
  // A retry of the fire hangs off it too; only its shards are reused (retries/fire-chain.ts).
  const earlier = (await fires.findChildFires(parent.id)).filter((f) => parent.retry_fire_id !== f.id);
  const reusable = new Map(
    earlier.filter((f) => f.shard_total === total).map((f) => [f.shard_index, f.id] as const),
  );
  const superseded = earlier.filter((f) => f.shard_total !== total).map((f) => f.id);
  if (superseded.length > 0) {
    const message = `skipped: the broadcast was sent again over ${total} executors`;
    await fires.skipPendingFires(superseded, message, now);
  }
  const missing = shards.filter((s) => !reusable.has(s.shardIndex));
  const created = await fires.createFires(
    missing.map((s) => ({
      jobId: parent.job_id,
      appId: parent.app_id,
      scheduledAt: parent.scheduled_at,
      triggerType: parent.trigger_type as TriggerType,
      executorHandler: parent.executor_handler,
      executorParam: parent.executor_param,
      parentFireId: parent.id,
      shardIndex: s.shardIndex,
      shardTotal: total,
      retryCount: parent.retry_count,
    })),
    now,
  );
  for (const [i, shard] of missing.entries()) reusable.set(shard.shardIndex, created[i]!);
  return shards.map((s) => reusable.get(s.shardIndex)!);
}
