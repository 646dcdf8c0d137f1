/**
 * The hot reads on SQLite take their rows as arrays and name the columns themselves (a row
 * object built natively costs more than the read): each reader must give exactly the columns
 * its list names, with the values the full row has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIMED_JOB_COLUMNS } from '../src/store/hot/claim.js';
import { DUE_FIRE_COLUMNS, DUE_JOB_COLUMNS, loadDueFires } from '../src/store/hot/due-load.js';
import type { Store } from '../src/store/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';

const T0 = 1_700_000_000_000;

function pick<T extends object>(row: T, columns: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(columns.map((column) => [column, (row as Record<string, unknown>)[column]]));
}

describe('hot reads on sqlite', () => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
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
    expect(loaded.apps.map((a) => a.id)).toEqual([app.id]);
  });
});
