/**
 * The executor-facing API of PROTOCOL.md: `/api/registry`, `/api/registryRemove` and
 * `/api/callback`, answered the way XXL-JOB's admin answers them, so XXL-JOB executors (Java,
 * Go, Python; 2.x to 3.5) and Tickwheel executors work against this server unchanged.
 *
 * - Every answer is HTTP 200 with a ReturnT body (payload under `content` and `data`).
 * - The checks run in XXL-JOB's order: method (`invalid request, HttpMethod not support.`), access
 *   token (`The access token is wrong.`: neither the installation token nor an app's, see
 *   app-credentials.ts), path (`invalid request,
 *   uri-mapping(<call>) not found.`, `<call>` being the segment after `/api/` as in XXL-JOB's
 *   `/api/{uri}` mapping), then the body (malformed JSON → code 500 saying so), then whether the
 *   token acts for the app the call is about (a registration under another app's name is refused;
 *   a callback's results count only for records of the token's apps).
 * - A wrong token is counted (`authFailure`, by path) and logged at warn level, at most once a
 *   minute per remote address, with the address and the path but never the token.
 * - Bodies are read as UTF-8 JSON whatever the content type (XXL-JOB clients send
 *   `application/json;charset=UTF-8`; others send `text/plain` or nothing), up to 5 MiB.
 */
import {
  ACCESS_TOKEN_HEADER,
  APP_NAME_HEADER,
  CALLBACK_ADDRESS_HEADER,
  isTickwheelError,
  JSON_CONTENT_TYPE,
  MAX_BODY_BYTES,
  type ReturnT,
  returnFail,
  WireMessages,
} from '@tickwheel/protocol';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { ExecutorDirectory } from '../executors/directory.js';
import { type ExecutorMetrics, NO_EXECUTOR_METRICS } from '../executors/metrics.js';
import type { FireRepository, RegistryRepository } from '../store/index.js';
import type { AppCredentials } from './app-credentials.js';
import { AuthFailureLog } from './auth-failures.js';
import { parseJsonBody } from './body.js';
import { receiveCallback } from './callback.js';
import { IgnoredHandlersLog, registerExecutor, unregisterExecutor } from './registry.js';
import type { ResultRecorder } from './result-recorder.js';

export { broadcastOutcome, settleBroadcastParents } from './broadcast-parents.js';
export {
  DEFAULT_RESULT_BATCH_SIZE,
  type FiresFinishedHook,
  ResultRecorder,
  type ResultRecorderOptions,
} from './result-recorder.js';

export interface ExecutorApiDeps {
  /** Which app each executor token speaks for (the installation token and the apps' own). */
  credentials: AppCredentials;
  registry: Pick<RegistryRepository, 'heartbeat' | 'removeEntry'>;
  /** Read for callbacks sent with the installation token (which apps their records are of). */
  fires: Pick<FireRepository, 'findFiresByIds'>;
  /** This node's view of online executors, told about registrations and removals at once. */
  directory: Pick<ExecutorDirectory, 'markOnline' | 'markOffline'>;
  /** Finalises fire records with callback results (shared with the lost-run monitor). */
  recorder: Pick<ResultRecorder, 'record'>;
  /**
   * Called when a registration brings an executor instance other than the one stored for its
   * address: fails the runs the previous instance had (the lost-run monitor's
   * `failRestartedRuns`). Default none.
   */
  onInstanceRegistered?: (address: string, instance: string) => Promise<unknown>;
  clock: { now(): number };
  logger: Pick<Logger, 'error' | 'warn' | 'info' | 'debug'>;
  metrics?: Pick<ExecutorMetrics, 'callbackResult' | 'authFailure'>;
}

