/**
 * Script versions over the REST API on every database: `updateJobScript` saves the job's script
 * with a remark and a version (the last 30 kept), `listScriptVersions` lists them newest first,
 * `restoreScriptVersion` makes an old one current again; each save moves `glueUpdatedAt`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiToken } from '../src/security/api-tokens.js';
import { type ApiHarness, createApp, createJob, startApiServer } from './helpers/api-server.js';
import { DIALECTS } from './helpers/databases.js';

const OPERATIONS = ['listScriptVersions', 'updateJobScript', 'restoreScriptVersion'];

describe.each(DIALECTS)('script versions over REST on %s', (dialect) => {
  let api: ApiHarness;
  let appId: number;
  let otherApp: number;
  let userToken: string;
  beforeAll(async () => {
    api = await startApiServer(dialect);
    appId = await createApp(api);
    otherApp = await createApp(api);
    const user = await api.store.users.createUser(
      {
        username: `script-user-${dialect}`,
        passwordHash: 'unused',
        role: 'user',
        appPermissions: String(otherApp),
      },
      Date.now(),
    );
    userToken = `tw_script-user-${dialect}-0123456789`;
    await api.store.users.createApiToken(
      { name: 's', tokenHash: hashApiToken(userToken), userId: user.id },
      Date.now(),
    );
  });
  afterAll(async () => {
    await api.close();
  });

  const shellJob = () =>
    createJob(api, appId, {
      glueType: 'GLUE_SHELL',
      glueSource: 'echo v1',
      glueRemark: 'first',
      executorHandler: '',
    });

  it('lists its operations in the OpenAPI document', async () => {
    const doc = (await api.call('GET', '/api/v1/openapi.json')).json();
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap(
      (path) => Object.values(path).map((operation) => operation.operationId),
    );
    for (const id of OPERATIONS) expect(ids.filter((found) => found === id)).toHaveLength(1);
  });

  it('saves an edit as the current script and a version, and moves glueUpdatedAt', async () => {
    const job = await shellJob();
    api.clock.set(Date.now() + 5_000);
    const res = await api.call('PUT', `/api/v1/jobs/${job.id}/script`, {
      body: { glueSource: 'echo v2', glueRemark: 'print v2' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      glueType: 'GLUE_SHELL',
      glueSource: 'echo v2',
      glueRemark: 'print v2',
    });
    expect(res.json().glueUpdatedAt).toBeGreaterThan(job.glueUpdatedAt as number);
    const versions = (await api.call('GET', `/api/v1/jobs/${job.id}/script/versions`)).json().items;
    expect(
      versions.map((v: { glueSource: string; glueRemark: string }) => [v.glueSource, v.glueRemark]),
    ).toEqual([
      ['echo v2', 'print v2'],
      ['echo v1', 'first'],
    ]);
  });

  it('restores an old version as the newest one, saying which', async () => {
    const job = await shellJob();
    await api.call('PUT', `/api/v1/jobs/${job.id}/script`, {
      body: { glueSource: 'echo v2', glueRemark: 'v2' },
    });
    const [, first] = (await api.call('GET', `/api/v1/jobs/${job.id}/script/versions`)).json().items;
    api.clock.set(Date.now() + 10_000);
    const res = await api.call('POST', `/api/v1/jobs/${job.id}/script/versions/${first.id}/restore`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      glueSource: 'echo v1',
      glueRemark: `restored version ${first.id}: first`,
    });
    const versions = (await api.call('GET', `/api/v1/jobs/${job.id}/script/versions`)).json().items;
    expect(versions.map((v: { glueSource: string }) => v.glueSource)).toEqual([
      'echo v1',
      'echo v2',
      'echo v1',
    ]);
  });

  it('keeps the 30 newest versions', async () => {
    const job = await shellJob();
    for (let i = 2; i <= 32; i++) {
      const res = await api.call('PUT', `/api/v1/jobs/${job.id}/script`, {
        body: { glueSource: `echo v${i}`, glueRemark: `v${i}` },
      });
      expect(res.statusCode).toBe(200);
    }
    const versions = (await api.call('GET', `/api/v1/jobs/${job.id}/script/versions`)).json().items;
    expect(versions).toHaveLength(30);
    expect(versions[0].glueSource).toBe('echo v32');
    expect(versions.at(-1).glueSource).toBe('echo v3');
  });

  it("does not restore another job's version", async () => {
    const job = await shellJob();
    const other = await shellJob();
    const [otherVersion] = (await api.call('GET', `/api/v1/jobs/${other.id}/script/versions`)).json().items;
    const res = await api.call('POST', `/api/v1/jobs/${job.id}/script/versions/${otherVersion.id}/restore`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('TW_ERR_NOT_FOUND');
  });

  it('asks a BEAN job for the script type, and then makes it a script job', async () => {
    const bean = await createJob(api, appId, { executorHandler: 'bean' });
    const refused = await api.call('PUT', `/api/v1/jobs/${bean.id}/script`, {
      body: { glueSource: 'echo hi', glueRemark: 'to script' },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.field).toBe('glueType');
    const saved = await api.call('PUT', `/api/v1/jobs/${bean.id}/script`, {
      body: { glueType: 'GLUE_PYTHON', glueSource: 'print("hi")', glueRemark: 'to script' },
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().glueType).toBe('GLUE_PYTHON');
  });

  it('needs a remark', async () => {
    const job = await shellJob();
    const res = await api.call('PUT', `/api/v1/jobs/${job.id}/script`, { body: { glueSource: 'echo' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.field).toBe('glueRemark');
  });

  it("refuses a user the scripts of another app's job, in every operation", async () => {
    const job = await shellJob();
    const [version] = (await api.call('GET', `/api/v1/jobs/${job.id}/script/versions`)).json().items;
    const calls = [
      api.call('GET', `/api/v1/jobs/${job.id}/script/versions`, { token: userToken }),
      api.call('PUT', `/api/v1/jobs/${job.id}/script`, {
        token: userToken,
        body: { glueSource: 'rm -rf /', glueRemark: 'evil' },
      }),
      api.call('POST', `/api/v1/jobs/${job.id}/script/versions/${version.id}/restore`, { token: userToken }),
    ];
    for (const res of await Promise.all(calls)) expect(res.statusCode).toBe(404);
    expect((await api.store.jobs.findJobById(job.id))!.glue_source).toBe('echo v1');
  });
});
