import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt } from './helpers/cli-process.js';
import { cli, cliEnv, cliJson, type RestServer, startRestServer } from './helpers/rest-server.js';

interface User {
  id: number;
  username: string;
  role: string;
  appIds: number[];
}
interface App {
  id: number;
}

let rest: RestServer;
let appId: number;

beforeAll(async () => {
  assertCliBuilt();
  rest = await startRestServer();
  appId = (await cliJson<App>(['app', 'add', 'team-app'], rest.env)).id;
}, 30_000);

afterAll(async () => {
  await rest?.close();
});

/** A token of `username`, created with a session the way a person would get their first one. */
async function tokenOf(username: string, password: string): Promise<string> {
  const login = await fetch(`${rest.url}api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  expect(login.status).toBe(200);
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const { csrfToken } = (await login.json()) as { csrfToken: string };
  const created = await fetch(`${rest.url}api/v1/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrfToken },
    body: JSON.stringify({ name: 'cli' }),
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { token: string }).token;
}

describe('tickwheel user', { timeout: 60_000 }, () => {
  it('adds a user with apps, lists, updates and removes users (admin)', async () => {
    const added = await cliJson<User>(
      ['user', 'add', 'alice', '--password', 'alice-password-1', '--app', 'team-app'],
      rest.env,
    );
    expect(added).toMatchObject({ username: 'alice', role: 'USER', appIds: [appId] });

    const table = await cli(['user', 'list'], rest.env);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+USERNAME\s+ROLE\s+APPS$/);
    expect(table.stdout).toMatch(new RegExp(`alice\\s+USER\\s+${appId}`));

    const promoted = await cliJson<User>(['user', 'update', String(added.id), '--role', 'admin'], rest.env);
    expect(promoted.role).toBe('ADMIN');

    expect((await cli(['user', 'rm', String(added.id)], rest.env)).code).toBe(0);
    expect((await cli(['user', 'rm', String(added.id)], rest.env)).code).toBe(5);
  });

  it('refuses user management to a user who is not an admin, with exit code 4', async () => {
    await cli(['user', 'add', 'bob', '--password', 'bob-password-12'], rest.env);
    const bob = cliEnv(rest.url, await tokenOf('bob', 'bob-password-12'));

    const result = await cli(['user', 'list'], bob);

    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^error: .*admin/);
  });

  it('changes the caller’s own password', async () => {
    await cli(['user', 'add', 'carol', '--password', 'carol-password-1'], rest.env);
    const carol = cliEnv(rest.url, await tokenOf('carol', 'carol-password-1'));

    const wrong = await cli(['user', 'passwd', '--current', 'not-it', '--new', 'carol-password-2'], carol);
    const changed = await cli(
      ['user', 'passwd', '--current', 'carol-password-1', '--new', 'carol-password-2'],
      carol,
    );

    expect(wrong.code).not.toBe(0);
    expect(changed.code).toBe(0);
    expect(changed.stdout).toBe('password changed\n');
    const login = await fetch(`${rest.url}api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'carol', password: 'carol-password-2' }),
    });
    expect(login.status).toBe(200);
  });
});

describe('tickwheel token', { timeout: 60_000 }, () => {
  it('creates a token shown once that works, lists it, and revokes it', async () => {
    const created = await cli(['token', 'create', 'ci deploys'], rest.env);
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(created.stderr).toMatch(/shown only this once/);
    const withNewToken = cliEnv(rest.url, token);
    expect((await cli(['app', 'list'], withNewToken)).code).toBe(0);

    const list = await cliJson<{ items: Array<{ id: number; name: string }> }>(['token', 'list'], rest.env);
    const listed = list.items.find((item) => item.name === 'ci deploys');
    expect(listed).toBeDefined();
    expect(JSON.stringify(list)).not.toContain(token);

    expect((await cli(['token', 'revoke', String(listed!.id)], rest.env)).code).toBe(0);
    const refused = await cli(['app', 'list'], withNewToken);
    expect(refused.code).toBe(4);
  });
});
