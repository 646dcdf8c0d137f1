import { isTickwheelError } from '@tickwheel/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { Auth } from '../src/api/auth.js';
import { hashApiToken } from '../src/security/api-tokens.js';
import {
  EXECUTOR_TOKEN_SETTING,
  ensureSecrets,
  SEEDED_API_TOKEN_NAME,
  secretSeedsFrom,
} from '../src/security/secrets.js';
import type { DialectName, Store } from '../src/store/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.splice(0).map((db) => db.drop()));
});

async function freshStore(
  dialect: DialectName = 'sqlite',
): Promise<{ store: Store; database: TestDatabase }> {
  const database = await createTestDatabase(dialect);
  databases.push(database);
  return { store: await database.open(), database };
}

async function canLogin(store: Store, password: string): Promise<boolean> {
  return (await new Auth({ store, now: () => NOW }).login('admin', password)) !== undefined;
}

describe('first-start secrets', () => {
  it('generates the admin password and the executor token at the first start, and nothing at the next', async () => {
    const { store } = await freshStore();
    const first = await ensureSecrets(store, {}, NOW);
    expect(first.adminUsername).toBe('admin');
    expect(first.generated.adminPassword).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(first.generated.executorAccessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first.executorAccessToken).toBe(first.generated.executorAccessToken);
    expect(first.generated.apiToken).toBeUndefined();
    expect(await canLogin(store, first.generated.adminPassword!)).toBe(true);

    const second = await ensureSecrets(store, {}, NOW + 1000);
    expect(second.generated).toEqual({});
    expect(second.executorAccessToken).toBe(first.executorAccessToken);
    expect(await canLogin(store, first.generated.adminPassword!)).toBe(true);
  });

  it('keeps only a scrypt hash of the admin password, and the executor token retrievable', async () => {
    const { store, database } = await freshStore();
    const { generated } = await ensureSecrets(store, {}, NOW);
    const users = await database.query<{ password_hash: string }>('SELECT password_hash FROM users');
    expect(users[0]!.password_hash).toMatch(/^scrypt\$/);
    expect(JSON.stringify(users)).not.toContain(generated.adminPassword);
    expect(await store.settings.getSetting(EXECUTOR_TOKEN_SETTING)).toBe(generated.executorAccessToken);
  });

  it('generates an API token at the first start when asked, shown once and stored hashed', async () => {
    const { store } = await freshStore();
    const first = await ensureSecrets(store, { generateApiToken: true }, NOW);
    expect(first.generated.apiToken).toMatch(/^tw_/);
    expect(await store.users.findApiTokenByHash(hashApiToken(first.generated.apiToken!))).toBeDefined();
    expect((await ensureSecrets(store, { generateApiToken: true }, NOW)).generated).toEqual({});
  });

  it('takes the admin password from TICKWHEEL_ADMIN_PASSWORD and does not print it', async () => {
    const { store } = await freshStore();
    const seeds = secretSeedsFrom({}, { TICKWHEEL_ADMIN_PASSWORD: 'from-the-environment' });
    const secrets = await ensureSecrets(store, seeds, NOW);
    expect(secrets.generated.adminPassword).toBeUndefined();
    expect(await canLogin(store, 'from-the-environment')).toBe(true);
  });

  it('does not reset the admin password from the environment at later starts', async () => {
    const { store } = await freshStore();
    await ensureSecrets(store, { adminPassword: 'first-password' }, NOW);
    await ensureSecrets(store, { adminPassword: 'second-password' }, NOW);
    expect(await canLogin(store, 'first-password')).toBe(true);
    expect(await canLogin(store, 'second-password')).toBe(false);
  });

  it('takes the executor token from --token, and a new --token replaces the stored one', async () => {
    const { store } = await freshStore();
    const seeded = 'seeded-executor-token-0123456789abcdef';
    const rotated = 'rotated-executor-token-0123456789abcdef';
    const first = await ensureSecrets(store, secretSeedsFrom({ token: seeded }, {}), NOW);
    expect(first.executorAccessToken).toBe(seeded);
    expect(first.generated.executorAccessToken).toBeUndefined();
    const second = await ensureSecrets(store, secretSeedsFrom({ token: rotated }, {}), NOW);
    expect(second.executorAccessToken).toBe(rotated);
    expect((await ensureSecrets(store, {}, NOW)).executorAccessToken).toBe(rotated);
  });

  it('seeds an API token from --api-token or TICKWHEEL_API_TOKEN (the flag first); a new seed replaces the old', async () => {
    const { store } = await freshStore();
    const fromEnv = 'tw_env-seeded-token-0123456789';
    const fromFlag = 'tw_flag-seeded-token-0123456789';
    expect(secretSeedsFrom({ apiToken: fromFlag }, { TICKWHEEL_API_TOKEN: fromEnv }).apiToken).toBe(fromFlag);
    await ensureSecrets(store, secretSeedsFrom({}, { TICKWHEEL_API_TOKEN: fromEnv }), NOW);
    const seeded = await store.users.findApiTokenByHash(hashApiToken(fromEnv));
    expect(seeded?.name).toBe(SEEDED_API_TOKEN_NAME);
    await ensureSecrets(store, secretSeedsFrom({ apiToken: fromEnv }, {}), NOW);
    expect((await store.users.listApiTokens(seeded!.user_id)).length).toBe(1);
    await ensureSecrets(store, secretSeedsFrom({ apiToken: fromFlag }, {}), NOW);
    expect(await store.users.findApiTokenByHash(hashApiToken(fromEnv))).toBeUndefined();
    expect(await store.users.findApiTokenByHash(hashApiToken(fromFlag))).toBeDefined();
  });

  it.each([
    [{ adminPassword: 'short' }, 'TICKWHEEL_ADMIN_PASSWORD'],
    [{ executorAccessToken: 'has a space' }, 'token'],
    [{ apiToken: 'too-short' }, 'apiToken'],
  ])('refuses the unusable seed %j, naming %s', async (seeds, field) => {
    const { store } = await freshStore();
    const err = await ensureSecrets(store, seeds, NOW).catch((e: unknown) => e);
    expect(isTickwheelError(err, 'TW_ERR_INVALID_OPTION')).toBe(true);
    expect((err as { field: string }).field).toBe(field);
    expect(await store.users.countUsers()).toBe(0);
  });

  it('ignores empty seeds as if absent', () => {
    expect(
      secretSeedsFrom({ token: '', apiToken: '' }, { TICKWHEEL_ADMIN_PASSWORD: '', TICKWHEEL_API_TOKEN: '' }),
    ).toEqual({
      adminPassword: undefined,
      executorAccessToken: undefined,
      apiToken: undefined,
    });
  });

  it('generates each secret once when two nodes start at the same time on one database', async () => {
    const database = await createTestDatabase('postgres');
    databases.push(database);
    const [a, b] = await Promise.all([database.open(), database.open()]);
    const [first, second] = await Promise.all([ensureSecrets(a!, {}, NOW), ensureSecrets(b!, {}, NOW)]);
    expect(first.executorAccessToken).toBe(second.executorAccessToken);
    const generatedTokens = [first, second].filter((s) => s.generated.executorAccessToken !== undefined);
    expect(generatedTokens).toHaveLength(1);
    const passwords = [first, second].map((s) => s.generated.adminPassword).filter((p) => p !== undefined);
    expect(passwords).toHaveLength(1);
    expect(await a!.users.countUsers()).toBe(1);
    expect(await canLogin(a!, passwords[0]!)).toBe(true);
  });
});
