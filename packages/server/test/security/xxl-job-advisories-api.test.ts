/**
 * XXL-JOB advisory classes about the admin's web API, tried on a real server over HTTP with a
 * signed-in admin, and a USER with permission on one app of two:
 *
 * - CSRF on user creation (XXL-JOB's user/add took a form post from any site);
 * - user data and password hashes disclosed (its user list answered the hashes);
 * - stored XSS through user and job fields;
 * - a low-privilege user calling admin functions;
 * - lateral access to other groups' jobs and logs;
 * - child job ids triggering another group's jobs.
 *
 * Covered elsewhere and not repeated: the CSRF token per operation on injected requests
 * (api-auth.test.ts, api-users.test.ts), another app's ids answering as missing ones in every
 * operation on every dialect (hidden-ids.test.ts, api-permissions.test.ts), a USER refused user
 * and app operations one by one (api-users.test.ts, api-auth.test.ts, api-app-tokens.test.ts,
 * api-audit.test.ts), masked alarm secrets (api-alarm-channels.test.ts), and the console showing
 * a run log's markup as text in Chromium (packages/console/test/fires.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { fetch, type Response } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2eServer, startServer } from '../helpers/e2e.js';
import {
  callApiOk,
  callHttp,
  type HttpCallOptions,
  type HttpSession,
  signInHttp,
} from '../helpers/http-api.js';
import { storedState } from '../helpers/stored-state.js';

const ADMIN_PASSWORD = 'advisories-admin-password';
const ADMIN_TOKEN = `tw_${randomBytes(32).toString('base64url')}`;
const INSTALLATION_TOKEN = randomBytes(32).toString('base64url');
const USER_PASSWORD = 'advisories-user-password';
const WEBHOOK_SECRET = `hook-secret-${randomBytes(16).toString('hex')}`;
const SMTP_PASSWORD = `smtp-password-${randomBytes(16).toString('hex')}`;
const CROSS_SITE = {
  origin: 'https://evil.example',
  'sec-fetch-site': 'cross-site',
  referer: 'https://evil.example/',
};

/** Markup a browser would run if any of it were ever served or inserted as HTML. */
const MARKUP = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
/** The same within 64 characters, for the shorter fields. */
const SHORT_MARKUP = '<img src=x onerror="window.__pwned=3">';

let started: E2eServer;
let url: string;
/** App A: the USER's. App B: not theirs. */
const apps = { a: { id: 0, token: '' }, b: { id: 0, token: '' } };
const jobs = { a: 0, b: 0 };
let user: { id: number; username: string; token: string; session: HttpSession };
let adminSession: HttpSession;
let channelId: number;

const asAdmin = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
  callApiOk<T>(url, method, path, { token: ADMIN_TOKEN, ...(body === undefined ? {} : { body }) });

const call = (method: string, path: string, options: HttpCallOptions = {}) =>
  callHttp(url, method, path, options);

beforeAll(async () => {
  started = await startServer({
    accessToken: INSTALLATION_TOKEN,
    apiToken: ADMIN_TOKEN,
    adminPassword: ADMIN_PASSWORD,
  });
  url = started.server.url;
  for (const key of ['a', 'b'] as const) {
    const app = await asAdmin<{ id: number; accessToken: string }>('POST', '/api/v1/apps', {
      appName: `advisory-app-${key}`,
      title: `App ${key}`,
    });
    apps[key] = { id: app.id, token: app.accessToken };
    jobs[key] = (
      await asAdmin<{ id: number }>('POST', '/api/v1/jobs', {
        appId: app.id,
        name: `job of ${key}`,
        executorHandler: 'h',
      })
    ).id;
  }
  const created = await asAdmin<{ id: number }>('POST', '/api/v1/users', {
    username: 'advisory-user',
    password: USER_PASSWORD,
    role: 'USER',
    appIds: [apps.a.id],
  });
  const session = await signInHttp(url, 'advisory-user', USER_PASSWORD);
  const minted = await callApiOk<{ token: string }>(url, 'POST', '/api/v1/tokens', {
    session,
    body: { name: 'own' },
  });
  user = { id: created.id, username: 'advisory-user', token: minted.token, session };
  adminSession = await signInHttp(url, 'admin', ADMIN_PASSWORD);
  channelId = (
    await asAdmin<{ id: number }>('POST', '/api/v1/alarm-channels', {
      name: 'ops-hook',
      type: 'WEBHOOK',
      config: { url: 'http://127.0.0.1:9/alarms', secret: WEBHOOK_SECRET },
    })
  ).id;
  await asAdmin('POST', '/api/v1/alarm-channels', {
    name: 'ops-mail',
    type: 'EMAIL',
    config: {
      host: '127.0.0.1',
      port: 25,
      security: 'NONE',
      username: 'alarms',
      password: SMTP_PASSWORD,
      from: 'tickwheel@example.org',
    },
  });
}, 30_000);

