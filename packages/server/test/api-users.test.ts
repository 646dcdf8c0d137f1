import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Auth } from '../src/api/auth.js';
import {
  ADMIN_API_TOKEN,
  ADMIN_PASSWORD,
  type ApiHarness,
  createApp,
  expectError,
  startApiServer,
} from './helpers/api-server.js';
import { DIALECTS } from './helpers/databases.js';
import { addUser, attemptLogin, signIn, withSession } from './helpers/users.js';

const USER_OPERATIONS = [
  'listUsers',
  'createUser',
  'updateUser',
  'deleteUser',
  'getCurrentUser',
  'changePassword',
  'logout',
  'listApiTokens',
  'createApiToken',
  'revokeApiToken',
  'listAudit',
];

describe.each(DIALECTS)('users, sessions and tokens on %s', (dialect) => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApiServer(dialect);
  });
  afterAll(async () => {
    await api?.close();
  });

  describe('users (admins only)', () => {
    it('lets an admin create, list, change and delete a user, roles spelled ADMIN and USER', async () => {
      const appId = await createApp(api);
      const created = await api.call('POST', '/api/v1/users', {
        body: { username: 'ops-alice', password: 'alice password', appIds: [appId] },
      });
      expect(created.statusCode).toBe(201);
      const alice = created.json();
      expect(alice).toMatchObject({
        username: 'ops-alice',
        role: 'USER',
        appIds: [appId],
        mustChangePassword: false,
      });
      expect(alice).not.toHaveProperty('password');
      expect(alice).not.toHaveProperty('passwordHash');

      const listed = (await api.call('GET', '/api/v1/users?limit=200')).json();
      expect(listed.items.map((u: { username: string }) => u.username)).toContain('ops-alice');
      expect(listed.items.find((u: { username: string }) => u.username === 'admin').role).toBe('ADMIN');

      const changed = await api.call('PATCH', `/api/v1/users/${alice.id}`, {
        body: { role: 'ADMIN', appIds: [] },
      });
      expect(changed.statusCode).toBe(200);
      expect(changed.json()).toMatchObject({ role: 'ADMIN', appIds: [] });

      expect((await api.call('DELETE', `/api/v1/users/${alice.id}`)).statusCode).toBe(204);
      expectError(await api.call('DELETE', `/api/v1/users/${alice.id}`), 404, 'TW_ERR_NOT_FOUND');
      expectError(await attemptLogin(api, 'ops-alice', 'alice password'), 401, 'TW_ERR_LOGIN_FAILED');
    });

    it('refuses listUsers, createUser, updateUser and deleteUser to a USER', async () => {
      const user = await addUser(api);
      const other = await addUser(api);
      const token = user.token;
      expectError(await api.call('GET', '/api/v1/users', { token }), 403, 'TW_ERR_FORBIDDEN');
      expectError(
        await api.call('POST', '/api/v1/users', {
          token,
          body: { username: 'by-a-user', password: 'long enough' },
        }),
        403,
        'TW_ERR_FORBIDDEN',
      );
      expectError(
        await api.call('PATCH', `/api/v1/users/${user.id}`, { token, body: { role: 'ADMIN' } }),
        403,
        'TW_ERR_FORBIDDEN',
      );
      expectError(await api.call('DELETE', `/api/v1/users/${other.id}`, { token }), 403, 'TW_ERR_FORBIDDEN');
      expect((await api.store.users.findUserById(user.id))?.role).toBe('user');
      expect(await api.store.users.findUserById(other.id)).toBeDefined();
      expect(await api.store.users.findUserByName('by-a-user')).toBeUndefined();
    });

    it('refuses a taken username, an unknown app and a short password, naming the field', async () => {
      const body = { username: 'admin', password: 'long enough' };
      expectError(await api.call('POST', '/api/v1/users', { body }), 409, 'TW_ERR_CONFLICT', 'username');
      expectError(
        await api.call('POST', '/api/v1/users', {
          body: { username: 'nobody-app', password: 'long enough', appIds: [987_654] },
        }),
        400,
        'TW_ERR_UNKNOWN_APP',
        'appIds[0]',
      );
      expectError(
        await api.call('POST', '/api/v1/users', { body: { username: 'short', password: 'short' } }),
        400,
        'TW_ERR_INVALID_FIELD',
        'password',
      );
      expectError(
        await api.call('POST', '/api/v1/users', {
          body: { username: 'roles', password: 'long enough', role: 'admin' },
        }),
        400,
        'TW_ERR_UNKNOWN_ENUM_VALUE',
        'role',
      );
    });

    it('never leaves the server without an admin', async () => {
      const admin = await api.store.users.findUserByName('admin');
      const admins = (await api.call('GET', '/api/v1/users?limit=200'))
        .json()
        .items.filter((u: { role: string }) => u.role === 'ADMIN');
      expect(admins).toHaveLength(1);
      expectError(
        await api.call('PATCH', `/api/v1/users/${admin!.id}`, { body: { role: 'USER' } }),
        409,
        'TW_ERR_CONFLICT',
      );
      expectError(await api.call('DELETE', `/api/v1/users/${admin!.id}`), 409, 'TW_ERR_CONFLICT');
      expect((await api.store.users.findUserById(admin!.id))?.role).toBe('admin');
    });

    it("ends a user's sessions when an admin changes their role or password, or deletes them", async () => {
      const user = await addUser(api);
      const me = () => withSession(api, user.session, 'GET', '/api/v1/me');
      expect((await me()).statusCode).toBe(200);
      await api.call('PATCH', `/api/v1/users/${user.id}`, { body: { appIds: [await createApp(api)] } });
      expect((await me()).statusCode).toBe(200);
      await api.call('PATCH', `/api/v1/users/${user.id}`, { body: { role: 'ADMIN' } });
      expectError(await me(), 401, 'TW_ERR_UNAUTHENTICATED');

      const second = await signIn(api, user.username, user.password);
      await api.call('PATCH', `/api/v1/users/${user.id}`, { body: { password: 'a new password' } });
      expectError(await withSession(api, second, 'GET', '/api/v1/me'), 401, 'TW_ERR_UNAUTHENTICATED');

      const third = await signIn(api, user.username, 'a new password');
      await api.call('DELETE', `/api/v1/users/${user.id}`);
      expectError(await withSession(api, third, 'GET', '/api/v1/me'), 401, 'TW_ERR_UNAUTHENTICATED');
      expectError(await api.call('GET', '/api/v1/me', { token: user.token }), 401, 'TW_ERR_UNAUTHENTICATED');
      expect(await api.store.sessions.countUserSessions(user.id)).toBe(0);
    });
  });

  describe('changePassword', () => {
    it('needs the current password', async () => {
      const user = await addUser(api);
      const res = await api.call('POST', '/api/v1/me/password', {
        token: user.token,
        body: { currentPassword: 'not it', newPassword: 'another password' },
      });
      expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'currentPassword');
      expect((await signIn(api, user.username, user.password)).cookie).toMatch(/^tw_session=/);
    });

    it("ends the user's other sessions and keeps the one that changed it", async () => {
      const user = await addUser(api);
      const other = await signIn(api, user.username, user.password);
      const changed = await withSession(api, user.session, 'POST', '/api/v1/me/password', {
        currentPassword: user.password,
        newPassword: 'the new password',
      });
      expect(changed.statusCode).toBe(204);
      expect((await withSession(api, user.session, 'GET', '/api/v1/me')).statusCode).toBe(200);
      expectError(await withSession(api, other, 'GET', '/api/v1/me'), 401, 'TW_ERR_UNAUTHENTICATED');
      expectError(await attemptLogin(api, user.username, user.password), 401, 'TW_ERR_LOGIN_FAILED');
      expect((await attemptLogin(api, user.username, 'the new password')).statusCode).toBe(200);
      // The user's API token goes on working: it is not a session.
      expect((await api.call('GET', '/api/v1/me', { token: user.token })).statusCode).toBe(200);
    });
  });

  describe('sessions', () => {
    it('refuses state-changing requests of a cookie session without its CSRF token', async () => {
      const user = await addUser(api);
      const admin = await signIn(api, 'admin', ADMIN_PASSWORD);
      const refusals = [
        await withSession(
          api,
          admin,
          'POST',
          '/api/v1/users',
          { username: 'csrf-u', password: 'long enough' },
          { csrf: false },
        ),
        await withSession(
          api,
          admin,
          'PATCH',
          `/api/v1/users/${user.id}`,
          { role: 'ADMIN' },
          { csrf: false },
        ),
        await withSession(api, admin, 'DELETE', `/api/v1/users/${user.id}`, undefined, { csrf: false }),
        await withSession(
          api,
          user.session,
          'POST',
          '/api/v1/me/password',
          { currentPassword: user.password, newPassword: 'csrf password' },
          { csrf: false },
        ),
        await withSession(api, user.session, 'POST', '/api/v1/tokens', { name: 'csrf' }, { csrf: false }),
        await withSession(api, user.session, 'POST', '/api/v1/logout', undefined, { csrf: false }),
      ];
      for (const res of refusals) expectError(res, 403, 'TW_ERR_CSRF');
      expect(await api.store.users.findUserByName('csrf-u')).toBeUndefined();
      expect((await api.store.users.findUserById(user.id))?.role).toBe('user');
      expect((await withSession(api, user.session, 'GET', '/api/v1/me')).statusCode).toBe(200);
    });

    it('logout ends the session and clears the cookie', async () => {
      const user = await addUser(api);
      const res = await withSession(api, user.session, 'POST', '/api/v1/logout');
      expect(res.statusCode).toBe(204);
      expect(String(res.headers['set-cookie'])).toMatch(/^tw_session=; .*Expires=Thu, 01 Jan 1970/);
      expectError(await withSession(api, user.session, 'GET', '/api/v1/me'), 401, 'TW_ERR_UNAUTHENTICATED');
    });

    it('a session opened through one server node works on another and is revoked on both', async () => {
      // A second node: its own pool and its own Auth over the same database.
      const otherNode = new Auth({ store: await api.database.open(), now: api.clock.now });
      const user = await addUser(api);
      const request = {
        headers: { cookie: user.session.cookie },
        method: 'GET',
      } as unknown as FastifyRequest;
      expect((await otherNode.authenticate(request)).username).toBe(user.username);
      await withSession(api, user.session, 'POST', '/api/v1/logout');
      await expect(otherNode.authenticate(request)).rejects.toMatchObject({ code: 'TW_ERR_UNAUTHENTICATED' });
    });
  });

  describe('login rate limit', () => {
    it('holds a username back at the address that failed 5 times, for a minute, and nowhere else', async () => {
      const user = await addUser(api);
      for (let i = 0; i < 5; i += 1) {
        expectError(await attemptLogin(api, user.username, 'wrong', '10.1.0.1'), 401, 'TW_ERR_LOGIN_FAILED');
      }
      const limited = await attemptLogin(api, user.username, user.password, '10.1.0.1');
      expectError(limited, 429, 'TW_ERR_RATE_LIMITED');
      expect(limited.json().error.message).toBe('too many failed sign-ins; try again in 1 minute');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(50);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
      // A stranger's wrong-password storm does not hold the user back at another address.
      expect((await attemptLogin(api, user.username, user.password, '10.1.0.2')).statusCode).toBe(200);
      const now = api.clock.now();
      api.clock.set(now + 60 * 1000 + 1);
      try {
        expect((await attemptLogin(api, user.username, user.password, '10.1.0.1')).statusCode).toBe(200);
      } finally {
        api.clock.set(now);
      }
    });

    it('doubles the wait with each further failure, up to 15 minutes', async () => {
      const user = await addUser(api);
      const start = api.clock.now();
      try {
        for (let i = 0; i < 4; i += 1) await attemptLogin(api, user.username, 'wrong', '10.4.0.1');
        const waits: number[] = [];
        for (let round = 0; round < 6; round += 1) {
          expectError(
            await attemptLogin(api, user.username, 'wrong', '10.4.0.1'),
            401,
            'TW_ERR_LOGIN_FAILED',
          );
          const limited = await attemptLogin(api, user.username, user.password, '10.4.0.1');
          expectError(limited, 429, 'TW_ERR_RATE_LIMITED');
          const seconds = Number(limited.headers['retry-after']);
          waits.push(seconds);
          api.clock.set(api.clock.now() + seconds * 1000 + 1);
        }
        expect(waits).toEqual([60, 120, 240, 480, 900, 900]);
        const last = await attemptLogin(api, user.username, 'wrong', '10.4.0.1');
        expectError(last, 401, 'TW_ERR_LOGIN_FAILED');
        const held = await attemptLogin(api, user.username, user.password, '10.4.0.1');
        expect(held.json().error.message).toBe('too many failed sign-ins; try again in 15 minutes');
      } finally {
        api.clock.set(start);
      }
    });

    it("a successful sign-in resets the username's count", async () => {
      const user = await addUser(api);
      for (let round = 0; round < 3; round += 1) {
        for (let i = 0; i < 4; i += 1) {
          expectError(
            await attemptLogin(api, user.username, 'wrong', '10.2.0.1'),
            401,
            'TW_ERR_LOGIN_FAILED',
          );
        }
        expect((await attemptLogin(api, user.username, user.password, '10.2.0.1')).statusCode).toBe(200);
      }
    });

    it('answers 429 to an address after 20 failures, whatever the username', async () => {
      const user = await addUser(api);
      for (let i = 0; i < 20; i += 1) {
        expectError(await attemptLogin(api, `guess-${i}`, 'wrong', '10.3.0.1'), 401, 'TW_ERR_LOGIN_FAILED');
      }
      const limited = await attemptLogin(api, user.username, user.password, '10.3.0.1');
      expectError(limited, 429, 'TW_ERR_RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect((await attemptLogin(api, user.username, user.password, '10.3.0.2')).statusCode).toBe(200);
    });
  });

  describe('API tokens', () => {
    it("lists only the caller's own tokens, never their value", async () => {
      const user = await addUser(api);
      const res = await api.call('GET', '/api/v1/tokens', { token: user.token });
      expect(res.statusCode).toBe(200);
      const { items } = res.json();
      expect(items).toEqual([
        {
          id: expect.any(Number),
          name: 'own',
          createdAt: expect.any(Number),
          lastUsedAt: expect.any(Number),
        },
      ]);
      expect(res.body).not.toContain(user.token);
      const adminTokens = (await api.call('GET', '/api/v1/tokens')).json().items;
      expect(adminTokens.map((t: { id: number }) => t.id)).not.toContain(items[0].id);
    });

    it("a token acts with its owner's permissions, as they are at each request", async () => {
      const mine = await createApp(api);
      const theirs = await createApp(api);
      const user = await addUser(api, { appIds: [mine] });
      const token = user.token;
      expect((await api.call('GET', `/api/v1/apps/${mine}`, { token })).statusCode).toBe(200);
      expectError(await api.call('GET', `/api/v1/apps/${theirs}`, { token }), 404, 'TW_ERR_UNKNOWN_APP');
      expectError(
        await api.call('POST', '/api/v1/apps', { token, body: { appName: 'by-token', title: 'x' } }),
        403,
        'TW_ERR_FORBIDDEN',
      );
      await api.call('PATCH', `/api/v1/users/${user.id}`, { body: { appIds: [theirs] } });
      expectError(await api.call('GET', `/api/v1/apps/${mine}`, { token }), 404, 'TW_ERR_UNKNOWN_APP');
      expect((await api.call('GET', `/api/v1/apps/${theirs}`, { token })).statusCode).toBe(200);
    });

    it("a revoked token stops working at once; another user's token cannot be revoked", async () => {
      const user = await addUser(api);
      const other = await addUser(api);
      const [own] = (await api.call('GET', '/api/v1/tokens', { token: user.token })).json().items;
      const [others] = (await api.call('GET', '/api/v1/tokens', { token: other.token })).json().items;
      expectError(
        await api.call('DELETE', `/api/v1/tokens/${others.id}`, { token: user.token }),
        404,
        'TW_ERR_NOT_FOUND',
      );
      expectError(await api.call('DELETE', `/api/v1/tokens/${others.id}`), 404, 'TW_ERR_NOT_FOUND');
      expect((await api.call('GET', '/api/v1/me', { token: other.token })).statusCode).toBe(200);
      expect((await withSession(api, user.session, 'DELETE', `/api/v1/tokens/${own.id}`)).statusCode).toBe(
        204,
      );
      expectError(await api.call('GET', '/api/v1/me', { token: user.token }), 401, 'TW_ERR_UNAUTHENTICATED');
    });
  });

  describe('getCurrentUser', () => {
    it('tells the caller their role and apps', async () => {
      const appId = await createApp(api);
      const user = await addUser(api, { appIds: [appId] });
      expect((await api.call('GET', '/api/v1/me', { token: user.token })).json()).toMatchObject({
        id: user.id,
        username: user.username,
        role: 'USER',
        appIds: [appId],
      });
      expect((await api.call('GET', '/api/v1/me', { token: ADMIN_API_TOKEN })).json().role).toBe('ADMIN');
    });
  });
});

describe('the OpenAPI document', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApiServer();
  });
  afterAll(async () => {
    await api?.close();
  });

  it.each(USER_OPERATIONS)('has the operation %s once', async (operationId) => {
    const doc = (await api.call('GET', '/api/v1/openapi.json')).json();
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap(
      (ops) => Object.values(ops).map((op) => op.operationId),
    );
    expect(ids.filter((id) => id === operationId)).toHaveLength(1);
  });
});
