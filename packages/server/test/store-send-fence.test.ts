import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SendFenceRequest, Store } from '../src/store/index.js';
import { createTestDatabase, STORE_VARIANTS, seedDueJobs, type TestDatabase } from './helpers/databases.js';

const TTL = 60_000;
const A = 'http://127.0.0.1:9001/';
const B = 'http://127.0.0.1:9002/';

/** Pending records, one per job, as a trigger would make them. */
async function pendingFires(store: Store, count: number): Promise<number[]> {
  const now = Date.now();
  const { appId, jobIds } = await seedDueJobs(store, count, now);
  return store.fires.createFires(
    jobIds.map((jobId) => ({
      jobId,
      appId,
      scheduledAt: now,
      triggerType: 'API' as const,
      executorHandler: 'h',
      executorParam: '',
    })),
    now,
  );
}

describe.each(STORE_VARIANTS)('the send fence on %s', (variant) => {
  const dialect = variant === 'sqlite-hot-thread' ? 'sqlite' : variant;
  let database: TestDatabase;
  let store: Store;
  beforeEach(async () => {
    database = await createTestDatabase(variant);
    store = await database.open();
  });
  afterEach(async () => {
    await database.drop();
  });

  const leased = (fireId: number, address: string, epoch: number): SendFenceRequest => ({
    fireId,
    address,
    lease: { name: 'shard:0', epoch },
  });

  it('admits the holder of the shard lease at its epoch and writes the address on the pending record', async () => {
    const [fire] = await pendingFires(store, 1);
    const held = (await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, Date.now()))!;
    expect(await store.fires.fenceSends('node-a', Date.now(), [leased(fire!, A, held.epoch)])).toEqual([
      { fireId: fire, admitted: true },
    ]);
    const row = (await store.fires.findFireById(fire!))!;
    expect([row.status, row.sent_to]).toEqual(['pending', A]);
  });

  it('refuses another node, another epoch and an expired lease, and writes nothing', async () => {
    const [fire] = await pendingFires(store, 1);
    const held = (await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, Date.now()))!;
    const refused = { fireId: fire, admitted: false, reason: 'not-owner' };
    expect(await store.fires.fenceSends('node-b', Date.now(), [leased(fire!, A, held.epoch)])).toEqual([
      refused,
    ]);
    expect(await store.fires.fenceSends('node-a', Date.now(), [leased(fire!, A, held.epoch - 1)])).toEqual([
      refused,
    ]);
    // Expired: a grant made 2 × TTL ago.
    await store.leases.releaseLease('shard:0', 'node-a', held.epoch);
    const old = (await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, Date.now() - 2 * TTL))!;
    expect(await store.fires.fenceSends('node-a', Date.now(), [leased(fire!, A, old.epoch)])).toEqual([
      refused,
    ]);
    expect((await store.fires.findFireById(fire!))!.sent_to).toBeNull();
  });

  if (dialect !== 'sqlite') {
    it('judges expiry on the database clock too: a node whose clock runs behind cannot send on an expired lease', async () => {
      const [fire] = await pendingFires(store, 1);
      const past = Date.now() - 2 * TTL;
      const held = (await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, past))!;
      // This node's clock says the lease has a minute left; the database's says it expired.
      expect(await store.fires.fenceSends('node-a', past + 1_000, [leased(fire!, A, held.epoch)])).toEqual([
        { fireId: fire, admitted: false, reason: 'not-owner' },
      ]);
    });
  }

  it('sends a record that went to one executor only there again', async () => {
    const [fire] = await pendingFires(store, 1);
    const held = (await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, Date.now()))!;
    await store.fires.fenceSends('node-a', Date.now(), [leased(fire!, A, held.epoch)]);
    expect(await store.fires.fenceSends('node-a', Date.now(), [leased(fire!, B, held.epoch)])).toEqual([
      { fireId: fire, admitted: false, sentTo: A },
    ]);
    expect(await store.fires.fenceSends('node-a', Date.now(), [leased(fire!, A, held.epoch)])).toEqual([
      { fireId: fire, admitted: true },
    ]);
    expect((await store.fires.findFireById(fire!))!.sent_to).toBe(A);
  });

  it('refuses a record that is no longer pending', async () => {
    const [fire] = await pendingFires(store, 1);
    await store.fires.skipPendingFires([fire!], 'skipped: test', Date.now());
    expect(
      await store.fires.fenceSends('node-a', Date.now(), [{ fireId: fire!, address: A, lease: null }]),
    ).toEqual([{ fireId: fire, admitted: false, reason: 'not-pending' }]);
    expect(
      await store.fires.fenceSends('node-a', Date.now(), [{ fireId: 999_999_999, address: A, lease: null }]),
    ).toEqual([{ fireId: 999_999_999, admitted: false, reason: 'not-pending' }]);
  });

  it('admits a trigger-once send without a lease, first address wins', async () => {
    const [fire] = await pendingFires(store, 1);
    const [first, second] = await Promise.all([
      store.fires.fenceSends('node-a', Date.now(), [{ fireId: fire!, address: A, lease: null }]),
      store.fires.fenceSends('node-b', Date.now(), [{ fireId: fire!, address: B, lease: null }]),
    ]);
    const answers = [first![0]!, second![0]!];
    expect(answers.filter((a) => a.admitted)).toHaveLength(1);
    const winner = (await store.fires.findFireById(fire!))!.sent_to;
    expect(answers.find((a) => !a.admitted)).toEqual({ fireId: fire, admitted: false, sentTo: winner });
  });

  it('answers a batch send by send, in the order asked', async () => {
    const fires = await pendingFires(store, 4);
    const held = (await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, Date.now()))!;
    await store.fires.fenceSends('node-a', Date.now(), [leased(fires[1]!, B, held.epoch)]);
    await store.fires.skipPendingFires([fires[2]!], 'skipped: test', Date.now());
    const answers = await store.fires.fenceSends('node-a', Date.now(), [
      leased(fires[3]!, A, held.epoch),
      leased(fires[2]!, A, held.epoch),
      leased(fires[1]!, A, held.epoch),
      leased(fires[0]!, A, held.epoch),
    ]);
    expect(answers).toEqual([
      { fireId: fires[3], admitted: true },
      { fireId: fires[2], admitted: false, reason: 'not-pending' },
      { fireId: fires[1], admitted: false, sentTo: B },
      { fireId: fires[0], admitted: true },
    ]);
  });

  it('admits a send made from the claim’s read only while its job and app are as read, and answers stale otherwise', async () => {
    const fires = await pendingFires(store, 4);
    const held = (await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, Date.now()))!;
    const records = await Promise.all(fires.map(async (id) => (await store.fires.findFireById(id))!));
    const jobs = await Promise.all(records.map(async (r) => (await store.jobs.findJobById(r.job_id))!));
    const app = (await store.apps.findAppById(records[0]!.app_id))!;
    const asRead = (i: number, appUpdatedAt = app.updated_at): SendFenceRequest => ({
      ...leased(fires[i]!, A, held.epoch),
      readAt: {
        jobId: jobs[i]!.id,
        jobUpdatedAt: jobs[i]!.updated_at,
        appId: app.id,
        appUpdatedAt,
      },
    });
    // An edit in the same millisecond as the one read still moves updated_at on.
    await store.jobs.updateJob(jobs[1]!.id, { executor_timeout: 5 }, jobs[1]!.updated_at);
    expect((await store.jobs.findJobById(jobs[1]!.id))!.updated_at).toBeGreaterThan(jobs[1]!.updated_at);
    // Stopped without an edit (the claim stops a job whose schedule no longer reads).
    await store.db.updateTable('job').set({ trigger_status: 0 }).where('id', '=', jobs[2]!.id).execute();
    expect(
      await store.fires.fenceSends('node-a', Date.now(), [
        asRead(0),
        asRead(1),
        asRead(2),
        leased(fires[3]!, A, held.epoch),
      ]),
    ).toEqual([
      { fireId: fires[0], admitted: true },
      { fireId: fires[1], admitted: false, reason: 'stale' },
      { fireId: fires[2], admitted: false, reason: 'stale' },
      // Without a read to check, as before.
      { fireId: fires[3], admitted: true },
    ]);
    expect((await store.fires.findFireById(fires[1]!))!.sent_to).toBeNull();
    // The app edited (in the same millisecond too): every send made from the older read is stale.
    await store.apps.updateApp(app.id, { title: 'edited' }, app.updated_at);
    const edited = (await store.apps.findAppById(app.id))!.updated_at;
    expect(edited).toBeGreaterThan(app.updated_at);
    expect(await store.fires.fenceSends('node-a', Date.now(), [asRead(1)])).toEqual([
      { fireId: fires[1], admitted: false, reason: 'stale' },
    ]);
    // Read again, the job and app as they are now: admitted.
    const job1 = (await store.jobs.findJobById(jobs[1]!.id))!;
    expect(
      await store.fires.fenceSends('node-a', Date.now(), [
        {
          ...asRead(1, edited),
          readAt: { jobId: job1.id, jobUpdatedAt: job1.updated_at, appId: app.id, appUpdatedAt: edited },
        },
      ]),
    ).toEqual([{ fireId: fires[1], admitted: true }]);
  });

  it('stores the result of a run whose record was skipped after it was sent: it ran', async () => {
    const [fire] = await pendingFires(store, 1);
    await store.fires.fenceSends('node-a', Date.now(), [{ fireId: fire!, address: A, lease: null }]);
    await store.fires.skipPendingFires([fire!], 'skipped: the job was stopped', Date.now());
    const finished = await store.fires.finishFires([
      { fireId: fire!, handleCode: 200, handleMsg: 'ran anyway', handleAt: Date.now() },
    ]);
    expect(finished.map((f) => f.fireId)).toEqual([fire]);
    const row = (await store.fires.findFireById(fire!))!;
    expect([row.status, row.handle_msg]).toEqual(['succeeded', 'ran anyway']);
  });
});