type Call = 'registry' | 'registryRemove' | 'callback';
const CALLS: ReadonlySet<string> = new Set<Call>(['registry', 'registryRemove', 'callback']);
const APP_NAME_HEADER_LOWER = APP_NAME_HEADER.toLowerCase();
const ACCESS_TOKEN_HEADER_LOWER = ACCESS_TOKEN_HEADER.toLowerCase();
const CALLBACK_ADDRESS_HEADER_LOWER = CALLBACK_ADDRESS_HEADER.toLowerCase();
/** The REST API's prefix: a single-segment `/api/v1` is not an executor call. */
const REST_SEGMENT = 'v1';

/**
 * Adds the executor-facing routes to `app` (in their own encapsulated scope: the lenient body
 * parser and the always-200 error handler apply to these routes only).
 *
 * @example
 * const recorder = new ResultRecorder({ fires: store.fires, clock, logger });
 * const credentials = new AppCredentials({ installationToken, apps: store.apps, clock });
 * registerExecutorApi(app, { credentials, registry: store.registry, fires: store.fires, directory, recorder, clock, logger });
 * await app.listen({ port: 8080 });
 */
export function registerExecutorApi(app: FastifyInstance, deps: ExecutorApiDeps): void {
  const metrics = deps.metrics ?? NO_EXECUTOR_METRICS;
  const callDeps = {
    ...deps,
    metrics,
    ignoredHandlers: new IgnoredHandlersLog(),
    ignoredInstances: new IgnoredHandlersLog(),
  };
  const authFailures = new AuthFailureLog({ clock: deps.clock, logger: deps.logger });

  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (_req, body, done) =>
      done(null, body),
    );
    scope.setErrorHandler((err: FastifyError, request, reply) => {
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return answer(reply, returnFail(`invalid request, body larger than ${MAX_BODY_BYTES} bytes.`));
      }
      deps.logger.error({ err, url: request.url }, 'executor API call failed');
      return answer(reply, returnFail(`server error: ${err.message}`));
    });
    scope.all<{ Params: { call: string } }>('/api/:call', { bodyLimit: MAX_BODY_BYTES }, (request, reply) =>
      serve(request, reply),
    );
  });

  async function serve(request: FastifyRequest<{ Params: { call: string } }>, reply: FastifyReply) {
    const call = request.params.call;
    if (call === REST_SEGMENT) return reply.callNotFound();
    if (request.method !== 'POST') return answer(reply, returnFail(WireMessages.methodNotSupported));
    const scope = await deps.credentials.scopeOf(request.headers[ACCESS_TOKEN_HEADER_LOWER]);
    if (scope === undefined) {
      // The label is the call's path only for the calls that exist, so a scan of made-up paths
      // cannot add series without end.
      const path = CALLS.has(call) ? `/api/${call}` : 'other';
      metrics.authFailure(path);
      authFailures.record(request.ip, path);
      return answer(reply, returnFail(WireMessages.wrongToken));
    }
    if (!CALLS.has(call)) return answer(reply, returnFail(WireMessages.uriNotFound(call)));
    let body: unknown;
    try {
      body = parseJsonBody(request.body as Buffer | undefined);
    } catch (err) {
      if (!isTickwheelError(err)) throw err;
      return answer(reply, returnFail(err.message));
    }
    switch (call as Call) {
      case 'registry':
        return answer(
          reply,
          await registerExecutor(callDeps, body, request.headers[APP_NAME_HEADER_LOWER] ? 'G4' : 'G2', scope),
        );
      case 'registryRemove':
        return answer(reply, await unregisterExecutor(callDeps, body, scope));
      case 'callback': {
        const address = request.headers[CALLBACK_ADDRESS_HEADER_LOWER];
        return answer(
          reply,
          await receiveCallback(callDeps, body, {
            scope,
            ...(typeof address === 'string' && address !== '' ? { address } : {}),
          }),
        );
      }
    }
  }
}

function answer(reply: FastifyReply, body: ReturnT<unknown>): FastifyReply {
  return reply.code(200).type(JSON_CONTENT_TYPE).send(JSON.stringify(body));
}
