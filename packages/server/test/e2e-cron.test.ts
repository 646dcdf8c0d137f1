import { afterEach, describe, expect, it } from 'vitest';
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
const executors: E2eExecutor[] = [];

afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
  await server?.close();
  server = undefined;
});

describe('cron end to end', () => {
  it('an every-second cron fires on time and its results are recorded', async () => {
    server = await startServer();
    const { store } = server;
    const appId = await createApp(store, 'e2e-cron');
    const runs: Array<{ logId: number; startedAt: number }> = [];
    executors.push(
      await startExecutor(server.server, 'e2e-cron', (ex) =>
        ex.handle('tick', async (ctx) => {
          runs.push({ logId: ctx.logId, startedAt: Date.now() });
          return 'ticked';
        }),
      ),
    );
    const job = await createJob(store, {
      app_id: appId,
      name: 'every second',
      schedule_type: 'CRON',
      schedule_conf: '* * * * * ?',
      executor_handler: 'tick',
    });

    await waitFor(
      async () => (await firesOf(store, job.id)).filter((f) => f.status === 'succeeded').length >= 3,
      {
        what: 'three succeeded fires',
      },
    );
    const fires = (await firesOf(store, job.id)).filter((f) => f.status === 'succeeded');
    for (const fire of fires) {
      expect(fire.handle_code).toBe(200);
      expect(fire.trigger_code).toBe(200);
      expect(fire.scheduled_at % 1000).toBe(0);
      // Milliseconds when the machine is idle; the bound leaves room for a loaded CI machine while
      // still telling a millisecond wheel from a one-second ring.
      expect(fire.trigger_at! - fire.scheduled_at).toBeLessThan(400);
      const run = runs.find((r) => r.logId === fire.id);
      expect(run).toBeDefined();
      expect(run!.startedAt - fire.scheduled_at).toBeLessThan(500);
    }
    const times = fires.map((f) => f.scheduled_at);
    expect(new Set(times).size).toBe(times.length);
  });

  it('reports the fires, lateness, results and online executors in /metrics, and is ready', async () => {
    const apiToken = 'e2e-metrics-token-0123456789abcdef';
    server = await startServer({ apiToken });
    const { store } = server;
    const appId = await createApp(store, 'e2e-metrics');
    executors.push(
      await startExecutor(server.server, 'e2e-metrics', (ex) => ex.handle('tick', async () => 'ok')),
    );
    const job = await createJob(store, {
      app_id: appId,
      name: 'every second',
      schedule_type: 'CRON',
      schedule_conf: '* * * * * ?',
      executor_handler: 'tick',
      // First due a few seconds out: a job whose first time is the next second can be claimed
      // after it by a tick that lands later (a loaded machine), which is not what the lead
      // below is about.
      next_fire_at: Math.ceil((Date.now() + 3_000) / 1_000) * 1_000,
    });
    await waitFor(
      async () => (await firesOf(store, job.id)).filter((f) => f.status === 'succeeded').length >= 2,
      {
        what: 'two results',
      },
    );

    const response = await fetch(`${server.server.url}metrics`, {
      headers: { authorization: `Bearer ${apiToken}` },
    });
    const text = await response.text();
    const value = (series: string) => Number(text.match(new RegExp(`^${series} (\\S+)$`, 'm'))?.[1]);

    expect(value('tickwheel_fires_total\\{trigger_type="CRON"\\}')).toBeGreaterThanOrEqual(2);
    expect(value('tickwheel_results_total\\{handle_code="200"\\}')).toBeGreaterThanOrEqual(2);
    expect(value('tickwheel_fire_lateness_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(value('tickwheel_executors_online')).toBe(1);
    expect(value('tickwheel_shards_owned')).toBe(64);
    // Each stage of a fire's path is timed per batch, with the records it handled.
    for (const stage of ['claim', 'load', 'fence', 'finish']) {
      expect(value(`tickwheel_stage_seconds_count\\{stage="${stage}"\\}`), stage).toBeGreaterThanOrEqual(1);
      expect(value(`tickwheel_stage_records_total\\{stage="${stage}"\\}`), stage).toBeGreaterThanOrEqual(2);
    }
    // A short run's dispatch mark goes with its result (a Tickwheel executor refuses a repeat),
    // or alone when the result came after the hold: each run's mark is written once either way.
    const marks = (written: string) => value(`tickwheel_dispatch_marks_total\\{written="${written}"\\}`) || 0;
    expect(marks('with_result') + marks('alone')).toBeGreaterThanOrEqual(2);
    // Claimed ahead of time (5 s look-ahead): none in the "late" bucket.
    expect(value('tickwheel_claim_lead_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(value('tickwheel_claim_lead_seconds_bucket\\{le="0"\\}')).toBe(0);
    expect(value('tickwheel_pipeline_backlog')).toBe(0);
    expect(value('tickwheel_claims_held_back_total')).toBe(0);
    // A claim that keeps its lead is not behind.
    expect(value('tickwheel_claim_behind')).toBe(0);
    // The SQLite store's WAL is checkpointed on its own thread, once a second.
    expect(value('tickwheel_sqlite_checkpoints_total\\{mode="PASSIVE"\\}')).toBeGreaterThanOrEqual(1);
    expect(value('tickwheel_sqlite_wal_frames')).toBeGreaterThanOrEqual(0);
    // Its hot statements run on a thread of their own, nothing left waiting once the run is in.
    expect(value('tickwheel_sqlite_hot_waiting')).toBe(0);
    expect(store.connection.dialect === 'sqlite' && store.connection.hot?.running).toBe(true);
    expect((await fetch(`${server.server.url}readyz`)).status).toBe(200);
  });
});
