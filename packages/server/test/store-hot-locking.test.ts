/**
 * The hot statements lock fire rows in one order: dispatch marks and result finalises of the
 * same records, running at the same time on separate connections, never deadlock (PostgreSQL
 * would resolve a deadlock only after `deadlock_timeout`, MariaDB by failing one side).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DispatchMark, FireResult, Store } from '../src/store/index.js';
import { createTestDatabase, STORE_VARIANTS, seedDueJobs, type TestDatabase } from './helpers/databases.js';

const T0 = 1_700_000_000_000;
const FIRES = 300;
const ROUNDS = 6;

async function pendingFires(store: Store, count: number): Promise<number[]> {
  const { jobIds } = await seedDueJobs(store, count, T0);
  const held = (await store.leases.acquireOrRenewLease('shard:0', 'node-a', 600_000, T0))!;
  const result = await store.fires.claimDueFires({
    nodeId: 'node-a',
    nowMs: T0,
    horizonMs: T0,
    shardTotal: 1,
    shards: [{ index: 0, epoch: held.epoch }],
    limit: count,
    misfireWindowMs: 5_000,
  });
  expect(result.fires).toHaveLength(jobIds.length);
  return result.fires.map((fire) => fire.fireId).sort((a, b) => a - b);
}

const markOf = (fireId: number): DispatchMark => ({
  fireId,
  triggerAt: T0 + 5,
  executorAddress: 'http://127.0.0.1:9999/',
  triggerCode: 200,
  triggerMsg: 'route FIRST',
});

const resultOf = (fireId: number): FireResult => ({
  fireId,
  handleCode: 200,
  handleMsg: null,
  handleAt: T0 + 9,
});

describe.each(STORE_VARIANTS)('hot statements on %s', (variant) => {
  let database: TestDatabase;
  let marker: Store;
  let finisher: Store;

  beforeEach(async () => {
    database = await createTestDatabase(variant);
    marker = await database.open();
    finisher = await database.open();
  });

  afterEach(async () => {
    await database.drop();
  });

  it('mark and finish the same records at the same time, in opposite orders, without a deadlock', async () => {
    const ids = await pendingFires(marker, FIRES);
    let slowest = 0;
    for (let round = 0; round < ROUNDS; round++) {
      await marker.db.updateTable('fire').set({ status: 'pending' }).execute();
      // Marks arrive in the order dispatches ended, results in the order runs ended: opposite here.
      const marks = [...ids].reverse().map(markOf);
      const results = ids.map(resultOf);
      const started = performance.now();
      const [marked, finished] = await Promise.all([
        marker.fires.markDispatched(marks),
        finisher.fires.finishFires(results),
      ]);
      slowest = Math.max(slowest, performance.now() - started);
      // Whichever went first, every record is finished once and marked pending → dispatched at most once.
      expect(finished).toHaveLength(FIRES);
      expect(marked).toBeLessThanOrEqual(FIRES);
    }
    const rows = await marker.fires.findFiresByIds(ids);
    expect(rows.every((row) => row.status === 'succeeded')).toBe(true);
    // A deadlock PostgreSQL breaks after deadlock_timeout (1 s) would show here even when it resolves.
    expect(slowest).toBeLessThan(900);
  });
});
