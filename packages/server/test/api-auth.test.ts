import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiToken } from '../src/security/api-tokens.js';
import { hashPassword } from '../src/security/passwords.js';
import {
  ADMIN_PASSWORD,
  type ApiHarness,
  createApp,
  createJob,
  expectError,
  login,
  startApiServer,
} from './helpers/api-server.js';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApiServer();
});
afterAll(async () => {
  await api.close();
});

/** One request per operation but login, with a plausible shape (ids need not exist: auth comes first). */
const OPERATIONS: Array<[string, 'GET' | 'POST' | 'PATCH' | 'DELETE', string]> = [
  ['listApps', 'GET', '/api/v1/apps'],
  ['getApp', 'GET', '/api/v1/apps/1'],
  ['createApp', 'POST', '/api/v1/apps'],
  ['updateApp', 'PATCH', '/api/v1/apps/1'],
  ['deleteApp', 'DELETE', '/api/v1/apps/1'],
  ['listJobs', 'GET', '/api/v1/jobs'],
  ['getJob', 'GET', '/api/v1/jobs/1'],
  ['createJob', 'POST', '/api/v1/jobs'],
  ['updateJob', 'PATCH', '/api/v1/jobs/1'],
  ['deleteJob', 'DELETE', '/api/v1/jobs/1'],
  ['startJob', 'POST', '/api/v1/jobs/1/start'],
  ['stopJob', 'POST', '/api/v1/jobs/1/stop'],
  ['triggerJob', 'POST', '/api/v1/jobs/1/trigger'],
  ['previewSchedule', 'GET', '/api/v1/schedules/preview?scheduleType=NONE'],
  ['listFires', 'GET', '/api/v1/fires'],
  ['getFire', 'GET', '/api/v1/fires/1'],
  ['getFireLog', 'GET', '/api/v1/fires/1/log'],
  ['killFire', 'POST', '/api/v1/fires/1/kill'],
  ['createApiToken', 'POST', '/api/v1/tokens'],
  ['getDashboard', 'GET', '/api/v1/dashboard'],
  ['openapi.json', 'GET', '/api/v1/openapi.json'],
  ['metrics', 'GET', '/metrics'],
];

