/**
 * First-start secrets. No secret has a default: at the first start the server generates the
 * first admin's password and the executor access token (and, when asked, an API token), stores
 * them, and hands the generated values back once for `tickwheel start` to print. Later starts
 * generate nothing and print nothing.
 *
 * How each is kept:
 * - the admin password: only its scrypt hash, in `users`;
 * - API tokens: only their SHA-256, in `api_token` (they are 256-bit random values);
 * - the executor access token: in clear, in the `setting` row `executor.accessToken`. It cannot
 *   be hashed, because the server must present it to executors (`XXL-JOB-ACCESS-TOKEN` on every
 *   call) as well as check it; encrypting it with a key kept beside it would add nothing. It is
 *   protected like the database itself (whoever can write the database can already define jobs),
 *   is never returned by the REST API nor logged, and is compared in constant time.
 */
import { TickwheelError, weakTokenProblem } from '@tickwheel/protocol';
import type { Store } from '../store/index.js';
import { generateApiToken, hashApiToken, MIN_SEEDED_TOKEN_LENGTH, randomSecret } from './api-tokens.js';
import { hashPassword } from './passwords.js';

/** The settings row holding the executor access token. */
export const EXECUTOR_TOKEN_SETTING = 'executor.accessToken';
/** The first user's name. */
export const ADMIN_USERNAME = 'admin';
/** Name of the API token seeded by `--api-token`; a new seed value replaces the token of this name. */
export const SEEDED_API_TOKEN_NAME = 'seeded (--api-token)';
/** A seeded admin password must be at least this long. */
export const MIN_ADMIN_PASSWORD_LENGTH = 8;

/** Values given by the operator instead of generated ones (for automation). */
export interface SecretSeeds {
  /** `TICKWHEEL_ADMIN_PASSWORD`: the first admin's password. Used only when the admin is created (first start). */
  adminPassword?: string | undefined;
  /**
   * `--token`: the executor access token. It must match what the executors are configured
   * with, so when it differs from the stored one it replaces it.
   */
  executorAccessToken?: string | undefined;
  /** `--api-token` or `TICKWHEEL_API_TOKEN`: a bearer token for the admin; a new value replaces the previous seed. */
  apiToken?: string | undefined;
  /** Generate a random API token for the admin at first start when none is seeded. Default false. */
  generateApiToken?: boolean | undefined;
}

/** What `ensureSecrets` found or made. */
export interface EnsuredSecrets {
  adminUsername: string;
  /** The executor access token in force: for the dispatcher and the executor-facing API. */
  executorAccessToken: string;
  /**
   * The secrets this call generated. Print them once: only hashes are kept of the password and
   * the API token, so they cannot be shown again. Empty at every later start.
   */
  generated: {
    adminPassword?: string;
    executorAccessToken?: string;
    apiToken?: string;
  };
}

/**
 * The seeds from `tickwheel start`'s flags and the environment; a flag wins over its variable.
 *
 * @example
 * const seeds = secretSeedsFrom({ token: flags.token, apiToken: flags.apiToken }, process.env);
 */
export function secretSeedsFrom(
  flags: { token?: string | undefined; apiToken?: string | undefined },
  env: Record<string, string | undefined> = process.env,
): SecretSeeds {
  return {
    adminPassword: nonEmpty(env.TICKWHEEL_ADMIN_PASSWORD),
    executorAccessToken: nonEmpty(flags.token),
    apiToken: nonEmpty(flags.apiToken) ?? nonEmpty(env.TICKWHEEL_API_TOKEN),
  };
}

/**
 * Makes sure the admin user, the executor access token and any seeded API token exist, creating
 * what is missing. Safe when several nodes start at once: each secret is created once, and only
 * the node whose write landed reports it as generated.
 *
 * @throws TickwheelError `TW_ERR_INVALID_OPTION` naming the seed that is unusable.
 *
 * @example
 * const secrets = await ensureSecrets(store, secretSeedsFrom(flags), Date.now());
 * if (secrets.generated.adminPassword) console.log(`admin password: ${secrets.generated.adminPassword}`);
 */
export async function ensureSecrets(
  store: Store,
  seeds: SecretSeeds,
  nowMs: number,
): Promise<EnsuredSecrets> {
  checkSeeds(seeds);
  const generated: EnsuredSecrets['generated'] = {};

  const createdAdmin = await ensureAdmin(store, seeds.adminPassword, nowMs);
  if (createdAdmin?.generatedPassword !== undefined) generated.adminPassword = createdAdmin.generatedPassword;

  const executorAccessToken = await ensureExecutorToken(store, seeds.executorAccessToken, nowMs);
  if (executorAccessToken.generated) generated.executorAccessToken = executorAccessToken.value;

  if (seeds.apiToken !== undefined) {
    await ensureSeededApiToken(store, seeds.apiToken, nowMs);
  } else if (seeds.generateApiToken === true && createdAdmin !== undefined) {
    const token = generateApiToken();
    await store.users.createApiToken(
      { name: 'generated at first start', tokenHash: hashApiToken(token), userId: createdAdmin.userId },
      nowMs,
    );
    generated.apiToken = token;
  }

  return { adminUsername: ADMIN_USERNAME, executorAccessToken: executorAccessToken.value, generated };
}

