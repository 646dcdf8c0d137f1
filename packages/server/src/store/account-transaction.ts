/**
 * Changes to users, sessions and API tokens together with their audit entry, in one
 * transaction: a change is never recorded without its entry, nor an entry without its change.
 */
import { createAuditRepository } from './audit.js';
import type { StoreConnection } from './connection.js';
import { createSessionRepository } from './sessions.js';
import type { Store } from './store.js';
import { createUserRepository } from './users.js';

/** The repositories of one account transaction, bound to it. */
export interface AccountTransaction {
  users: ReturnType<typeof createUserRepository>;
  sessions: ReturnType<typeof createSessionRepository>;
  audit: ReturnType<typeof createAuditRepository>;
}

/**
 * Runs `work` in one transaction. Use only `tx` inside: on SQLite the store has one connection,
 * which the transaction holds until `work` ends.
 *
 * @example
 * await inAccountTransaction(store, async (tx) => {
 *   await tx.users.deleteUser(id);
 *   await tx.audit.recordAudit({ ...who, action: 'DELETE', targetType: 'USER', targetId: id, appId: null, detail: {} }, now);
 * });
 */
export async function inAccountTransaction<T>(
  store: Store,
  work: (tx: AccountTransaction) => Promise<T>,
): Promise<T> {
  return store.db.transaction().execute((trx) => {
    const conn = { ...store.connection, db: trx } as StoreConnection;
    return work({
      users: createUserRepository(conn),
      sessions: createSessionRepository(conn),
      audit: createAuditRepository(conn),
    });
  });
}
