/**
 * Console sessions, kept in the database so every server node knows them and a revocation on
 * one node holds on all. Rows hold the SHA-256 of the session id, never the id itself; the
 * auth module hashes and checks.
 */
import type { StoreConnection } from './connection.js';
import type { UserSessionRow } from './schema.js';

export interface NewSession {
  idHash: string;
  userId: number;
  csrfToken: string;
  expiresAt: number;
}

export function createSessionRepository(conn: StoreConnection) {
  const { db } = conn;

  async function createSession(session: NewSession, nowMs: number): Promise<void> {
    await db
      .insertInto('user_session')
      .values({
        id_hash: session.idHash,
        user_id: session.userId,
        csrf_token: session.csrfToken,
        created_at: nowMs,
        expires_at: session.expiresAt,
      })
      .execute();
  }

  async function findSession(idHash: string): Promise<UserSessionRow | undefined> {
    return db.selectFrom('user_session').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
  }

  async function deleteSession(idHash: string): Promise<void> {
    await db.deleteFrom('user_session').where('id_hash', '=', idHash).execute();
  }

  /** Ends every session of a user but `keepIdHash` (the caller's own); returns how many. */
  async function deleteUserSessions(userId: number, keepIdHash?: string): Promise<number> {
    let query = db.deleteFrom('user_session').where('user_id', '=', userId);
    if (keepIdHash !== undefined) query = query.where('id_hash', '<>', keepIdHash);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async function deleteExpiredSessions(nowMs: number): Promise<number> {
    const result = await db.deleteFrom('user_session').where('expires_at', '<=', nowMs).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async function countUserSessions(userId: number): Promise<number> {
    const row = await db
      .selectFrom('user_session')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  return {
    createSession,
    findSession,
    deleteSession,
    deleteUserSessions,
    deleteExpiredSessions,
    countUserSessions,
  };
}

export type SessionRepository = ReturnType<typeof createSessionRepository>;
