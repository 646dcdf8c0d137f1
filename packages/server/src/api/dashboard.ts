/**
 * `getDashboard`: the console's first page — apps, jobs and executors online now, and the fire
 * figures of the last 7 or 30 days (counts by result, lateness p50/p99, mean run time) per day
 * and in total. The figures come from the daily report rows the reports monitor writes, never
 * from the fire records, so the page costs the same with a billion records. Everything is scoped
 * to the caller: an admin sees every app (or the one asked for), a user only their own apps.
 */
import type { FastifyInstance } from 'fastify';
import { lastDays } from '../reports/days.js';
import { dailySeries, mergeFigures } from '../reports/series.js';
import type { Principal } from './auth.js';
import { type ApiContext, principalOf, requireAppAccess, SECURITY } from './context.js';
import { errorResponses, notFound } from './errors.js';
import { Dashboard, DashboardQuery } from './schemas.js';

export function registerDashboard(api: FastifyInstance, ctx: ApiContext): void {
  const { store, clock, executorDeadAfterMs } = ctx.deps;
  api.get<{ Querystring: DashboardQuery }>(
    '/dashboard',
    {
      schema: {
        operationId: 'getDashboard',
        tags: ['dashboard'],
        summary:
          'Apps, jobs and executors online now, and the fire figures per day of the last 7 or 30 days (UTC) with their totals',
        security: SECURITY,
        querystring: DashboardQuery,
        response: { 200: Dashboard, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => {
      const principal = principalOf(ctx, request);
      const { days: dayCount = 7, appId } = request.query;
      const appIds = await appsInScope(ctx, principal, appId);
      const now = clock.now();
      const days = lastDays(now, dayCount);
      const [apps, jobs, enabledJobs, executorsOnline, rows, workflows] = await Promise.all([
        appIds === undefined ? store.apps.countApps() : appIds.length,
        countJobs(ctx, appIds),
        countJobs(ctx, appIds, 1),
        countExecutorsOnline(ctx, appIds, now - executorDeadAfterMs),
        store.reports.listDays(days[0]!, days[days.length - 1]!, appIds),
        workflowFigures(ctx, appIds, now),
      ]);
      const computedAt = rows.reduce<number | null>((at, row) => Math.max(at ?? 0, row.updated_at), null);
      return {
        apps,
        jobs,
        enabledJobs,
        executorsOnline,
        days: dayCount,
        ...(appId === undefined ? {} : { appId }),
        totals: mergeFigures(rows),
        series: dailySeries(days, rows),
        computedAt,
        workflows,
      };
    },
  );
}

/** Workflows in scope, those scheduled, and today's runs by status. */
async function workflowFigures(ctx: ApiContext, appIds: number[] | undefined, now: number) {
  const { workflows } = ctx.deps.store;
  const scope = appIds === undefined ? {} : { appIds };
  const startOfDay = now - (now % 86_400_000);
  const [total, running, byStatus] = await Promise.all([
    workflows.countWorkflows(scope),
    workflows.countWorkflows({ ...scope, triggerStatus: 1 }),
    workflows.countRunsByStatus(startOfDay, appIds),
  ]);
  return {
    total,
    running,
    runsToday: {
      succeeded: byStatus.succeeded ?? 0,
      failed: byStatus.failed ?? 0,
      running: (byStatus.running ?? 0) + (byStatus.waiting ?? 0),
      stopped: byStatus.stopped ?? 0,
    },
  };
}

/** The apps the caller sees: undefined = every app (an admin without a filter). */
async function appsInScope(
  ctx: ApiContext,
  principal: Principal,
  appId: number | undefined,
): Promise<number[] | undefined> {
  if (appId !== undefined) {
    requireAppAccess(principal, appId);
    if ((await ctx.deps.store.apps.findAppById(appId)) === undefined) throw notFound('app', appId);
    return [appId];
  }
  if (principal.role === 'admin') return undefined;
  const ids = [...principal.appIds];
  // A permission may outlive its app: count only the apps that exist.
  const found = await Promise.all(ids.map((id) => ctx.deps.store.apps.findAppById(id)));
  return ids.filter((_, i) => found[i] !== undefined);
}

async function countJobs(
  ctx: ApiContext,
  appIds: number[] | undefined,
  triggerStatus?: 0 | 1,
): Promise<number> {
  return ctx.deps.store.jobs.countJobs({
    ...(appIds === undefined ? {} : { appIds }),
    ...(triggerStatus === undefined ? {} : { triggerStatus }),
  });
}

async function countExecutorsOnline(
  ctx: ApiContext,
  appIds: number[] | undefined,
  aliveSince: number,
): Promise<number> {
  const { store } = ctx.deps;
  const alive = await store.registry.listAlive(aliveSince);
  let names: Set<string> | undefined;
  if (appIds !== undefined) {
    const apps = await Promise.all(appIds.map((id) => store.apps.findAppById(id)));
    names = new Set(apps.flatMap((app) => (app === undefined ? [] : [app.app_name])));
  }
  // An executor serving two apps registers twice; it is one executor.
  const addresses = alive.filter((row) => names === undefined || names.has(row.registry_key));
  return new Set(addresses.map((row) => row.registry_value)).size;
}
