/**
 * An admin's reset of another user's password (`updateUser` with a password, or `tickwheel
 * admin reset-password`, i.e. `resetPassword`) ends that user's console sessions at once, on
 * every node; with `revokeApiTokens` the user's API tokens stop working at once too, and only
 * theirs. On every dialect through the REST API, and across two real nodes on one PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetPassword } from '../../src/security/reset-password.js';
import { type ApiHarness, startApiServer } from '../helpers/api-server.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { type E2eServer, startServer } from '../helpers/e2e.js';
import { callApiOk, callHttp, type HttpSession, signInHttp } from '../helpers/http-api.js';
import { addUser, signIn, type TestUser, withSession } from '../helpers/users.js';

const NEW_PASSWORD = 'a new password after the takeover';

describe.each(DIALECTS)('an admin password reset through the REST API on %s', (dialect) => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApiServer(dialect);
  });
  afterAll(async () => {
    await api?.close();
  });

  const meWithSession = async (session: TestUser['session']) =>
    (await withSession(api, session, 'GET', '/api/v1/me')).statusCode;
  const meWithToken = async (token: string) => (await api.call('GET', '/api/v1/me', { token })).statusCode;

  async function secondToken(user: TestUser): Promise<string> {
    const res = await withSession(api, user.session, 'POST', '/api/v1/tokens', { name: 'second' });
    expect(res.statusCode).toBe(201);
    return res.json().token;
  }

  it("ends every console session of the user at once; the user's API tokens keep working without revokeApiTokens", async () => {
    const user = await addUser(api);
    const otherSession = await signIn(api, user.username, user.password, '192.0.2.7');
    expect(await meWithSession(user.session)).toBe(200);

    const res = await api.call('PATCH', `/api/v1/users/${user.id}`, { body: { password: NEW_PASSWORD } });
    expect(res.statusCode).toBe(200);

    expect(await meWithSession(user.session)).toBe(401);
    expect(await meWithSession(otherSession)).toBe(401);
    expect(await meWithToken(user.token)).toBe(200);
    await signIn(api, user.username, NEW_PASSWORD);
  });

  it("with revokeApiTokens, every API token of the user stops working at once, and nobody else's", async () => {
    const user = await addUser(api);
    const tokens = [user.token, await secondToken(user)];
    const bystander = await addUser(api);

    const res = await api.call('PATCH', `/api/v1/users/${user.id}`, {
      body: { password: NEW_PASSWORD, revokeApiTokens: true },
    });
    expect(res.statusCode).toBe(200);

    for (const token of tokens) expect(await meWithToken(token)).toBe(401);
    expect(await meWithSession(user.session)).toBe(401);
    expect(await meWithToken(bystander.token)).toBe(200);
    expect(await meWithSession(bystander.session)).toBe(200);
    expect(await api.store.users.listApiTokens(user.id)).toEqual([]);
    // The admin who did it (with a token of their own) goes on working.
    expect((await api.call('GET', '/api/v1/me')).statusCode).toBe(200);
  });

  it('the audit entry of the reset says how many API tokens went', async () => {
    const user = await addUser(api);
    await secondToken(user);
    await api.call('PATCH', `/api/v1/users/${user.id}`, {
      body: { password: NEW_PASSWORD, revokeApiTokens: true },
    });
    const res = await api.call('GET', `/api/v1/audit?targetType=USER&targetId=${user.id}&action=UPDATE`);
    expect(res.json().items[0].detail).toMatchObject({
      username: user.username,
      fields: ['password', 'revokeApiTokens'],
      apiTokensRevoked: 2,
    });
  });

  it('revokeApiTokens is an optional boolean of updateUser in the OpenAPI document, beside the fields it had', async () => {
    const document = (await api.call('GET', '/api/v1/openapi.json')).json();
    const operation = document.paths['/api/v1/users/{id}'].patch;
    expect(operation.operationId).toBe('updateUser');
    const body = operation.requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties)).toEqual([
      'password',
      'role',
      'appIds',
      'mustChangePassword',
      'revokeApiTokens',
    ]);
    expect(body.properties.revokeApiTokens).toMatchObject({
      type: 'boolean',
      description: expect.any(String),
    });
    expect(body.required ?? []).not.toContain('revokeApiTokens');
    const refused = await api.call('PATCH', '/api/v1/users/1', { body: { revokeApiTokens: 'yes' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatchObject({ code: 'TW_ERR_INVALID_FIELD', field: 'revokeApiTokens' });
  });
});

describe('an admin password reset with two nodes on one PostgreSQL database', () => {
  let db: TestDatabase;
  const servers: E2eServer[] = [];
  let nodeA: string;
  let nodeB: string;
  const adminToken = 'tw_reset-test-admin-token-0123456789abcdef';

  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    const common = { database: db.url, adminPassword: 'the admin password', apiToken: adminToken };
    servers.push(await startServer({ ...common, nodeId: 'node-a' }));
    servers.push(await startServer({ ...common, nodeId: 'node-b' }));
    nodeA = servers[0]!.server.url;
    nodeB = servers[1]!.server.url;
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await db?.drop();
  });

  let counter = 0;
  /** A user signed in on node B, with an API token made there. */
  async function userOnNodeB(): Promise<{
    id: number;
    username: string;
    session: HttpSession;
    token: string;
  }> {
    counter += 1;
    const username = `reset-${counter}`;
    const password = `password of ${username}`;
    const { id } = await callApiOk<{ id: number }>(nodeA, 'POST', '/api/v1/users', {
      token: adminToken,
      body: { username, password, role: 'USER' },
    });
    const session = await signInHttp(nodeB, username, password);
    const { token } = await callApiOk<{ token: string }>(nodeB, 'POST', '/api/v1/tokens', {
      session,
      body: { name: 'script' },
    });
    return { id, username, session, token };
  }

  const meOnB = async (credentials: { session: HttpSession } | { token: string }) =>
    (await callHttp(nodeB, 'GET', '/api/v1/me', credentials)).status;

  it("a reset on one node ends the user's sessions, and with revokeApiTokens their tokens, on the other at its next request", async () => {
    const user = await userOnNodeB();
    expect(await meOnB({ session: user.session })).toBe(200);
    expect(await meOnB({ token: user.token })).toBe(200);

    await callApiOk(nodeA, 'PATCH', `/api/v1/users/${user.id}`, {
      token: adminToken,
      body: { password: NEW_PASSWORD, revokeApiTokens: true },
    });

    expect(await meOnB({ session: user.session })).toBe(401);
    expect(await meOnB({ token: user.token })).toBe(401);
  });

  it('tickwheel admin reset-password ends the sessions at once on the running nodes, and revokes the tokens when asked', async () => {
    const kept = await userOnNodeB();
    const keptReset = await resetPassword({
      database: db.url,
      username: kept.username,
      password: NEW_PASSWORD,
    });
    expect(keptReset).toMatchObject({ sessionsEnded: 1, apiTokensRevoked: 0 });
    expect(await meOnB({ session: kept.session })).toBe(401);
    expect(await meOnB({ token: kept.token })).toBe(200);

    const revoked = await userOnNodeB();
    const revokedReset = await resetPassword({
      database: db.url,
      username: revoked.username,
      password: NEW_PASSWORD,
      revokeApiTokens: true,
    });
    expect(revokedReset).toMatchObject({ sessionsEnded: 1, apiTokensRevoked: 1 });
    expect(await meOnB({ session: revoked.session })).toBe(401);
    expect(await meOnB({ token: revoked.token })).toBe(401);
    expect(await meOnB({ token: kept.token })).toBe(200);
  });
});
