/** `listAudit` (admins): the audit trail, newest first, by user, action, target, app and time. */
import type { FastifyInstance } from 'fastify';
import type { AuditLogRow } from '../store/index.js';
import { type ApiContext, principalOf, requireAdmin, SECURITY } from './context.js';
import { errorResponses, invalidField } from './errors.js';
import { AuditEntry, AuditQuery, Page } from './schemas.js';

export function registerAudit(api: FastifyInstance, ctx: ApiContext): void {
  api.get<{ Querystring: AuditQuery }>(
    '/audit',
    {
      schema: {
        operationId: 'listAudit',
        tags: ['audit'],
        summary:
          'The audit trail (admins): who created, changed, started, stopped, triggered, killed or deleted what, newest first',
        security: SECURITY,
        querystring: AuditQuery,
        response: { 200: Page(AuditEntry), ...errorResponses(400, 403) },
      },
    },
    async (request) => {
      requireAdmin(principalOf(ctx, request), 'read the audit trail');
      const { limit = 50, offset = 0, ...query } = request.query;
      if (query.from !== undefined && query.to !== undefined && query.to <= query.from) {
        throw invalidField('to', 'to: must be after from');
      }
      const filter = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined));
      const { store } = ctx.deps;
      const [rows, total] = await Promise.all([
        store.audit.listAudit({ ...filter, limit, offset }),
        store.audit.countAudit(filter),
      ]);
      return { items: rows.map(toAuditEntry), total, limit, offset };
    },
  );
}

function toAuditEntry(row: AuditLogRow): AuditEntry {
  return {
    id: row.id,
    at: row.at,
    userId: row.user_id,
    username: row.username,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    appId: row.app_id,
    detail: parseDetail(row.detail),
  };
}

/** The stored JSON object; anything else (a hand-edited row) shows as empty rather than failing the page. */
function parseDetail(stored: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(stored);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
