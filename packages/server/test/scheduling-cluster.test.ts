/**
 * Shard leases of a cluster, on each real database: nodes heartbeat and split the shards evenly
 * (1, 2, 3 nodes, within a couple of rounds of a join), a graceful stop hands its shards over at
 * once, a node killed on the spot is replaced within 3 s, a node whose clock is 30 s ahead takes
 * nothing from a healthy node and fires on time, one renewal round is three statements whatever
 * the shards held, and no shard is ever used by two nodes at once.
 */

import { ManualClock } from '@tickwheel/test-fixtures/manual-clock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Clock, DatabaseClock, shiftedClock, systemClock } from '../src/scheduling/clock.js';
import { ShardLeases } from '../src/scheduling/leases.js';
import { resolveSchedulingOptions, type SchedulingOptions } from '../src/scheduling/options.js';
import { createScheduler } from '../src/scheduling/scheduler.js';
import type { OwnedShard } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import { createJob, MemoryLogger, NodeClock } from './helpers/scheduling-fixtures.js';

const T0 = Date.parse('2026-03-01T12:00:00Z');
const TTL = 9_000;
const ROUND = TTL / 5;
const EVERY_SECOND = { schedule_type: 'CRON', schedule_conf: '* * * * * ?' } as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(DIALECTS)('a cluster of nodes on %s', (dialect) => {
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
    for (const node of nodes) await node.abandon();
    nodes.length = 0;
    await db.drop();
  });

  /** A node on the shared manual clock (leases in its time), sharing through `cluster_node`. */
  async function manualNode(nodeId: string) {
    const store = await db.open();
    const logger = new MemoryLogger();
    const resolved = resolveSchedulingOptions({
      nodeId,
      shardCount: 8,
      leaseTtlMs: TTL,
      clock: new NodeClock(clock),
      logger,
    });
    const leases = new ShardLeases({ ...resolved, leases: store.leases, nodes: store.nodes });
    nodes.push(leases);
    return { leases, store, logger };
  }

  /** A node on the real clock (shifted by `offsetMs`), leases in the database's clock. */
  async function realNode(nodeId: string, options: Partial<SchedulingOptions> & { offsetMs?: number } = {}) {
    const store = await db.open();
    const {
      offsetMs = 0,
      targetShareCount,
      ...rest
    } = options as typeof options & {
      targetShareCount?: () => number;
    };
    const clock = new DatabaseClock(shiftedClock(systemClock, offsetMs));
    const resolved = resolveSchedulingOptions({
      nodeId,
      shardCount: 8,
      clock,
      databaseClock: true,
      logger: new MemoryLogger(),
      ...rest,
    });
    const leases = new ShardLeases({
      ...resolved,
      leases: store.leases,
      nodes: store.nodes,
      clockSync: clock,
      ...(targetShareCount === undefined ? {} : { targetShareCount }),
    });
    nodes.push(leases);
    return { leases, store, clock };
  }

  const indexes = (owned: OwnedShard[]) => owned.map((shard) => shard.index);

  it('splits the shards evenly among 1, 2 and 3 nodes, within two rounds of a join', async () => {
    const a = await manualNode('node-a');
    await a.leases.start();
    expect(a.leases.ownedShards()).toHaveLength(8);

    const b = await manualNode('node-b');
    await b.leases.start();
    await clock.advance(2 * ROUND);
    expect(a.leases.ownedShards()).toHaveLength(4);
    expect(b.leases.ownedShards()).toHaveLength(4);

    const c = await manualNode('node-c');
    await c.leases.start();
    await clock.advance(2 * ROUND);
    // 8 = 3 + 3 + 2: the ceiling goes to the first nodes by id.
    expect([a, b, c].map((n) => n.leases.ownedShards().length)).toEqual([3, 3, 2]);
    const all = [a, b, c].flatMap((n) => indexes(n.leases.ownedShards())).sort((x, y) => x - y);
    expect(all).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // A shard handed over is granted afresh: a new epoch, so the old holder's claims are refused.
    for (const shard of [...b.leases.ownedShards(), ...c.leases.ownedShards()]) {
      expect(shard.epoch).toBeGreaterThan(1);
    }
  });

  it('stops using surplus shards at once, and releases them once the uses in flight have ended', async () => {
    const a = await manualNode('node-a');
    await a.leases.start();
    // A use of the leases in flight (a planner tick) that read all eight shards.
    let endUse!: () => void;
    const use = a.leases.use(() => new Promise<void>((resolve) => (endUse = resolve)));
    const b = await manualNode('node-b');
    await b.leases.start();
    const round = a.leases.renewNow();
    // Given up locally at once (a new use sees four), still held in the database while the use runs.
    await vi.waitFor(() => expect(indexes(a.leases.ownedShards())).toEqual([0, 1, 2, 3]));
    const rows = await a.store.leases.listLeases();
    expect(rows.filter((row) => row.owner_node === 'node-a' && row.expires_at > clock.now())).toHaveLength(8);
    endUse();
    await use;
    await round;
    expect(
      (await a.store.leases.listLeases()).filter(
        (row) => row.owner_node === 'node-a' && row.expires_at > clock.now(),
      ),
    ).toHaveLength(4);
    await clock.advance(2 * ROUND);
    expect(indexes(b.leases.ownedShards())).toEqual([4, 5, 6, 7]);
  });

  it('hands a stopping node’s shards to the others at their next round', async () => {
    const a = await manualNode('node-a');
    const b = await manualNode('node-b');
    const c = await manualNode('node-c');
    for (const n of [a, b, c]) await n.leases.start();
    await clock.advance(2 * ROUND);
    await c.leases.stop();
    expect(await c.store.nodes.listAliveNodes(0)).toHaveLength(2);
    await a.leases.renewNow();
    await b.leases.renewNow();
    await a.leases.renewNow();
    expect(a.leases.ownedShards()).toHaveLength(4);
    expect(b.leases.ownedShards()).toHaveLength(4);
  });

  it('renews every held shard in one statement: three statements a round', async () => {
    const store = await db.open();
    let calls = 0;
    const counted = <T extends object>(repo: T): T =>
      new Proxy(repo, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver);
          return typeof value === 'function'
            ? (...args: unknown[]) => {
                calls++;
                return value.apply(target, args);
              }
            : value;
        },
      });
    const resolved = resolveSchedulingOptions({
      nodeId: 'node-a',
      shardCount: 64,
      leaseTtlMs: TTL,
      clock: new NodeClock(clock),
      logger: new MemoryLogger(),
    });
    const a = new ShardLeases({ ...resolved, leases: counted(store.leases), nodes: counted(store.nodes) });
    nodes.push(a);
    await a.start();
    expect(a.ownedShards()).toHaveLength(64);
    calls = 0;
    await a.renewNow();
    // Heartbeat, live nodes (and the database's clock), renewal of all 64 shards.
    expect(calls).toBe(3);
    expect(a.ownedShards()).toHaveLength(64);
  });

  it('replaces a node killed on the spot within 3 s, on the default timings', async () => {
    const a = await realNode('node-a');
    const b = await realNode('node-b');
    await a.leases.start();
    await b.leases.start();
    await sleep(1_000);
    expect(a.leases.ownedShards()).toHaveLength(4);
    expect(b.leases.ownedShards()).toHaveLength(4);
    await a.leases.abandon();
    const killedAt = Date.now();
    while (b.leases.ownedShards().length < 8 && Date.now() - killedAt < 5_000) await sleep(20);
    const takeover = Date.now() - killedAt;
    expect(b.leases.ownedShards()).toHaveLength(8);
    expect(takeover).toBeLessThan(3_000);
  });

  it('gives a node whose clock is 30 s ahead nothing of a healthy node’s, and its clock the database’s time', async () => {
    const a = await realNode('node-a', { targetShareCount: () => 8 } as Partial<SchedulingOptions>);
    await a.leases.start();
    const b = await realNode('node-b', { offsetMs: 30_000 });
    await b.leases.start();
    await sleep(1_500);
    expect(b.leases.ownedShards()).toEqual([]);
    expect(a.leases.ownedShards()).toHaveLength(8);
    expect(Math.abs(b.clock.now() - Date.now())).toBeLessThan(100);
    expect(b.clock.offsetMs).toBeLessThan(-29_900);
    const rows = await a.store.leases.listLeases();
    expect(rows.filter((row) => row.name.startsWith('shard:')).map((row) => row.owner_node)).toEqual(
      Array(8).fill('node-a'),
    );
  });

  it('fires on time on a node whose clock is 30 s ahead', async () => {
    const store = await db.open();
    const due = Math.ceil((Date.now() + 1_500) / 1_000) * 1_000;
    await createJob(store, { ...EVERY_SECOND, next_fire_at: due }, Date.now());
    const lateness: number[] = [];
    const pipeline = {
      onDue(ids: number[]) {
        for (const _ of ids) lateness.push(Date.now() - (due + lateness.length * 1_000));
      },
    };
    const scheduler = createScheduler(
      store,
      pipeline,
      resolveSchedulingOptions({
        nodeId: 'node-ahead',
        shardCount: 4,
        clock: shiftedClock(systemClock, 30_000) as Clock,
        databaseClock: true,
        logger: new MemoryLogger(),
        // Handed over at its time, so the hand-over reads as the fire's time.
        prepareAheadMs: 0,
      }),
    );
    await scheduler.start();
    await sleep(due + 1_100 - Date.now());
    await scheduler.stop();
    expect(lateness).toHaveLength(2);
    // On the database's time, known to within half a round trip: not 30 s early.
    for (const ms of lateness) expect(ms).toBeGreaterThan(-20);
    for (const ms of lateness) expect(ms).toBeLessThan(250);
  });

  it('never lets two nodes use one shard while nodes join, stop and die', async () => {
    const ids = ['node-a', 'node-b', 'node-c', 'node-d'];
    const cluster = new Map<string, ShardLeases>();
    const holders = new Map<string, string>();
    let overlaps = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const now = new Map<number, string>();
        for (const [id, leases] of cluster) {
          for (const shard of leases.ownedShards()) {
            if (now.has(shard.index)) overlaps++;
            now.set(shard.index, id);
            // One holder per (shard, epoch): a term is never shared.
            const term = `${shard.index}@${shard.epoch}`;
            if ((holders.get(term) ?? id) !== id) overlaps++;
            holders.set(term, id);
          }
        }
        await sleep(5);
      }
    })();
    for (const id of ids.slice(0, 3)) {
      const n = await realNode(id, { leaseTtlMs: 1_000 });
      cluster.set(id, n.leases);
      await n.leases.start();
      await sleep(400);
    }
    await sleep(600);
    const shares = [...cluster.values()].map((leases) => leases.ownedShards().length);
    expect(shares.sort()).toEqual([2, 3, 3]);
    await cluster.get('node-b')!.stop();
    cluster.delete('node-b');
    const d = await realNode('node-d', { leaseTtlMs: 1_000 });
    cluster.set('node-d', d.leases);
    await d.leases.start();
    await cluster.get('node-a')!.abandon();
    await sleep(1_800);
    sampling = false;
    await sampler;
    expect(overlaps).toBe(0);
    expect(cluster.get('node-c')!.ownedShards().length + d.leases.ownedShards().length).toBe(8);
    expect(holders.size).toBeGreaterThan(8);
  });
});