describe('bearer tokens', () => {
  it.each(OPERATIONS)('%s answers 401 without credentials', async (_name, method, url) => {
    expectError(await api.call(method, url, { token: null, body: {} }), 401, 'TW_ERR_UNAUTHENTICATED');
  });

  it.each(OPERATIONS)('%s answers 401 with a wrong bearer token', async (_name, method, url) => {
    expectError(await api.call(method, url, { token: 'tw_wrong', body: {} }), 401, 'TW_ERR_UNAUTHENTICATED');
  });

  it('answers 401 for an Authorization header that is not Bearer', async () => {
    const res = await api.call('GET', '/api/v1/apps', {
      token: null,
      headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}` },
    });
    expectError(res, 401, 'TW_ERR_UNAUTHENTICATED');
  });

  it('needs no CSRF token for a state-changing bearer request', async () => {
    expect(
      (await api.call('POST', '/api/v1/apps', { body: { appName: 'bearer-app', title: 'x' } })).statusCode,
    ).toBe(201);
  });

  it('creates a token that works at once, shown once and stored only as its hash', async () => {
    const res = await api.call('POST', '/api/v1/tokens', { body: { name: 'ci' } });
    expect(res.statusCode).toBe(201);
    const { token, name, id } = res.json();
    expect(name).toBe('ci');
    expect(token).toMatch(/^tw_[A-Za-z0-9_-]{43}$/);
    expect((await api.call('GET', '/api/v1/dashboard', { token })).statusCode).toBe(200);
    const stored = await api.store.users.findApiTokenByHash(hashApiToken(token));
    expect(stored?.id).toBe(id);
    expect(JSON.stringify(await api.database.query('SELECT * FROM api_token'))).not.toContain(token);
  });

  it('refuses a token without a name', async () => {
    expectError(await api.call('POST', '/api/v1/tokens', { body: {} }), 400, 'TW_ERR_MISSING_FIELD', 'name');
  });

  it('stops accepting a token once it is deleted', async () => {
    const { token, id } = (
      await api.call('POST', '/api/v1/tokens', { body: { name: 'short-lived' } })
    ).json();
    await api.store.users.deleteApiToken(id);
    expectError(await api.call('GET', '/api/v1/apps', { token }), 401, 'TW_ERR_UNAUTHENTICATED');
  });
});

describe('console sessions', () => {
  it('signs in with an httpOnly, SameSite=Strict cookie and a CSRF token', async () => {
    const res = await api.call('POST', '/api/v1/login', {
      token: null,
      body: { username: 'admin', password: ADMIN_PASSWORD },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      user: { username: 'admin', role: 'ADMIN' },
      csrfToken: expect.any(String),
    });
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^tw_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/');
  });

  it('refuses a wrong password and an unknown user alike', async () => {
    for (const body of [
      { username: 'admin', password: 'wrong password' },
      { username: 'nobody', password: ADMIN_PASSWORD },
    ]) {
      const res = await api.call('POST', '/api/v1/login', { token: null, body });
      expect(expectError(res, 401, 'TW_ERR_LOGIN_FAILED').message).toBe('wrong username or password');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('refuses a login without a password, naming it', async () => {
    const res = await api.call('POST', '/api/v1/login', { token: null, body: { username: 'admin' } });
    expectError(res, 400, 'TW_ERR_MISSING_FIELD', 'password');
  });

  it('reads with the session cookie alone', async () => {
    const { cookie } = await login(api);
    expect((await api.call('GET', '/api/v1/apps', { token: null, headers: { cookie } })).statusCode).toBe(
      200,
    );
  });

  it('refuses a state-changing session request without the CSRF token, or with a wrong one', async () => {
    const { cookie } = await login(api);
    const without = await api.call('POST', '/api/v1/apps', {
      token: null,
      headers: { cookie },
      body: { appName: 'csrf-app', title: 'x' },
    });
    expectError(without, 403, 'TW_ERR_CSRF');
    const wrong = await api.call('POST', '/api/v1/apps', {
      token: null,
      headers: { cookie, 'x-csrf-token': 'not-the-token' },
      body: { appName: 'csrf-app', title: 'x' },
    });
    expectError(wrong, 403, 'TW_ERR_CSRF');
    expect(await api.store.apps.findAppByName('csrf-app')).toBeUndefined();
  });

  it("accepts a state-changing session request with the session's CSRF token", async () => {
    const { cookie, csrfToken } = await login(api);
    const res = await api.call('POST', '/api/v1/apps', {
      token: null,
      headers: { cookie, 'x-csrf-token': csrfToken },
      body: { appName: 'csrf-ok', title: 'x' },
    });
    expect(res.statusCode).toBe(201);
  });

  it("refuses another session's CSRF token", async () => {
    const first = await login(api);
    const second = await login(api);
    const res = await api.call('DELETE', '/api/v1/apps/1', {
      token: null,
      headers: { cookie: first.cookie, 'x-csrf-token': second.csrfToken },
    });
    expectError(res, 403, 'TW_ERR_CSRF');
  });

  it('refuses an unknown session id, and a session past its lifetime', async () => {
    const unknown = await api.call('GET', '/api/v1/apps', {
      token: null,
      headers: { cookie: 'tw_session=forged' },
    });
    expectError(unknown, 401, 'TW_ERR_UNAUTHENTICATED');
    const { cookie } = await login(api);
    const now = api.clock.now();
    api.clock.set(now + 12 * 60 * 60 * 1000 + 1);
    try {
      expectError(
        await api.call('GET', '/api/v1/apps', { token: null, headers: { cookie } }),
        401,
        'TW_ERR_UNAUTHENTICATED',
      );
    } finally {
      api.clock.set(now);
    }
  });
});

describe('roles', () => {
  async function userToken(appIds: number[]): Promise<string> {
    const user = await api.store.users.createUser(
      {
        username: `user-${Math.random().toString(36).slice(2, 8)}`,
        passwordHash: await hashPassword('user password'),
        role: 'user',
        appPermissions: appIds.join(','),
      },
      api.clock.now(),
    );
    const token = `tw_user-token-${Math.random().toString(36).slice(2)}-padding`;
    await api.store.users.createApiToken(
      { name: 'user', tokenHash: hashApiToken(token), userId: user.id },
      api.clock.now(),
    );
    return token;
  }

  it('lets a user see only the apps, jobs and fires of their apps', async () => {
    const mine = await createApp(api, { appName: 'users-own-app' });
    const theirs = await createApp(api, { appName: 'someone-elses-app' });
    const myJob = await createJob(api, mine);
    const theirJob = await createJob(api, theirs);
    const token = await userToken([mine]);
    const apps = (await api.call('GET', '/api/v1/apps', { token })).json();
    expect(apps.items.map((a: { id: number }) => a.id)).toEqual([mine]);
    expect((await api.call('GET', `/api/v1/apps/${mine}`, { token })).statusCode).toBe(200);
    expectError(await api.call('GET', `/api/v1/apps/${theirs}`, { token }), 404, 'TW_ERR_UNKNOWN_APP');
    expect((await api.call('GET', `/api/v1/jobs/${myJob.id}`, { token })).statusCode).toBe(200);
    expectError(await api.call('GET', `/api/v1/jobs/${theirJob.id}`, { token }), 404, 'TW_ERR_UNKNOWN_JOB');
    expectError(
      await api.call('POST', `/api/v1/jobs/${theirJob.id}/trigger`, { token }),
      404,
      'TW_ERR_UNKNOWN_JOB',
    );
    const jobs = (await api.call('GET', '/api/v1/jobs', { token })).json();
    expect(jobs.items.map((j: { id: number }) => j.id)).toEqual([myJob.id]);
    expectError(
      await api.call('POST', '/api/v1/jobs', {
        token,
        body: { appId: theirs, name: 'x', executorHandler: 'h' },
      }),
      400,
      'TW_ERR_UNKNOWN_APP',
      'appId',
    );
  });

  it('leaves creating, changing and deleting apps to admins', async () => {
    const mine = await createApp(api);
    const token = await userToken([mine]);
    expectError(
      await api.call('POST', '/api/v1/apps', { token, body: { appName: 'by-user', title: 'x' } }),
      403,
      'TW_ERR_FORBIDDEN',
    );
    expectError(
      await api.call('PATCH', `/api/v1/apps/${mine}`, { token, body: { title: 'x' } }),
      403,
      'TW_ERR_FORBIDDEN',
    );
    expectError(await api.call('DELETE', `/api/v1/apps/${mine}`, { token }), 403, 'TW_ERR_FORBIDDEN');
  });

  it("lists the jobs of all of a user's apps when no appId is given", async () => {
    const first = await createApp(api);
    const second = await createApp(api);
    const jobs = [(await createJob(api, first)).id, (await createJob(api, second)).id];
    await createJob(api, await createApp(api));
    const token = await userToken([first, second]);
    const listed = (await api.call('GET', '/api/v1/jobs', { token })).json();
    expect(listed.items.map((j: { id: number }) => j.id).sort()).toEqual(jobs.sort());
    expect(listed.total).toBe(2);
  });
});

describe('a real listening socket', () => {
  it('signs in, sends the cookie and CSRF token, and creates an app over HTTP on loopback', async () => {
    const address = await api.app.listen({ host: '127.0.0.1', port: 0 });
    const signIn = await fetch(`${address}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const { csrfToken } = (await signIn.json()) as { csrfToken: string };
    const created = await fetch(`${address}/api/v1/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', cookie, 'x-csrf-token': csrfToken },
      body: JSON.stringify({ appName: 'over-http', title: 'Over HTTP' }),
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ appName: 'over-http' });
    const anonymous = await fetch(`${address}/api/v1/apps`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toContain('application/json');
  });
});
