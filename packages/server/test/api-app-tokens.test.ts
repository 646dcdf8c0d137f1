/**
 * The REST API of per-app executor tokens: `createApp` answers the app's token once (or none in
 * compatibility mode), `rotateAppToken` answers a new one with an overlap for the one it
 * replaces, and no read ever shows a token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, expectError, startApiServer } from './helpers/api-server.js';
import { addUser } from './helpers/users.js';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApiServer();
});
afterAll(async () => {
  await api.close();
});

const HOUR = 60 * 60 * 1000;

describe('app executor tokens', () => {
  it('rotateAppToken answers a new token once, keeps the old one valid until the given time, and reads never show either', async () => {
    const created = (
      await api.call('POST', '/api/v1/apps', { body: { appName: 'rot-1', title: 'Rot' } })
    ).json();
    const until = api.clock.now() + HOUR;
    const rotated = await api.call('POST', `/api/v1/apps/${created.id}/rotate-token`, {
      body: { previousTokenValidUntil: until },
    });
    expect(rotated.statusCode).toBe(200);
    const body = rotated.json();
    expect(body.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.accessToken).not.toBe(created.accessToken);
    expect(body).toMatchObject({ credential: 'app', previousTokenValidUntil: until });

    const row = await api.store.apps.findAppById(created.id);
    expect(row).toMatchObject({ access_token: body.accessToken, previous_access_token: created.accessToken });
    const read = await api.call('GET', `/api/v1/apps/${created.id}`);
    expect(read.body).not.toContain(body.accessToken);
    expect(read.body).not.toContain(created.accessToken);
    const listed = await api.call('GET', '/api/v1/apps');
    expect(listed.body).not.toContain(body.accessToken);

    // Past the overlap the app reads as having none.
    api.clock.set(until + 1);
    expect((await api.call('GET', `/api/v1/apps/${created.id}`)).json().previousTokenValidUntil).toBeNull();
  });

  it('defaults the overlap to 24 hours, refuses one past 30 days naming the field, and revokes at once with a past time', async () => {
    const created = (
      await api.call('POST', '/api/v1/apps', { body: { appName: 'rot-2', title: 'Rot' } })
    ).json();
    const now = api.clock.now();
    const byDefault = (
      await api.call('POST', `/api/v1/apps/${created.id}/rotate-token`, { body: {} })
    ).json();
    expect(byDefault.previousTokenValidUntil).toBe(now + 24 * HOUR);

    expectError(
      await api.call('POST', `/api/v1/apps/${created.id}/rotate-token`, {
        body: { previousTokenValidUntil: now + 31 * 24 * HOUR },
      }),
      400,
      'TW_ERR_INVALID_FIELD',
      'previousTokenValidUntil',
    );
    expectError(
      await api.call('POST', `/api/v1/apps/${created.id}/rotate-token`, {
        body: { previousTokenValidUntil: 'soon' },
      }),
      400,
      'TW_ERR_INVALID_FIELD',
      'previousTokenValidUntil',
    );
    const revoked = (
      await api.call('POST', `/api/v1/apps/${created.id}/rotate-token`, {
        body: { previousTokenValidUntil: 0 },
      })
    ).json();
    expect(revoked.previousTokenValidUntil).toBeNull();
    const row = await api.store.apps.findAppById(created.id);
    expect(row).toMatchObject({
      access_token: revoked.accessToken,
      previous_access_token: null,
      previous_token_until: null,
    });
    expectError(
      await api.call('POST', '/api/v1/apps/999999/rotate-token', { body: {} }),
      404,
      'TW_ERR_UNKNOWN_APP',
    );
  });

  it('creates an app on the installation token when asked (compatibility mode), and a rotation gives it its own', async () => {
    const created = await api.call('POST', '/api/v1/apps', {
      body: { appName: 'compat-1', title: 'Compat', useInstallationToken: true },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ credential: 'installation', accessToken: null });
    const rotated = (
      await api.call('POST', `/api/v1/apps/${created.json().id}/rotate-token`, { body: {} })
    ).json();
    expect(rotated).toMatchObject({ credential: 'app' });
    // The installation token is what it replaced: kept in no app row.
    const row = await api.store.apps.findAppById(created.json().id);
    expect(row).toMatchObject({ access_token: rotated.accessToken, previous_access_token: null });
    expect(row?.previous_token_until).toBeGreaterThan(api.clock.now());
  });

  it('refuses rotateAppToken to a USER, even on an app they may see', async () => {
    const created = (
      await api.call('POST', '/api/v1/apps', { body: { appName: 'rot-3', title: 'Rot' } })
    ).json();
    const user = await addUser(api, { appIds: [created.id] });
    expectError(
      await api.call('POST', `/api/v1/apps/${created.id}/rotate-token`, { body: {}, token: user.token }),
      403,
      'TW_ERR_FORBIDDEN',
    );
    expect((await api.store.apps.findAppById(created.id))?.access_token).toBe(created.accessToken);
  });
});
