/**
 * mustChangePassword: a user who must change their password gets 403
 * TW_ERR_PASSWORD_CHANGE_REQUIRED from every operation but getCurrentUser, changePassword and
 * logout (login needs no credentials), with a console session and an API token alike, until
 * changePassword clears it; the same session then works at once.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_CHANGE_EXEMPT } from '../src/api/auth.js';
import { type ApiHarness, createApp, expectError, startApiServer } from './helpers/api-server.js';
import { DIALECTS } from './helpers/databases.js';
import { addUser, type SessionCredentials, signIn, withSession } from './helpers/users.js';

const CODE = 'TW_ERR_PASSWORD_CHANGE_REQUIRED';

function expectPasswordChangeRequired(res: LightMyRequestResponse, username: string): void {
  const error = expectError(res, 403, CODE);
  expect(error.message).toBe(
    `user ${username} must change their password before anything else (POST /api/v1/me/password)`,
  );
}

describe.each(DIALECTS)('mustChangePassword on %s', (dialect) => {
  let api: ApiHarness;
  let appId: number;
  beforeAll(async () => {
    api = await startApiServer(dialect);
    appId = await createApp(api);
  });
  afterAll(async () => {
    await api?.close();
  });

  const changePassword = (session: SessionCredentials, currentPassword: string, newPassword: string) =>
    withSession(api, session, 'POST', '/api/v1/me/password', { currentPassword, newPassword });

  it('is false for users made without it, on create, list, get and /me', async () => {
    const user = await addUser(api, { appIds: [appId] });
    const listed = (await api.call('GET', '/api/v1/users?limit=200')).json();
    expect(listed.items.find((u: { id: number }) => u.id === user.id).mustChangePassword).toBe(false);
    expect((await api.call('GET', '/api/v1/me', { token: user.token })).json().mustChangePassword).toBe(
      false,
    );
    expect((await api.call('GET', '/api/v1/jobs', { token: user.token })).statusCode).toBe(200);
  });

  it('holds a user created with it to /me and changePassword, then lets the same session do everything', async () => {
    const username = `must-change-${dialect}`;
    const password = 'chosen by the admin';
    const created = await api.call('POST', '/api/v1/users', {
      body: { username, password, appIds: [appId], mustChangePassword: true },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ username, mustChangePassword: true });

    const signedIn = await api.app.inject({
      method: 'POST',
      url: '/api/v1/login',
      payload: { username, password },
    });
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json().user.mustChangePassword).toBe(true);
    const session = await signIn(api, username, password);

    expectPasswordChangeRequired(await withSession(api, session, 'GET', '/api/v1/jobs'), username);
    expectPasswordChangeRequired(await withSession(api, session, 'GET', `/api/v1/apps/${appId}`), username);
    expectPasswordChangeRequired(
      await withSession(api, session, 'POST', '/api/v1/tokens', { name: 'sneaky' }),
      username,
    );
    expectPasswordChangeRequired(await withSession(api, session, 'GET', '/api/v1/openapi.json'), username);
    expect(await api.store.users.listApiTokens(created.json().id)).toHaveLength(0);

    const me = await withSession(api, session, 'GET', '/api/v1/me');
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ username, mustChangePassword: true, csrfToken: session.csrfToken });

    // A wrong current password is still refused, and the flag stays.
    expectError(
      await changePassword(session, 'not the password', 'a new password'),
      400,
      'TW_ERR_INVALID_FIELD',
      'currentPassword',
    );
    expectPasswordChangeRequired(await withSession(api, session, 'GET', '/api/v1/jobs'), username);

    expect((await changePassword(session, password, 'my very own password')).statusCode).toBe(204);
    const jobs = await withSession(api, session, 'GET', '/api/v1/jobs');
    expect(jobs.statusCode).toBe(200);
    const after = (await withSession(api, session, 'GET', '/api/v1/me')).json();
    expect(after.mustChangePassword).toBe(false);
    expect((await withSession(api, session, 'POST', '/api/v1/tokens', { name: 'own' })).statusCode).toBe(201);

    const audit = (
      await api.call('GET', `/api/v1/audit?targetType=USER&targetId=${created.json().id}&limit=200`)
    ).json();
    const actions = audit.items.map((entry: { action: string; detail: Record<string, unknown> }) => [
      entry.action,
      entry.detail.mustChangePassword,
    ]);
    expect(actions).toContainEqual(['CREATE', true]);
    expect(actions).toContainEqual(['CHANGE_PASSWORD', false]);
  });

  it('holds a session and an API token made before updateUser set it, and lets logout through', async () => {
    const user = await addUser(api, { appIds: [appId] });
    const set = await api.call('PATCH', `/api/v1/users/${user.id}`, { body: { mustChangePassword: true } });
    expect(set.statusCode).toBe(200);
    expect(set.json().mustChangePassword).toBe(true);

    // Setting the flag alone ends no session: they answer 403, not 401.
    expectPasswordChangeRequired(await withSession(api, user.session, 'GET', '/api/v1/jobs'), user.username);
    expectPasswordChangeRequired(await api.call('GET', '/api/v1/jobs', { token: user.token }), user.username);
    expectPasswordChangeRequired(
      await api.call('POST', '/api/v1/jobs', {
        token: user.token,
        body: { appId, name: 'not yet', executorHandler: 'hello' },
      }),
      user.username,
    );
    const me = await api.call('GET', '/api/v1/me', { token: user.token });
    expect(me.statusCode).toBe(200);
    expect(me.json().mustChangePassword).toBe(true);

    const second = await signIn(api, user.username, user.password);
    expect((await withSession(api, second, 'POST', '/api/v1/logout')).statusCode).toBe(204);
    expectError(await withSession(api, second, 'GET', '/api/v1/me'), 401, 'TW_ERR_UNAUTHENTICATED');

    expect((await changePassword(user.session, user.password, 'a password of my own')).statusCode).toBe(204);
    expect((await withSession(api, user.session, 'GET', '/api/v1/jobs')).statusCode).toBe(200);
    expect((await api.call('GET', '/api/v1/jobs', { token: user.token })).statusCode).toBe(200);
    expect((await api.call('GET', '/api/v1/me', { token: user.token })).json().mustChangePassword).toBe(
      false,
    );
  });

  it('lets an admin set it with a reset, keeps it when a password comes without it, and clear it', async () => {
    const user = await addUser(api, { appIds: [appId] });
    const patch = (body: Record<string, unknown>) => api.call('PATCH', `/api/v1/users/${user.id}`, { body });

    const reset = await patch({ password: 'reset by the admin', mustChangePassword: true });
    expect(reset.json().mustChangePassword).toBe(true);
    // The reset ended the sessions; a new one is held to the change.
    const session = await signIn(api, user.username, 'reset by the admin');
    expectPasswordChangeRequired(await withSession(api, session, 'GET', '/api/v1/jobs'), user.username);

    expect((await patch({ password: 'reset once more' })).json().mustChangePassword).toBe(true);
    expect((await patch({ appIds: [] })).json().mustChangePassword).toBe(true);
    expect((await patch({ mustChangePassword: false })).json().mustChangePassword).toBe(false);
    expect((await patch({ password: 'a third reset' })).json().mustChangePassword).toBe(false);

    const audit = (
      await api.call('GET', `/api/v1/audit?targetType=USER&targetId=${user.id}&limit=200`)
    ).json();
    const details = audit.items
      .filter((entry: { action: string }) => entry.action === 'UPDATE')
      .map((entry: { detail: Record<string, unknown> }) => entry.detail.mustChangePassword);
    expect(details).toContain(true);
    expect(details).toContain(false);
  });

  it('does not hold back admins who must not change their password', async () => {
    expect((await api.call('GET', '/api/v1/me')).json().mustChangePassword).toBe(false);
    expect((await api.call('GET', '/api/v1/users')).statusCode).toBe(200);
  });

  it('refuses a mustChangePassword that is not a boolean, naming it', async () => {
    expectError(
      await api.call('POST', '/api/v1/users', {
        body: { username: `not-bool-${dialect}`, password: 'long enough', mustChangePassword: 'yes' },
      }),
      400,
      'TW_ERR_INVALID_FIELD',
      'mustChangePassword',
    );
  });
});

describe('the operations a user who must change their password may call', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApiServer();
  });
  afterAll(async () => {
    await api?.close();
  });

  it('are getCurrentUser, changePassword, logout and login, all operations of the document', async () => {
    expect([...PASSWORD_CHANGE_EXEMPT].sort()).toEqual([
      'changePassword',
      'getCurrentUser',
      'login',
      'logout',
    ]);
    const doc = (await api.call('GET', '/api/v1/openapi.json')).json();
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap(
      (ops) => Object.values(ops).map((op) => op.operationId),
    );
    for (const id of PASSWORD_CHANGE_EXEMPT) expect(ids, id).toContain(id);
  });
});
