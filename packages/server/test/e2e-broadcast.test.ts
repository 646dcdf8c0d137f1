import { afterEach, describe, expect, it } from 'vitest';
import {
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  startExecutor,
  startServer,
  waitFor,
} from './helpers/e2e.js';

let server: E2eServer | undefined;
const executors: E2eExecutor[] = [];

afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
  await server?.close();
  server = undefined;
});

describe('sharding broadcast end to end', () => {
  it('makes one record per online executor with its shard index and total, then settles the fire', async () => {
    server = await startServer();
    const { store } = server;
    const shardsRun: Array<{ address: string; logId: number; index: number; total: number }> = [];
    for (let i = 0; i < 3; i++) {
      const executor: E2eExecutor = await startExecutor(server.server, 'e2e-broadcast', (ex) =>
        ex.handle('shard', async (ctx) => {
          shardsRun.push({
            address: ex.address!,
            logId: ctx.logId,
            index: ctx.shardIndex,
            total: ctx.shardTotal,
          });
          return `shard ${ctx.shardIndex}`;
        }),
      );
      executors.push(executor);
    }
    const addresses = executors.map((e) => e.address).sort();
    const appId = await createApp(store, 'e2e-broadcast');
    const job = await createJob(store, {
      app_id: appId,
      name: 'broadcast every second',
      schedule_type: 'CRON',
      schedule_conf: '* * * * * ?',
      executor_handler: 'shard',
      executor_route_strategy: 'SHARDING_BROADCAST',
    });

    let claimedId = 0;
    await waitFor(
      async () => {
        const claimed = (await store.fires.listFires({ jobId: job.id, limit: 100 })).filter(
          (f) => f.claim_job_id !== null && f.status === 'succeeded',
        );
        claimedId = claimed.at(-1)?.id ?? 0;
        return claimedId !== 0;
      },
      { what: 'a settled broadcast' },
    );

    // A shard's result can be written before its dispatch mark (the marks go in batches after the
    // sends, mark-batcher.ts): the address comes with the mark, so wait for the three marks.
    let shards = await store.fires.findChildFires(claimedId);
    await waitFor(
      async () => {
        shards = await store.fires.findChildFires(claimedId);
        return shards.length === 3 && shards.every((s) => s.executor_address !== null);
      },
      { what: "the shards' dispatch marks" },
    );
    const claimed = (await store.fires.findFireById(claimedId))!;
    expect(shards.map((s) => [s.shard_index, s.shard_total])).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
    expect(shards.map((s) => s.executor_address)).toEqual(addresses);
    for (const shard of shards) {
      expect(shard.status).toBe('succeeded');
      expect(shard.scheduled_at).toBe(claimed.scheduled_at);
      expect(shard.handle_msg).toBe(`shard ${shard.shard_index}`);
      expect(shardsRun).toContainEqual({
        address: shard.executor_address,
        logId: shard.id,
        index: shard.shard_index,
        total: 3,
      });
    }
    expect(claimed.trigger_msg).toContain('broadcast: 3 of 3 shards accepted');
    expect(claimed.handle_msg).toBe('broadcast: all 3 shards succeeded');
  });
});
