/**
 * Two real servers on one PostgreSQL / MariaDB database, one with its clock 30 s ahead: they
 * split the 64 shards evenly within a few seconds, the node ahead schedules on the database's
 * time, and a graceful stop hands its shards to the other at once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { type E2eServer, startServer, waitFor } from './helpers/e2e.js';

describe.each(['postgres', 'mysql'] as const)('a two-node cluster on %s', (dialect) => {
  let db: TestDatabase;
  const servers: E2eServer[] = [];

  beforeEach(async () => {
    db = await createTestDatabase(dialect);
  });

  afterEach(async () => {
    for (const server of servers) await server.close().catch(() => undefined);
    servers.length = 0;
    await db.drop();
  });

  async function owners(server: E2eServer): Promise<Record<string, number>> {
    const now = await server.store.leases.databaseNow();
    const counts: Record<string, number> = {};
    for (const lease of await server.store.leases.listLeases()) {
      if (!lease.name.startsWith('shard:') || lease.expires_at <= now) continue;
      counts[lease.owner_node] = (counts[lease.owner_node] ?? 0) + 1;
    }
    return counts;
  }

  it('splits the shards 32/32 with a node 30 s ahead, and hands them over at a graceful stop', async () => {
    const a = await startServer({ database: db.url, nodeId: 'node-a' });
    servers.push(a);
    const b = await startServer({ database: db.url, nodeId: 'node-b', internal: { clockOffsetMs: 30_000 } });
    servers.push(b);
    const startedAt = Date.now();
    await waitFor(async () => JSON.stringify(await owners(a)) === '{"node-a":32,"node-b":32}', {
      timeoutMs: 5_000,
      what: 'a 32/32 split',
    });
    expect(Date.now() - startedAt).toBeLessThan(3_000);
    // Its heartbeats are in the database's time, whatever its own clock says.
    const nodes = await a.store.nodes.listAliveNodes(0);
    const now = await a.store.leases.databaseNow();
    for (const node of nodes) expect(Math.abs(node.heartbeat_at - now)).toBeLessThan(2_000);
    await b.close();
    servers.pop();
    const stoppedAt = Date.now();
    await waitFor(async () => JSON.stringify(await owners(a)) === '{"node-a":64}', {
      timeoutMs: 3_000,
      what: 'node-a holding every shard',
    });
    expect(Date.now() - stoppedAt).toBeLessThan(1_500);
  });
});
