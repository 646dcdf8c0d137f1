/**
 * Fencing at the moment of sending: a node that lost a shard sends none of its fires, even the
 * ones it claimed seconds ahead and holds in its wheel, even while its own lease deadline (as it
 * last knew it) has not passed — the database says who holds the shard, in the statement before
 * each send. This is what a stalled node meets when the database comes back after its shards
 * passed to another node.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import {
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  firesOf,
  sleep,
  startExecutor,
  startServer,
  waitFor,
} from './helpers/e2e.js';

let server: E2eServer | undefined;
let database: TestDatabase | undefined;
const executors: E2eExecutor[] = [];

afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
  await server?.close();
  await database?.drop();
  server = undefined;
  database = undefined;
});

const DB_NOW_MS = {
  postgres: '(extract(epoch from clock_timestamp()) * 1000)::bigint',
  mysql: 'CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)',
} as const;

describe.each(['postgres', 'mysql'] as const)('the send fence on %s', (dialect) => {
  it('a node whose shards another node took sends none of their fires, not even those already in its wheel', async () => {
    database = await createTestDatabase(dialect);
    server = await startServer({
      database: database.url,
      nodeId: `fence-${randomBytes(4).toString('hex')}`,
      // Fires are claimed 5 s ahead, and the node's own lease deadline is a minute away.
      lookAheadMs: 5_000,
      internal: { tickIntervalMs: 50, leaseTtlMs: 60_000 },
    });
    const ran: number[] = [];
    executors.push(
      await startExecutor(server.server, 'e2e-fence', (ex) => {
        ex.handle('tick', async (ctx) => {
          ran.push(ctx.logId);
          return 'ticked';
        });
      }),
    );
    const appId = await createApp(server.store, 'e2e-fence');
    const job = await createJob(server.store, {
      app_id: appId,
      name: 'tick',
      executor_handler: 'tick',
      schedule_type: 'CRON',
      schedule_conf: '* * * * * ?',
    });
    await waitFor(async () => (await firesOf(server!.store, job.id)).some((f) => f.status === 'succeeded'), {
      what: 'a first succeeded tick',
    });
    await waitFor(
      async () => (await firesOf(server!.store, job.id)).filter((f) => f.status === 'pending').length >= 3,
      { what: 'fires claimed seconds ahead' },
    );

    // Another node takes every shard, as it would after this node stalled past its lease.
    const [{ now: takenAt }] = (await database.query(`SELECT ${DB_NOW_MS[dialect]} AS now`)) as [
      { now: number },
    ];
    await database.query(
      `UPDATE lease SET owner_node = 'another-node', epoch = epoch + 1,
       expires_at = ${DB_NOW_MS[dialect]} + 600000 WHERE name LIKE 'shard:%'`,
    );
    await sleep(4_000);

    const fires = await firesOf(server.store, job.id);
    const later = fires.filter((f) => Number(f.scheduled_at) > Number(takenAt) + 500);
    // Claimed before the takeover, due after it: each stays pending, unsent, for the shard's holder.
    expect(later.length).toBeGreaterThanOrEqual(3);
    expect(later.map((f) => [f.status, f.sent_to])).toEqual(later.map(() => ['pending', null]));
    expect(ran.filter((logId) => later.some((f) => f.id === logId))).toEqual([]);
  }, 30_000);
});
