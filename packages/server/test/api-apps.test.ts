import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, createApp, createJob, expectError, startApiServer } from './helpers/api-server.js';
import { DIALECTS } from './helpers/databases.js';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApiServer();
});
afterAll(async () => {
  await api.close();
});

describe('apps', () => {
  it('creates an AUTO app and shows the executors registered under its name as online', async () => {
    const created = await api.call('POST', '/api/v1/apps', {
      body: { appName: 'billing', title: 'Billing' },
    });
    expect(created.statusCode).toBe(201);
    const { accessToken, ...app } = created.json();
    expect(app).toMatchObject({ appName: 'billing', title: 'Billing', addressType: 'AUTO', addressList: [] });
    // Its own executor token, answered this once; a read never shows it.
    expect(app).toMatchObject({ credential: 'app', previousTokenValidUntil: null });
    expect(accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await api.store.registry.heartbeat(
      { group: 'EXECUTOR', key: 'billing', value: 'http://127.0.0.1:9999/' },
      'G2',
      api.clock.now(),
    );
    const read = await api.call('GET', `/api/v1/apps/${app.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({
      ...app,
      onlineAddresses: ['http://127.0.0.1:9999/'],
      onlineExecutors: [{ address: 'http://127.0.0.1:9999/', transport: 'http' }],
    });
  });

  it('does not count an executor whose heartbeat is older than 90 s as online', async () => {
    const id = await createApp(api, { appName: 'stale-app' });
    await api.store.registry.heartbeat(
      { group: 'EXECUTOR', key: 'stale-app', value: 'http://127.0.0.1:9998/' },
      'G2',
      api.clock.now() - 91_000,
    );
    expect((await api.call('GET', `/api/v1/apps/${id}`)).json().onlineAddresses).toEqual([]);
  });

  it('creates a MANUAL app with its http(s) addresses normalised', async () => {
    const res = await api.call('POST', '/api/v1/apps', {
      body: {
        appName: 'manual-app',
        title: 'Manual',
        addressType: 'MANUAL',
        addressList: ['http://10.0.0.5:9999', ' https://exec.example.com:8443/ ', 'http://10.0.0.5:9999/'],
      },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().addressList).toEqual(['http://10.0.0.5:9999/', 'https://exec.example.com:8443/']);
  });

  it('refuses a MANUAL app without addresses, naming addressList', async () => {
    const res = await api.call('POST', '/api/v1/apps', {
      body: { appName: 'no-addresses', title: 'x', addressType: 'MANUAL' },
    });
    expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'addressList');
  });

  it('refuses a manual address that is not an http(s) URL, naming which one', async () => {
    for (const bad of [
      'file:///etc/passwd',
      'not a url',
      'http://user:pw@10.0.0.5:9999/',
      'http://a:1/?x=1',
    ]) {
      const res = await api.call('POST', '/api/v1/apps', {
        body: {
          appName: 'bad-address',
          title: 'x',
          addressType: 'MANUAL',
          addressList: ['http://10.0.0.5:9999/', bad],
        },
      });
      expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'addressList[1]');
    }
    expect(await api.store.apps.findAppByName('bad-address')).toBeUndefined();
  });

  it('refuses addresses on an AUTO app', async () => {
    const res = await api.call('POST', '/api/v1/apps', {
      body: { appName: 'auto-with-list', title: 'x', addressList: ['http://10.0.0.5:9999/'] },
    });
    expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'addressList');
  });

  it('refuses an unknown addressType, listing the allowed values', async () => {
    const res = await api.call('POST', '/api/v1/apps', {
      body: { appName: 'typo', title: 'x', addressType: 'AUTOMATIC' },
    });
    const error = expectError(res, 400, 'TW_ERR_UNKNOWN_ENUM_VALUE', 'addressType');
    expect(error.message).toBe('addressType: must be one of AUTO, MANUAL');
  });

  it('refuses an app name with characters executors cannot register under', async () => {
    const res = await api.call('POST', '/api/v1/apps', { body: { appName: '<script>', title: 'x' } });
    expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'appName');
  });

  it('refuses a second app with the same name with 409', async () => {
    await createApp(api, { appName: 'twice' });
    const res = await api.call('POST', '/api/v1/apps', { body: { appName: 'twice', title: 'again' } });
    expectError(res, 409, 'TW_ERR_CONFLICT', 'appName');
  });

  it('lists apps a page at a time with the total', async () => {
    for (const name of ['list-a', 'list-b', 'list-c']) await createApp(api, { appName: name });
    const res = await api.call('GET', '/api/v1/apps?appName=list-&limit=2&offset=1');
    expect(res.statusCode).toBe(200);
    const page = res.json();
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(page.items.map((a: { appName: string }) => a.appName)).toEqual(['list-b', 'list-c']);
  });

  it('refuses a page size over 200', async () => {
    expectError(await api.call('GET', '/api/v1/apps?limit=500'), 400, 'TW_ERR_INVALID_FIELD', 'limit');
  });

  it('changes the title and switches an app to MANUAL addresses', async () => {
    const id = await createApp(api, { appName: 'switching' });
    const res = await api.call('PATCH', `/api/v1/apps/${id}`, {
      body: { title: 'Renamed', addressType: 'MANUAL', addressList: ['http://10.0.0.7:9999/'] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      title: 'Renamed',
      addressType: 'MANUAL',
      addressList: ['http://10.0.0.7:9999/'],
    });
    const back = await api.call('PATCH', `/api/v1/apps/${id}`, { body: { addressType: 'AUTO' } });
    expect(back.json()).toMatchObject({ addressType: 'AUTO', addressList: [] });
  });

  it('refuses to change the app name (executors register under it)', async () => {
    const id = await createApp(api);
    expectError(
      await api.call('PATCH', `/api/v1/apps/${id}`, { body: { appName: 'other' } }),
      400,
      'TW_ERR_INVALID_FIELD',
      'appName',
    );
  });

  it('answers 404 for an app that does not exist', async () => {
    expectError(await api.call('GET', '/api/v1/apps/999999'), 404, 'TW_ERR_UNKNOWN_APP');
    expectError(
      await api.call('PATCH', '/api/v1/apps/999999', { body: { title: 'x' } }),
      404,
      'TW_ERR_UNKNOWN_APP',
    );
    expectError(await api.call('DELETE', '/api/v1/apps/999999'), 404, 'TW_ERR_UNKNOWN_APP');
  });

  it('deletes an app no job uses', async () => {
    const id = await createApp(api);
    expect((await api.call('DELETE', `/api/v1/apps/${id}`)).statusCode).toBe(204);
    expectError(await api.call('GET', `/api/v1/apps/${id}`), 404, 'TW_ERR_UNKNOWN_APP');
  });

  it('refuses with 409 to delete an app a job uses, and keeps it', async () => {
    const id = await createApp(api);
    await createJob(api, id);
    const res = await api.call('DELETE', `/api/v1/apps/${id}`);
    expectError(res, 409, 'TW_ERR_CONFLICT');
    expect(res.json().error.message).toContain('used by 1 job');
    expect((await api.call('GET', `/api/v1/apps/${id}`)).statusCode).toBe(200);
  });
});

describe.each(DIALECTS)("an app's origin on %s", (dialect) => {
  let harness: ApiHarness;
  const ORIGIN = 'xxl-job mysql://db:3306/xxl_job group 3';
  beforeAll(async () => {
    harness = await startApiServer(dialect);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('is null for an app made here', async () => {
    const id = await createApp(harness);
    expect((await harness.call('GET', `/api/v1/apps/${id}`)).json().origin).toBeNull();
  });

  it('round-trips on create, get, list and update, and null clears it', async () => {
    const created = await harness.call('POST', '/api/v1/apps', {
      body: { appName: 'imported-app', title: 'Imported', origin: ORIGIN },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id;
    expect(created.json().origin).toBe(ORIGIN);
    expect((await harness.call('GET', `/api/v1/apps/${id}`)).json().origin).toBe(ORIGIN);
    const listed = (await harness.call('GET', '/api/v1/apps?appName=imported-app')).json();
    expect(listed.items).toHaveLength(1);
    expect(listed.items[0].origin).toBe(ORIGIN);

    const other = 'xxl-job mysql://db:3306/xxl_job group 4';
    const changed = await harness.call('PATCH', `/api/v1/apps/${id}`, { body: { origin: other } });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().origin).toBe(other);
    const retitled = await harness.call('PATCH', `/api/v1/apps/${id}`, { body: { title: 'Renamed' } });
    expect(retitled.json()).toMatchObject({ title: 'Renamed', origin: other });
    const cleared = await harness.call('PATCH', `/api/v1/apps/${id}`, { body: { origin: null } });
    expect(cleared.json().origin).toBeNull();
    expect((await harness.store.apps.findAppById(id))?.origin).toBeNull();
  });

  it('refuses an origin over 255 characters, naming origin, and changes nothing', async () => {
    expectError(
      await harness.call('POST', '/api/v1/apps', {
        body: { appName: 'too-long-origin', title: 'x', origin: 'x'.repeat(256) },
      }),
      400,
      'TW_ERR_INVALID_FIELD',
      'origin',
    );
    expect(await harness.store.apps.findAppByName('too-long-origin')).toBeUndefined();
    const id = await createApp(harness, { origin: ORIGIN });
    expectError(
      await harness.call('PATCH', `/api/v1/apps/${id}`, { body: { origin: 'y'.repeat(256) } }),
      400,
      'TW_ERR_INVALID_FIELD',
      'origin',
    );
    expect((await harness.call('GET', `/api/v1/apps/${id}`)).json().origin).toBe(ORIGIN);
  });
});
