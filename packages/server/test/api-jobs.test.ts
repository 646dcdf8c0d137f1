import {
  BLOCK_STRATEGIES,
  GLUE_TYPES,
  MISFIRE_STRATEGIES,
  nextFireTimes,
  ROUTE_STRATEGIES,
  SCHEDULE_TYPES,
} from '@tickwheel/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ApiHarness,
  createApp,
  createJob,
  expectError,
  login,
  startApiServer,
} from './helpers/api-server.js';
import { DIALECTS } from './helpers/databases.js';

const NOW = Date.parse('2026-03-02T10:00:00.250Z');

let api: ApiHarness;
let appId: number;
beforeAll(async () => {
  api = await startApiServer();
  appId = await createApp(api, { appName: 'jobs-app' });
});
afterAll(async () => {
  await api.close();
});
beforeEach(() => {
  api.clock.set(NOW);
});

describe('createJob and getJob', () => {
  it("creates a stopped job with XXL-JOB's defaults and reads it back", async () => {
    const job = await createJob(api, appId, {
      name: 'nightly',
      scheduleType: 'CRON',
      scheduleConf: '0 0 2 * * ?',
    });
    expect(job).toMatchObject({
      appId,
      name: 'nightly',
      author: '',
      alarmEmail: '',
      scheduleType: 'CRON',
      scheduleConf: '0 0 2 * * ?',
      timeZone: 'UTC',
      misfireStrategy: 'DO_NOTHING',
      executorRouteStrategy: 'FIRST',
      executorHandler: 'hello',
      executorParam: '',
      executorBlockStrategy: 'SERIAL_EXECUTION',
      executorTimeout: 0,
      executorFailRetryCount: 0,
      glueType: 'BEAN',
      glueSource: '',
      glueRemark: '',
      childJobIds: [],
      triggerStatus: 0,
      nextFireAt: null,
    });
    const read = await api.call('GET', `/api/v1/jobs/${job.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(job);
  });

  it('starts a job created with triggerStatus 1 at the next time of its CRON schedule in its zone', async () => {
    const job = await createJob(api, appId, {
      scheduleType: 'CRON',
      scheduleConf: '0 30 9 * * ?',
      timeZone: 'Europe/London',
      triggerStatus: 1,
    });
    expect(job.triggerStatus).toBe(1);
    expect(job.nextFireAt).toBe(Date.parse('2026-03-03T09:30:00Z'));
  });

  it('answers 404 TW_ERR_UNKNOWN_JOB for a job that does not exist', async () => {
    expectError(await api.call('GET', '/api/v1/jobs/999999'), 404, 'TW_ERR_UNKNOWN_JOB');
  });

  it('answers 400 naming id for an id that is not a whole number', async () => {
    for (const id of ['abc', '1.5', '0', '1e3']) {
      expectError(await api.call('GET', `/api/v1/jobs/${id}`), 400, 'TW_ERR_INVALID_FIELD', 'id');
    }
  });
});

describe('job validation', () => {
  const enums = [
    ['scheduleType', SCHEDULE_TYPES],
    ['misfireStrategy', MISFIRE_STRATEGIES],
    ['executorRouteStrategy', ROUTE_STRATEGIES],
    ['executorBlockStrategy', BLOCK_STRATEGIES],
    ['glueType', GLUE_TYPES],
  ] as const;

  it.each(
    enums,
  )('refuses an unknown %s with TW_ERR_UNKNOWN_ENUM_VALUE, listing the allowed values', async (field, allowed) => {
    const res = await api.call('POST', '/api/v1/jobs', {
      body: { appId, name: 'x', executorHandler: 'h', [field]: 'NOT_A_VALUE' },
    });
    const error = expectError(res, 400, 'TW_ERR_UNKNOWN_ENUM_VALUE', field);
    expect(error.message).toBe(`${field}: must be one of ${allowed.join(', ')}`);
  });

  it('refuses a wrong type, naming the field', async () => {
    const res = await api.call('POST', '/api/v1/jobs', {
      body: { appId, name: 'x', executorHandler: 'h', executorTimeout: '5' },
    });
    expect(expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'executorTimeout').message).toBe(
      'executorTimeout: must be an integer',
    );
  });

  it('refuses a missing name with TW_ERR_MISSING_FIELD', async () => {
    const res = await api.call('POST', '/api/v1/jobs', { body: { appId, executorHandler: 'h' } });
    expectError(res, 400, 'TW_ERR_MISSING_FIELD', 'name');
  });

  it('refuses a field it does not know (a typo must not pass silently)', async () => {
    const res = await api.call('POST', '/api/v1/jobs', {
      body: { appId, name: 'x', executorHandler: 'h', executorParams: 'typo' },
    });
    expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'executorParams');
  });

  it('refuses a CRON expression it cannot read with TW_ERR_INVALID_CRON, naming scheduleConf and the reason', async () => {
    const res = await api.call('POST', '/api/v1/jobs', {
      body: { appId, name: 'x', executorHandler: 'h', scheduleType: 'CRON', scheduleConf: '0 * * * *' },
    });
    const error = expectError(res, 400, 'TW_ERR_INVALID_CRON', 'scheduleConf');
    expect(error.message).toContain('expected 6 or 7 fields');
    const job = await createJob(api, appId);
    const changed = await api.call('PATCH', `/api/v1/jobs/${job.id}`, {
      body: { scheduleType: 'CRON', scheduleConf: '0 0 25 * * ?' },
    });
    expect(expectError(changed, 400, 'TW_ERR_INVALID_CRON', 'scheduleConf').message).toBe(
      'scheduleConf: hour value 25 is out of range 0-23',
    );
  });

  it('refuses a CRON expression that reads but never fires with TW_ERR_INVALID_SCHEDULE', async () => {
    const res = await api.call('POST', '/api/v1/jobs', {
      body: { appId, name: 'x', executorHandler: 'h', scheduleType: 'CRON', scheduleConf: '0 0 0 30 2 ?' },
    });
    const error = expectError(res, 400, 'TW_ERR_INVALID_SCHEDULE', 'scheduleConf');
    expect(error.message).toMatch(/never fires/);
  });

  it('refuses an unknown time zone, naming timeZone', async () => {
    const res = await api.call('POST', '/api/v1/jobs', {
      body: {
        appId,
        name: 'x',
        executorHandler: 'h',
        scheduleType: 'CRON',
        scheduleConf: '0 0 * * * ?',
        timeZone: 'Mars/Olympus_Mons',
      },
    });
    expectError(res, 400, 'TW_ERR_INVALID_SCHEDULE', 'timeZone');
  });

  it('refuses a ONCE instant that is already past', async () => {
    const res = await api.call('POST', '/api/v1/jobs', {
      body: {
        appId,
        name: 'x',
        executorHandler: 'h',
        scheduleType: 'ONCE',
        scheduleConf: '2026-03-01T00:00:00Z',
      },
    });
    expectError(res, 400, 'TW_ERR_INVALID_SCHEDULE', 'scheduleConf');
  });

  it('refuses a BEAN job without a handler', async () => {
    const res = await api.call('POST', '/api/v1/jobs', { body: { appId, name: 'x' } });
    expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'executorHandler');
  });

  it('refuses an executorParam over 65,535 characters', async () => {
    const res = await api.call('POST', '/api/v1/jobs', {
      body: { appId, name: 'x', executorHandler: 'h', executorParam: 'p'.repeat(65_536) },
    });
    expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'executorParam');
  });

  it('refuses an executorParam over 65,535 UTF-8 bytes even when it has fewer characters', async () => {
    const res = await api.call('POST', '/api/v1/jobs', {
      body: { appId, name: 'x', executorHandler: 'h', executorParam: '€'.repeat(22_000) },
    });
    const error = expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'executorParam');
    expect(error.message).toBe('executorParam: is 66000 bytes; at most 65535 are accepted');
  });

  it('refuses a glueSource over 1 MiB', async () => {
    const res = await api.call('POST', '/api/v1/jobs', {
      body: { appId, name: 'x', glueType: 'GLUE_SHELL', glueSource: `#!/bin/sh\n${'#'.repeat(1024 * 1024)}` },
    });
    expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'glueSource');
  });

  it('refuses a body over 4 MiB with 413', async () => {
    const res = await api.call('POST', '/api/v1/jobs', {
      body: { appId, name: 'x', executorHandler: 'h', glueRemark: 'r'.repeat(5 * 1024 * 1024) },
    });
    expectError(res, 413, 'TW_ERR_BODY_TOO_LARGE');
  });

  it('refuses a body that is not JSON', async () => {
    const res = await api.call('POST', '/api/v1/jobs', {
      payload: '{"appId": 1, "name": ',
      headers: { 'content-type': 'application/json' },
    });
    expectError(res, 400, 'TW_ERR_INVALID_JSON');
    const poisoned = await api.call('POST', '/api/v1/jobs', {
      payload: `{"appId": ${appId}, "name": "x", "executorHandler": "h", "__proto__": {"admin": true}}`,
      headers: { 'content-type': 'application/json' },
    });
    expectError(poisoned, 400, 'TW_ERR_INVALID_FIELD', '__proto__');
    const plain = await api.call('POST', '/api/v1/jobs', {
      payload: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expectError(plain, 400, 'TW_ERR_INVALID_JSON');
  });

  it('refuses a JSON body that is not an object', async () => {
    const res = await api.call('POST', '/api/v1/jobs', {
      payload: '[1,2]',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toMatch(/^TW_ERR_/);
  });

  it('refuses an app that does not exist with 400 TW_ERR_UNKNOWN_APP, naming appId, and writes nothing', async () => {
    const before = await api.store.jobs.countJobs();
    const res = await api.call('POST', '/api/v1/jobs', {
      body: { appId: 999_999, name: 'x', executorHandler: 'h' },
    });
    expect(expectError(res, 400, 'TW_ERR_UNKNOWN_APP', 'appId').message).toBe(
      'appId: app 999999 does not exist',
    );
    expect(await api.store.jobs.countJobs()).toBe(before);
  });

  it('refuses child jobs that do not exist (400 TW_ERR_UNKNOWN_JOB), and a job as its own child', async () => {
    const res = await api.call('POST', '/api/v1/jobs', {
      body: { appId, name: 'x', executorHandler: 'h', childJobIds: [999_999] },
    });
    expectError(res, 400, 'TW_ERR_UNKNOWN_JOB', 'childJobIds');
    const job = await createJob(api, appId);
    const self = await api.call('PATCH', `/api/v1/jobs/${job.id}`, { body: { childJobIds: [job.id] } });
    expectError(self, 400, 'TW_ERR_INVALID_FIELD', 'childJobIds');
  });

  it('keeps child jobs that exist', async () => {
    const child = await createJob(api, appId, { name: 'child' });
    const parent = await createJob(api, appId, { name: 'parent', childJobIds: [child.id] });
    expect(parent.childJobIds).toEqual([child.id]);
  });

  it('refuses an alarm e-mail that is not an address', async () => {
    const res = await api.call('POST', '/api/v1/jobs', {
      body: { appId, name: 'x', executorHandler: 'h', alarmEmail: 'ops@example.com, nobody' },
    });
    expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'alarmEmail');
  });
});

describe('updateJob', () => {
  it('changes the given fields and keeps the others', async () => {
    const job = await createJob(api, appId, { name: 'before', author: 'ann', executorParam: 'p1' });
    const res = await api.call('PATCH', `/api/v1/jobs/${job.id}`, {
      body: { name: 'after', executorTimeout: 30 },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'after',
      author: 'ann',
      executorParam: 'p1',
      executorTimeout: 30,
    });
  });

  it('re-plans a running job whose schedule changes, and keeps nextFireAt otherwise', async () => {
    const job = await createJob(api, appId, {
      scheduleType: 'FIX_RATE',
      scheduleConf: '60',
      triggerStatus: 1,
    });
    expect(job.nextFireAt).toBe(NOW + 60_000);
    api.clock.set(NOW + 10_000);
    const renamed = await api.call('PATCH', `/api/v1/jobs/${job.id}`, { body: { name: 'renamed' } });
    expect(renamed.json().nextFireAt).toBe(NOW + 60_000);
    const replanned = await api.call('PATCH', `/api/v1/jobs/${job.id}`, { body: { scheduleConf: '5' } });
    expect(replanned.json().nextFireAt).toBe(NOW + 10_000 + 5_000);
  });

  it('refuses a running job a NONE schedule', async () => {
    const job = await createJob(api, appId, {
      scheduleType: 'FIX_RATE',
      scheduleConf: '60',
      triggerStatus: 1,
    });
    const res = await api.call('PATCH', `/api/v1/jobs/${job.id}`, {
      body: { scheduleType: 'NONE', scheduleConf: '' },
    });
    expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'scheduleType');
  });

  it('changes nothing when a field is refused', async () => {
    const job = await createJob(api, appId, { name: 'untouched' });
    const res = await api.call('PATCH', `/api/v1/jobs/${job.id}`, {
      body: { name: 'changed', executorRouteStrategy: 'NEAREST' },
    });
    expectError(res, 400, 'TW_ERR_UNKNOWN_ENUM_VALUE', 'executorRouteStrategy');
    expect((await api.call('GET', `/api/v1/jobs/${job.id}`)).json()).toEqual(job);
  });

  it('answers 404 for a job that does not exist', async () => {
    expectError(
      await api.call('PATCH', '/api/v1/jobs/999999', { body: { name: 'x' } }),
      404,
      'TW_ERR_UNKNOWN_JOB',
    );
  });
});

