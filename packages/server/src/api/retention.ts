/**
 * Retention: `getRetentionSettings` and `updateRetentionSettings` (admins: how many days fire
 * records are kept; the retention monitor deletes older ones), and `clearFires` (anyone who may
 * operate the app: delete an app's or a job's finished records by age or beyond the newest N,
 * as XXL-JOB's "clear logs").
 */
import type { FastifyInstance } from 'fastify';
import { clearFires } from '../retention/clear-fires.js';
import { readRetentionSettings, writeRetentionSettings } from '../retention/settings.js';
import { recordAudit } from './audit-trail.js';
import { canAccessApp } from './auth.js';
import { type ApiContext, principalOf, requireAdmin, requireAppAccess, SECURITY } from './context.js';
import { ApiError, errorResponses, invalidField, notFound } from './errors.js';
import {
  type ClearFiresBody,
  ClearFiresResult,
  ClearFiresBody as ClearFiresSchema,
  RetentionSettings,
  type RetentionSettings as RetentionSettingsBody,
} from './schemas.js';

export function registerRetention(api: FastifyInstance, ctx: ApiContext): void {
  const { store, clock } = ctx.deps;

  api.get(
    '/settings/retention',
    {
      schema: {
        operationId: 'getRetentionSettings',
        tags: ['settings'],
        summary: 'How many days fire records are kept (admins)',
        security: SECURITY,
        response: { 200: RetentionSettings, ...errorResponses(403) },
      },
    },
    async (request) => {
      requireAdmin(principalOf(ctx, request), 'read the retention settings');
      return readRetentionSettings(store.settings);
    },
  );

  api.put<{ Body: RetentionSettingsBody }>(
    '/settings/retention',
    {
      schema: {
        operationId: 'updateRetentionSettings',
        tags: ['settings'],
        summary:
          'Change how many days fire records are kept (admins; at least 3); applies from the next sweep',
        security: SECURITY,
        body: RetentionSettings,
        response: { 200: RetentionSettings, ...errorResponses(400, 403) },
      },
    },
    async (request) => {
      requireAdmin(principalOf(ctx, request), 'change the retention settings');
      await writeRetentionSettings(store.settings, request.body, clock.now());
      return readRetentionSettings(store.settings);
    },
  );

  api.post<{ Body: ClearFiresBody }>(
    '/fires/clear',
    {
      schema: {
        operationId: 'clearFires',
        tags: ['fires'],
        summary:
          "Delete an app's or a job's finished fire records scheduled before `before` and/or beyond the newest `keepLast`; runs in flight stay",
        security: SECURITY,
        body: ClearFiresSchema,
        response: { 200: ClearFiresResult, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const { jobId, before, keepLast } = request.body;
      if (before === undefined && keepLast === undefined) {
        throw new ApiError('TW_ERR_MISSING_FIELD', 'before: is required unless keepLast is given', 'before');
      }
      let { appId } = request.body;
      if (jobId !== undefined) {
        const found = await store.jobs.findJobById(jobId);
        // Another app's job is as unknown as a missing one: the answer must not tell it exists.
        const job = found !== undefined && canAccessApp(principal, found.app_id) ? found : undefined;
        // A deleted job's records stay in the log; they can still be cleared through their app.
        if (job === undefined && appId === undefined) throw notFound('job', jobId);
        if (job !== undefined && appId !== undefined && job.app_id !== appId) {
          throw invalidField('jobId', `jobId: job ${jobId} is not in app ${appId}`);
        }
        appId ??= job?.app_id;
      }
      if (appId === undefined) {
        throw new ApiError('TW_ERR_MISSING_FIELD', 'appId: is required unless jobId is given', 'appId');
      }
      requireAppAccess(principal, appId);
      const deleted = await clearFires(store.fires, {
        appId,
        ...(jobId === undefined ? {} : { jobId }),
        ...(before === undefined ? {} : { before }),
        ...(keepLast === undefined ? {} : { keepLast }),
      });
      await recordAudit(ctx, request, {
        action: 'DELETE',
        targetType: 'FIRE',
        targetId: null,
        appId,
        detail: { cleared: deleted, ...request.body },
      });
      return { deleted };
    },
  );
}
