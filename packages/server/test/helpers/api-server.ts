/**
 * A REST API on a real store, for the api-* suites: a Fastify instance with `registerRestApi`
 * (and the ops endpoints), the first-start secrets, an admin bearer token, and recording
 * stand-ins for the engine hooks (`triggerJob` records pending fires as the engine would;
 * `finishFires` finalises through the store).
 */

import Fastify, { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { ALARM_QUEUE_DEFAULTS } from '../../src/alarms/options.js';
import { Auth, type RestApiDeps, registerRestApi, type TriggerRequest } from '../../src/api/index.js';
import { Dispatcher } from '../../src/dispatch/dispatcher.js';
import { createMetrics, type Metrics, registerOps } from '../../src/ops/index.js';
import { SERVER_DEFAULTS } from '../../src/options.js';
import { ensureSecrets } from '../../src/security/secrets.js';
import type { DialectName, FireResult, JobRow, Store } from '../../src/store/index.js';
import { WorkflowEngine } from '../../src/workflows/engine.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { TOKEN } from './dispatch-fixtures.js';

export const ADMIN_API_TOKEN = 'tw_test-admin-token-0123456789abcdef';
export const ADMIN_PASSWORD = 'admin-password-for-tests';

export interface ApiHarness {
  app: FastifyInstance;
  store: Store;
  database: TestDatabase;
  auth: Auth;
  metrics: Metrics;
  clock: { now(): number; set(ms: number): void };
  triggers: Array<{ job: JobRow; request: TriggerRequest }>;
  /** Whether /readyz sees the scheduler running. */
  schedulerRunning: boolean;
  /** `app.inject` with the admin's bearer token unless `token` (null: none) or headers say otherwise. */
  call(method: InjectOptions['method'], url: string, options?: CallOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface CallOptions {
  body?: unknown;
  /** Bearer token; default the admin's; null sends no Authorization header. */
  token?: string | null;
  headers?: Record<string, string>;
  /** A raw payload sent as is (with headers' content type). */
  payload?: string;
}

export async function startApiServer(dialect: DialectName = 'sqlite'): Promise<ApiHarness> {
  const database = await createTestDatabase(dialect);
  const store = await database.open();
  let nowMs = Date.now();
  const clock = {
    now: () => nowMs,
    set(ms: number) {
      nowMs = ms;
    },
  };
  await ensureSecrets(store, { adminPassword: ADMIN_PASSWORD, apiToken: ADMIN_API_TOKEN }, clock.now());
  const auth = new Auth({ store, now: clock.now });
  const dispatcher = new Dispatcher({ accessToken: TOKEN });
  const metrics = createMetrics({ processMetrics: false });
  const triggers: ApiHarness['triggers'] = [];
  const deps: RestApiDeps = {
    store,
    clock,
    executorDeadAfterMs: SERVER_DEFAULTS.executorDeadAfterMs,
    alarmSendTimeoutMs: ALARM_QUEUE_DEFAULTS.sendTimeoutMs,
    auth,
    dispatcher,
    async triggerJob(job, request) {
      triggers.push({ job, request });
      return store.fires.createFires(
        [
          {
            jobId: job.id,
            appId: job.app_id,
            scheduledAt: clock.now(),
            triggerType: request.triggerType,
            executorHandler: job.executor_handler,
            executorParam: request.param,
          },
        ],
        clock.now(),
      );
    },
    finishFires: (results: FireResult[]) => store.fires.finishFires(results),
    // Workflow runs on the real engine; their node records stay pending (nothing dispatches here).
    workflows: new WorkflowEngine({
      store,
      pipeline: { dispatchCreated: async () => [] },
      inFlight: { add: () => {} },
      clock,
      logger: pino({ level: 'silent' }),
      stopFire: async (fire, message) => {
        await store.fires.finishFires([
          { fireId: fire.id, handleCode: 500, handleMsg: message, handleAt: clock.now(), status: 'killed' },
        ]);
      },
    }),
  };
  const app = Fastify({ logger: false });
  registerRestApi(app, deps);
  const harness: ApiHarness = {
    app,
    store,
    database,
    auth,
    metrics,
    clock,
    triggers,
    schedulerRunning: true,
    call(method, url, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const token = options.token === undefined ? ADMIN_API_TOKEN : options.token;
      if (token !== null) headers.authorization = `Bearer ${token}`;
      return app.inject({
        method,
        url,
        headers,
        ...(options.payload !== undefined ? { payload: options.payload } : {}),
        ...(options.body !== undefined ? { payload: options.body as object } : {}),
      });
    },
    async close() {
      await app.close();
      await dispatcher.close();
      await database.drop();
    },
  };
  registerOps(app, { store, auth, metrics, schedulerRunning: () => harness.schedulerRunning });
  await app.ready();
  return harness;
}

/** Creates an app through the API and returns its id. */
export async function createApp(api: ApiHarness, fields: Record<string, unknown> = {}): Promise<number> {
  const res = await api.call('POST', '/api/v1/apps', {
    body: { appName: `app-${Math.random().toString(36).slice(2, 8)}`, title: 'Test app', ...fields },
  });
  if (res.statusCode !== 201) throw new Error(`createApp: ${res.statusCode} ${res.body}`);
  return res.json().id;
}

/** Creates a job through the API and returns it. */
export async function createJob(
  api: ApiHarness,
  appId: number,
  fields: Record<string, unknown> = {},
): Promise<Record<string, unknown> & { id: number }> {
  const res = await api.call('POST', '/api/v1/jobs', {
    body: { appId, name: 'a job', executorHandler: 'hello', ...fields },
  });
  if (res.statusCode !== 201) throw new Error(`createJob: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** Signs in as the admin; returns the session cookie header and the CSRF token. */
export async function login(api: ApiHarness): Promise<{ cookie: string; csrfToken: string }> {
  const res = await api.call('POST', '/api/v1/login', {
    token: null,
    body: { username: 'admin', password: ADMIN_PASSWORD },
  });
  if (res.statusCode !== 200) throw new Error(`login: ${res.statusCode} ${res.body}`);
  const setCookie = String(res.headers['set-cookie']);
  return { cookie: setCookie.split(';')[0]!, csrfToken: res.json().csrfToken };
}

/** Expects the error envelope with this status, code and (when given) field. */
export function expectError(
  res: LightMyRequestResponse,
  statusCode: number,
  code: string,
  field?: string,
): { code: string; field?: string; message: string } {
  const body = res.json();
  const error = body?.error;
  if (
    res.statusCode !== statusCode ||
    error?.code !== code ||
    (field !== undefined && error?.field !== field)
  ) {
    throw new Error(
      `expected ${statusCode} ${code}${field === undefined ? '' : ` on ${field}`}, got ${res.statusCode} ${res.body}`,
    );
  }
  return error;
}
