/**
 * Writing the audit trail from the REST resources. Changes to users and API tokens write their
 * entry in the change's own transaction (`inAccountTransaction`, with `auditEntry`); the other
 * resources (apps, jobs, fires, scripts) write it right after the change succeeded
 * (`recordAudit`), since their writes go through repositories and engine hooks that open their
 * own transactions. An entry that cannot be written then is logged as an error and the request
 * still answers its success: the change has happened, and a 500 would invite a client to repeat
 * a trigger or a kill.
 */
import type { FastifyRequest } from 'fastify';
import type { NewAuditEntry } from '../store/index.js';
import type { Principal } from './auth.js';
import { type ApiContext, principalOf } from './context.js';
import type { AUDIT_ACTIONS, AUDIT_TARGETS } from './schemas.js';

export type AuditAction = (typeof AUDIT_ACTIONS)[number];
export type AuditTarget = (typeof AUDIT_TARGETS)[number];

/** What was done to what. `detail` names what changed; it must never hold a secret or a script. */
export interface AuditRecord {
  action: AuditAction;
  targetType: AuditTarget;
  targetId: number | null;
  /** The app the target belongs to, when it belongs to one. */
  appId: number | null;
  detail?: Record<string, unknown>;
}

/** The store entry for `record` done by `principal`. */
export function auditEntry(principal: Principal, record: AuditRecord): NewAuditEntry {
  return {
    userId: principal.userId,
    username: principal.username,
    action: record.action,
    targetType: record.targetType,
    targetId: record.targetId,
    appId: record.appId,
    detail: record.detail ?? {},
  };
}

/**
 * Records that the caller of `request` did `record`; call it once the change succeeded.
 *
 * @example
 * await recordAudit(ctx, request, { action: 'START', targetType: 'JOB', targetId: job.id, appId: job.app_id });
 */
export async function recordAudit(
  ctx: ApiContext,
  request: FastifyRequest,
  record: AuditRecord,
): Promise<void> {
  const entry = auditEntry(principalOf(ctx, request), record);
  try {
    await ctx.deps.store.audit.recordAudit(entry, ctx.deps.clock.now());
  } catch (err) {
    request.log.error({ err, audit: entry }, 'the audit entry of a change could not be written');
  }
}
