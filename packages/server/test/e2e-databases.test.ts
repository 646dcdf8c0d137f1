/**
 * The scheduling path once on each networked database: an every-second job and a broadcast,
 * end to end (claim, wheel, dispatch, callback, broadcast settlement) on PostgreSQL and MariaDB.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import {
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  firesOf,
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

describe.each(['postgres', 'mysql'] as const)('scheduling end to end on %s', (dialect) => {
  it('fires an every-second job and a broadcast, and records every result', async () => {
    database = await createTestDatabase(dialect);
    server = await startServer({ database: database.url });
    expect(server.store.dialect).toBe(dialect);
    for (let i = 0; i < 2; i++) {
      executors.push(
        await startExecutor(server.server, 'e2e-db', (ex) => {
          ex.handle('tick', async () => 'ticked');
          ex.handle('shard', async (ctx) => `shard ${ctx.shardIndex}/${ctx.shardTotal}`);
        }),
      );
    }
    const appId = await createApp(server.store, 'e2e-db');
    const every = { schedule_type: 'CRON', schedule_conf: '* * * * * ?' };
    const tick = await createJob(server.store, {
      app_id: appId,
      name: 'tick',
      executor_handler: 'tick',
      ...every,
    });
    const broadcast = await createJob(server.store, {
      app_id: appId,
      name: 'broadcast',
      executor_handler: 'shard',
      executor_route_strategy: 'SHARDING_BROADCAST',
      ...every,
    });

    await waitFor(
      async () => (await firesOf(server!.store, tick.id)).filter((f) => f.status === 'succeeded').length >= 2,
      {
        what: 'two succeeded ticks',
      },
    );
    await waitFor(
      async () =>
        (await firesOf(server!.store, broadcast.id)).some(
          (f) => f.claim_job_id !== null && f.status === 'succeeded',
        ),
      { what: 'a settled broadcast' },
    );

    for (const fire of (await firesOf(server.store, tick.id)).filter((f) => f.status === 'succeeded')) {
      expect(fire.handle_code).toBe(200);
      expect(fire.trigger_at! - fire.scheduled_at).toBeLessThan(250);
    }
    const settled = (await firesOf(server.store, broadcast.id)).find(
      (f) => f.claim_job_id !== null && f.status === 'succeeded',
    )!;
    // A shard's result can be written before its dispatch mark, which brings the address: wait for both.
    let shards = await server.store.fires.findChildFires(settled.id);
    await waitFor(
      async () => {
        shards = await server!.store.fires.findChildFires(settled.id);
        return shards.length === 2 && shards.every((s) => s.executor_address !== null);
      },
      { what: "the shards' dispatch marks" },
    );
    expect(shards.map((s) => [s.shard_index, s.shard_total, s.status])).toEqual([
      [0, 2, 'succeeded'],
      [1, 2, 'succeeded'],
    ]);
    expect(new Set(shards.map((s) => s.executor_address)).size).toBe(2);
  });
});
