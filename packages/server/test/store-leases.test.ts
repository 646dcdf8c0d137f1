import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../src/store/index.js';
import { databaseNowMs } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';

const T0 = 1_700_000_000_000;
const TTL = 10_000;

describe.each(DIALECTS)('leases on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  beforeEach(async () => {
    database = await createTestDatabase(dialect);
    store = await database.open();
  });
  afterEach(async () => {
    await database.drop();
  });

  it('reads the database clock in epoch milliseconds, usable inside other statements', async () => {
    const before = Date.now();
    const now = await store.leases.databaseNow();
    expect(Number.isInteger(now)).toBe(true);
    // Same machine: the database clock is the local one, give or take rounding.
    expect(Math.abs(now - before)).toBeLessThan(1_000);
    await store.leases.acquireOrRenewLease('shard:1', 'node-a', TTL, now);
    const unexpired = await store.db
      .selectFrom('lease')
      .select('name')
      .where('expires_at', '>', databaseNowMs(store.dialect))
      .execute();
    expect(unexpired).toEqual([{ name: 'shard:1' }]);
  });

  // A server's clock is corrected to its database's by readings taken over a round trip
  // (scheduling/clock.ts). SQLite's go through a worker thread, not a symmetric round trip: checked
  // on the networked databases.
  if (dialect !== 'sqlite')
    it('reads the millisecond begun, as Date.now() does: no rounding ahead of the local clock', async () => {
      // Same machine, one clock: the reading minus the local midpoint averages out at zero when both
      // sides drop the fraction (PostgreSQL's reading rounded to the nearest one averaged half a
      // millisecond ahead).
      let sum = 0;
      const readings = 300;
      for (let i = 0; i < readings; i++) {
        const before = Date.now();
        const now = await store.leases.databaseNow();
        sum += now - (before + Date.now()) / 2;
      }
      expect(Math.abs(sum / readings)).toBeLessThan(0.3);
    });

  it('the first node to ask gets a free lease at epoch 1', async () => {
    expect(await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, T0)).toEqual({
      epoch: 1,
      expiresAt: T0 + TTL,
    });
    expect(await store.leases.findLease('shard:0')).toEqual({
      name: 'shard:0',
      owner_node: 'node-a',
      epoch: 1,
      expires_at: T0 + TTL,
    });
  });

  it('the owner renews its lease and keeps its epoch', async () => {
    await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, T0);
    expect(await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, T0 + 5000)).toEqual({
      epoch: 1,
      expiresAt: T0 + 5000 + TTL,
    });
    // Renewing twice in the same millisecond changes no column and is still a renewal.
    expect(await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, T0 + 5000)).toEqual({
      epoch: 1,
      expiresAt: T0 + 5000 + TTL,
    });
  });

  it('another node is refused while the lease is unexpired', async () => {
    await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, T0);
    expect(await store.leases.acquireOrRenewLease('shard:0', 'node-b', TTL, T0 + TTL - 1)).toBeNull();
    expect((await store.leases.findLease('shard:0'))!.owner_node).toBe('node-a');
  });

  it('a lease that expired is taken over with the epoch incremented', async () => {
    await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, T0);
    expect(await store.leases.acquireOrRenewLease('shard:0', 'node-b', TTL, T0 + TTL)).toEqual({
      epoch: 2,
      expiresAt: T0 + 2 * TTL,
    });
    // The old owner coming back is now the one refused.
    expect(await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, T0 + TTL + 1)).toBeNull();
  });

  it('an owner that let its lease lapse starts a new epoch when it takes it again', async () => {
    await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, T0);
    expect((await store.leases.acquireOrRenewLease('shard:0', 'node-a', TTL, T0 + TTL))!.epoch).toBe(2);
  });

  it('a released lease is free at once and its next grant increments the epoch', async () => {
    const held = (await store.leases.acquireOrRenewLease('maintenance', 'node-a', TTL, T0))!;
    expect(await store.leases.releaseLease('maintenance', 'node-b', held.epoch)).toBe(false);
    expect(await store.leases.releaseLease('maintenance', 'node-a', held.epoch)).toBe(true);
    expect(await store.leases.acquireOrRenewLease('maintenance', 'node-b', TTL, T0 + 1)).toEqual({
      epoch: 2,
      expiresAt: T0 + 1 + TTL,
    });
  });

  it('of many nodes asking for a free lease at once, exactly one gets it', async () => {
    const stores = [store, await database.open(), await database.open()];
    const grants = await Promise.all(
      Array.from({ length: 9 }, (_, i) =>
        stores[i % 3]!.leases.acquireOrRenewLease('shard:7', `node-${i}`, TTL, T0),
      ),
    );
    const winners = grants.filter((grant) => grant !== null);
    expect(winners).toEqual([{ epoch: 1, expiresAt: T0 + TTL }]);
    expect(await store.leases.listLeases()).toHaveLength(1);
  });
});