function checkSeeds(seeds: SecretSeeds): void {
  if (seeds.adminPassword !== undefined && seeds.adminPassword.length < MIN_ADMIN_PASSWORD_LENGTH) {
    throw new TickwheelError(
      'TW_ERR_INVALID_OPTION',
      `TICKWHEEL_ADMIN_PASSWORD must be at least ${MIN_ADMIN_PASSWORD_LENGTH} characters`,
      'TICKWHEEL_ADMIN_PASSWORD',
    );
  }
  const token = seeds.executorAccessToken;
  // Executors send it in an HTTP header: printable ASCII without spaces, as XXL-JOB's tokens are.
  if (token !== undefined && !/^[\x21-\x7e]{1,255}$/.test(token)) {
    throw new TickwheelError(
      'TW_ERR_INVALID_OPTION',
      'token must be 1 to 255 printable ASCII characters without spaces',
      'token',
    );
  }
  // Stored as an unsalted SHA-256, a seeded API token must be as hard to guess as a random one.
  if (seeds.apiToken !== undefined && !/^[\x21-\x7e]+$/.test(seeds.apiToken)) {
    throw new TickwheelError(
      'TW_ERR_INVALID_OPTION',
      'apiToken must be printable ASCII without spaces',
      'apiToken',
    );
  }
  if (seeds.apiToken !== undefined && seeds.apiToken.length < MIN_SEEDED_TOKEN_LENGTH) {
    throw new TickwheelError(
      'TW_ERR_INVALID_OPTION',
      `apiToken must be at least ${MIN_SEEDED_TOKEN_LENGTH} characters (e.g. openssl rand -hex 24)`,
      'apiToken',
    );
  }
}

/** Creates the admin when there is no user at all; undefined when this call created nobody. */
async function ensureAdmin(
  store: Store,
  seededPassword: string | undefined,
  nowMs: number,
): Promise<{ userId: number; generatedPassword: string | undefined } | undefined> {
  if ((await store.users.countUsers()) > 0) return undefined;
  const password = seededPassword ?? randomSecret(18);
  const passwordHash = await hashPassword(password);
  try {
    const user = await store.users.createUser(
      { username: ADMIN_USERNAME, passwordHash, role: 'admin' },
      nowMs,
    );
    return { userId: user.id, generatedPassword: seededPassword === undefined ? password : undefined };
  } catch (err) {
    // Another node created the admin between our count and our insert (unique username): its password stands.
    if ((await store.users.findUserByName(ADMIN_USERNAME)) !== undefined) return undefined;
    throw err;
  }
}

async function ensureExecutorToken(
  store: Store,
  seeded: string | undefined,
  nowMs: number,
): Promise<{ value: string; generated: boolean }> {
  if (seeded !== undefined) {
    if ((await store.settings.getSetting(EXECUTOR_TOKEN_SETTING)) !== seeded) {
      await store.settings.setSetting(EXECUTOR_TOKEN_SETTING, seeded, nowMs);
    }
    return { value: seeded, generated: false };
  }
  const made = randomSecret(32);
  const value = await store.settings.getOrCreateSetting(EXECUTOR_TOKEN_SETTING, () => made, nowMs);
  refuseWeakStoredToken(value);
  return { value, generated: value === made };
}

/**
 * A token an earlier version stored (from `--token default_token`, say) is refused rather than
 * warned about: a warning scrolls by while the executors stay open to anyone who knows the
 * default. The way out is a strong token given once, which replaces the stored one.
 */
function refuseWeakStoredToken(stored: string): void {
  const problem = weakTokenProblem(stored, 'the executor access token stored in the database');
  if (problem === undefined) return;
  throw new TickwheelError(
    'TW_ERR_INVALID_OPTION',
    `accessToken: ${problem}; then start once with it as accessToken (tickwheel start --token, or TICKWHEEL_ACCESS_TOKEN) to replace the stored one, and configure the executors with it`,
    'accessToken',
  );
}

async function ensureSeededApiToken(store: Store, token: string, nowMs: number): Promise<void> {
  const tokenHash = hashApiToken(token);
  if ((await store.users.findApiTokenByHash(tokenHash)) !== undefined) return;
  const owner = await store.users.findUserByName(ADMIN_USERNAME);
  if (owner === undefined) {
    throw new TickwheelError(
      'TW_ERR_INVALID_OPTION',
      `apiToken needs the user '${ADMIN_USERNAME}' to own it, and it does not exist`,
      'apiToken',
    );
  }
  try {
    // One transaction: the previous seed is never gone without the new one in its place.
    await store.users.replaceApiToken({ name: SEEDED_API_TOKEN_NAME, tokenHash, userId: owner.id }, nowMs);
  } catch (err) {
    // Another node seeded the same token at the same moment (unique token_hash): it is there.
    if ((await store.users.findApiTokenByHash(tokenHash)) === undefined) throw err;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
