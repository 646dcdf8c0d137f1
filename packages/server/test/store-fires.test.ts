import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DispatchMark, Store } from '../src/store/index.js';
import { createTestDatabase, STORE_VARIANTS, seedDueJobs, type TestDatabase } from './helpers/databases.js';
import { sleep, waitFor } from './helpers/e2e.js';

const T0 = 1_700_000_000_000;

const mark = (fireId: number, over: Partial<DispatchMark> = {}): DispatchMark => ({
  fireId,
  triggerAt: T0 + 5,
  executorAddress: 'http://127.0.0.1:9999/',
  triggerCode: 200,
  triggerMsg: 'route FIRST',
  ...over,
});

/** Claims one pending fire per job through the real claim path. */
async function claimFires(
  store: Store,
  count: number,
): Promise<{ ids: number[]; appId: number; jobIds: number[] }> {
  const { appId, jobIds } = await seedDueJobs(store, count, T0);
  const held = (await store.leases.acquireOrRenewLease('shard:0', 'node-a', 60_000, T0))!;
  const result = await store.fires.claimDueFires({
    nodeId: 'node-a',
    nowMs: T0,
    horizonMs: T0,
    shardTotal: 1,
    shards: [{ index: 0, epoch: held.epoch }],
    limit: 1000,
    // The seeded jobs fire every second: one fire at the due time.
    misfireWindowMs: 5_000,
  });
  const byJob = new Map(result.fires.map((f) => [f.job.id, f.fireId]));
  return { ids: jobIds.map((id) => byJob.get(id)!), appId, jobIds };
}

/** InnoDB's count of deadlocks since the server started. */
async function innodbDeadlocks(connection: {
  query(sql: string): Promise<[unknown, unknown]>;
}): Promise<number> {
  const [rows] = await connection.query("SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'");
  return Number((rows as { Value: string }[])[0]?.Value);
}

