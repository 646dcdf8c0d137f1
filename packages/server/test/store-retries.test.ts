/**
 * The store side of retries on every database: a failure is decided once however many nodes
 * try at once, and a due retry is claimed for dispatch by exactly one of them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FireRow, Store } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';

const T0 = 1_700_000_000_000;

describe.each(DIALECTS)('retry records on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  let failed: FireRow;
  beforeEach(async () => {
    database = await createTestDatabase(dialect);
    store = await database.open();
    const app = await store.apps.createApp({ appName: 'retries', title: 'retries', addressType: 'AUTO' }, T0);
    const job = await store.jobs.createJob({ app_id: app.id, name: 'j', executor_fail_retry_count: 3 }, T0);
    const [id] = await store.fires.createFires(
      [
        {
          jobId: job.id,
          appId: app.id,
          scheduledAt: T0,
          triggerType: 'CRON',
          executorHandler: 'h',
          executorParam: 'p',
          retryCount: 3,
          shardIndex: 1,
          shardTotal: 4,
        },
      ],
      T0,
    );
    await store.fires.finishFires([{ fireId: id!, handleCode: 500, handleMsg: 'boom', handleAt: T0 + 10 }]);
    failed = (await store.fires.findFireById(id!))!;
  });
  afterEach(async () => {
    await database.drop();
  });

  it('makes one retry of a failure when several nodes decide it at once', async () => {
    const [other, third] = [await database.open(), await database.open()];
    const made = await Promise.all([
      store.retries.createRetryFire(failed, T0 + 1_000, T0 + 20),
      other.retries.createRetryFire(failed, T0 + 1_000, T0 + 20),
      third.retries.decideWithoutRetry(failed.id),
    ]);
    const retryIds = made.slice(0, 2).filter((id): id is number => typeof id === 'number');
    const decidedWithout = made[2] === true;
    expect(retryIds.length + (decidedWithout ? 1 : 0)).toBe(1);
    const records = await store.fires.listFires({ jobId: failed.job_id });
    expect(records).toHaveLength(1 + retryIds.length);
    const after = (await store.fires.findFireById(failed.id))!;
    expect(Number(after.retry_fire_id)).toBe(retryIds[0] ?? 0);
  });

  it('a retry record points at the failure, keeps its shard and param, and has one retry fewer left', async () => {
    const retryId = (await store.retries.createRetryFire(failed, T0 + 1_000, T0 + 20))!;
    expect(await store.fires.findFireById(retryId)).toMatchObject({
      job_id: failed.job_id,
      parent_fire_id: failed.id,
      claim_job_id: null,
      trigger_type: 'RETRY',
      status: 'pending',
      scheduled_at: T0 + 1_000,
      executor_param: 'p',
      shard_index: 1,
      shard_total: 4,
      retry_count: 2,
    });
    expect(await store.retries.decideWithoutRetry(failed.id)).toBe(false);
    expect(await store.retries.createRetryFire(failed, T0 + 2_000, T0 + 30)).toBeNull();
  });

  it('lists due retries only, and of two nodes claiming one, exactly one wins until the claim goes stale', async () => {
    const retryId = (await store.retries.createRetryFire(failed, T0 + 1_000, T0 + 20))!;
    const query = (nowMs: number) => ({ nowMs, claimedBefore: nowMs - 60_000, limit: 10 });
    expect(await store.retries.findDueRetries(query(T0 + 999))).toEqual([]);
    const [due] = await store.retries.findDueRetries(query(T0 + 1_000));
    expect(due!.id).toBe(retryId);

    const other = await database.open();
    const claims = await Promise.all([
      store.retries.claimRetryDispatch(due!, T0 + 1_000),
      other.retries.claimRetryDispatch(due!, T0 + 1_001),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.retries.findDueRetries(query(T0 + 2_000))).toEqual([]);

    // The claimant died before dispatching: a minute later the record is claimable again, once.
    const [stale] = await store.retries.findDueRetries(query(T0 + 62_000));
    expect(stale!.id).toBe(retryId);
    expect(await store.retries.claimRetryDispatch(stale!, T0 + 62_000)).toBe(true);
    expect(await other.retries.claimRetryDispatch(stale!, T0 + 62_000)).toBe(false);
  });

  it('does not list the shards of a retried broadcast as retries of their own', async () => {
    const retryId = (await store.retries.createRetryFire(failed, T0 + 1_000, T0 + 20))!;
    await store.fires.createFires(
      [
        {
          jobId: failed.job_id,
          appId: failed.app_id,
          scheduledAt: T0 + 1_000,
          triggerType: 'RETRY',
          executorHandler: 'h',
          executorParam: 'p',
          parentFireId: retryId,
        },
      ],
      T0 + 1_000,
    );
    const due = await store.retries.findDueRetries({ nowMs: T0 + 5_000, claimedBefore: T0, limit: 10 });
    expect(due.map((fire) => fire.id)).toEqual([retryId]);
  });

  it('finds failures nobody decided, and not the decided ones', async () => {
    const query = { scheduledFrom: T0 - 1_000, limit: 10 };
    expect((await store.retries.findUndecidedFailures(query)).map((f) => f.id)).toEqual([failed.id]);
    await store.retries.decideWithoutRetry(failed.id);
    expect(await store.retries.findUndecidedFailures(query)).toEqual([]);
  });
});
