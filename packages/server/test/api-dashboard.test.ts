import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coarseBound } from '../src/reports/histogram.js';
import { hashApiToken } from '../src/security/api-tokens.js';
import type { AppDayFigures } from '../src/store/index.js';
import { type ApiHarness, createApp, createJob, expectError, startApiServer } from './helpers/api-server.js';
import { DIALECTS } from './helpers/databases.js';

const NOW = Date.parse('2026-04-10T15:00:00Z');
const DAY_MS = 86_400_000;

function figures(appId: number, fields: Partial<AppDayFigures>): AppDayFigures {
  return {
    appId,
    running: 0,
    succeeded: 0,
    failed: 0,
    timeout: 0,
    killed: 0,
    skipped: 0,
    dispatchFailed: 0,
    latenessP50Ms: null,
    latenessP99Ms: null,
    latenessHistogram: [],
    runCount: 0,
    meanRunMs: null,
    ...fields,
  };
}

const EMPTY_DAY = {
  total: 0,
  succeeded: 0,
  failed: 0,
  timeout: 0,
  killed: 0,
  skipped: 0,
  dispatchFailed: 0,
  running: 0,
  latenessP50Ms: null,
  latenessP99Ms: null,
  meanRunMs: null,
};

describe.each(DIALECTS)('getDashboard on %s', (dialect) => {
  let api: ApiHarness;
  let appA: number;
  let appB: number;
  let userToken: string;

  beforeAll(async () => {
    api = await startApiServer(dialect);
    api.clock.set(NOW);
    appA = await createApp(api, { appName: `dash-a-${dialect}` });
    appB = await createApp(api, { appName: `dash-b-${dialect}` });
    await createJob(api, appA, { scheduleType: 'FIX_RATE', scheduleConf: '60', triggerStatus: 1 });
    await createJob(api, appA);
    await createJob(api, appB);
    // One executor serving both apps counts once; a stale one not at all.
    for (const key of [`dash-a-${dialect}`, `dash-b-${dialect}`]) {
      await api.store.registry.heartbeat(
        { group: 'EXECUTOR', key, value: 'http://127.0.0.1:9001/' },
        'G2',
        NOW,
      );
    }
    await api.store.registry.heartbeat(
      { group: 'EXECUTOR', key: `dash-b-${dialect}`, value: 'http://127.0.0.1:9002/' },
      'G2',
      NOW,
    );
    await api.store.registry.heartbeat(
      { group: 'EXECUTOR', key: `dash-a-${dialect}`, value: 'http://127.0.0.1:9003/' },
      'G2',
      NOW - 120_000,
    );
    const { reports } = api.store;
    await reports.replaceDay(
      '2026-04-10',
      [
        figures(appA, {
          succeeded: 10,
          failed: 2,
          running: 1,
          latenessP50Ms: 5,
          latenessP99Ms: 40,
          latenessHistogram: [
            [5, 10],
            [coarseBound(40), 2],
          ],
          runCount: 12,
          meanRunMs: 100,
        }),
        figures(appB, {
          succeeded: 100,
          skipped: 3,
          latenessP50Ms: 1_000,
          latenessP99Ms: 1_000,
          latenessHistogram: [[coarseBound(1_000), 100]],
          runCount: 100,
          meanRunMs: 50,
        }),
      ],
      NOW - 30_000,
    );
    await reports.replaceDay(
      '2026-04-07',
      [
        figures(appA, {
          succeeded: 4,
          timeout: 1,
          latenessP50Ms: 201,
          latenessP99Ms: 230,
          latenessHistogram: [[coarseBound(200), 5]],
          runCount: 5,
          meanRunMs: 400,
        }),
      ],
      NOW - DAY_MS,
    );
    await reports.replaceDay(
      '2026-03-21',
      [
        figures(appA, {
          succeeded: 7,
          latenessP50Ms: 1,
          latenessP99Ms: 1,
          latenessHistogram: [[1, 7]],
          runCount: 7,
          meanRunMs: 10,
        }),
      ],
      NOW - 19 * DAY_MS,
    );
    const user = await api.store.users.createUser(
      {
        username: `dash-user-${dialect}`,
        passwordHash: 'unused',
        role: 'user',
        appPermissions: String(appA),
      },
      NOW,
    );
    userToken = `tw_dash-user-token-${dialect}-0123456789`;
    await api.store.users.createApiToken(
      { name: 'dash', tokenHash: hashApiToken(userToken), userId: user.id },
      NOW,
    );
  });
  afterAll(async () => {
    await api.close();
  });

  it('returns the last 7 days, oldest first, with every app merged per day and in total', async () => {
    const res = await api.call('GET', '/api/v1/dashboard');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      apps: 2,
      jobs: 3,
      enabledJobs: 1,
      executorsOnline: 2,
      days: 7,
      computedAt: NOW - 30_000,
    });
    expect(body.series.map((d: { day: string }) => d.day)).toEqual([
      '2026-04-04',
      '2026-04-05',
      '2026-04-06',
      '2026-04-07',
      '2026-04-08',
      '2026-04-09',
      '2026-04-10',
    ]);
    expect(body.series[0]).toEqual({ day: '2026-04-04', ...EMPTY_DAY });
    // One row keeps its own percentiles.
    expect(body.series[3]).toMatchObject({
      total: 5,
      succeeded: 4,
      timeout: 1,
      latenessP50Ms: 201,
      latenessP99Ms: 230,
      meanRunMs: 400,
    });
    // Two apps: counts add up, run times weigh by runs, percentiles come from the merged buckets.
    expect(body.series[6]).toEqual({
      day: '2026-04-10',
      total: 116,
      succeeded: 110,
      failed: 2,
      timeout: 0,
      killed: 0,
      skipped: 3,
      dispatchFailed: 0,
      running: 1,
      latenessP50Ms: coarseBound(1_000),
      latenessP99Ms: coarseBound(1_000),
      meanRunMs: Math.round((12 * 100 + 100 * 50) / 112),
    });
    expect(body.totals).toMatchObject({
      total: 121,
      succeeded: 114,
      meanRunMs: Math.round((1_200 + 5_000 + 2_000) / 117),
      latenessP50Ms: coarseBound(1_000),
    });
  });

  it('returns 30 days with ?days=30 and refuses other lengths naming days', async () => {
    const body = (await api.call('GET', '/api/v1/dashboard?days=30')).json();
    expect(body.days).toBe(30);
    expect(body.series).toHaveLength(30);
    expect(body.series[0].day).toBe('2026-03-12');
    expect(body.series.find((d: { day: string }) => d.day === '2026-03-21')).toMatchObject({ succeeded: 7 });
    expect(body.totals.succeeded).toBe(121);
    expectError(await api.call('GET', '/api/v1/dashboard?days=8'), 400, 'TW_ERR_UNKNOWN_ENUM_VALUE', 'days');
  });

  it('filters by app', async () => {
    const body = (await api.call('GET', `/api/v1/dashboard?appId=${appB}`)).json();
    expect(body).toMatchObject({ apps: 1, jobs: 1, enabledJobs: 0, executorsOnline: 2, appId: appB });
    expect(body.totals).toMatchObject({
      total: 103,
      succeeded: 100,
      skipped: 3,
      meanRunMs: 50,
      latenessP50Ms: 1_000,
    });
    expectError(await api.call('GET', '/api/v1/dashboard?appId=999999'), 404, 'TW_ERR_UNKNOWN_APP');
  });

  it("shows a user only their own apps' figures", async () => {
    const res = await api.call('GET', '/api/v1/dashboard', { token: userToken });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ apps: 1, jobs: 2, enabledJobs: 1, executorsOnline: 1 });
    expect(body.series[6]).toMatchObject({
      total: 13,
      succeeded: 10,
      latenessP50Ms: 5,
      latenessP99Ms: 40,
      meanRunMs: 100,
    });
    expect(body.totals.total).toBe(18);
    expectError(
      await api.call('GET', `/api/v1/dashboard?appId=${appB}`, { token: userToken }),
      403,
      'TW_ERR_FORBIDDEN',
    );
  });
});
