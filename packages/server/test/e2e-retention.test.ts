/**
 * Retention against a running server: while the retention monitor deletes thousands of old
 * records in small batches, an every-second job on a real executor keeps firing on time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
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
import { type SeedFire, seedFires } from './helpers/report-fixtures.js';

const DAY = 86_400_000;
const OLD_RECORDS = 6_000;
const BATCH = 100;

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

describe.each(DIALECTS)('retention end to end on %s', (dialect) => {
  it('deletes only old records, in batches, while an every-second job keeps its time', async () => {
    database = await createTestDatabase(dialect);
    server = await startServer({
      database: database.url,
      internal: { retentionMonitorIntervalMs: 1_500, retentionBatchSize: BATCH, retentionBatchPauseMs: 80 },
    });
    const { store } = server;
    // Every batch the monitor runs, with when it ran.
    const batches: Array<{ limit: number; deleted: number; at: number }> = [];
    const deleteFiresBefore = store.fires.deleteFiresBefore;
    store.fires.deleteFiresBefore = async (cutoff, limit) => {
      const deleted = await deleteFiresBefore(cutoff, limit);
      batches.push({ limit, deleted, at: Date.now() });
      return deleted;
    };

    const appId = await createApp(store, 'e2e-retention');
    const now = Date.now();
    const old: SeedFire[] = Array.from({ length: OLD_RECORDS }, (_, i) => ({
      appId,
      jobId: 999,
      scheduledAt: now - 40 * DAY + i * 1_000,
      status: 'succeeded',
      triggerAt: now - 40 * DAY + i * 1_000,
      handleAt: now - 40 * DAY + i * 1_000 + 20,
    }));
    const recent: SeedFire[] = Array.from({ length: 5 }, (_, i) => ({
      appId,
      jobId: 999,
      scheduledAt: now - 29 * DAY + i,
      status: 'failed',
    }));
    await seedFires(store, [...old, ...recent]);

    executors.push(
      await startExecutor(server.server, 'e2e-retention', (ex) => ex.handle('tick', async () => 'ok')),
    );
    const job = await createJob(store, {
      app_id: appId,
      name: 'every second',
      schedule_type: 'CRON',
      schedule_conf: '* * * * * ?',
      executor_handler: 'tick',
    });

    await waitFor(() => batches.reduce((n, b) => n + b.deleted, 0) >= OLD_RECORDS, {
      what: 'the old records deleted',
      timeoutMs: 20_000,
    });
    const deleting = batches.filter((b) => b.deleted > 0);
    const sweepFrom = deleting[0]!.at;
    const sweepTo = deleting[deleting.length - 1]!.at;
    await waitFor(
      async () =>
        (await firesOf(store, job.id)).some((f) => f.scheduled_at > sweepTo && f.status === 'succeeded'),
      {
        what: 'a fire after the sweep',
      },
    );

    expect(batches.every((b) => b.limit === BATCH && b.deleted <= BATCH)).toBe(true);
    expect(deleting.length).toBeGreaterThanOrEqual(OLD_RECORDS / BATCH);
    expect(await store.fires.countFires({ jobId: 999 })).toBe(recent.length);
    // Every fire up to the first one after the sweep (later ones may still wait in the wheel).
    const all = await firesOf(store, job.id);
    const fires = all.slice(0, all.findIndex((f) => f.scheduled_at > sweepTo) + 1);
    const during = fires.filter((f) => f.scheduled_at >= sweepFrom && f.scheduled_at <= sweepTo);
    expect(during.length).toBeGreaterThanOrEqual(2);
    // Keeping its time: every fire sent before the next one is due. A sweep that held the fires
    // table or the event loop for its length (60 batches) would hold a fire back for seconds;
    // a tighter bound than the period measures the host's load (the suite runs beside it), not
    // the retention monitor.
    for (const fire of fires) {
      expect(fire.status).toBe('succeeded');
      expect(fire.trigger_at! - fire.scheduled_at).toBeLessThan(1_000);
    }
  }, 40_000);
});

describe('reports end to end', () => {
  it("the dashboard shows today's fires of a running server once the reports monitor has run", async () => {
    const apiToken = 'e2e-reports-token-0123456789abcdef';
    server = await startServer({ apiToken, internal: { reportsMonitorIntervalMs: 300 } });
    const { store } = server;
    const appId = await createApp(store, 'e2e-reports');
    executors.push(
      await startExecutor(server.server, 'e2e-reports', (ex) => ex.handle('tick', async () => 'ok')),
    );
    await createJob(store, {
      app_id: appId,
      name: 'every second',
      schedule_type: 'CRON',
      schedule_conf: '* * * * * ?',
      executor_handler: 'tick',
    });
    const dashboard = async () => {
      const res = await fetch(`${server!.server.url}api/v1/dashboard?appId=${appId}`, {
        headers: { authorization: `Bearer ${apiToken}` },
      });
      return (await res.json()) as {
        series: Array<{ succeeded: number; latenessP99Ms: number | null; meanRunMs: number | null }>;
      };
    };
    await waitFor(async () => ((await dashboard()).series.at(-1)?.succeeded ?? 0) >= 2, {
      what: "today's fires in the dashboard",
    });
    const today = (await dashboard()).series.at(-1)!;
    expect(today.latenessP99Ms).toBeLessThan(200);
    expect(today.meanRunMs).toBeLessThan(200);
  });
});
