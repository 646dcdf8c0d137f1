/**
 * `getDashboard`: the totals of the console's first page, now. Charts over days come with the
 * reports of the next issue.
 */
import type { FastifyInstance } from 'fastify';
import { type ApiContext, SECURITY } from './context.js';
import { errorResponses } from './errors.js';
import { Dashboard } from './schemas.js';

const DAY_MS = 86_400_000;

export function registerDashboard(api: FastifyInstance, ctx: ApiContext): void {
  const { store, clock, executorDeadAfterMs } = ctx.deps;
  api.get(
    '/dashboard',
    {
      schema: {
        operationId: 'getDashboard',
        tags: ['dashboard'],
        summary:
          'Totals now: apps, jobs, enabled jobs, executors online, fires scheduled today (UTC) by status',
        security: SECURITY,
        response: { 200: Dashboard, ...errorResponses() },
      },
    },
    async () => {
      const now = clock.now();
      const dayStart = now - (now % DAY_MS);
      const [apps, jobs, enabledJobs, alive, byStatus] = await Promise.all([
        store.apps.countApps(),
        store.jobs.countJobs(),
        store.jobs.countJobs({ triggerStatus: 1 }),
        store.registry.listAlive(now - executorDeadAfterMs),
        store.fires.countFiresByStatus(dayStart, dayStart + DAY_MS),
      ]);
      // An executor serving two apps registers twice; it is one executor.
      const executorsOnline = new Set(alive.map((row) => row.registry_value)).size;
      const counts = Object.fromEntries(Object.entries(byStatus).map(([status, n]) => [status, n ?? 0]));
      const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
      return {
        apps,
        jobs,
        enabledJobs,
        executorsOnline,
        firesToday: { day: new Date(dayStart).toISOString().slice(0, 10), total, byStatus: counts },
      };
    },
  );
}
