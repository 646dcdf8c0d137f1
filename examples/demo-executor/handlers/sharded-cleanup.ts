/**
 * `sharded-cleanup`: a job meant for the SHARDING_BROADCAST route, where every executor of the
 * app gets the same fire with its own shard index. Each one cleans the items whose id falls in
 * its shard (`id % shardTotal === shardIndex`), so together they cover every item once.
 *
 * Parameter: the number of items (default 100).
 */
import type { JobContext } from '@tickwheel/executor';

const DEFAULT_ITEMS = 100;

export default function shardedCleanup(ctx: JobContext): string {
  const items = itemsFrom(ctx.param);
  const mine = itemsOfShard(items, ctx.shardIndex, ctx.shardTotal);
  ctx.log(`shard ${ctx.shardIndex + 1} of ${ctx.shardTotal}: cleaning ${mine.length} of ${items} items`);
  for (const id of mine) cleanItem(id);
  return `shard ${ctx.shardIndex}/${ctx.shardTotal} cleaned ${mine.length} items`;
}

export function itemsOfShard(items: number, shardIndex: number, shardTotal: number): number[] {
  const ids: number[] = [];
  for (let id = 0; id < items; id++) if (id % shardTotal === shardIndex) ids.push(id);
  return ids;
}

/** Stands in for the real clean-up of one item. */
function cleanItem(_id: number): void {}

function itemsFrom(param: string): number {
  const items = Number.parseInt(param, 10);
  return Number.isInteger(items) && items >= 0 ? items : DEFAULT_ITEMS;
}
