/**
 * A user learns nothing about the ids of apps they have no permission on: every operation that
 * names another app's job, fire, run log, script version or the app itself answers exactly as
 * it answers for an id that does not exist (404 by path, 400 by body field), so ids cannot be
 * probed. Refusals that do not depend on the id stay 403: admin-only operations, and an app
 * filter, which answers 403 for a missing app too.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, createApp, createJob, expectError, startApiServer } from '../helpers/api-server.js';
import { DIALECTS } from '../helpers/databases.js';
import { storedState } from '../helpers/stored-state.js';
import { addUser, type TestUser } from '../helpers/users.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

describe.each(DIALECTS)('hidden ids on %s', (dialect) => {
  let api: ApiHarness;
  let mine: number;
  let theirs: number;
  let myJob: number;
  let theirJob: number;
  let theirFire: number;
  let theirVersion: number;
  let user: TestUser;
  /** Ids no row has: what another app's ids must look like. */
  let missingApp: number;
  let missingJob: number;
  let missingFire: number;

  beforeAll(async () => {
    api = await startApiServer(dialect);
    mine = await createApp(api);
    theirs = await createApp(api);
    myJob = (await createJob(api, mine, { name: 'mine' })).id;
    theirJob = (
      await createJob(api, theirs, {
        name: 'theirs',
        glueType: 'GLUE_SHELL',
        glueSource: 'echo theirs',
        glueRemark: 'v1',
      })
    ).id;
    const now = api.clock.now();
    [theirFire] = (await api.store.fires.createFires(
      [
        {
          jobId: theirJob,
          appId: theirs,
          scheduledAt: now,
          triggerType: 'CRON',
          executorHandler: '',
          executorParam: '',
        },
      ],
      now,
    )) as [number];
    await api.store.fires.markDispatched([
      {
        fireId: theirFire,
        triggerAt: now,
        executorAddress: 'http://127.0.0.1:9/',
        triggerCode: 200,
        triggerMsg: 'ok',
      },
    ]);
    theirVersion = (await api.store.jobs.listGlueVersions(theirJob))[0]!.id;
    user = await addUser(api, { appIds: [mine] });
    missingApp = theirs + 1000;
    missingJob = theirJob + 1000;
    missingFire = theirFire + 1000;
  });
  afterAll(async () => {
    await api?.close();
  });

  const as = (method: Method, url: string, body?: unknown) =>
    api.call(method, url, { token: user.token, ...(body === undefined ? {} : { body }) });

  /** The answer with the id written as `{id}`, so two answers about two ids compare. */
  const shape = (res: LightMyRequestResponse, id: number) => ({
    statusCode: res.statusCode,
    body: res.body.replace(new RegExp(`(?<![\\w-])${id}(?![\\w-])`, 'g'), '{id}'),
  });

  /** Another app's `theirId` and a missing `missingId` get the same answer, and nothing changes. */
  async function expectSameAsMissing(
    request: (id: number) => [Method, string, unknown?],
    theirId: number,
    missingId: number,
    status: 400 | 404,
  ): Promise<void> {
    const before = await storedState(api.store);
    const triggers = api.triggers.length;
    const [method, url, body] = request(theirId);
    const forTheirs = await as(method, url, body);
    const [missingMethod, missingUrl, missingBody] = request(missingId);
    const forMissing = await as(missingMethod, missingUrl, missingBody);
    expect(forTheirs.statusCode, `${method} ${url}: ${forTheirs.body}`).toBe(status);
    expect(shape(forTheirs, theirId)).toEqual(shape(forMissing, missingId));
    expect(await storedState(api.store)).toEqual(before);
    expect(api.triggers.length).toBe(triggers);
  }

  it("another app's job answers 404 as a missing job does, in every job operation", async () => {
    const operations: Array<(id: number) => [Method, string, unknown?]> = [
      (id) => ['GET', `/api/v1/jobs/${id}`],
      (id) => ['PATCH', `/api/v1/jobs/${id}`, { name: 'taken over' }],
      (id) => ['DELETE', `/api/v1/jobs/${id}`],
      (id) => ['POST', `/api/v1/jobs/${id}/start`],
      (id) => ['POST', `/api/v1/jobs/${id}/stop`],
      (id) => ['POST', `/api/v1/jobs/${id}/trigger`, { executorParam: 'x' }],
    ];
    for (const operation of operations) await expectSameAsMissing(operation, theirJob, missingJob, 404);
  });

  it("another app's job script and its versions answer 404 as a missing job's do", async () => {
    const operations: Array<(id: number) => [Method, string, unknown?]> = [
      (id) => ['GET', `/api/v1/jobs/${id}/script/versions`],
      (id) => ['PUT', `/api/v1/jobs/${id}/script`, { glueSource: 'rm -rf /', glueRemark: 'x' }],
      (id) => ['POST', `/api/v1/jobs/${id}/script/versions/${theirVersion}/restore`],
    ];
    for (const operation of operations) await expectSameAsMissing(operation, theirJob, missingJob, 404);
    // Their version through the user's own job: as unknown as a version that does not exist.
    await expectSameAsMissing(
      (id) => ['POST', `/api/v1/jobs/${myJob}/script/versions/${id}/restore`],
      theirVersion,
      theirVersion + 1000,
      404,
    );
  });

  it("another app's fire, run log and kill answer 404 as a missing fire's do", async () => {
    const operations: Array<(id: number) => [Method, string, unknown?]> = [
      (id) => ['GET', `/api/v1/fires/${id}`],
      (id) => ['GET', `/api/v1/fires/${id}/log?fromLineNum=1`],
      (id) => ['GET', `/api/v1/fires/${id}/kill-scope`],
      (id) => ['POST', `/api/v1/fires/${id}/kill`],
    ];
    for (const operation of operations) await expectSameAsMissing(operation, theirFire, missingFire, 404);
    expect((await api.store.fires.findFireById(theirFire))?.status).toBe('dispatched');
  });

  it('another app answers 404 as a missing app does, with its executors and handler names', async () => {
    const operations: Array<(id: number) => [Method, string, unknown?]> = [
      (id) => ['GET', `/api/v1/apps/${id}`],
      (id) => ['GET', `/api/v1/apps/${id}/executors`],
      (id) => ['GET', `/api/v1/apps/${id}/handlers`],
    ];
    for (const operation of operations) await expectSameAsMissing(operation, theirs, missingApp, 404);
  });

  it("another app or its job named in a body answers 400 as a missing one does: appId, childJobIds, clearFires' jobId", async () => {
    await expectSameAsMissing(
      (id) => ['POST', '/api/v1/jobs', { appId: id, name: 'planted', executorHandler: 'h' }],
      theirs,
      missingApp,
      400,
    );
    await expectSameAsMissing(
      (id) => ['PATCH', `/api/v1/jobs/${myJob}`, { appId: id }],
      theirs,
      missingApp,
      400,
    );
    await expectSameAsMissing(
      (id) => ['PATCH', `/api/v1/jobs/${myJob}`, { childJobIds: [id] }],
      theirJob,
      missingJob,
      400,
    );
    await expectSameAsMissing(
      (id) => [
        'POST',
        '/api/v1/jobs',
        { appId: mine, name: 'parent', executorHandler: 'h', childJobIds: [id] },
      ],
      theirJob,
      missingJob,
      400,
    );
    await expectSameAsMissing(
      (id) => ['POST', '/api/v1/fires/clear', { jobId: id, keepLast: 0 }],
      theirJob,
      missingJob,
      404,
    );
    // With the user's own app beside it, their job is a job with no records in that app.
    const cleared = await as('POST', '/api/v1/fires/clear', { appId: mine, jobId: theirJob, keepLast: 0 });
    expect(cleared.json()).toEqual({ deleted: 0 });
    expect(await api.store.fires.findFireById(theirFire)).toBeDefined();
  });

  it('an app filter answers 403 for another app and for a missing one alike', async () => {
    for (const url of [
      '/api/v1/jobs?appId={id}',
      '/api/v1/fires?appId={id}',
      '/api/v1/dashboard?appId={id}',
    ]) {
      await expectSameAs403(url.replace('{id}', String(theirs)), url.replace('{id}', String(missingApp)));
    }
    await expectSameAs403Body(
      ['POST', '/api/v1/fires/clear', { appId: theirs, keepLast: 0 }],
      ['POST', '/api/v1/fires/clear', { appId: missingApp, keepLast: 0 }],
    );
  });

  async function expectSameAs403(theirUrl: string, missingUrl: string): Promise<void> {
    await expectSameAs403Body(['GET', theirUrl], ['GET', missingUrl]);
  }

  async function expectSameAs403Body(
    [method, url, body]: [Method, string, unknown?],
    [missingMethod, missingUrl, missingBody]: [Method, string, unknown?],
  ): Promise<void> {
    const forTheirs = await as(method, url, body);
    const forMissing = await as(missingMethod, missingUrl, missingBody);
    expectError(forTheirs, 403, 'TW_ERR_FORBIDDEN');
    expect(shape(forTheirs, theirs)).toEqual(shape(forMissing, missingApp));
  }

  it('what a user may see but not change, and admin-only operations, stay 403 whatever the id', async () => {
    expectError(await as('PATCH', `/api/v1/apps/${mine}`, { title: 'renamed' }), 403, 'TW_ERR_FORBIDDEN');
    expectError(await as('PATCH', `/api/v1/apps/${theirs}`, { title: 'renamed' }), 403, 'TW_ERR_FORBIDDEN');
    expectError(await as('DELETE', `/api/v1/apps/${missingApp}`), 403, 'TW_ERR_FORBIDDEN');
    expectError(await as('GET', `/api/v1/alarm-channels/${missingApp}`), 403, 'TW_ERR_FORBIDDEN');
    expectError(await as('PATCH', `/api/v1/users/${user.id}`, { role: 'ADMIN' }), 403, 'TW_ERR_FORBIDDEN');
    // The user's own things still answer as before.
    expect((await as('GET', `/api/v1/apps/${mine}`)).statusCode).toBe(200);
    expect((await as('GET', `/api/v1/jobs/${myJob}`)).statusCode).toBe(200);
  });

  it('an admin gets every app, job and fire by id', async () => {
    for (const url of [`/api/v1/apps/${theirs}`, `/api/v1/jobs/${theirJob}`, `/api/v1/fires/${theirFire}`]) {
      expect((await api.call('GET', url)).statusCode).toBe(200);
    }
  });
});