describe.each(STORE_VARIANTS)('fire records on %s', (variant) => {
  let database: TestDatabase;
  let store: Store;
  beforeEach(async () => {
    database = await createTestDatabase(variant);
    store = await database.open();
  });
  afterEach(async () => {
    await database.drop();
  });

  it('the unique key refuses a second claimed fire for the same job and scheduled time', async () => {
    const { ids, jobIds, appId } = await claimFires(store, 1);
    const duplicate = {
      job_id: jobIds[0]!,
      app_id: appId,
      claim_job_id: jobIds[0]!,
      scheduled_at: T0,
      trigger_type: 'CRON',
      executor_handler: 'demo',
      executor_param: '',
      shard_index: 0,
      shard_total: 1,
      status: 'pending' as const,
      retry_count: 0,
      alarm_status: 0,
      claimed_by_epoch: 1,
      created_at: T0,
    };
    await expect(store.db.insertInto('fire').values(duplicate).execute()).rejects.toThrow();
    expect(await store.fires.countFires()).toBe(1);
    expect(ids).toHaveLength(1);
  });

  it('broadcast children and retries may share the claimed fire’s job and time', async () => {
    const { ids, jobIds, appId } = await claimFires(store, 1);
    const child = {
      jobId: jobIds[0]!,
      appId,
      scheduledAt: T0,
      triggerType: 'CRON' as const,
      executorHandler: 'demo',
      executorParam: 'p',
      parentFireId: ids[0]!,
      shardTotal: 3,
    };
    const childIds = await store.fires.createFires(
      [0, 1, 2].map((shardIndex) => ({ ...child, shardIndex })),
      T0,
    );
    const retryIds = await store.fires.createFires(
      [{ ...child, triggerType: 'RETRY', shardTotal: 1, retryCount: 1 }],
      T0,
    );
    expect(new Set([...childIds, ...retryIds]).size).toBe(4);
    const children = await store.fires.findChildFires(ids[0]!);
    expect(children.map((c) => [c.shard_index, c.shard_total, c.trigger_type, c.claim_job_id])).toEqual([
      [0, 3, 'CRON', null],
      [1, 3, 'CRON', null],
      [2, 3, 'CRON', null],
      [0, 1, 'RETRY', null],
    ]);
  });

  it('markDispatched moves pending records to dispatched and records the dispatch', async () => {
    const { ids } = await claimFires(store, 3);
    expect(await store.fires.markDispatched(ids.map((id) => mark(id)))).toBe(3);
    const rows = await store.fires.findFiresByIds(ids);
    for (const row of rows) {
      expect(row).toMatchObject({
        status: 'dispatched',
        trigger_at: T0 + 5,
        executor_address: 'http://127.0.0.1:9999/',
        trigger_code: 200,
        trigger_msg: 'route FIRST',
      });
    }
  });

  it('markDispatchFailed moves pending records to dispatch_failed', async () => {
    const { ids } = await claimFires(store, 2);
    const failed = ids.map((id) =>
      mark(id, { triggerCode: 500, executorAddress: null, triggerMsg: 'no executor online' }),
    );
    expect(await store.fires.markDispatchFailed(failed)).toBe(2);
    const rows = await store.fires.findFiresByIds(ids);
    expect(rows.map((row) => [row.status, row.trigger_code, row.executor_address])).toEqual([
      ['dispatch_failed', 500, null],
      ['dispatch_failed', 500, null],
    ]);
  });

  it('a dispatch mark written after the result does not pull the record back', async () => {
    const { ids } = await claimFires(store, 1);
    await store.fires.finishFires([{ fireId: ids[0]!, handleCode: 200, handleMsg: 'ok', handleAt: T0 + 9 }]);
    expect(await store.fires.markDispatched([mark(ids[0]!), mark(999_999)])).toBe(0);
    expect(await store.fires.findFireById(ids[0]!)).toMatchObject({ status: 'succeeded', trigger_code: 200 });
  });

  it('a result carrying its held dispatch mark writes both in one statement; a record it does not finish keeps its own', async () => {
    const { ids } = await claimFires(store, 3);
    // The third record was finished by an earlier result (marked by then, as the batcher would have).
    await store.fires.markDispatched([mark(ids[2]!, { triggerMsg: 'first send' })]);
    await store.fires.finishFires([
      { fireId: ids[2]!, handleCode: 200, handleMsg: 'earlier', handleAt: T0 + 7 },
    ]);
    const held = (fireId: number) =>
      mark(fireId, {
        executorAddress: 'http://127.0.0.1:9998/',
        triggerMsg: 'held',
        executorInstance: 'inst-1',
      });
    const finished = await store.fires.finishFires([
      { fireId: ids[0]!, handleCode: 200, handleMsg: 'done', handleAt: T0 + 10, dispatch: held(ids[0]!) },
      { fireId: ids[1]!, handleCode: 500, handleMsg: 'boom', handleAt: T0 + 11 },
      { fireId: ids[2]!, handleCode: 500, handleMsg: 'late', handleAt: T0 + 12, dispatch: held(ids[2]!) },
    ]);
    expect(finished.map((f) => [f.fireId, f.status, f.executorAddress]).sort()).toEqual(
      [
        [ids[0], 'succeeded', 'http://127.0.0.1:9998/'],
        [ids[1], 'failed', null],
      ].sort(),
    );
    const [withMark, withoutMark, earlier] = await store.fires.findFiresByIds(ids);
    expect(withMark).toMatchObject({
      status: 'succeeded',
      handle_msg: 'done',
      trigger_at: T0 + 5,
      executor_address: 'http://127.0.0.1:9998/',
      trigger_code: 200,
      trigger_msg: 'held',
      executor_instance: 'inst-1',
    });
    // Without a mark the dispatch fields stay as they were (none written yet).
    expect(withoutMark).toMatchObject({
      status: 'failed',
      trigger_at: null,
      executor_address: null,
      trigger_msg: null,
    });
    // Not finished by this call: neither the result nor the mark it carried is written.
    expect(earlier).toMatchObject({
      status: 'succeeded',
      handle_msg: 'earlier',
      trigger_msg: 'first send',
      executor_address: 'http://127.0.0.1:9999/',
    });
  });

  it('finishFires finalises each record once and reports only the records it changed', async () => {
    const { ids, jobIds } = await claimFires(store, 3);
    await store.fires.markDispatched(ids.map((id) => mark(id)));
    const results = [
      { fireId: ids[0]!, handleCode: 200, handleMsg: 'done', handleAt: T0 + 10 },
      { fireId: ids[1]!, handleCode: 500, handleMsg: 'boom', handleAt: T0 + 11 },
      { fireId: ids[2]!, handleCode: 502, handleMsg: 'timeout', handleAt: T0 + 12 },
      { fireId: 987_654, handleCode: 200, handleMsg: 'unknown', handleAt: T0 },
    ];
    const finished = await store.fires.finishFires(results);
    expect(finished.map((f) => [f.fireId, f.jobId, f.status, f.handleCode, f.retryCount]).sort()).toEqual(
      [
        [ids[0], jobIds[0], 'succeeded', 200, 2],
        [ids[1], jobIds[1], 'failed', 500, 2],
        [ids[2], jobIds[2], 'timeout', 502, 2],
      ].sort(),
    );
    expect(await store.fires.finishFires(results)).toEqual([]);
    expect(
      await store.fires.finishFires([
        { fireId: ids[0]!, handleCode: 500, handleMsg: 'late', handleAt: T0 + 99 },
      ]),
    ).toEqual([]);
    expect(await store.fires.findFireById(ids[0]!)).toMatchObject({
      status: 'succeeded',
      handle_msg: 'done',
      handle_at: T0 + 10,
    });
  });

  it("finishFires says which records' jobs are FIX_DELAY, read in the same statement", async () => {
    const { ids, jobIds } = await claimFires(store, 3);
    await store.fires.markDispatched(ids.map((id) => mark(id)));
    await store.db
      .updateTable('job')
      .set({ schedule_type: 'FIX_DELAY', schedule_conf: '5' })
      .where('id', 'in', [jobIds[0]!, jobIds[2]!])
      .execute();
    const finished = await store.fires.finishFires(
      ids.map((fireId, i) => ({ fireId, handleCode: 200, handleMsg: null, handleAt: T0 + i })),
    );
    expect(finished.map((f) => [f.fireId, f.fixDelay]).sort()).toEqual(
      [
        [ids[0], true],
        [ids[1], false],
        [ids[2], true],
      ].sort(),
    );
  });

  it('a duplicated callback reaching two nodes at once finalises the record once', async () => {
    const { ids } = await claimFires(store, 20);
    await store.fires.markDispatched(ids.map((id) => mark(id)));
    const other = await database.open();
    const results = ids.map((fireId) => ({ fireId, handleCode: 200, handleMsg: 'ok', handleAt: T0 + 1 }));
    const [a, b, c] = await Promise.all([
      store.fires.finishFires(results),
      other.fires.finishFires([...results].reverse()),
      store.fires.finishFires(results.slice(5)),
    ]);
    const reported = [...a, ...b, ...c].map((f) => f.fireId);
    expect(reported.sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
  });

  it.runIf(variant === 'mysql')(
    "a results batch InnoDB picks as a deadlock's victim runs again and stores its results",
    async () => {
      const { ids } = await claimFires(store, 12);
      await store.fires.markDispatched(ids.map((id) => mark(id)));
      const [first, second, ...others] = ids as [number, number, ...number[]];
      const other = await database.open();
      const conn = other.connection;
      if (conn.dialect !== 'mysql') throw new Error('unreachable');
      const blocker = await conn.pool.getConnection();
      try {
        // Another transaction changes ten records (the larger one: InnoDB rolls the smaller back) and holds the second.
        await blocker.beginTransaction();
        await blocker.query('UPDATE fire SET trigger_msg = ? WHERE id IN (?)', ['held', others]);
        await blocker.query('SELECT id FROM fire WHERE id = ? FOR UPDATE', [second]);
        // The results lock the first record, then wait for the second.
        const finishing = store.fires.finishFires(
          [first, second].map((fireId) => ({ fireId, handleCode: 200, handleMsg: 'ok', handleAt: T0 + 1 })),
        );
        await waitFor(
          async () => {
            const [rows] = await blocker.query(
              `SELECT count(*) AS n FROM information_schema.processlist
               WHERE db = DATABASE() AND id <> CONNECTION_ID() AND info LIKE '%FROM fire WHERE id IN%FOR UPDATE'`,
            );
            return Number((rows as { n: number }[])[0]?.n) === 1;
          },
          { what: 'the results to wait for the second record' },
        );
        await sleep(100);
        const deadlocksBefore = await innodbDeadlocks(blocker);
        // The other transaction now asks for the first: a deadlock; the results are the victim.
        await blocker.query('SELECT id FROM fire WHERE id = ? FOR UPDATE', [first]);
        await blocker.commit();
        expect(await innodbDeadlocks(blocker)).toBeGreaterThan(deadlocksBefore);
        const finished = await finishing;
        expect(finished.map((f) => [f.fireId, f.status]).sort()).toEqual(
          [
            [first, 'succeeded'],
            [second, 'succeeded'],
          ].sort(),
        );
      } finally {
        blocker.release();
        await other.close();
      }
    },
  );

  it('a late result still finalises a dispatch_failed record, and a kill is recorded as killed', async () => {
    const { ids } = await claimFires(store, 2);
    await store.fires.markDispatchFailed([mark(ids[0]!, { triggerCode: 500 })]);
    const late = await store.fires.finishFires([
      { fireId: ids[0]!, handleCode: 200, handleMsg: 'ran', handleAt: T0 },
    ]);
    expect(late.map((f) => f.status)).toEqual(['succeeded']);
    const killed = await store.fires.finishFires([
      { fireId: ids[1]!, handleCode: 500, handleMsg: 'killed by user', handleAt: T0, status: 'killed' },
    ]);
    expect(killed.map((f) => f.status)).toEqual(['killed']);
  });

  it('findPendingFires returns the undispatched records of the given shards', async () => {
    const { ids, jobIds } = await claimFires(store, 6);
    await store.fires.markDispatched([mark(ids[0]!)]);
    const pending = await store.fires.findPendingFires({
      shardTotal: 2,
      shardIndexes: [1],
      scheduledBefore: T0,
      limit: 100,
    });
    const expected = ids.filter((_id, i) => i !== 0 && jobIds[i]! % 2 === 1);
    expect(pending.map((row) => row.id).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
    expect(
      await store.fires.findPendingFires({
        shardTotal: 2,
        shardIndexes: [0, 1],
        scheduledBefore: T0 - 1,
        limit: 100,
      }),
    ).toEqual([]);
  });

  it('findPendingFires pages by a (scheduled_at, id) cursor through root records only, losing none', async () => {
    const { ids, jobIds, appId } = await claimFires(store, 7);
    const record = (
      scheduledAt: number,
      over: { triggerType?: 'MANUAL' | 'CRON'; parentFireId?: number },
    ) => ({
      jobId: jobIds[0]!,
      appId,
      scheduledAt,
      triggerType: over.triggerType ?? 'MANUAL',
      executorHandler: 'demo',
      executorParam: null,
      ...(over.parentFireId === undefined ? {} : { parentFireId: over.parentFireId }),
    });
    // Trigger-once records (no claim key, no parent) are roots: recovered like claimed fires.
    const manual = await store.fires.createFires([record(T0 - 1, {}), record(T0, {})], T0);
    // A broadcast child shares its parent's time: sent again through its parent, never on its own.
    await store.fires.createFires([record(T0, { triggerType: 'CRON', parentFireId: ids[0]! })], T0);
    const earlier = await store.fires.createFires(
      [{ ...record(T0 - 5, { triggerType: 'CRON' }), jobId: jobIds[1]! }],
      T0,
    );
    // Gives the earlier record a claim key, as a claim of that time would have.
    await store.db
      .updateTable('fire')
      .set({ claim_job_id: jobIds[1]! })
      .where('id', '=', earlier[0]!)
      .execute();

    const query = { shardTotal: 1, shardIndexes: [0], scheduledBefore: T0, limit: 2, rootOnly: true };
    const seen: number[] = [];
    let after: { scheduledAt: number; id: number } | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await store.fires.findPendingFires({
        ...query,
        ...(after === undefined ? {} : { after }),
      });
      seen.push(...page.map((row) => row.id));
      const last = page.at(-1);
      if (page.length < query.limit || last === undefined) break;
      after = { scheduledAt: last.scheduled_at, id: last.id };
      // A record of a later page leaves `pending` meanwhile (the pipeline dispatched it): the
      // cursor does not shift, so nothing after it is skipped.
      if (pages === 0) await store.fires.markDispatched([mark(ids[3]!)]);
    }
    const atT0 = [...ids.filter((id) => id !== ids[3]), manual[1]!].sort((a, b) => a - b);
    expect(seen).toEqual([earlier[0], manual[0], ...atT0]);
    const all = await store.fires.findPendingFires({
      shardTotal: 1,
      shardIndexes: [0],
      scheduledBefore: T0,
      limit: 100,
    });
    expect(all).toHaveLength(seen.length + 1);
    expect(all.map((row) => row.scheduled_at)).toEqual(
      [...all.map((row) => row.scheduled_at)].sort((a, b) => a - b),
    );
  });

  it('findLostRuns returns old dispatched records whose executor is offline', async () => {
    const { ids } = await claimFires(store, 3);
    await store.fires.markDispatched([
      mark(ids[0]!, { executorAddress: 'http://gone:1/' }),
      mark(ids[1]!, { executorAddress: 'http://alive:1/' }),
      mark(ids[2]!, { executorAddress: 'http://gone:1/', triggerAt: T0 + 60_000 }),
    ]);
    await store.registry.heartbeat(
      { group: 'EXECUTOR', key: 'app', value: 'http://alive:1/' },
      'G2',
      T0 + 50_000,
    );
    const lost = await store.fires.findLostRuns({
      dispatchedBefore: T0 + 1000,
      aliveSince: T0 + 20_000,
      limit: 10,
    });
    expect(lost.map((row) => row.id)).toEqual([ids[0]]);
  });

  it('findLostRuns leaves out a broadcast parent, which has no executor address', async () => {
    const { ids } = await claimFires(store, 2);
    await store.fires.markDispatched([
      mark(ids[0]!, { executorAddress: null }),
      mark(ids[1]!, { executorAddress: 'http://gone:1/' }),
    ]);
    const lost = await store.fires.findLostRuns({ dispatchedBefore: T0 + 1000, aliveSince: T0, limit: 10 });
    expect(lost.map((row) => row.id)).toEqual([ids[1]]);
  });

  it('listFires filters by app, job, status and time, newest first, one page at a time', async () => {
    const { ids, appId, jobIds } = await claimFires(store, 5);
    await store.fires.markDispatched([mark(ids[0]!), mark(ids[1]!)]);
    expect(await store.fires.countFires({ appId })).toBe(5);
    expect(await store.fires.countFires({ appId, status: 'dispatched' })).toBe(2);
    expect(await store.fires.countFires({ status: ['dispatched', 'pending'] })).toBe(5);
    expect(await store.fires.countFires({ jobId: jobIds[3]! })).toBe(1);
    expect(await store.fires.countFires({ from: T0 + 1 })).toBe(0);
    expect(await store.fires.countFires({ from: T0, to: T0 + 1 })).toBe(5);
    const page1 = await store.fires.listFires({ appId, limit: 2 });
    const page2 = await store.fires.listFires({ appId, limit: 2, offset: 2 });
    expect(page1.map((row) => row.id)).toEqual([ids[4], ids[3]]);
    expect(page2.map((row) => row.id)).toEqual([ids[2], ids[1]]);
    expect(await store.fires.countFiresByStatus(T0, T0 + 1)).toEqual({ pending: 3, dispatched: 2 });
  });

  it('skipPendingFires skips only pending records', async () => {
    const { ids } = await claimFires(store, 2);
    await store.fires.markDispatched([mark(ids[0]!)]);
    expect(await store.fires.skipPendingFires(ids, 'job stopped', T0)).toBe(1);
    expect((await store.fires.findFireById(ids[1]!))!.status).toBe('skipped');
  });

  it('skipPendingFires records a trigger type with the skip when given one', async () => {
    const { ids } = await claimFires(store, 2);
    expect(await store.fires.skipPendingFires([ids[0]!], 'missed', T0, 'MISFIRE')).toBe(1);
    expect(await store.fires.skipPendingFires([ids[1]!], 'job stopped', T0)).toBe(1);
    const rows = await store.fires.findFiresByIds(ids);
    expect(rows.map((row) => [row.status, row.trigger_type, row.handle_msg])).toEqual([
      ['skipped', 'MISFIRE', 'missed'],
      ['skipped', 'CRON', 'job stopped'],
    ]);
  });

  it('setPendingTriggerType retypes pending records in one statement and leaves dispatched ones', async () => {
    const { ids } = await claimFires(store, 3);
    await store.fires.markDispatched([mark(ids[0]!)]);
    expect(await store.fires.setPendingTriggerType(ids, 'MISFIRE')).toBe(2);
    const rows = await store.fires.findFiresByIds(ids);
    expect(rows.map((row) => [row.status, row.trigger_type])).toEqual([
      ['dispatched', 'CRON'],
      ['pending', 'MISFIRE'],
      ['pending', 'MISFIRE'],
    ]);
  });

  it('one node takes a failure for alarming: alarm_status moves by compare-and-set', async () => {
    const { ids } = await claimFires(store, 2);
    await store.fires.finishFires([{ fireId: ids[0]!, handleCode: 500, handleMsg: 'x', handleAt: T0 }]);
    expect((await store.fires.findUnalarmedFailures(10)).map((row) => row.id)).toEqual([ids[0]]);
    const other = await database.open();
    const taken = await Promise.all([
      store.fires.setAlarmStatus(ids[0]!, 0, -1),
      other.fires.setAlarmStatus(ids[0]!, 0, -1),
    ]);
    expect(taken.filter(Boolean)).toHaveLength(1);
    expect(await store.fires.findUnalarmedFailures(10)).toEqual([]);
  });

  it('deleteFiresBefore removes old records in bounded batches', async () => {
    const { jobIds, appId } = await claimFires(store, 1);
    const old = Array.from({ length: 5 }, (_, i) => ({
      jobId: jobIds[0]!,
      appId,
      scheduledAt: T0 - 100_000 + i,
      triggerType: 'MANUAL' as const,
      executorHandler: 'demo',
      executorParam: null,
    }));
    await store.fires.createFires(old, T0);
    expect(await store.fires.deleteFiresBefore(T0, 3)).toBe(3);
    expect(await store.fires.deleteFiresBefore(T0, 3)).toBe(2);
    expect(await store.fires.countFires()).toBe(1);
  });
});
