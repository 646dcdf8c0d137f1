import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiToken } from '../src/security/api-tokens.js';
import { type ApiHarness, createApp, createJob, expectError, startApiServer } from './helpers/api-server.js';
import { DIALECTS } from './helpers/databases.js';
import { type SeedFire, seedFires } from './helpers/report-fixtures.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const DAY = 86_400_000;

describe.each(DIALECTS)('retention API on %s', (dialect) => {
  let api: ApiHarness;
  let userToken: string;
  let ownApp: number;
  let otherApp: number;

  beforeAll(async () => {
    api = await startApiServer(dialect);
    api.clock.set(NOW);
    ownApp = await createApp(api);
    otherApp = await createApp(api);
    const user = await api.store.users.createUser(
      {
        username: `retention-user-${dialect}`,
        passwordHash: 'unused',
        role: 'user',
        appPermissions: String(ownApp),
      },
      NOW,
    );
    userToken = `tw_retention-user-${dialect}-0123456789`;
    await api.store.users.createApiToken(
      { name: 'r', tokenHash: hashApiToken(userToken), userId: user.id },
      NOW,
    );
  });
  afterAll(async () => {
    await api.close();
  });

  /** `count` finished records of a job, one a minute ending at `newest`, plus one still running. */
  async function seedJobFires(appId: number, jobId: number, count: number, newest = NOW): Promise<void> {
    const fires: SeedFire[] = Array.from({ length: count }, (_, i) => ({
      appId,
      jobId,
      scheduledAt: newest - (count - 1 - i) * 60_000,
      status: i % 3 === 0 ? 'failed' : 'succeeded',
      triggerAt: newest - (count - 1 - i) * 60_000,
      handleAt: newest - (count - 1 - i) * 60_000 + 5,
    }));
    fires.push({
      appId,
      jobId,
      scheduledAt: newest - count * 60_000,
      status: 'dispatched',
      triggerAt: newest - count * 60_000,
    });
    await seedFires(api.store, fires);
  }
  const countOf = (filter: { appId?: number; jobId?: number }) => api.store.fires.countFires(filter);

  it('keeps 30 days unless an admin says otherwise, and never fewer than 3', async () => {
    expect((await api.call('GET', '/api/v1/settings/retention')).json()).toEqual({ retentionDays: 30 });
    const updated = await api.call('PUT', '/api/v1/settings/retention', { body: { retentionDays: 7 } });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toEqual({ retentionDays: 7 });
    expect((await api.call('GET', '/api/v1/settings/retention')).json()).toEqual({ retentionDays: 7 });
    const tooFew = expectError(
      await api.call('PUT', '/api/v1/settings/retention', { body: { retentionDays: 2 } }),
      400,
      'TW_ERR_INVALID_FIELD',
      'retentionDays',
    );
    expect(tooFew.message).toBe('retentionDays: must be >= 3');
    expectError(
      await api.call('PUT', '/api/v1/settings/retention', { body: {} }),
      400,
      'TW_ERR_MISSING_FIELD',
      'retentionDays',
    );
    expect((await api.call('GET', '/api/v1/settings/retention')).json()).toEqual({ retentionDays: 7 });
  });

  it('lets only admins read or change the retention settings', async () => {
    expectError(
      await api.call('GET', '/api/v1/settings/retention', { token: userToken }),
      403,
      'TW_ERR_FORBIDDEN',
    );
    expectError(
      await api.call('PUT', '/api/v1/settings/retention', { token: userToken, body: { retentionDays: 10 } }),
      403,
      'TW_ERR_FORBIDDEN',
    );
  });

  it("clearFires deletes a job's finished records older than `before` and keeps runs in flight", async () => {
    const job = await createJob(api, ownApp);
    const sibling = await createJob(api, ownApp);
    await seedJobFires(ownApp, job.id, 10);
    await seedJobFires(ownApp, sibling.id, 4);
    const res = await api.call('POST', '/api/v1/fires/clear', {
      token: userToken,
      body: { jobId: job.id, before: NOW - 4 * 60_000 },
    });
    expect(res.statusCode).toBe(200);
    // Records at NOW-9..NOW-5 minutes go; the running one (NOW-10 min) stays.
    expect(res.json()).toEqual({ deleted: 5 });
    const left = await api.store.fires.listFires({ jobId: job.id, limit: 100 });
    expect(left.map((f) => (NOW - f.scheduled_at) / 60_000)).toEqual([0, 1, 2, 3, 4, 10]);
    expect(await countOf({ jobId: sibling.id })).toBe(5);
  });

  it("clearFires keeps an app's newest `keepLast` records, and keepLast 0 clears them all", async () => {
    const app = await createApp(api);
    const a = await createJob(api, app);
    const b = await createJob(api, app);
    await seedJobFires(app, a.id, 6, NOW - DAY);
    await seedJobFires(app, b.id, 6, NOW);
    const kept = await api.call('POST', '/api/v1/fires/clear', { body: { appId: app, keepLast: 4 } });
    expect(kept.json()).toEqual({ deleted: 8 });
    const left = await api.store.fires.listFires({ appId: app, limit: 100 });
    expect(
      left.filter((f) => f.status !== 'dispatched').map((f) => [f.job_id, (NOW - f.scheduled_at) / 60_000]),
    ).toEqual([
      [b.id, 0],
      [b.id, 1],
      [b.id, 2],
      [b.id, 3],
    ]);
    const all = await api.call('POST', '/api/v1/fires/clear', { body: { appId: app, keepLast: 0 } });
    expect(all.json()).toEqual({ deleted: 4 });
    expect((await api.store.fires.listFires({ appId: app })).map((f) => f.status)).toEqual([
      'dispatched',
      'dispatched',
    ]);
  });

  it('clearFires deletes in batches and counts them all', async () => {
    const app = await createApp(api);
    const job = await createJob(api, app);
    await seedJobFires(app, job.id, 2_345, NOW - 40 * DAY);
    const res = await api.call('POST', '/api/v1/fires/clear', { body: { appId: app, before: NOW } });
    expect(res.json()).toEqual({ deleted: 2_345 });
    expect(await countOf({ appId: app })).toBe(1);
  });

  it('clearFires needs permission on the app, a job of that app, and an age or a count', async () => {
    const theirs = await createJob(api, otherApp);
    await seedJobFires(otherApp, theirs.id, 3);
    expectError(
      await api.call('POST', '/api/v1/fires/clear', {
        token: userToken,
        body: { appId: otherApp, keepLast: 0 },
      }),
      403,
      'TW_ERR_FORBIDDEN',
    );
    expectError(
      await api.call('POST', '/api/v1/fires/clear', {
        token: userToken,
        body: { jobId: theirs.id, keepLast: 0 },
      }),
      404,
      'TW_ERR_UNKNOWN_JOB',
    );
    expectError(
      await api.call('POST', '/api/v1/fires/clear', {
        body: { appId: ownApp, jobId: theirs.id, keepLast: 0 },
      }),
      400,
      'TW_ERR_INVALID_FIELD',
      'jobId',
    );
    expectError(
      await api.call('POST', '/api/v1/fires/clear', { body: { appId: ownApp } }),
      400,
      'TW_ERR_MISSING_FIELD',
      'before',
    );
    expectError(
      await api.call('POST', '/api/v1/fires/clear', { body: { keepLast: 1 } }),
      400,
      'TW_ERR_MISSING_FIELD',
      'appId',
    );
    expectError(
      await api.call('POST', '/api/v1/fires/clear', { body: { jobId: 987_654, keepLast: 1 } }),
      404,
      'TW_ERR_UNKNOWN_JOB',
    );
    expect(await countOf({ jobId: theirs.id })).toBe(4);
  });

  it('publishes its operations in the OpenAPI document', async () => {
    const doc = (await api.call('GET', '/api/v1/openapi.json')).json();
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap(
      (path) => Object.values(path).map((op) => op.operationId),
    );
    for (const id of ['getRetentionSettings', 'updateRetentionSettings', 'clearFires', 'getDashboard']) {
      expect(ids.filter((x) => x === id)).toHaveLength(1);
    }
  });
});
