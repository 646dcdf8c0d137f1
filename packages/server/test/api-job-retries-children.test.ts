/**
 * The job resource's retry, alarm and child-job fields over the REST API on every database:
 * `retryBackoff` and `alarmOn` round-trip and are validated; `childJobIds` may name only jobs of
 * apps the caller may operate, and a save that would close a loop is refused with the loop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiToken } from '../src/security/api-tokens.js';
import { type ApiHarness, createApp, createJob, startApiServer } from './helpers/api-server.js';
import { DIALECTS } from './helpers/databases.js';

describe.each(DIALECTS)('job retries, alarms and child jobs over REST on %s', (dialect) => {
  let api: ApiHarness;
  let ownApp: number;
  let otherApp: number;
  let userToken: string;
  beforeAll(async () => {
    api = await startApiServer(dialect);
    ownApp = await createApp(api);
    otherApp = await createApp(api);
    const user = await api.store.users.createUser(
      {
        username: `child-user-${dialect}`,
        passwordHash: 'unused',
        role: 'user',
        appPermissions: String(ownApp),
      },
      Date.now(),
    );
    userToken = `tw_child-user-${dialect}-0123456789`;
    await api.store.users.createApiToken(
      { name: 'u', tokenHash: hashApiToken(userToken), userId: user.id },
      Date.now(),
    );
  });
  afterAll(async () => {
    await api.close();
  });

  it('gives a new job the default back-off and EVERY_FAILURE', async () => {
    const job = await createJob(api, ownApp);
    expect(job.retryBackoff).toEqual({ strategy: 'FIXED', delaySeconds: 10, maxDelaySeconds: 600 });
    expect(job.alarmOn).toBe('EVERY_FAILURE');
  });

  it('stores retryBackoff and alarmOn on create and update, and returns them from getJob', async () => {
    const job = await createJob(api, ownApp, {
      executorFailRetryCount: 3,
      retryBackoff: { strategy: 'EXPONENTIAL', delaySeconds: 5, maxDelaySeconds: 60 },
      alarmOn: 'FINAL_FAILURE',
    });
    expect(job).toMatchObject({
      executorFailRetryCount: 3,
      retryBackoff: { strategy: 'EXPONENTIAL', delaySeconds: 5, maxDelaySeconds: 60 },
      alarmOn: 'FINAL_FAILURE',
    });
    const patched = await api.call('PATCH', `/api/v1/jobs/${job.id}`, {
      body: {
        retryBackoff: { strategy: 'FIXED', delaySeconds: 30, maxDelaySeconds: 30 },
        alarmOn: 'EVERY_FAILURE',
      },
    });
    expect(patched.statusCode).toBe(200);
    const got = (await api.call('GET', `/api/v1/jobs/${job.id}`)).json();
    expect(got.retryBackoff).toEqual({ strategy: 'FIXED', delaySeconds: 30, maxDelaySeconds: 30 });
    expect(got.alarmOn).toBe('EVERY_FAILURE');
    expect(got.executorFailRetryCount).toBe(3);
  });

  it('refuses an exponential back-off whose longest wait is below its first, naming the field', async () => {
    const res = await api.call('POST', '/api/v1/jobs', {
      body: {
        appId: ownApp,
        name: 'bad backoff',
        executorHandler: 'h',
        retryBackoff: { strategy: 'EXPONENTIAL', delaySeconds: 60, maxDelaySeconds: 10 },
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'TW_ERR_INVALID_FIELD',
      field: 'retryBackoff.maxDelaySeconds',
    });
  });

  it('refuses an unknown back-off strategy and an unknown alarmOn, naming each field', async () => {
    const strategy = await api.call('POST', '/api/v1/jobs', {
      body: {
        appId: ownApp,
        name: 'x',
        executorHandler: 'h',
        retryBackoff: { strategy: 'LINEAR', delaySeconds: 1, maxDelaySeconds: 1 },
      },
    });
    expect(strategy.statusCode).toBe(400);
    expect(strategy.json().error.field).toBe('retryBackoff.strategy');
    const alarmOn = await api.call('POST', '/api/v1/jobs', {
      body: { appId: ownApp, name: 'x', executorHandler: 'h', alarmOn: 'SOMETIMES' },
    });
    expect(alarmOn.statusCode).toBe(400);
    expect(alarmOn.json().error.field).toBe('alarmOn');
  });

  it('refuses a save that makes a job trigger itself through its child jobs, showing the loop', async () => {
    const c = await createJob(api, ownApp, { name: 'c' });
    const b = await createJob(api, ownApp, { name: 'b', childJobIds: [c.id] });
    const a = await createJob(api, ownApp, { name: 'a', childJobIds: [b.id] });
    const res = await api.call('PATCH', `/api/v1/jobs/${c.id}`, { body: { childJobIds: [a.id] } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'TW_ERR_INVALID_FIELD', field: 'childJobIds' });
    expect(res.json().error.message).toContain(`${c.id} → ${a.id} → ${b.id} → ${c.id}`);
    const own = await api.call('PATCH', `/api/v1/jobs/${a.id}`, { body: { childJobIds: [a.id] } });
    expect(own.statusCode).toBe(400);
    expect(own.json().error.field).toBe('childJobIds');
    // A diamond is not a loop.
    const d = await createJob(api, ownApp, { name: 'd', childJobIds: [b.id, c.id] });
    expect(
      (await api.call('PATCH', `/api/v1/jobs/${a.id}`, { body: { childJobIds: [b.id, d.id] } })).statusCode,
    ).toBe(200);
  });

  it('refuses a child job in an app the user may not operate, on create and on update', async () => {
    const foreign = await createJob(api, otherApp, { name: 'foreign' });
    const created = await api.call('POST', '/api/v1/jobs', {
      token: userToken,
      body: { appId: ownApp, name: 'mine', executorHandler: 'h', childJobIds: [foreign.id] },
    });
    expect(created.statusCode).toBe(400);
    expect(created.json().error).toMatchObject({
      code: 'TW_ERR_UNKNOWN_JOB',
      field: 'childJobIds',
      message: `childJobIds: job ${foreign.id} does not exist`,
    });
    const mine = await api.call('POST', '/api/v1/jobs', {
      token: userToken,
      body: { appId: ownApp, name: 'mine', executorHandler: 'h' },
    });
    expect(mine.statusCode).toBe(201);
    const updated = await api.call('PATCH', `/api/v1/jobs/${mine.json().id}`, {
      token: userToken,
      body: { childJobIds: [foreign.id] },
    });
    expect(updated.statusCode).toBe(400);
    expect(updated.json().error.field).toBe('childJobIds');
    // The admin may link across apps.
    const byAdmin = await api.call('PATCH', `/api/v1/jobs/${mine.json().id}`, {
      body: { childJobIds: [foreign.id] },
    });
    expect(byAdmin.statusCode).toBe(200);
  });

  it('shows on a fire record the retry that retries it and the parent fire that triggered it', async () => {
    const job = await createJob(api, ownApp, { executorFailRetryCount: 1 });
    const now = Date.now();
    const [failedId, childFireId] = await api.store.fires.createFires(
      [
        {
          jobId: job.id,
          appId: ownApp,
          scheduledAt: now,
          triggerType: 'CRON',
          executorHandler: 'h',
          executorParam: '',
        },
        {
          jobId: job.id,
          appId: ownApp,
          scheduledAt: now,
          triggerType: 'PARENT',
          executorHandler: 'h',
          executorParam: '',
          triggeredByFireId: 42,
        },
      ],
      now,
    );
    const failed = (await api.store.fires.findFireById(failedId!))!;
    const retryId = await api.store.retries.createRetryFire(failed, now + 1_000, now);
    const retried = (await api.call('GET', `/api/v1/fires/${failedId}`)).json();
    expect(retried).toMatchObject({ retryFireId: retryId, triggeredByFireId: null });
    const retry = (await api.call('GET', `/api/v1/fires/${retryId}`)).json();
    expect(retry).toMatchObject({ triggerType: 'RETRY', parentFireId: failedId, retryFireId: null });
    const child = (await api.call('GET', `/api/v1/fires/${childFireId}`)).json();
    expect(child).toMatchObject({ triggerType: 'PARENT', triggeredByFireId: 42, parentFireId: null });
  });
});