afterAll(async () => {
  await started?.close();
});

async function userNamed(username: string) {
  return started.store.users.findUserByName(username);
}

describe('CSRF on user creation', () => {
  /** A createUser post a page on another site can make the admin's browser send, cookie included. */
  function crossSitePost(contentType: string, body: string): Promise<Response> {
    return fetch(new URL('api/v1/users', url), {
      method: 'POST',
      headers: { cookie: adminSession.cookie, 'content-type': contentType, ...CROSS_SITE },
      body,
    });
  }

  it('a signed-in admin session without the CSRF header creates no user, whether the body is JSON, a form or text/plain, from another site or not', async () => {
    const attempts: Array<[string, () => Promise<Response>]> = [
      [
        'JSON without the header',
        () =>
          call('POST', '/api/v1/users', {
            headers: { cookie: adminSession.cookie },
            body: { username: 'csrf-json', password: 'planted-password', role: 'ADMIN' },
          }),
      ],
      [
        'JSON from another site',
        () =>
          call('POST', '/api/v1/users', {
            headers: { cookie: adminSession.cookie, ...CROSS_SITE },
            body: { username: 'csrf-cross-site', password: 'planted-password', role: 'ADMIN' },
          }),
      ],
      [
        'JSON with a wrong CSRF token',
        () =>
          call('POST', '/api/v1/users', {
            headers: { cookie: adminSession.cookie, 'x-csrf-token': randomBytes(32).toString('base64url') },
            body: { username: 'csrf-wrong', password: 'planted-password', role: 'ADMIN' },
          }),
      ],
      [
        'an HTML form post',
        () =>
          crossSitePost(
            'application/x-www-form-urlencoded',
            'username=csrf-form&password=planted-password&role=ADMIN',
          ),
      ],
      [
        'JSON sent as text/plain (no preflight)',
        () =>
          crossSitePost(
            'text/plain',
            JSON.stringify({ username: 'csrf-text', password: 'planted-password', role: 'ADMIN' }),
          ),
      ],
    ];
    for (const [what, attempt] of attempts) {
      const res = await attempt();
      expect(res.status, what).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code, what).toBe('TW_ERR_CSRF');
    }
    for (const username of ['csrf-json', 'csrf-cross-site', 'csrf-wrong', 'csrf-form', 'csrf-text']) {
      expect(await userNamed(username), username).toBeUndefined();
    }
    // The console's own request, with the session's CSRF token, does create the user.
    const res = await call('POST', '/api/v1/users', {
      session: adminSession,
      body: { username: 'csrf-ok', password: 'planted-password' },
    });
    expect(res.status).toBe(201);
    expect(await userNamed('csrf-ok')).toBeDefined();
  });

  it("no other origin may read the session's CSRF token: the API allows no cross-origin read or preflight", async () => {
    const me = await call('GET', '/api/v1/me', { headers: { cookie: adminSession.cookie, ...CROSS_SITE } });
    expect(me.headers.get('access-control-allow-origin')).toBeNull();
    expect(me.headers.get('access-control-allow-credentials')).toBeNull();
    const preflight = await call('OPTIONS', '/api/v1/users', {
      headers: {
        ...CROSS_SITE,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-csrf-token',
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-headers')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
  });
});

describe('user data and password hashes disclosed', () => {
  /** Every secret the server holds or was given, and the stored hashes of the passwords. */
  async function secrets(): Promise<Map<string, string>> {
    const found = new Map<string, string>([
      ['the admin password', ADMIN_PASSWORD],
      ["the user's password", USER_PASSWORD],
      ["the admin's API token", ADMIN_TOKEN],
      ["the user's API token", user.token],
      ['the installation executor token', INSTALLATION_TOKEN],
      ["app A's executor token", apps.a.token],
      ["app B's executor token", apps.b.token],
      ["the admin's session id", adminSession.cookie.split('=')[1]!],
      ["the user's session id", user.session.cookie.split('=')[1]!],
      ["a webhook channel's secret", WEBHOOK_SECRET],
      ["an e-mail channel's SMTP password", SMTP_PASSWORD],
    ]);
    for (const name of ['admin', user.username]) {
      const row = await userNamed(name);
      found.set(`the password hash of ${name}`, row!.password_hash);
      // Each part of the hash (`scrypt$N$r$p$salt$key`) that is secret on its own.
      for (const [i, part] of row!.password_hash.split('$').slice(4).entries()) {
        found.set(`part ${i + 4} of ${name}'s hash`, part);
      }
    }
    return found;
  }

  function expectNothingSecret(what: string, body: string, known: Map<string, string>): void {
    expect(body, what).not.toMatch(/scrypt|password_?hash|token_?hash|access_?token|csrf_token/i);
    for (const [name, value] of known) expect(body.includes(value), `${what} shows ${name}`).toBe(false);
  }

  it('no answer to an admin shows a password, a password hash, a session or any token: users, me, audit, apps, jobs, fires, alarm channels, tokens', async () => {
    // Writes that handle secrets first, so the audit trail has their entries.
    const changed = await call('PATCH', `/api/v1/users/${user.id}`, {
      token: ADMIN_TOKEN,
      body: { appIds: [apps.a.id] },
    });
    const reads = [
      '/api/v1/users',
      '/api/v1/me',
      '/api/v1/audit?limit=100',
      '/api/v1/apps',
      `/api/v1/apps/${apps.a.id}`,
      `/api/v1/apps/${apps.b.id}`,
      `/api/v1/apps/${apps.a.id}/executors`,
      '/api/v1/jobs',
      `/api/v1/jobs/${jobs.a}`,
      '/api/v1/fires',
      '/api/v1/dashboard',
      '/api/v1/alarm-channels',
      `/api/v1/alarm-channels/${channelId}`,
      '/api/v1/tokens',
      '/api/v1/settings/retention',
    ];
    const known = await secrets();
    expectNothingSecret('updateUser', await changed.text(), known);
    for (const path of reads) {
      const res = await call('GET', path, { token: ADMIN_TOKEN });
      expect(res.status, path).toBe(200);
      expectNothingSecret(path, await res.text(), known);
    }
    // The audit trail did record the user and token operations it must not spell out.
    const audit = await asAdmin<{ items: Array<{ targetType: string }> }>('GET', '/api/v1/audit?limit=100');
    expect(audit.items.map((entry) => entry.targetType)).toEqual(
      expect.arrayContaining(['USER', 'API_TOKEN', 'APP', 'ALARM_CHANNEL']),
    );
  });

  it("the user's own answers show none either: getCurrentUser, their token list, their apps and jobs", async () => {
    const known = await secrets();
    for (const path of ['/api/v1/me', '/api/v1/tokens', '/api/v1/apps', '/api/v1/jobs']) {
      const res = await call('GET', path, { token: user.token });
      expect(res.status, path).toBe(200);
      expectNothingSecret(path, await res.text(), known);
    }
    // By session, getCurrentUser answers that session's own CSRF token and nothing more.
    const me = await call('GET', '/api/v1/me', { session: user.session });
    const body = (await me.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual([
      'appIds',
      'createdAt',
      'csrfToken',
      'id',
      'mustChangePassword',
      'role',
      'updatedAt',
      'username',
    ]);
    expect(body.csrfToken).toBe(user.session.csrfToken);
  });

  it("only createApp and rotateAppToken answer an executor token, each its own app's, once", async () => {
    const created = await asAdmin<{ id: number; accessToken: string }>('POST', '/api/v1/apps', {
      appName: 'advisory-rotated',
      title: 'rotated',
    });
    const rotated = await asAdmin<{ accessToken: string }>(
      'POST',
      `/api/v1/apps/${created.id}/rotate-token`,
      {},
    );
    expect(created.accessToken).toHaveLength(43);
    expect(rotated.accessToken).not.toBe(created.accessToken);
    const known = await secrets();
    known.set("the rotated app's first token", created.accessToken);
    known.set("the rotated app's new token", rotated.accessToken);
    for (const path of ['/api/v1/apps', `/api/v1/apps/${created.id}`, '/api/v1/audit?limit=100']) {
      expectNothingSecret(path, await (await call('GET', path, { token: ADMIN_TOKEN })).text(), known);
    }
  });
});

describe('stored XSS through user and job fields', () => {
  it('markup in a job name, param and author, an app title and an alarm channel name is stored as written and answered only as JSON, nosniff, under a policy that runs nothing', async () => {
    const app = await asAdmin<{ id: number }>('POST', '/api/v1/apps', {
      appName: 'advisory-xss',
      title: MARKUP,
    });
    const job = await asAdmin<{ id: number }>('POST', '/api/v1/jobs', {
      appId: app.id,
      name: MARKUP,
      author: SHORT_MARKUP,
      executorHandler: 'h',
      executorParam: MARKUP,
    });
    const channel = await asAdmin<{ id: number }>('POST', '/api/v1/alarm-channels', {
      name: SHORT_MARKUP,
      type: 'WEBHOOK',
      config: { url: 'http://127.0.0.1:9/alarms' },
    });
    const answers: Array<[string, Record<string, string>]> = [
      [`/api/v1/apps/${app.id}`, { title: MARKUP }],
      [`/api/v1/jobs/${job.id}`, { name: MARKUP, executorParam: MARKUP, author: SHORT_MARKUP }],
      [`/api/v1/alarm-channels/${channel.id}`, { name: SHORT_MARKUP }],
    ];
    for (const [path, stored] of answers) {
      const res = await call('GET', path, { token: ADMIN_TOKEN });
      expectJsonOnly(path, res);
      // Stored and answered exactly as typed (not escaped, not stripped): the console shows it as text.
      expect(await res.json(), path).toMatchObject(stored);
    }
    const listed = await call('GET', `/api/v1/jobs?appId=${app.id}`, { token: ADMIN_TOKEN });
    expectJsonOnly('listJobs', listed);
    expect(((await listed.json()) as { items: Array<{ name: string }> }).items.map((j) => j.name)).toEqual([
      MARKUP,
    ]);
  });

  it('a username with markup is refused, naming username, and nobody is stored', async () => {
    for (const username of [
      '<script>alert(1)</script>',
      'a"><img src=x onerror=alert(1)>',
      "x' onmouseover='1",
    ]) {
      const res = await call('POST', '/api/v1/users', {
        token: ADMIN_TOKEN,
        body: { username, password: 'long enough password' },
      });
      expectJsonOnly(username, res);
      expect(res.status, username).toBe(400);
      expect(((await res.json()) as { error: { field: string } }).error.field).toBe('username');
      expect(await userNamed(username)).toBeUndefined();
    }
  });

  it('markup sent in a path or a refused value comes back inside a JSON error, never as a page', async () => {
    const refusals = [
      await call('GET', `/api/v1/jobs/${encodeURIComponent(MARKUP)}`, { token: ADMIN_TOKEN }),
      await call('GET', `/api/v1/${encodeURIComponent(MARKUP)}`, { token: ADMIN_TOKEN }),
      await call('POST', '/api/v1/jobs', {
        token: ADMIN_TOKEN,
        body: {
          appId: apps.a.id,
          name: 'x',
          executorHandler: 'h',
          scheduleType: 'CRON',
          scheduleConf: MARKUP,
        },
      }),
      await call('POST', '/api/v1/jobs', {
        token: ADMIN_TOKEN,
        body: { appId: apps.a.id, name: 'x', executorHandler: 'h', executorRouteStrategy: MARKUP },
      }),
    ];
    for (const res of refusals) {
      expectJsonOnly(res.url, res);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toMatch(/^TW_ERR_/);
    }
  });

  function expectJsonOnly(what: string, res: Response): void {
    expect(res.headers.get('content-type'), what).toMatch(/^application\/json\b/);
    expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
    expect(res.headers.get('content-security-policy'), what).toBe(
      "default-src 'none'; frame-ancestors 'none'",
    );
  }
});

describe('a low-privilege user calling admin functions', () => {
  /** Every operation only an admin may call, tried on the USER's own app where it names one. */
  function adminOperations(): Array<[string, string, unknown?]> {
    return [
      ['GET', '/api/v1/users'],
      ['POST', '/api/v1/users', { username: 'planted-admin', password: 'planted-password', role: 'ADMIN' }],
      ['PATCH', `/api/v1/users/${user.id}`, { role: 'ADMIN' }],
      ['PATCH', `/api/v1/users/${user.id}`, { appIds: [apps.a.id, apps.b.id] }],
      ['PATCH', '/api/v1/users/1', { password: 'taken-over-password' }],
      ['DELETE', '/api/v1/users/1'],
      ['POST', '/api/v1/apps', { appName: 'planted-app', title: 'planted' }],
      [
        'PATCH',
        `/api/v1/apps/${apps.a.id}`,
        { addressType: 'MANUAL', addressList: ['http://10.0.0.9:9999/'] },
      ],
      ['POST', `/api/v1/apps/${apps.a.id}/rotate-token`, {}],
      ['DELETE', `/api/v1/apps/${apps.a.id}`],
      ['GET', '/api/v1/alarm-channels'],
      ['GET', `/api/v1/alarm-channels/${channelId}`],
      [
        'POST',
        '/api/v1/alarm-channels',
        { name: 'planted', type: 'WEBHOOK', config: { url: 'http://10.0.0.9/' } },
      ],
      ['PATCH', `/api/v1/alarm-channels/${channelId}`, { config: { url: 'http://10.0.0.9/' } }],
      ['POST', `/api/v1/alarm-channels/${channelId}/test`, {}],
      ['DELETE', `/api/v1/alarm-channels/${channelId}`],
      ['GET', '/api/v1/audit'],
      ['GET', '/api/v1/settings/retention'],
      ['PUT', '/api/v1/settings/retention', { retentionDays: 90 }],
    ];
  }

  it('a USER gets 403 from every admin operation, by API token and by console session, and nothing changes', async () => {
    const before = await storedState(started.store);
    const retention = await asAdmin('GET', '/api/v1/settings/retention');
    for (const credentials of [{ token: user.token }, { session: user.session }] as HttpCallOptions[]) {
      for (const [method, path, body] of adminOperations()) {
        const res = await call(method, path, { ...credentials, ...(body === undefined ? {} : { body }) });
        const what = `${method} ${path} by ${credentials.token === undefined ? 'session' : 'token'}`;
        expect(res.status, what).toBe(403);
        expect(((await res.json()) as { error: { code: string } }).error.code, what).toBe('TW_ERR_FORBIDDEN');
      }
    }
    expect(await storedState(started.store)).toEqual(before);
    expect(await asAdmin('GET', '/api/v1/settings/retention')).toEqual(retention);
    expect((await userNamed(user.username))?.role).toBe('user');
    // The user still works, as a USER.
    const me = await callApiOk<{ role: string; appIds: number[] }>(url, 'GET', '/api/v1/me', {
      token: user.token,
    });
    expect(me).toMatchObject({ role: 'USER', appIds: [apps.a.id] });
  });
});

describe("lateral access to other groups' jobs and logs", () => {
  it("a USER's console session reading, changing, triggering, killing or reading the log of app B's job and fire gets 404, and listings show app A only", async () => {
    const now = Date.now();
    const [theirFire] = (await started.store.fires.createFires(
      [
        {
          jobId: jobs.b,
          appId: apps.b.id,
          scheduledAt: now,
          triggerType: 'MANUAL',
          executorHandler: 'h',
          executorParam: '',
        },
      ],
      now,
    )) as [number];
    await started.store.fires.markDispatched([
      {
        fireId: theirFire,
        triggerAt: now,
        executorAddress: 'http://127.0.0.1:9/',
        triggerCode: 200,
        triggerMsg: 'ok',
      },
    ]);
    const before = await storedState(started.store);
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', `/api/v1/jobs/${jobs.b}`],
      ['PATCH', `/api/v1/jobs/${jobs.b}`, { executorParam: 'taken over' }],
      ['POST', `/api/v1/jobs/${jobs.b}/trigger`, {}],
      ['POST', `/api/v1/jobs/${jobs.b}/start`],
      ['DELETE', `/api/v1/jobs/${jobs.b}`],
      ['GET', `/api/v1/fires/${theirFire}`],
      ['GET', `/api/v1/fires/${theirFire}/log`],
      ['GET', `/api/v1/fires/${theirFire}/kill-scope`],
      ['POST', `/api/v1/fires/${theirFire}/kill`],
      ['GET', `/api/v1/apps/${apps.b.id}`],
    ];
    for (const [method, path, body] of attempts) {
      const res = await call(method, path, {
        session: user.session,
        ...(body === undefined ? {} : { body }),
      });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect(await storedState(started.store)).toEqual(before);
    const listings = {
      apps: await callApiOk<{ items: Array<{ id: number }> }>(url, 'GET', '/api/v1/apps', {
        session: user.session,
      }),
      jobs: await callApiOk<{ items: Array<{ appId: number }> }>(url, 'GET', '/api/v1/jobs', {
        session: user.session,
      }),
      fires: await callApiOk<{ items: Array<{ appId: number }> }>(
        url,
        'GET',
        `/api/v1/fires?jobId=${jobs.b}`,
        {
          session: user.session,
        },
      ),
    };
    expect(listings.apps.items.map((app) => app.id)).toEqual([apps.a.id]);
    expect(new Set(listings.jobs.items.map((job) => job.appId))).toEqual(new Set([apps.a.id]));
    expect(listings.fires.items).toEqual([]);
  });
});

describe("child job ids triggering another group's jobs", () => {
  it("a USER naming app B's job as a child job is refused with 400 naming childJobIds, on create and on update, and nothing is stored", async () => {
    const before = await storedState(started.store);
    const create = await call('POST', '/api/v1/jobs', {
      token: user.token,
      body: { appId: apps.a.id, name: 'parent', executorHandler: 'h', childJobIds: [jobs.b] },
    });
    const update = await call('PATCH', `/api/v1/jobs/${jobs.a}`, {
      session: user.session,
      body: { childJobIds: [jobs.b] },
    });
    for (const res of [create, update]) {
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { field: string } }).error.field).toBe('childJobIds');
    }
    expect(await storedState(started.store)).toEqual(before);
  });

  it('an id no job has yet is refused too, so a job created later in another app cannot become a child', async () => {
    const nextId = jobs.b + 10_000;
    const res = await call('PATCH', `/api/v1/jobs/${jobs.a}`, {
      token: user.token,
      body: { childJobIds: [nextId] },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { field: string } }).error.field).toBe('childJobIds');
    expect((await started.store.jobs.findJobById(jobs.a))?.child_job_ids).toBe('');
  });

  it("a deleted child job's id is never given to a job of another app, so the parent cannot come to fire one", async () => {
    const child = await callApiOk<{ id: number }>(url, 'POST', '/api/v1/jobs', {
      token: user.token,
      body: { appId: apps.a.id, name: 'child of a', executorHandler: 'h' },
    });
    const parent = await callApiOk<{ id: number }>(url, 'POST', '/api/v1/jobs', {
      token: user.token,
      body: { appId: apps.a.id, name: 'parent of a', executorHandler: 'h', childJobIds: [child.id] },
    });
    const deleted = await call('DELETE', `/api/v1/jobs/${child.id}`, { token: user.token });
    expect(deleted.status).toBe(204);
    // The newest job's id, deleted, is not taken by the next job, made in app B.
    const next = await asAdmin<{ id: number }>('POST', '/api/v1/jobs', {
      appId: apps.b.id,
      name: 'next job of b',
      executorHandler: 'h',
    });
    expect(next.id).toBeGreaterThan(child.id);
    const stored = await callApiOk<{ childJobIds: number[] }>(url, 'GET', `/api/v1/jobs/${parent.id}`, {
      token: user.token,
    });
    expect(stored.childJobIds).not.toContain(next.id);
  });
});
