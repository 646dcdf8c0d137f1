/**
 * Console users and the REST API's bearer tokens. Only hashes are stored; hashing and checking
 * belong to the auth module.
 */
import type { StoreConnection } from './connection.js';
import { insertReturningId } from './insert-id.js';
import type { ApiTokenRow, UserRow } from './schema.js';

export interface NewUser {
  username: string;
  passwordHash: string;
  role: 'admin' | 'user';
  /** Comma-separated app ids a `user` may manage. */
  appPermissions?: string;
  /** The user must change their password before the API answers them anything else. Default false. */
  mustChangePassword?: boolean;
}

export interface UserPatch {
  passwordHash?: string;
  role?: 'admin' | 'user';
  appPermissions?: string;
  mustChangePassword?: boolean;
}

export interface NewApiToken {
  name: string;
  tokenHash: string;
  userId: number;
}

export function createUserRepository(conn: StoreConnection) {
  const { db } = conn;

  async function createUser(user: NewUser, nowMs: number): Promise<UserRow> {
    const id = await insertReturningId(
      conn.dialect,
      db.insertInto('users').values({
        username: user.username,
        password_hash: user.passwordHash,
        role: user.role,
        app_permissions: user.appPermissions ?? '',
        must_change_password: user.mustChangePassword === true ? 1 : 0,
        created_at: nowMs,
        updated_at: nowMs,
      }),
    );
    return (await findUserById(id))!;
  }

  async function updateUser(id: number, patch: UserPatch, nowMs: number): Promise<boolean> {
    const result = await db
      .updateTable('users')
      .set({
        ...(patch.passwordHash === undefined ? {} : { password_hash: patch.passwordHash }),
        ...(patch.role === undefined ? {} : { role: patch.role }),
        ...(patch.appPermissions === undefined ? {} : { app_permissions: patch.appPermissions }),
        ...(patch.mustChangePassword === undefined
          ? {}
          : { must_change_password: patch.mustChangePassword ? 1 : 0 }),
        updated_at: nowMs,
      })
      .where('id', '=', id)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async function deleteUser(id: number): Promise<boolean> {
    // api_token rows go with the user (ON DELETE CASCADE).
    const result = await db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async function findUserById(id: number): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async function findUserByName(username: string): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
  }

  async function listUsers(limit = 100, offset = 0): Promise<UserRow[]> {
    return db.selectFrom('users').selectAll().orderBy('username').limit(limit).offset(offset).execute();
  }

  /**
   * The ids of the admins, their rows locked until the transaction ends on PostgreSQL and MySQL
   * (SQLite's one writer already serialises), so two admins demoting each other at once cannot
   * leave nobody in charge. Call it inside a transaction.
   */
  async function lockAdmins(): Promise<number[]> {
    const query = db.selectFrom('users').select('id').where('role', '=', 'admin').orderBy('id');
    const rows = await (conn.dialect === 'sqlite' ? query : query.forUpdate()).execute();
    return rows.map((row) => Number(row.id));
  }

  async function countUsers(): Promise<number> {
    const row = await db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async function createApiToken(token: NewApiToken, nowMs: number): Promise<ApiTokenRow> {
    const id = await insertReturningId(
      conn.dialect,
      db.insertInto('api_token').values({
        name: token.name,
        token_hash: token.tokenHash,
        user_id: token.userId,
        created_at: nowMs,
        last_used_at: null,
      }),
    );
    return (await db.selectFrom('api_token').selectAll().where('id', '=', id).executeTakeFirst())!;
  }

  /** Replaces the user's token of this name with a new one, in one transaction (never neither). */
  async function replaceApiToken(token: NewApiToken, nowMs: number): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('api_token')
        .where('user_id', '=', token.userId)
        .where('name', '=', token.name)
        .execute();
      await trx
        .insertInto('api_token')
        .values({
          name: token.name,
          token_hash: token.tokenHash,
          user_id: token.userId,
          created_at: nowMs,
          last_used_at: null,
        })
        .execute();
    });
  }

  async function findApiTokenByHash(tokenHash: string): Promise<ApiTokenRow | undefined> {
    return db.selectFrom('api_token').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  async function touchApiToken(id: number, nowMs: number): Promise<void> {
    await db.updateTable('api_token').set({ last_used_at: nowMs }).where('id', '=', id).execute();
  }

  async function listApiTokens(userId: number): Promise<ApiTokenRow[]> {
    return db.selectFrom('api_token').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  }

  async function deleteApiToken(id: number): Promise<boolean> {
    const result = await db.deleteFrom('api_token').where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  /** Revokes every API token of the user; returns how many there were. */
  async function deleteUserApiTokens(userId: number): Promise<number> {
    const result = await db.deleteFrom('api_token').where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  return {
    createUser,
    updateUser,
    deleteUser,
    findUserById,
    findUserByName,
    listUsers,
    countUsers,
    lockAdmins,
    createApiToken,
    replaceApiToken,
    findApiTokenByHash,
    touchApiToken,
    listApiTokens,
    deleteApiToken,
    deleteUserApiTokens,
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;
