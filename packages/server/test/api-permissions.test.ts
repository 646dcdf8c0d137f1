/**
 * Every permission rule tried from a user who lacks it (XXL-JOB's IDOR advisories on jobs and
 * logs: CVE-2023-33779, CVE-2023-48087). Each test gives a user one app and aims at another
 * app's job or fire by id, by listing filter, or by moving things between apps. Another app's
 * things named by id answer as missing ones (404, or 400 for an id in a body), so the refusal
 * does not tell which ids exist; test/security/hidden-ids.test.ts compares the answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, createApp, createJob, expectError, startApiServer } from './helpers/api-server.js';
import { DIALECTS } from './helpers/databases.js';
import { addUser, type TestUser } from './helpers/users.js';

describe.each(DIALECTS)('permissions on %s', (dialect) => {
  let api: ApiHarness;
  let mine: number;
  let theirs: number;
  let myJob: { id: number };
  let theirJob: { id: number };
  let user: TestUser;
  /** Their app's fire, dispatched to an executor address and still running. */
  let theirFire: number;
  let myFire: number;

  beforeAll(async () => {
    api = await startApiServer(dialect);
    mine = await createApp(api);
    theirs = await createApp(api);
    myJob = await createJob(api, mine, { name: 'my job', scheduleType: 'FIX_RATE', scheduleConf: '60' });
    theirJob = await createJob(api, theirs, {
      name: 'their job',
      scheduleType: 'FIX_RATE',
      scheduleConf: '60',
    });
    user = await addUser(api, { appIds: [mine] });
    [myFire, theirFire] = await Promise.all([runningFire(myJob.id, mine), runningFire(theirJob.id, theirs)]);
  });
  afterAll(async () => {
    await api?.close();
  });

  async function runningFire(jobId: number, appId: number): Promise<number> {
    const now = api.clock.now();
    const [fireId] = await api.store.fires.createFires(
      [{ jobId, appId, scheduledAt: now, triggerType: 'CRON', executorHandler: 'hello', executorParam: '' }],
      now,
    );
    await api.store.fires.markDispatched([
      {
        fireId: fireId!,
        triggerAt: now,
        executorAddress: 'http://127.0.0.1:9/',
        triggerCode: 200,
        triggerMsg: 'ok',
      },
    ]);
    return fireId!;
  }

  const as = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
    api.call(method, url, { token: user.token, ...(body === undefined ? {} : { body }) });

  it("a user cannot read, change, start, stop or delete another app's job by its id", async () => {
    const id = theirJob.id;
    expectError(await as('GET', `/api/v1/jobs/${id}`), 404, 'TW_ERR_UNKNOWN_JOB');
    expectError(await as('PATCH', `/api/v1/jobs/${id}`, { name: 'taken over' }), 404, 'TW_ERR_UNKNOWN_JOB');
    expectError(await as('POST', `/api/v1/jobs/${id}/start`), 404, 'TW_ERR_UNKNOWN_JOB');
    expectError(await as('POST', `/api/v1/jobs/${id}/stop`), 404, 'TW_ERR_UNKNOWN_JOB');
    expectError(await as('DELETE', `/api/v1/jobs/${id}`), 404, 'TW_ERR_UNKNOWN_JOB');
    const after = await api.store.jobs.findJobById(id);
    expect(after).toMatchObject({ name: 'their job', trigger_status: 0 });
    // The same calls on the user's own job pass: the refusals are the permission, not the request.
    expect((await as('GET', `/api/v1/jobs/${myJob.id}`)).statusCode).toBe(200);
    expect((await as('PATCH', `/api/v1/jobs/${myJob.id}`, { author: 'me' })).statusCode).toBe(200);
  });

  it("a user cannot read another app's online executors or their handler names", async () => {
    expectError(await as('GET', `/api/v1/apps/${theirs}/executors`), 404, 'TW_ERR_UNKNOWN_APP');
    expectError(await as('GET', `/api/v1/apps/${theirs}/handlers`), 404, 'TW_ERR_UNKNOWN_APP');
    expect((await as('GET', `/api/v1/apps/${mine}/handlers`)).statusCode).toBe(200);
  });

  it('a user cannot move a job into another app, nor create one there', async () => {
    expectError(
      await as('PATCH', `/api/v1/jobs/${myJob.id}`, { appId: theirs }),
      400,
      'TW_ERR_UNKNOWN_APP',
      'appId',
    );
    expectError(
      await as('POST', '/api/v1/jobs', { appId: theirs, name: 'planted', executorHandler: 'h' }),
      400,
      'TW_ERR_UNKNOWN_APP',
      'appId',
    );
    expect((await api.store.jobs.findJobById(myJob.id))?.app_id).toBe(mine);
    expect(await api.store.jobs.countJobs({ appId: theirs })).toBe(1);
  });

  it("a user cannot name another app's job as a child job", async () => {
    expectError(
      await as('PATCH', `/api/v1/jobs/${myJob.id}`, { childJobIds: [theirJob.id] }),
      400,
      'TW_ERR_UNKNOWN_JOB',
      'childJobIds',
    );
    expectError(
      await as('POST', '/api/v1/jobs', {
        appId: mine,
        name: 'parent',
        executorHandler: 'h',
        childJobIds: [theirJob.id],
      }),
      400,
      'TW_ERR_UNKNOWN_JOB',
      'childJobIds',
    );
    expect((await api.store.jobs.findJobById(myJob.id))?.child_job_ids).toBe('');
  });

  it("a user cannot list another app's jobs through the listing filters", async () => {
    expectError(await as('GET', `/api/v1/jobs?appId=${theirs}`), 403, 'TW_ERR_FORBIDDEN');
    for (const query of ['', `?name=their`, `?executorHandler=hello`, `?triggerStatus=0`]) {
      const page = (await as('GET', `/api/v1/jobs${query}`)).json();
      expect(page.items.map((j: { appId: number }) => j.appId).every((id: number) => id === mine)).toBe(true);
      expect(page.items.map((j: { id: number }) => j.id)).not.toContain(theirJob.id);
    }
    const admin = (await api.call('GET', '/api/v1/jobs?name=their')).json();
    expect(admin.items.map((j: { id: number }) => j.id)).toContain(theirJob.id);
  });

  it("a user cannot trigger another app's job", async () => {
    const before = api.triggers.length;
    expectError(await as('POST', `/api/v1/jobs/${theirJob.id}/trigger`, {}), 404, 'TW_ERR_UNKNOWN_JOB');
    expectError(
      await as('POST', `/api/v1/jobs/${theirJob.id}/trigger`, { executorParam: 'x', addressList: [] }),
      404,
      'TW_ERR_UNKNOWN_JOB',
    );
    expect(api.triggers.length).toBe(before);
    expect((await as('POST', `/api/v1/jobs/${myJob.id}/trigger`, {})).statusCode).toBe(200);
  });

  it("a user cannot read, change or restore another app's job script, nor pull its versions into their own job", async () => {
    const script = { glueType: 'GLUE_SHELL', glueSource: 'echo theirs', glueRemark: 'v1' };
    const theirScripted = await createJob(api, theirs, { name: 'their script', ...script });
    const myScripted = await createJob(api, mine, { name: 'my script', ...script, glueSource: 'echo mine' });
    const [theirVersion] = (await api.call('GET', `/api/v1/jobs/${theirScripted.id}/script/versions`)).json()
      .items;
    expectError(
      await as('GET', `/api/v1/jobs/${theirScripted.id}/script/versions`),
      404,
      'TW_ERR_UNKNOWN_JOB',
    );
    expectError(
      await as('PUT', `/api/v1/jobs/${theirScripted.id}/script`, { glueSource: 'rm -rf /', glueRemark: 'x' }),
      404,
      'TW_ERR_UNKNOWN_JOB',
    );
    expectError(
      await as('POST', `/api/v1/jobs/${theirScripted.id}/script/versions/${theirVersion.id}/restore`),
      404,
      'TW_ERR_UNKNOWN_JOB',
    );
    // Their version id through the user's own job: as unknown as a missing one.
    expectError(
      await as('POST', `/api/v1/jobs/${myScripted.id}/script/versions/${theirVersion.id}/restore`),
      404,
      'TW_ERR_NOT_FOUND',
    );
    expect((await api.store.jobs.findJobById(theirScripted.id))?.glue_source).toBe('echo theirs');
    expect((await api.store.jobs.findJobById(myScripted.id))?.glue_source).toBe('echo mine');
    expect((await as('GET', `/api/v1/jobs/${myScripted.id}/script/versions`)).statusCode).toBe(200);
  });

  it("a user cannot read another app's fire records by id or through the listing filters", async () => {
    expectError(await as('GET', `/api/v1/fires/${theirFire}`), 404, 'TW_ERR_NOT_FOUND');
    // An app filter answers 403 whether the app exists or not: it tells nothing either.
    expectError(await as('GET', `/api/v1/fires?appId=${theirs}`), 403, 'TW_ERR_FORBIDDEN');
    for (const query of ['', `?jobId=${theirJob.id}`, '?status=dispatched', `?from=0`]) {
      const page = (await as('GET', `/api/v1/fires${query}`)).json();
      expect(page.items.map((f: { id: number }) => f.id)).not.toContain(theirFire);
      expect(page.items.every((f: { appId: number }) => f.appId === mine)).toBe(true);
    }
    expect((await as('GET', `/api/v1/fires/${myFire}`)).statusCode).toBe(200);
    const listed = (await as('GET', '/api/v1/fires')).json();
    expect(listed.items.map((f: { id: number }) => f.id)).toContain(myFire);
  });

  it("a user cannot read another app's run log", async () => {
    expectError(await as('GET', `/api/v1/fires/${theirFire}/log`), 404, 'TW_ERR_NOT_FOUND');
    expectError(await as('GET', `/api/v1/fires/${theirFire}/log?fromLineNum=1`), 404, 'TW_ERR_NOT_FOUND');
  });

  it("a user cannot kill another app's run", async () => {
    expectError(await as('POST', `/api/v1/fires/${theirFire}/kill`), 404, 'TW_ERR_NOT_FOUND');
    expect((await api.store.fires.findFireById(theirFire))?.status).toBe('dispatched');
  });

  it("a user cannot clear another app's fire records", async () => {
    const now = api.clock.now() + 1;
    expectError(
      await as('POST', '/api/v1/fires/clear', { appId: theirs, before: now }),
      403,
      'TW_ERR_FORBIDDEN',
    );
    expectError(
      await as('POST', '/api/v1/fires/clear', { jobId: theirJob.id, keepLast: 0 }),
      404,
      'TW_ERR_UNKNOWN_JOB',
    );
    expect(await api.store.fires.findFireById(theirFire)).toBeDefined();
  });

  it("a user sees only their own apps' figures on the dashboard", async () => {
    const own = (await as('GET', '/api/v1/dashboard')).json();
    expect(own).toMatchObject({ apps: 1, jobs: await api.store.jobs.countJobs({ appId: mine }) });
    const all = (await api.call('GET', '/api/v1/dashboard')).json();
    expect(all.apps).toBeGreaterThanOrEqual(2);
    expectError(await as('GET', `/api/v1/dashboard?appId=${theirs}`), 403, 'TW_ERR_FORBIDDEN');
  });

  it("a user cannot read or change another app's app record", async () => {
    expectError(await as('GET', `/api/v1/apps/${theirs}`), 404, 'TW_ERR_UNKNOWN_APP');
    // Their own app they may see but not change: that refusal is the role's, and stays 403.
    expectError(await as('PATCH', `/api/v1/apps/${mine}`, { title: 'renamed' }), 403, 'TW_ERR_FORBIDDEN');
    const listed = (await as('GET', '/api/v1/apps')).json();
    expect(listed.items.map((a: { id: number }) => a.id)).toEqual([mine]);
  });

  it('a user with no app sees empty listings, not everything', async () => {
    const nobody = await addUser(api);
    for (const url of ['/api/v1/jobs', '/api/v1/fires', '/api/v1/apps']) {
      const page = (await api.call('GET', url, { token: nobody.token })).json();
      expect(page).toMatchObject({ items: [], total: 0 });
    }
  });
});
