/**
 * Brings XXL-JOB's users over (`xxl_job_user`): each keeps its username and role, and a USER the
 * executor groups of its `permission` column as apps. XXL-JOB keeps only a hash of a password
 * (MD5 to 2.x, SHA-256 from 3.0), which Tickwheel cannot take, so each new user gets a random
 * password that is answered once, and must choose their own at their first sign-in
 * (`mustChangePassword`).
 *
 * A username the server already has is left as it is (its password, role and apps are Tickwheel's
 * own now); the report says where XXL-JOB gave it another role or other apps.
 */
import { randomBytes } from 'node:crypto';
import { type ApiClient, ApiError, call, type User } from '../api-client.js';
import { listAll, listAllApps, serverCapabilities } from '../transfer/server-state.js';
import type { XxlMappedUser } from './map-to-document.js';

export interface UserImportReport {
  created: string[];
  unchanged: string[];
  failed: Array<{ kind: 'user'; name: string; message: string }>;
  notes: string[];
  /** The one-time passwords of the users created: shown this once. */
  passwords: Array<{ username: string; password: string }>;
}

export async function importUsers(
  client: ApiClient,
  users: readonly XxlMappedUser[],
  options: { dryRun?: boolean } = {},
): Promise<UserImportReport> {
  const report: UserImportReport = { created: [], unchanged: [], failed: [], notes: [], passwords: [] };
  if (users.length === 0) return report;
  if (!(await serverCapabilities(client)).bodyFields('createUser').includes('mustChangePassword')) {
    report.notes.push(
      `this server cannot make a user change a one-time password (no mustChangePassword): the ${users.length} user(s) were not imported; update the server, or create them by hand`,
    );
    return report;
  }
  const existing = new Map(
    (
      await listAll((limit, offset) =>
        call(client.GET('/api/v1/users', { params: { query: { limit, offset } } })),
      )
    ).map((user) => [user.username, user]),
  );
  const appIdByName = new Map((await listAllApps(client)).map((app) => [app.appName, app.id]));
  for (const user of users) {
    const apps = user.appNames.flatMap((name) => {
      const id = appIdByName.get(name);
      return id === undefined ? [] : [{ name, id }];
    });
    const appIds = apps.map((app) => app.id);
    const found = existing.get(user.username);
    if (found !== undefined) {
      report.unchanged.push(user.username);
      const note = differences(user, found, apps, options.dryRun === true);
      if (note !== undefined) report.notes.push(note);
      continue;
    }
    if (options.dryRun === true) {
      report.created.push(user.username);
      continue;
    }
    const password = oneTimePassword();
    try {
      await call(
        client.POST('/api/v1/users', {
          body: {
            username: user.username,
            password,
            role: user.role,
            ...(user.role === 'USER' ? { appIds } : {}),
            mustChangePassword: true,
          },
        }),
      );
      report.created.push(user.username);
      report.passwords.push({ username: user.username, password });
    } catch (err) {
      if (err instanceof ApiError && (err.status === 0 || err.status === 401)) throw err;
      report.failed.push({ kind: 'user', name: user.username, message: (err as Error).message });
    }
  }
  return report;
}

/** What the existing user differs in from XXL-JOB's, as a note; undefined when nothing. */
function differences(
  user: XxlMappedUser,
  found: User,
  apps: Array<{ name: string; id: number }>,
  dryRun: boolean,
): string | undefined {
  if (found.role !== user.role) {
    return `user ${user.username} exists here as ${found.role} (XXL-JOB: ${user.role}); left as it is`;
  }
  // In a dry run the apps to be created have no ids yet: only the role is compared.
  if (user.role === 'USER' && !dryRun) {
    const missing = apps.filter((app) => !found.appIds.includes(app.id)).map((app) => app.name);
    if (missing.length > 0) {
      return `user ${user.username} exists here without app(s) ${missing.join(', ')} that XXL-JOB gave them; left as it is`;
    }
  }
  return undefined;
}

/** 20 characters from 120 random bits: typed once, then replaced by the user. */
function oneTimePassword(): string {
  return randomBytes(15).toString('base64url');
}
