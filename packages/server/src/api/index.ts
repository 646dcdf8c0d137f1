/**
 * The REST API under `/api/v1`: one Fastify plugin context with its own JSON parser, validator
 * (TypeBox), error envelope, authentication and OpenAPI generator, so nothing here leaks into
 * the executor-facing routes on the same instance (which take XXL-JOB's bodies and answer
 * ReturnT).
 *
 * @example
 * const auth = new Auth({ store, now: () => clock.now() });
 * registerRestApi(app, { store, clock, auth, dispatcher, triggerJob, finishFires, executorDeadAfterMs, … });
 * await app.ready();
 */
import type { FastifyInstance } from 'fastify';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import type { NetworkRules } from '../security/network-rules.js';
import type { FinishedFire, FireResult, JobRow, Store } from '../store/index.js';
import type { WorkflowEngine } from '../workflows/engine.js';
import { registerAlarmChannels } from './alarm-channels.js';
import { registerApps } from './apps.js';
import { registerAudit } from './audit.js';
import { type Auth, registerLogin } from './auth.js';
import type { ApiContext } from './context.js';
import { registerDashboard } from './dashboard.js';
import { sendError, sendUnknownRoute } from './errors.js';
import { registerFires } from './fires.js';
import { registerJobs } from './jobs.js';
import { useJsonBodies } from './json-body.js';
import { registerMe } from './me.js';
import { registerOpenApiGenerator, registerOpenApiRoute } from './openapi.js';
import { registerRetention } from './retention.js';
import { registerSchedules } from './schedules.js';
import { registerScripts } from './scripts.js';
import { registerTokens } from './tokens.js';
import { registerUsers } from './users.js';
import { validatorCompiler } from './validator.js';
import { registerWorkflows } from './workflows.js';

export const API_PREFIX = '/api/v1';

/** What a trigger asks the engine to fire. */
export interface TriggerRequest {
  /** The param of the run: the request's, or the job's own when the request gave none. */
  param: string;
  /**
   * Addresses to route among instead of the online executors, as the app knows them (each was
   * checked to be online or in the app's address list); empty: route among the online ones.
   */
  addresses: string[];
  /** `API` for a bearer-token caller (a script), `MANUAL` for a console session. */
  triggerType: 'API' | 'MANUAL';
}

/** What the REST API needs from the rest of the server. */
export interface RestApiDeps {
  store: Store;
  clock: { now(): number };
  /** Shared with `registerOps` (which authenticates `/metrics` the same way). */
  auth: Auth;
  /** Reads run logs and kills runs, on the address recorded on the fire only. */
  dispatcher: Pick<Dispatcher, 'kill' | 'killScope' | 'readLog'>;
  /**
   * Fires `job` once now (`triggerJob`): creates its fire record(s), dispatches them, and
   * resolves with their ids once recorded (it need not wait for the dispatch).
   */
  triggerJob(job: JobRow, request: TriggerRequest): Promise<number[]>;
  /**
   * Records run results the way an executor callback does, with everything that follows
   * (FIX_DELAY's next time, retries, alarms); `killFire` records its kill through it.
   */
  finishFires(results: FireResult[]): Promise<FinishedFire[]>;
  /** An executor whose heartbeat is older is offline (the server's `executorDeadAfterMs`). */
  executorDeadAfterMs: number;
  /** The version the OpenAPI document states. Default `0.1.0`. */
  version?: string;
  /** Called once a user's password was changed (the initial secrets file goes with the admin's first one). */
  passwordChanged?: (username: string) => Promise<void>;
  /** Time `testAlarmChannel`'s send may take (the alarm queue's `sendTimeoutMs`). */
  alarmSendTimeoutMs: number;
  /** Where `testAlarmChannel` may connect (the server's `allowedNetworks`). Default: the rules' defaults. */
  networkRules?: NetworkRules;
  /** Called once an app was created or its executor token rotated on this node (the token caches re-read). */
  onAppCredentialsChanged?: () => Promise<void>;
  /** Starts workflow runs and carries out the levers on them (workflows/engine.ts). */
  workflows: Pick<WorkflowEngine, 'trigger' | 'stopRun' | 'retryNode' | 'markNode'>;
}

export interface ResolvedRestApiDeps extends RestApiDeps {
  executorDeadAfterMs: number;
  version: string;
}

/**
 * Registers the REST API on `app` under `/api/v1`, with its OpenAPI document at
 * `/api/v1/openapi.json`. Routes exist once `app.ready()` (or `listen`) has run.
 */
export function registerRestApi(app: FastifyInstance, deps: RestApiDeps): void {
  const resolved: ResolvedRestApiDeps = {
    ...deps,
    version: deps.version ?? '0.1.0',
  };
  const ctx: ApiContext = { deps: resolved, auth: deps.auth };
  app.register(
    async (api) => {
      useJsonBodies(api);
      api.setValidatorCompiler(validatorCompiler);
      api.setErrorHandler(sendError);
      api.setNotFoundHandler(sendUnknownRoute);
      api.addHook('preValidation', async (request) => {
        // A POST with a body schema may come without a body (curl -X POST): read it as {}.
        if (request.body === undefined && request.routeOptions.schema?.body !== undefined) request.body = {};
      });
      await registerOpenApiGenerator(api, resolved.version);
      registerLogin(api, ctx.auth);
      // Everything else needs credentials: the hook is added in a child context login is not in.
      await api.register(async (authenticated) => {
        authenticated.addHook('onRequest', ctx.auth.hook);
        registerApps(authenticated, ctx);
        registerJobs(authenticated, ctx);
        registerScripts(authenticated, ctx);
        registerSchedules(authenticated, ctx);
        registerFires(authenticated, ctx);
        registerAlarmChannels(authenticated, ctx);
        registerTokens(authenticated, ctx);
        registerUsers(authenticated, ctx);
        registerMe(authenticated, ctx);
        registerAudit(authenticated, ctx);
        registerDashboard(authenticated, ctx);
        registerRetention(authenticated, ctx);
        registerWorkflows(authenticated, ctx);
        registerOpenApiRoute(authenticated, api);
      });
    },
    { prefix: API_PREFIX },
  );
}

export type { Principal } from './auth.js';
export { Auth, type AuthOptions, CSRF_HEADER, canAccessApp, SESSION_COOKIE } from './auth.js';
export { type ErrorBody, sendUnknownRoute } from './errors.js';
export { LIMITS } from './schemas.js';