describe('script versions', () => {
  it('saves a version when a script job is created and each time its script changes', async () => {
    const job = await createJob(api, appId, {
      glueType: 'GLUE_SHELL',
      glueSource: 'echo 1',
      glueRemark: 'first',
      executorHandler: '',
    });
    api.clock.set(NOW + 1000);
    const res = await api.call('PATCH', `/api/v1/jobs/${job.id}`, {
      body: { glueSource: 'echo 2', glueRemark: 'second' },
    });
    expect(res.json()).toMatchObject({ glueSource: 'echo 2', glueUpdatedAt: NOW + 1000 });
    await api.call('PATCH', `/api/v1/jobs/${job.id}`, { body: { name: 'not a script change' } });
    const versions = await api.store.jobs.listGlueVersions(job.id);
    expect(versions.map((v) => [v.glue_source, v.glue_remark])).toEqual([
      ['echo 2', 'second'],
      ['echo 1', 'first'],
    ]);
  });

  it('saves no version for a BEAN job', async () => {
    const job = await createJob(api, appId);
    await api.call('PATCH', `/api/v1/jobs/${job.id}`, { body: { executorHandler: 'other' } });
    expect(await api.store.jobs.listGlueVersions(job.id)).toEqual([]);
  });
});

describe('startJob and stopJob', () => {
  it('starts a FIX_RATE job one interval from now', async () => {
    const job = await createJob(api, appId, { scheduleType: 'FIX_RATE', scheduleConf: '30' });
    const res = await api.call('POST', `/api/v1/jobs/${job.id}/start`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ triggerStatus: 1, nextFireAt: NOW + 30_000 });
  });

  it('starts a FIX_DELAY job one delay from now, as if a run had just ended', async () => {
    const job = await createJob(api, appId, { scheduleType: 'FIX_DELAY', scheduleConf: '10' });
    expect((await api.call('POST', `/api/v1/jobs/${job.id}/start`)).json().nextFireAt).toBe(NOW + 10_000);
  });

  it('starts a ONCE job at its instant', async () => {
    const job = await createJob(api, appId, {
      scheduleType: 'ONCE',
      scheduleConf: '2026-03-05T08:00:00+01:00',
    });
    expect((await api.call('POST', `/api/v1/jobs/${job.id}/start`)).json().nextFireAt).toBe(
      Date.parse('2026-03-05T07:00:00Z'),
    );
  });

  it('starts a CRON job at the same time nextFireTimes gives', async () => {
    const schedule = { scheduleType: 'CRON', scheduleConf: '0 0/15 * * * ?', timeZone: 'Asia/Kolkata' };
    const job = await createJob(api, appId, schedule);
    const started = (await api.call('POST', `/api/v1/jobs/${job.id}/start`)).json();
    expect(started.nextFireAt).toBe(nextFireTimes(schedule, NOW, 1)[0]);
  });

  it('refuses to start a NONE job, which only runs when triggered', async () => {
    const job = await createJob(api, appId);
    expectError(
      await api.call('POST', `/api/v1/jobs/${job.id}/start`),
      400,
      'TW_ERR_INVALID_FIELD',
      'scheduleType',
    );
  });

  it('stops a job and clears its next fire time', async () => {
    const job = await createJob(api, appId, {
      scheduleType: 'FIX_RATE',
      scheduleConf: '30',
      triggerStatus: 1,
    });
    const res = await api.call('POST', `/api/v1/jobs/${job.id}/stop`);
    expect(res.json()).toMatchObject({ triggerStatus: 0, nextFireAt: null });
  });

  it('accepts start with a JSON content type and an empty body', async () => {
    const job = await createJob(api, appId, { scheduleType: 'FIX_RATE', scheduleConf: '30' });
    const res = await api.call('POST', `/api/v1/jobs/${job.id}/start`, {
      payload: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(200);
  });

  it('answers 404 for a job that does not exist', async () => {
    expectError(await api.call('POST', '/api/v1/jobs/999999/start'), 404, 'TW_ERR_UNKNOWN_JOB');
    expectError(await api.call('POST', '/api/v1/jobs/999999/stop'), 404, 'TW_ERR_UNKNOWN_JOB');
  });
});

describe('deleteJob', () => {
  it('deletes a job with its script versions', async () => {
    const job = await createJob(api, appId, {
      glueType: 'GLUE_SHELL',
      glueSource: 'echo',
      executorHandler: '',
    });
    expect((await api.call('DELETE', `/api/v1/jobs/${job.id}`)).statusCode).toBe(204);
    expectError(await api.call('GET', `/api/v1/jobs/${job.id}`), 404, 'TW_ERR_UNKNOWN_JOB');
    expect(await api.store.jobs.listGlueVersions(job.id)).toEqual([]);
    expectError(await api.call('DELETE', `/api/v1/jobs/${job.id}`), 404, 'TW_ERR_UNKNOWN_JOB');
  });
});

describe('listJobs', () => {
  it('filters by app and trigger status, a page at a time', async () => {
    const otherApp = await createApp(api, { appName: 'list-jobs-app' });
    for (let i = 0; i < 3; i++) await createJob(api, otherApp, { name: `listed ${i}` });
    await createJob(api, otherApp, {
      name: 'running',
      scheduleType: 'FIX_RATE',
      scheduleConf: '9',
      triggerStatus: 1,
    });
    const page = (await api.call('GET', `/api/v1/jobs?appId=${otherApp}&triggerStatus=0&limit=2`)).json();
    expect(page.total).toBe(3);
    expect(page.items.map((j: { name: string }) => j.name)).toEqual(['listed 2', 'listed 1']);
    const running = (await api.call('GET', `/api/v1/jobs?appId=${otherApp}&triggerStatus=1`)).json();
    expect(running.items.map((j: { name: string }) => j.name)).toEqual(['running']);
  });
});

describe('triggerJob', () => {
  it("fires once with the given param as an API trigger and answers the fire's id", async () => {
    const job = await createJob(api, appId, { executorParam: 'job param' });
    const res = await api.call('POST', `/api/v1/jobs/${job.id}/trigger`, { body: { executorParam: 'once' } });
    expect(res.statusCode).toBe(200);
    const { fireIds } = res.json();
    expect(fireIds).toHaveLength(1);
    expect(api.triggers.at(-1)?.request).toEqual({ param: 'once', addresses: [], triggerType: 'API' });
    expect(await api.store.fires.findFireById(fireIds[0])).toMatchObject({
      job_id: job.id,
      trigger_type: 'API',
    });
  });

  it("uses the job's own param when the request has no body", async () => {
    const job = await createJob(api, appId, { executorParam: 'job param' });
    const res = await api.call('POST', `/api/v1/jobs/${job.id}/trigger`);
    expect(res.statusCode).toBe(200);
    expect(api.triggers.at(-1)?.request.param).toBe('job param');
  });

  it('is a MANUAL trigger when it comes from a console session', async () => {
    const job = await createJob(api, appId);
    const session = await login(api);
    const res = await api.call('POST', `/api/v1/jobs/${job.id}/trigger`, {
      token: null,
      body: {},
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrfToken },
    });
    expect(res.statusCode).toBe(200);
    expect(api.triggers.at(-1)?.request.triggerType).toBe('MANUAL');
  });

  it('routes among an override of online addresses, as the registry knows them', async () => {
    const id = await createApp(api, { appName: 'override-app' });
    for (const value of ['http://127.0.0.1:7001/', 'http://127.0.0.1:7002/']) {
      await api.store.registry.heartbeat(
        { group: 'EXECUTOR', key: 'override-app', value },
        'G2',
        api.clock.now(),
      );
    }
    const job = await createJob(api, id);
    const res = await api.call('POST', `/api/v1/jobs/${job.id}/trigger`, {
      body: { addressList: ['http://127.0.0.1:7002'] },
    });
    expect(res.statusCode).toBe(200);
    expect(api.triggers.at(-1)?.request.addresses).toEqual(['http://127.0.0.1:7002/']);
  });

  it("accepts an override of a MANUAL app's listed address", async () => {
    const id = await createApp(api, {
      appName: 'override-manual',
      addressType: 'MANUAL',
      addressList: ['http://10.1.1.1:9999/'],
    });
    const job = await createJob(api, id);
    const res = await api.call('POST', `/api/v1/jobs/${job.id}/trigger`, {
      body: { addressList: ['http://10.1.1.1:9999/'] },
    });
    expect(res.statusCode).toBe(200);
  });

  it('refuses an override address the app does not know, and fires nothing', async () => {
    const job = await createJob(api, appId);
    const before = api.triggers.length;
    const res = await api.call('POST', `/api/v1/jobs/${job.id}/trigger`, {
      body: { addressList: ['http://169.254.169.254/'] },
    });
    const error = expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'addressList');
    expect(error.message).toContain('is not an address of app jobs-app');
    expect(api.triggers.length).toBe(before);
  });

  it('refuses an override that is not an http(s) URL', async () => {
    const job = await createJob(api, appId);
    const res = await api.call('POST', `/api/v1/jobs/${job.id}/trigger`, {
      body: { addressList: ['gopher://x/'] },
    });
    expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'addressList[0]');
  });

  it('refuses an oversized param', async () => {
    const job = await createJob(api, appId);
    const res = await api.call('POST', `/api/v1/jobs/${job.id}/trigger`, {
      body: { executorParam: '€'.repeat(30_000) },
    });
    expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'executorParam');
  });

  it('answers 404 for a job that does not exist', async () => {
    expectError(
      await api.call('POST', '/api/v1/jobs/999999/trigger', { body: {} }),
      404,
      'TW_ERR_UNKNOWN_JOB',
    );
  });
});

