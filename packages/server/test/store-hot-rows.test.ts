/**
 * The hot reads name their columns themselves (on SQLite they take rows as arrays, since a row
 * object built natively costs more than the read; on PostgreSQL the due load is a prepared
 * statement of its own): each reader must give exactly the columns its list names, with the
 * values the full row has, on every store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIMED_JOB_COLUMNS } from '../src/store/hot/claim.js';
import { DUE_FIRE_COLUMNS, DUE_JOB_COLUMNS, loadDueFires } from '../src/store/hot/due-load.js';
import type { Store } from '../src/store/index.js';
import { createTestDatabase, STORE_VARIANTS, seedDueJobs, type TestDatabase } from './helpers/databases.js';

const T0 = 1_700_000_000_000;

function pick<T extends object>(row: T, columns: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(columns.map((column) => [column, (row as Record<string, unknown>)[column]]));
}

describe.each(STORE_VARIANTS)('hot reads on %s', (variant) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase(variant);
    store = await database.open();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('the claim and the due load read each column they name, with its value', async () => {
    const app = await store.apps.createApp({ appName: 'rows', title: 'Rows', addressType: 'AUTO' }, T0);
    const job = await store.jobs.createJob(
      {
        app_id: app.id,
        name: 'every column',
        schedule_type: 'FIX_RATE',
        schedule_conf: '7',
        time_zone: 'Asia/Shanghai',
        misfire_strategy: 'FIRE_ONCE_NOW',
        executor_route_strategy: 'LAST',
        executor_block_strategy: 'COVER_EARLY',
        executor_timeout: 42,
        executor_handler: 'handler-x',
        executor_param: 'param-y',
        executor_fail_retry_count: 3,
        glue_type: 'GLUE_SHELL',
        glue_source: 'echo hi',
        trigger_status: 1,
        next_fire_at: T0,
      },
      T0,
    );
    const held = await store.leases.acquireOrRenewLease(`shard:${job.id % 4}`, 'node-a', 60_000, T0);
    const claimed = await store.fires.claimDueFires({
      nodeId: 'node-a',
      nowMs: T0,
      horizonMs: T0,
      shardTotal: 4,
      shards: [{ index: job.id % 4, epoch: held!.epoch }],
      limit: 10,
      misfireWindowMs: 5_000,
    });
    expect(claimed.fires).toHaveLength(1);
    const [fire] = claimed.fires;
    expect(fire!.job).toEqual(pick(job, CLAIMED_JOB_COLUMNS));

    const loaded = await loadDueFires(store.connection, [fire!.fireId]);
    const row = await store.fires.findFireById(fire!.fireId);
    const jobNow = await store.jobs.findJobById(job.id);
    expect(loaded.fires).toEqual([pick(row!, DUE_FIRE_COLUMNS)]);
    expect(loaded.jobs).toEqual([pick(jobNow!, DUE_JOB_COLUMNS)]);
    // The whole app row as the store reads it, its token columns set.
    await store.apps.rotateAppToken(app.id, 'rows-token-2', T0 + 60_000, T0 + 1);
    const reloaded = await loadDueFires(store.connection, [fire!.fireId]);
    expect(reloaded.apps).toEqual([await store.apps.findAppById(app.id)]);
    expect(reloaded.apps[0]!.previous_token_until).toBe(T0 + 60_000);
  });

  it('the due load gives the pending records of a batch, each job and app once, in batches of any size', async () => {
    const { appId, jobIds } = await seedDueJobs(store, 7, T0);
    const shards = await Promise.all(
      [0, 1, 2, 3].map(async (index) => {
        const held = await store.leases.acquireOrRenewLease(`shard:${index}`, 'node-a', 60_000, T0);
        return { index, epoch: held!.epoch };
      }),
    );
    const request = { nodeId: 'node-a', shardTotal: 4, shards, limit: 100, misfireWindowMs: 60_000 };
    const first = await store.fires.claimDueFires({ ...request, nowMs: T0, horizonMs: T0 });
    const second = await store.fires.claimDueFires({ ...request, nowMs: T0 + 1_000, horizonMs: T0 + 1_000 });
    const ids = [...first.fires, ...second.fires].map((fire) => fire.fireId).sort((a, b) => a - b);
    expect(ids).toHaveLength(14);
    // One record of the batch is final already: the load leaves it out.
    const [done] = ids;
    await store.fires.finishFires([{ fireId: done!, handleCode: 200, handleMsg: null, handleAt: T0 + 5 }]);
    // Batches of several sizes, each asked for in an order of its own and with an id no record has.
    for (const size of [1, 3, 14]) {
      const batch = [...ids.slice(0, size)].reverse();
      const loaded = await loadDueFires(store.connection, [...batch, 999_999_999]);
      const pending = batch.filter((id) => id !== done).sort((a, b) => a - b);
      expect(loaded.fires.map((fire) => fire.id)).toEqual(pending);
      expect(loaded.fires.every((fire) => fire.status === 'pending')).toBe(true);
      const jobsOf = [...new Set(loaded.fires.map((fire) => fire.job_id))].sort((a, b) => a - b);
      expect(loaded.jobs.map((job) => job.id).sort((a, b) => a - b)).toEqual(jobsOf);
      expect(jobsOf.every((id) => jobIds.includes(id))).toBe(true);
      expect(loaded.apps.map((app) => app.id)).toEqual(pending.length > 0 ? [appId] : []);
    }
  });
});
