import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  type ApiHarness,
  createApp,
  createJob,
  expectError,
  startApiServer,
} from './helpers/api-server.js';

describe.each(['postgres', 'mysql'] as const)('the REST API on %s', (dialect) => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApiServer(dialect);
  });
  afterAll(async () => {
    await api.close();
  });

  it('signs in the admin and authenticates a bearer token', async () => {
    const res = await api.call('POST', '/api/v1/login', {
      token: null,
      body: { username: 'admin', password: ADMIN_PASSWORD },
    });
    expect(res.statusCode).toBe(200);
    const { token } = (await api.call('POST', '/api/v1/tokens', { body: { name: 'db' } })).json();
    expect((await api.call('GET', '/api/v1/apps', { token })).statusCode).toBe(200);
  });

  it('creates, reads, updates and lists apps, refusing a duplicate name with 409', async () => {
    const id = await createApp(api, {
      appName: 'db-app',
      addressType: 'MANUAL',
      addressList: ['http://10.0.0.1:9999'],
    });
    expect((await api.call('GET', `/api/v1/apps/${id}`)).json()).toMatchObject({
      appName: 'db-app',
      addressList: ['http://10.0.0.1:9999/'],
    });
    expectError(
      await api.call('POST', '/api/v1/apps', { body: { appName: 'db-app', title: 'x' } }),
      409,
      'TW_ERR_CONFLICT',
      'appName',
    );
    const updated = await api.call('PATCH', `/api/v1/apps/${id}`, { body: { title: 'Renamed' } });
    expect(updated.json().title).toBe('Renamed');
    expect((await api.call('GET', '/api/v1/apps?appName=db-')).json().total).toBe(1);
  });

  it('creates a started job with its next fire time, edits its script with a version, and stops it', async () => {
    const now = Date.parse('2026-05-01T00:00:00Z');
    api.clock.set(now);
    const appId = await createApp(api);
    const job = await createJob(api, appId, {
      scheduleType: 'CRON',
      scheduleConf: '0 0 * * * ?',
      triggerStatus: 1,
      glueType: 'GLUE_PYTHON',
      glueSource: 'print(1)',
      executorHandler: '',
      executorParam: '€'.repeat(1000),
    });
    expect(job.nextFireAt).toBe(now + 3_600_000);
    expect(job.executorParam).toBe('€'.repeat(1000));
    await api.call('PATCH', `/api/v1/jobs/${job.id}`, { body: { glueSource: 'print(2)' } });
    expect((await api.store.jobs.listGlueVersions(job.id)).map((v) => v.glue_source)).toEqual([
      'print(2)',
      'print(1)',
    ]);
    expect((await api.call('POST', `/api/v1/jobs/${job.id}/stop`)).json()).toMatchObject({
      triggerStatus: 0,
      nextFireAt: null,
    });
  });

  it('triggers a job and lists its fire record; refuses to delete the app the job uses', async () => {
    const appId = await createApp(api);
    const job = await createJob(api, appId, { executorParam: 'p' });
    const { fireIds } = (
      await api.call('POST', `/api/v1/jobs/${job.id}/trigger`, { body: { executorParam: 'once' } })
    ).json();
    const page = (await api.call('GET', `/api/v1/fires?jobId=${job.id}&status=pending`)).json();
    expect(page.items.map((f: { id: number; executorParam: string }) => [f.id, f.executorParam])).toEqual([
      [fireIds[0], 'once'],
    ]);
    expectError(await api.call('DELETE', `/api/v1/apps/${appId}`), 409, 'TW_ERR_CONFLICT');
    expect((await api.call('DELETE', `/api/v1/jobs/${job.id}`)).statusCode).toBe(204);
    expect((await api.call('DELETE', `/api/v1/apps/${appId}`)).statusCode).toBe(204);
  });

  it('answers the dashboard and the readiness probe', async () => {
    expect((await api.call('GET', '/api/v1/dashboard')).json()).toMatchObject({ apps: expect.any(Number) });
    expect((await api.call('GET', '/readyz', { token: null })).statusCode).toBe(200);
  });
});
