/**
 * The audit trail: who created, changed, started, stopped, triggered, killed or deleted what.
 * Entries are only ever added; `detail` is a JSON object naming what changed (never a secret).
 */
import type { StoreConnection } from './connection.js';
import { insertReturningId } from './insert-id.js';
import type { AuditLogRow } from './schema.js';

export interface NewAuditEntry {
  userId: number;
  username: string;
  action: string;
  targetType: string;
  targetId: number | null;
  appId: number | null;
  detail: Record<string, unknown>;
}

export interface AuditFilter {
  userId?: number;
  action?: string;
  targetType?: string;
  targetId?: number;
  appId?: number;
  /** at >= from. */
  from?: number;
  /** at < to. */
  to?: number;
  limit?: number;
  offset?: number;
}

export function createAuditRepository(conn: StoreConnection) {
  const { db } = conn;

  async function recordAudit(entry: NewAuditEntry, nowMs: number): Promise<number> {
    return insertReturningId(
      conn.dialect,
      db.insertInto('audit_log').values({
        at: nowMs,
        user_id: entry.userId,
        username: entry.username,
        action: entry.action,
        target_type: entry.targetType,
        target_id: entry.targetId,
        app_id: entry.appId,
        detail: JSON.stringify(entry.detail),
      }),
    );
  }

  function filtered(filter: AuditFilter) {
    let query = db.selectFrom('audit_log');
    if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
    if (filter.action !== undefined) query = query.where('action', '=', filter.action);
    if (filter.targetType !== undefined) query = query.where('target_type', '=', filter.targetType);
    if (filter.targetId !== undefined) query = query.where('target_id', '=', filter.targetId);
    if (filter.appId !== undefined) query = query.where('app_id', '=', filter.appId);
    if (filter.from !== undefined) query = query.where('at', '>=', filter.from);
    if (filter.to !== undefined) query = query.where('at', '<', filter.to);
    return query;
  }

  /** Newest first, one page. */
  async function listAudit(filter: AuditFilter = {}): Promise<AuditLogRow[]> {
    return filtered(filter)
      .selectAll()
      .orderBy('id', 'desc')
      .limit(filter.limit ?? 50)
      .offset(filter.offset ?? 0)
      .execute();
  }

  async function countAudit(filter: AuditFilter = {}): Promise<number> {
    const row = await filtered(filter)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  return { recordAudit, listAudit, countAudit };
}

export type AuditRepository = ReturnType<typeof createAuditRepository>;
