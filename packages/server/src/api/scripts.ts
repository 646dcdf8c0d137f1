/**
 * Script (GLUE) jobs' scripts: `listScriptVersions`, `updateJobScript`, `restoreScriptVersion`.
 * Every save — an edit or a restore — makes the job's current script, stamps `glue_updated_at`
 * and keeps a version (the last 30 per job), all in one transaction. The new stamp travels to the
 * executor as `glueUpdatetime` with the next run, and the executor replaces the job's lane, so
 * the next run runs the new script.
 *
 * A restore saves the old version again as the newest one (its remark says which), so the
 * history reads in the order things happened and a restore can itself be undone.
 */
import type { FastifyInstance } from 'fastify';
import type { JobGlueRow, JobRow } from '../store/index.js';
import { recordAudit } from './audit-trail.js';
import type { Principal } from './auth.js';
import { type ApiContext, principalOf, requireVisible, SECURITY } from './context.js';
import { errorResponses, invalidField, notFound } from './errors.js';
import { checkByteLength, toJob } from './jobs.js';
import {
  IdParams,
  Job,
  LIMITS,
  type ScriptBody,
  ScriptBody as ScriptBodySchema,
  type ScriptVersion,
  ScriptVersionList,
  ScriptVersionParams,
} from './schemas.js';

const TAGS = ['scripts'];
/** `glue_remark` is VARCHAR(128). */
const REMARK_MAX = 128;

export function registerScripts(api: FastifyInstance, ctx: ApiContext): void {
  const { store, clock } = ctx.deps;

  api.get<{ Params: IdParams }>(
    '/jobs/:id/script/versions',
    {
      schema: {
        operationId: 'listScriptVersions',
        tags: TAGS,
        summary: "A job's saved script versions, newest first, with their source (the last 30 are kept)",
        security: SECURITY,
        params: IdParams,
        response: { 200: ScriptVersionList, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const job = await findAccessibleJob(ctx, principalOf(ctx, request), request.params.id);
      return { items: (await store.jobs.listGlueVersions(job.id)).map(toScriptVersion) };
    },
  );

  api.put<{ Params: IdParams; Body: ScriptBody }>(
    '/jobs/:id/script',
    {
      schema: {
        operationId: 'updateJobScript',
        tags: TAGS,
        summary:
          "Save a job's script with a remark: it becomes the job's script (the next run runs it) and a new version",
        security: SECURITY,
        params: IdParams,
        body: ScriptBodySchema,
        response: { 200: Job, ...errorResponses(400, 403, 404, 413) },
      },
    },
    async (request) => {
      const job = await findAccessibleJob(ctx, principalOf(ctx, request), request.params.id);
      const { glueSource, glueRemark } = request.body;
      const glueType = request.body.glueType ?? job.glue_type;
      if (glueType === 'BEAN') {
        throw invalidField(
          'glueType',
          'glueType: job is a BEAN job; name the script type (e.g. GLUE_SHELL) to make it a script job',
        );
      }
      checkByteLength('glueSource', glueSource, LIMITS.glueSourceBytes);
      if (!(await store.jobs.saveGlueVersion(job.id, { glueType, glueSource, glueRemark }, clock.now()))) {
        throw notFound('job', job.id);
      }
      await recordAudit(ctx, request, {
        action: 'UPDATE',
        targetType: 'SCRIPT',
        targetId: job.id,
        appId: job.app_id,
        detail: { glueType, glueRemark },
      });
      return toJob((await store.jobs.findJobById(job.id))!);
    },
  );

  api.post<{ Params: ScriptVersionParams }>(
    '/jobs/:id/script/versions/:versionId/restore',
    {
      schema: {
        operationId: 'restoreScriptVersion',
        tags: TAGS,
        summary:
          "Make a saved version the job's script again (saved as the newest version; the next run runs it)",
        security: SECURITY,
        params: ScriptVersionParams,
        response: { 200: Job, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const job = await findAccessibleJob(ctx, principalOf(ctx, request), request.params.id);
      const version = await store.jobs.findGlueVersion(request.params.versionId);
      // Another job's version is "not found" here: a version id must not reach across jobs.
      if (version === undefined || version.job_id !== job.id) {
        throw notFound('script version', request.params.versionId);
      }
      const glueRemark = restoredRemark(version);
      const glue = { glueType: version.glue_type, glueSource: version.glue_source, glueRemark };
      if (!(await store.jobs.saveGlueVersion(job.id, glue, clock.now()))) throw notFound('job', job.id);
      await recordAudit(ctx, request, {
        action: 'RESTORE',
        targetType: 'SCRIPT',
        targetId: job.id,
        appId: job.app_id,
        detail: { versionId: version.id },
      });
      return toJob((await store.jobs.findJobById(job.id))!);
    },
  );
}

async function findAccessibleJob(ctx: ApiContext, principal: Principal, id: number): Promise<JobRow> {
  const job = await ctx.deps.store.jobs.findJobById(id);
  if (job === undefined) throw notFound('job', id);
  requireVisible(principal, job.app_id, 'job', id);
  return job;
}

/** `restored version 12: <its remark>`, cut to the column's size. */
function restoredRemark(version: JobGlueRow): string {
  const remark = `restored version ${version.id}: ${version.glue_remark}`;
  return remark.length <= REMARK_MAX ? remark : `${remark.slice(0, REMARK_MAX - 1)}…`;
}

function toScriptVersion(row: JobGlueRow): ScriptVersion {
  return {
    id: row.id,
    jobId: row.job_id,
    glueType: row.glue_type,
    glueSource: row.glue_source,
    glueRemark: row.glue_remark,
    createdAt: row.created_at,
  };
}
