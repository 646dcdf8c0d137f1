/**
 * The initial secrets file, `<data-dir>/initial-secrets.txt`: the secrets generated at the first
 * start (the admin password, the executor access token, the API token), kept owner-only (0600,
 * in a directory made 0700: owner-only-files.ts) so that a first password lost with the terminal
 * that showed it can still be read by whoever can read the data directory, as Jenkins keeps its
 * initial admin password. It is written the moment the secrets are generated, before the server
 * listens, so a start that fails later loses nothing.
 *
 * It lasts until the admin's password is changed: the node that changes it deletes the file at
 * once; every start checks the password in the file against the stored hash and deletes a file
 * whose password no longer works (changed on another node, by `tickwheel admin reset-password`
 * against another data directory, or the user removed).
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Store } from '../store/index.js';
import {
  type LooseMode,
  makeOwnerOnlyDir,
  makeOwnerOnlyFile,
  narrowDir,
  narrowFile,
} from './owner-only-files.js';
import { verifyPassword } from './passwords.js';

/** The file's name in the data directory. */
export const INITIAL_SECRETS_FILE_NAME = 'initial-secrets.txt';

/** What the file holds. */
export interface InitialSecrets {
  adminUsername: string;
  adminPassword: string;
  accessToken?: string | undefined;
  apiToken?: string | undefined;
}

/** Writes the file, readable and writable by its owner only, in a directory of its owner only. */
export async function writeInitialSecrets(
  file: string,
  secrets: InitialSecrets,
  nowMs: number,
): Promise<void> {
  makeOwnerOnlyDir(path.dirname(file));
  // 0600 before a secret is written into it: a file left from an earlier store is narrowed first.
  makeOwnerOnlyFile(file);
  const lines = [
    `# Tickwheel: the secrets generated at the first start, ${new Date(nowMs).toISOString()}.`,
    '# Kept so that a lost first password can be recovered. The server deletes this file when the',
    `# password of ${secrets.adminUsername} is changed (in the console, or tickwheel admin reset-password).`,
    `admin-username=${secrets.adminUsername}`,
    `admin-password=${secrets.adminPassword}`,
    ...(secrets.accessToken === undefined ? [] : [`executor-access-token=${secrets.accessToken}`]),
    ...(secrets.apiToken === undefined ? [] : [`api-token=${secrets.apiToken}`]),
    '',
  ];
  await writeFile(file, lines.join('\n'));
}

/**
 * Narrows the file and its directory, where they exist and are open to other users (made by an
 * earlier version, or copied in), to owner-only; returns what was open. At each start, before
 * the file is read or written.
 */
export function narrowInitialSecretsFile(file: string | undefined): LooseMode[] {
  if (file === undefined) return [];
  return [narrowDir(path.dirname(file)), narrowFile(file)].filter((loose) => loose !== undefined);
}

/** The file's secrets; undefined when there is no file, or none this module wrote. */
export async function readInitialSecrets(file: string): Promise<InitialSecrets | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([a-z-]+)=(.*)$/.exec(line);
    if (match !== null) values.set(match[1]!, match[2]!);
  }
  const adminUsername = values.get('admin-username');
  const adminPassword = values.get('admin-password');
  if (adminUsername === undefined || adminPassword === undefined) return undefined;
  return {
    adminUsername,
    adminPassword,
    accessToken: values.get('executor-access-token'),
    apiToken: values.get('api-token'),
  };
}

/**
 * Deletes the file when its password no longer signs its user in; returns whether the file is
 * still there (and still worth reading).
 */
export async function keepInitialSecretsWhileValid(file: string, store: Store): Promise<boolean> {
  const secrets = await readInitialSecrets(file);
  if (secrets === undefined) return false;
  const user = await store.users.findUserByName(secrets.adminUsername);
  if (user !== undefined && (await verifyPassword(secrets.adminPassword, user.password_hash))) return true;
  await rm(file, { force: true });
  return false;
}

/** Deletes the file when it holds the password of `username`, which has just been changed. */
export async function forgetInitialSecretsOf(file: string, username: string): Promise<boolean> {
  const secrets = await readInitialSecrets(file);
  if (secrets === undefined || secrets.adminUsername !== username) return false;
  await rm(file, { force: true });
  return true;
}
