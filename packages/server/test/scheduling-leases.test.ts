/**
 * Shard leases on each real database: a lone node holds every shard, renewals keep the epoch,
 * a dead node's shards are taken over after expiry with a new epoch, and a node that cannot
 * renew stops using its shards before they can be taken.
 */

import { ManualClock } from '@tickwheel/test-fixtures/manual-clock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ShardLeases } from '../src/scheduling/leases.js';
import { resolveSchedulingOptions } from '../src/scheduling/options.js';
import type { Store } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import { MemoryLogger, NodeClock } from './helpers/scheduling-fixtures.js';

const T0 = Date.parse('2026-03-01T12:00:00Z');
const TTL = 9_000;
const MARGIN = 1_500;

describe.each(DIALECTS)('shard leases on %s', (dialect) => {
  let db: TestDatabase;
  let clock: ManualClock;
  const nodes: ShardLeases[] = [];

  beforeEach(async () => {
    db = await createTestDatabase(dialect);
    clock = new ManualClock(T0);
    clock.settle = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      for (const node of nodes) await node.idle();
    };
  });

  afterEach(async () => {
    nodes.length = 0;
    await db.drop();
  });

  async function node(
    nodeId: string,
    extra: { store?: Store; targetShareCount?: () => number; leases?: Store['leases'] } = {},
  ) {
    const store = extra.store ?? (await db.open());
    const nodeClock = new NodeClock(clock);
    const logger = new MemoryLogger();
    const resolved = resolveSchedulingOptions({
      nodeId,
      shardCount: 8,
      leaseTtlMs: TTL,
      leaseSafetyMarginMs: MARGIN,
      clock: nodeClock,
      logger,
    });
    const leases = new ShardLeases({
      ...resolved,
      leases: extra.leases ?? store.leases,
      targetShareCount: extra.targetShareCount,
    });
    nodes.push(leases);
    return { leases, store, clock: nodeClock, logger };
  }

  it('gives a lone node every shard, at epoch 1', async () => {
    const a = await node('node-a');
    await a.leases.start();
    expect(a.leases.ownedShards()).toEqual(Array.from({ length: 8 }, (_, index) => ({ index, epoch: 1 })));
    await a.leases.stop();
  });

  it('renews every fifth of the ttl and keeps the epoch', async () => {
    const a = await node('node-a');
    await a.leases.start();
    await clock.advance(TTL * 3);
    expect(a.leases.ownedShards().map((s) => s.epoch)).toEqual(Array(8).fill(1));
    const row = await a.store.leases.findLease('shard:0');
    expect(row?.expires_at).toBeGreaterThan(clock.now() + TTL - TTL / 5 - 1);
    await a.leases.stop();
  });

  it('leaves a second node without shards while the first keeps renewing', async () => {
    const a = await node('node-a');
    const b = await node('node-b');
    await a.leases.start();
    await b.leases.start();
    await clock.advance(TTL * 2);
    expect(a.leases.ownedShards()).toHaveLength(8);
    expect(b.leases.ownedShards()).toEqual([]);
    await a.leases.stop();
    await b.leases.stop();
  });

  it('hands a dead node’s shards to a live one once they expire, under a new epoch', async () => {
    const a = await node('node-a');
    const b = await node('node-b');
    await a.leases.start();
    await b.leases.start();
    await clock.advance(1_000);
    a.clock.kill();
    await clock.advance(TTL - 1_000 - 1);
    expect(b.leases.ownedShards()).toEqual([]);
    await clock.advance(TTL / 5 + 1);
    expect(b.leases.ownedShards()).toEqual(Array.from({ length: 8 }, (_, index) => ({ index, epoch: 2 })));
  });

  it('stops using its shards before they expire when renewals fail', async () => {
    const store = await db.open();
    const a = await node('node-a', { store });
    const b = await node('node-b');
    await a.leases.start();
    await b.leases.start();
    const renewedAt = clock.now();
    await store.close();
    await clock.advance(TTL - MARGIN - 1);
    expect(a.leases.ownedShards()).toHaveLength(8);
    await clock.advance(1);
    expect(a.leases.ownedShards()).toEqual([]);
    expect(a.leases.epochOf(0)).toBeUndefined();
    expect(a.logger.errors()).toContain('shard lease renewal failed; held shards lapse at their deadline');
    // Another node could not have taken them yet: they expire only at renewedAt + TTL.
    expect(b.leases.ownedShards()).toEqual([]);
    await clock.advanceTo(renewedAt + TTL + TTL / 5);
    expect(b.leases.ownedShards()).toHaveLength(8);
  });

  it('drops a shard at once when the database refuses its renewal', async () => {
    const a = await node('node-a');
    await a.leases.start();
    await a.store.db
      .updateTable('lease')
      .set({ owner_node: 'node-z', epoch: 7 })
      .where('name', '=', 'shard:3')
      .execute();
    await a.leases.renewNow();
    expect(a.leases.ownedShards().map((s) => s.index)).toEqual([0, 1, 2, 4, 5, 6, 7]);
    expect(a.logger.lines.map((l) => l.message)).toContain(
      'lost a shard lease (expired or taken by another node)',
    );
    await a.leases.stop();
  });

  it('renews its held shards in one statement, so a slow database does not stretch the round', async () => {
    const store = await db.open();
    const slow: Store['leases'] = {
      ...store.leases,
      renewLeases: async (...args) => {
        await new Promise((resolve) => setTimeout(resolve, 40));
        return store.leases.renewLeases(...args);
      },
    };
    const a = await node('node-a', { store, leases: slow });
    await a.leases.start();
    expect(a.leases.ownedShards()).toHaveLength(8);
    const started = performance.now();
    await a.leases.renewNow();
    // One after another, the eight renewals would take 320 ms.
    expect(performance.now() - started).toBeLessThan(250);
    expect(a.leases.ownedShards().map((s) => s.epoch)).toEqual(Array(8).fill(1));
    await a.leases.stop();
  });

  it('releases its leases on stop, so another node takes them at once', async () => {
    const a = await node('node-a');
    const b = await node('node-b');
    await a.leases.start();
    await b.leases.start();
    await a.leases.stop();
    expect(a.leases.ownedShards()).toEqual([]);
    await b.leases.renewNow();
    expect(b.leases.ownedShards()).toEqual(Array.from({ length: 8 }, (_, index) => ({ index, epoch: 2 })));
    await b.leases.stop();
  });

  it('holds only its target share, leaving the rest to other nodes', async () => {
    const a = await node('node-a', { targetShareCount: () => 3 });
    const b = await node('node-b');
    await a.leases.start();
    await b.leases.start();
    expect(a.leases.ownedShards().map((s) => s.index)).toEqual([0, 1, 2]);
    expect(b.leases.ownedShards().map((s) => s.index)).toEqual([3, 4, 5, 6, 7]);
    await a.leases.stop();
    await b.leases.stop();
  });
});