describe.each(DIALECTS)("a job's origin on %s", (dialect) => {
  let harness: ApiHarness;
  let originAppId: number;
  const ORIGIN = 'xxl-job mysql://db:3306/xxl_job #12';
  beforeAll(async () => {
    harness = await startApiServer(dialect);
    originAppId = await createApp(harness, { appName: 'origin-jobs' });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('is null for a job made here', async () => {
    const job = await createJob(harness, originAppId, { name: 'made here' });
    expect(job.origin).toBeNull();
    expect((await harness.call('GET', `/api/v1/jobs/${job.id}`)).json().origin).toBeNull();
  });

  it('round-trips on create, get, list and update, and null clears it', async () => {
    const job = await createJob(harness, originAppId, { name: 'imported', origin: ORIGIN });
    expect(job.origin).toBe(ORIGIN);
    expect((await harness.call('GET', `/api/v1/jobs/${job.id}`)).json().origin).toBe(ORIGIN);
    const listed = (await harness.call('GET', `/api/v1/jobs?appId=${originAppId}&limit=200`)).json();
    expect(listed.items.find((item: { id: number }) => item.id === job.id).origin).toBe(ORIGIN);

    const other = 'xxl-job mysql://db:3306/xxl_job #13';
    const changed = await harness.call('PATCH', `/api/v1/jobs/${job.id}`, { body: { origin: other } });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().origin).toBe(other);
    // Fields left out keep their value, the origin too.
    const renamed = await harness.call('PATCH', `/api/v1/jobs/${job.id}`, { body: { name: 'renamed' } });
    expect(renamed.json()).toMatchObject({ name: 'renamed', origin: other });
    const cleared = await harness.call('PATCH', `/api/v1/jobs/${job.id}`, { body: { origin: null } });
    expect(cleared.json().origin).toBeNull();
    expect((await harness.store.jobs.findJobById(job.id))?.origin).toBeNull();
  });

  it('takes 255 characters and refuses 256, or a line break, naming origin', async () => {
    const longest = 'x'.repeat(255);
    expect((await createJob(harness, originAppId, { origin: longest })).origin).toBe(longest);
    const body = { appId: originAppId, name: 'too long', executorHandler: 'hello' };
    expectError(
      await harness.call('POST', '/api/v1/jobs', { body: { ...body, origin: 'x'.repeat(256) } }),
      400,
      'TW_ERR_INVALID_FIELD',
      'origin',
    );
    expectError(
      await harness.call('POST', '/api/v1/jobs', { body: { ...body, origin: 'xxl-job\r\n#12' } }),
      400,
      'TW_ERR_INVALID_FIELD',
      'origin',
    );
    const job = await createJob(harness, originAppId, { origin: ORIGIN });
    expectError(
      await harness.call('PATCH', `/api/v1/jobs/${job.id}`, { body: { origin: 'y'.repeat(256) } }),
      400,
      'TW_ERR_INVALID_FIELD',
      'origin',
    );
    expect((await harness.call('GET', `/api/v1/jobs/${job.id}`)).json().origin).toBe(ORIGIN);
  });
});
