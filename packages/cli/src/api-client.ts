/**
 * The CLI's client of the REST API: @tickwheel/api-client's typed client with what only the CLI
 * adds — the bearer token of `--token`, a timeout, a message naming `--url` when no server
 * answers, the exit code each failure maps to — and the resource types the commands name.
 *
 * @example
 * const client = createCliApiClient({ url: 'http://127.0.0.1:8080/', token: process.env.TICKWHEEL_TOKEN });
 * const { items } = await call(client.GET('/api/v1/jobs', { params: { query: { appId: 1 } } }));
 */
import {
  type ApiClient,
  ApiError,
  createApiClient,
  type Middleware,
  type Ok,
  SERVER_CALL_FAILED,
} from '@tickwheel/api-client';
import { EXIT_CODES, type ExitCode, exitCodeOfStatus } from './exit-codes.js';

export {
  type ApiClient,
  ApiError,
  type Body,
  call,
  type OpenApiDocument,
  type Query,
  readOpenApiDocument,
} from '@tickwheel/api-client';

/** How long one request may take before the server counts as unreachable. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface CliApiClientOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8080/`. */
  url: string;
  /** A bearer API token; without one the server answers 401. */
  token?: string | undefined;
}

export type App = Ok<'getApp'>;
/** An app with its executor token, answered once by `createApp` and `rotateAppToken`. */
export type AppWithToken = Ok<'createApp'>;
export type Job = Ok<'getJob'>;
export type Fire = Ok<'getFire'>;
export type Workflow = Ok<'getWorkflow'>;
export type WorkflowNode = Workflow['nodes'][number];
export type WorkflowRunSummary = Ok<'listWorkflowRuns'>['items'][number];
export type WorkflowRun = Ok<'getWorkflowRun'>;
export type WorkflowRunNode = WorkflowRun['nodes'][number];
export type ScriptVersionItem = Ok<'listScriptVersions'>['items'][number];
/** An alarm channel; the server masks its secrets (`***`, tokens in URLs). */
export type AlarmChannel = Ok<'getAlarmChannel'>;
export type User = Ok<'listUsers'>['items'][number];

/**
 * A client of the server at `url`. Its calls reject with an `ApiError` when they fail: status 0
 * and TW_ERR_SERVER_CALL_FAILED when no answer came (see `exitCodeOf`).
 */
export function createCliApiClient(options: CliApiClientOptions): ApiClient {
  // `http://host:8080/prefix` and `http://host:8080/prefix/` name the same server; a query or a
  // fragment of the URL is no part of the API's paths.
  const base = new URL(options.url.endsWith('/') ? options.url : `${options.url}/`);
  return createApiClient({
    baseUrl: `${base.origin}${base.pathname}`,
    token: options.token,
    headers: { accept: 'application/json' },
    fetch: (request) => fetch(request, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
    middleware: [unreachable(base)],
  });
}

/** The exit code of a failed call: 3 when no answer came, else the one of its HTTP status. */
export function exitCodeOf(err: ApiError): ExitCode {
  return err.status === 0 ? EXIT_CODES.unreachable : exitCodeOfStatus(err.status);
}

/**
 * A `does not exist` of the CLI's own (a name no app has), exiting as the API's 404 does, with
 * the code the API gives the same miss (`TW_ERR_UNKNOWN_APP` for an app).
 */
export function notFound(
  message: string,
  code: 'TW_ERR_NOT_FOUND' | 'TW_ERR_UNKNOWN_APP' | 'TW_ERR_UNKNOWN_JOB' = 'TW_ERR_NOT_FOUND',
): ApiError {
  return new ApiError(message, { status: 404, code });
}

/** Names the server and the flag to check when the request got no answer. */
function unreachable(base: URL): Middleware {
  return {
    onError({ error }) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason =
        (error as Error).name === 'TimeoutError'
          ? `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`
          : (cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error)));
      return new ApiError(
        `cannot reach the Tickwheel server at ${base.href} (${reason}); check --url or TICKWHEEL_URL`,
        { status: 0, code: SERVER_CALL_FAILED, cause: error },
      );
    },
  };
}
