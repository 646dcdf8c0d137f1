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
