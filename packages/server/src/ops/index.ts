/**
 * The ops endpoints: `/metrics` (Prometheus; authenticated like the REST API — a scraper sends
 * a bearer API token), `/healthz` and `/readyz` (public, for orchestrators).
 *
 * @example
 * const metrics = createMetrics({ wheelSize: () => scheduler.planner.wheelSize });
 * registerOps(app, { store, auth, metrics, schedulerRunning: () => running });
 */
import type { FastifyInstance } from 'fastify';
import type { Auth } from '../api/auth.js';
import { sendError } from '../api/errors.js';
import type { Store } from '../store/index.js';
import { checkReadiness } from './health.js';
import type { Metrics } from './metrics.js';

export interface OpsDeps {
  store: Store;
  /** The REST API's authentication (bearer tokens and sessions). */
  auth: Auth;
  metrics: Metrics;
  /** True while this node's scheduler (leases and planner) is running. */
  schedulerRunning(): boolean;
}

export function registerOps(app: FastifyInstance, deps: OpsDeps): void {
  app.register(async (ops) => {
    ops.setErrorHandler(sendError);

    ops.get('/healthz', async () => ({ status: 'ok' }));

    ops.get('/readyz', async (_request, reply) => {
      const readiness = await checkReadiness(deps.store, deps.schedulerRunning);
      reply.code(readiness.ready ? 200 : 503);
      return { status: readiness.ready ? 'ready' : 'not ready', checks: readiness.checks };
    });

    ops.get('/metrics', { onRequest: deps.auth.hook }, async (_request, reply) => {
      const { contentType, body } = await deps.metrics.render();
      reply.type(contentType);
      return body;
    });
  });
}

export { createMetrics, type DispatchedFire, type Metrics, type MetricsOptions } from './metrics.js';
