import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, createApp, createJob, startApiServer } from './helpers/api-server.js';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApiServer();
});
afterAll(async () => {
  await api.close();
});

describe('getDashboard', () => {
  it("counts apps, jobs, enabled jobs, executors online and today's fires by status", async () => {
    const now = Date.parse('2026-04-10T15:00:00Z');
    api.clock.set(now);
    const appId = await createApp(api, { appName: 'dash-a' });
    await createApp(api, { appName: 'dash-b' });
    const job = await createJob(api, appId, {
      scheduleType: 'FIX_RATE',
      scheduleConf: '60',
      triggerStatus: 1,
    });
    await createJob(api, appId);
    // One executor serving both apps counts once; a stale one not at all.
    for (const key of ['dash-a', 'dash-b']) {
      await api.store.registry.heartbeat(
        { group: 'EXECUTOR', key, value: 'http://127.0.0.1:9001/' },
        'G2',
        now,
      );
    }
    await api.store.registry.heartbeat(
      { group: 'EXECUTOR', key: 'dash-a', value: 'http://127.0.0.1:9002/' },
      'G2',
      now - 120_000,
    );
    const fire = (scheduledAt: number) => ({
      jobId: job.id,
      appId,
      scheduledAt,
      triggerType: 'CRON' as const,
      executorHandler: 'hello',
      executorParam: null,
    });
    const [done, , yesterday] = await api.store.fires.createFires(
      [fire(now - 1000), fire(now - 2000), fire(now - 86_400_000)],
      now,
    );
    await api.store.fires.finishFires([
      { fireId: done!, handleCode: 200, handleMsg: null, handleAt: now },
      { fireId: yesterday!, handleCode: 500, handleMsg: null, handleAt: now },
    ]);
    const res = await api.call('GET', '/api/v1/dashboard');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      apps: 2,
      jobs: 2,
      enabledJobs: 1,
      executorsOnline: 1,
      firesToday: { day: '2026-04-10', total: 2, byStatus: { succeeded: 1, pending: 1 } },
    });
  });
});
