/**
 * `tickwheel admin reset-password`: sets a user's password directly in the store, for whoever
 * runs the server and has lost the password (no HTTP, no sign-in: access to the database is the
 * credential). The user's console sessions end with it (and, with `revokeApiTokens`, the
 * user's API tokens), an audit entry says it happened, and the initial secrets file goes when it
 * held this user's first password.
 *
 * A running server keeps its sign-in limits in memory: a user it holds back stays held back
 * there until the delay ends, whatever the new password.
 */
import { TickwheelError } from '@tickwheel/protocol';
import { maskDatabasePassword } from '../migrate-database.js';
import { resolveServerOptions, type ServerOptions } from '../options.js';
import { inAccountTransaction } from '../store/account-transaction.js';
import { openStore } from '../store/connect.js';
import { randomSecret } from './api-tokens.js';
import { forgetInitialSecretsOf } from './initial-secrets-file.js';
import { hashPassword } from './passwords.js';
import { ADMIN_USERNAME, MIN_ADMIN_PASSWORD_LENGTH } from './secrets.js';

export interface ResetPasswordOptions
  extends Pick<ServerOptions, 'database' | 'dataDir' | 'initialSecretsFile'> {
  /** Whose password. Default `admin`. */
  username?: string;
  /** The new password, at least 8 characters. Default: a generated one, returned in the report. */
  password?: string;
  /** Also revoke every API token of the user (after a takeover). Default false: they keep working. */
  revokeApiTokens?: boolean;
}

export interface PasswordReset {
  /** The database, with any password in its URL masked. */
  database: string;
  username: string;
  /** The new password when it was generated (print it); absent when the caller gave it. */
  generatedPassword?: string;
  /** Console sessions of the user that were ended. */
  sessionsEnded: number;
  /** API tokens of the user that were revoked (0 without `revokeApiTokens`). */
  apiTokensRevoked: number;
  /** The initial secrets file, when it was deleted because it held this user's first password. */
  initialSecretsFileRemoved?: string;
}

/**
 * Sets the password of `username` (default `admin`) in the database the server would use with
 * the same options, and ends the user's sessions (and revokes the user's API tokens with
 * `revokeApiTokens`).
 *
 * @throws TickwheelError `TW_ERR_INVALID_OPTION` (field `password`) for a password too short;
 * `TW_ERR_NOT_FOUND` (field `username`) when there is no such user.
 *
 * @example
 * const reset = await resetPassword({ dataDir: './data' });
 * console.log(`admin / ${reset.generatedPassword}`);
 */
export async function resetPassword(options: ResetPasswordOptions = {}): Promise<PasswordReset> {
  const resolved = resolveServerOptions({
    database: options.database,
    dataDir: options.dataDir,
    initialSecretsFile: options.initialSecretsFile,
    env: {},
  });
  const username = options.username ?? ADMIN_USERNAME;
  if (options.password !== undefined && options.password.length < MIN_ADMIN_PASSWORD_LENGTH) {
    throw new TickwheelError(
      'TW_ERR_INVALID_OPTION',
      `password must be at least ${MIN_ADMIN_PASSWORD_LENGTH} characters`,
      'password',
    );
  }
  const password = options.password ?? randomSecret(18);
  const passwordHash = await hashPassword(password);
  const store = await openStore({ database: resolved.database, dataDir: resolved.dataDir });
  let ended: { sessionsEnded: number; apiTokensRevoked: number };
  try {
    const now = Date.now();
    ended = await inAccountTransaction(store, async (tx) => {
      const user = await tx.users.findUserByName(username);
      if (user === undefined) {
        throw new TickwheelError('TW_ERR_NOT_FOUND', `there is no user named ${username}`, 'username');
      }
      await tx.users.updateUser(user.id, { passwordHash }, now);
      const sessionsEnded = await tx.sessions.deleteUserSessions(user.id);
      const apiTokensRevoked = options.revokeApiTokens ? await tx.users.deleteUserApiTokens(user.id) : 0;
      await tx.audit.recordAudit(
        {
          userId: user.id,
          username: user.username,
          action: 'CHANGE_PASSWORD',
          targetType: 'USER',
          targetId: user.id,
          appId: null,
          detail: {
            via: 'tickwheel admin reset-password',
            ...(options.revokeApiTokens ? { apiTokensRevoked } : {}),
          },
        },
        now,
      );
      return { sessionsEnded, apiTokensRevoked };
    });
  } finally {
    await store.close();
  }
  const file = resolved.initialSecretsFile;
  const removed = file !== undefined && (await forgetInitialSecretsOf(file, username));
  return {
    database: maskDatabasePassword(resolved.database),
    username,
    ...(options.password === undefined ? { generatedPassword: password } : {}),
    ...ended,
    ...(removed ? { initialSecretsFileRemoved: file } : {}),
  };
}
