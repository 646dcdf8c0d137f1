/**
 * A small client of the REST API (`/api/v1`, see `/api/v1/openapi.json`): one method per
 * operation the commands use, bearer-token authentication, and one error type that carries the
 * server's error envelope and the exit code it maps to.
 *
 * @example
 * const client = new ApiClient({ url: 'http://127.0.0.1:8080/', token: process.env.TICKWHEEL_TOKEN });
 * const { items } = await client.listJobs({ appId: 1 });
 */
import { EXIT_CODES, type ExitCode, exitCodeOfStatus } from './exit-codes.js';

/** How long one request may take before the server counts as unreachable. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface ApiClientOptions {
  /** The server's base URL, e.g. `http://127.0.0.1:8080/`. */
  url: string;
  /** A bearer API token; without one the server answers 401. */
  token?: string | undefined;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

export interface App {
  id: number;
  appName: string;
  title: string;
  addressType: 'AUTO' | 'MANUAL';
  addressList: string[];
  onlineAddresses: string[];
  /** `onlineAddresses` with how the server reaches each. */
  onlineExecutors?: Array<{ address: string; transport: 'http' | 'http-pull' | 'redis' }>;
  /** Which executor token the app's executors use: its own, or the installation-wide one. */
  credential?: 'app' | 'installation';
  /** While a rotation overlaps: until when the replaced token is still accepted. */
  previousTokenValidUntil?: number | null;
  /** Where the app was imported from (e.g. `xxl-job mysql://db:3306/xxl_job group #2`); null when made here. */
  origin?: string | null;
  createdAt: number;
  updatedAt: number;
}

/** An app with its executor token, answered once by `createApp` and `rotateAppToken`. */
export interface AppWithToken extends App {
  accessToken: string | null;
}

/** A job as the server returns it; fields added by later server versions pass through. */
export interface Job {
  id: number;
  appId: number;
  name: string;
  scheduleType: string;
  scheduleConf: string;
  timeZone: string;
  executorHandler: string;
  glueType: string;
  glueSource: string;
  glueRemark: string;
  childJobIds: number[];
  triggerStatus: number;
  nextFireAt: number | null;
  [field: string]: unknown;
}

export interface Fire {
  id: number;
  jobId: number;
  appId: number;
  scheduledAt: number;
  triggerAt: number | null;
  triggerType: string;
  executorAddress: string | null;
  executorHandler: string;
  status: string;
  handleCode: number | null;
  handleMsg: string | null;
  triggerMsg: string | null;
  [field: string]: unknown;
}

/** A workflow's node as the REST API carries it (see `WorkflowNode` in @tickwheel/protocol). */
export interface WorkflowNode {
  key: string;
  type?: 'JOB' | 'DECISION' | 'WORKFLOW';
  jobId?: number;
  workflowId?: number;
  [field: string]: unknown;
}

export interface WorkflowEdge {
  from: string;
  to: string;
  condition?: 'SUCCESS' | 'FAILURE' | 'ALWAYS';
  value?: string;
}

/** A workflow as the server returns it; fields added by later server versions pass through. */
export interface Workflow {
  id: number;
  appId: number;
  name: string;
  description: string;
  scheduleType: string;
  scheduleConf: string;
  timeZone: string;
  misfireStrategy: string;
  concurrency: string;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  alarmChannelIds: number[];
  alarmEmail: string;
  triggerStatus: number;
  nextFireAt: number | null;
  origin?: string | null;
  [field: string]: unknown;
}

export interface WorkflowRunSummary {
  id: number;
  workflowId: number;
  workflowName: string;
  appId: number;
  status: string;
  triggerType: string;
  param: string | null;
  scheduledAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  parentRunId: number | null;
  parentNodeKey: string | null;
}

/** One node of a run: how it went, and the fires that ran it. */
export interface WorkflowRunNode {
  key: string;
  type: string;
  status: string;
  fireIds: number[];
  output?: unknown;
  decision?: string;
  childRunId?: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  message?: string | null;
  markedBy?: string | null;
}

export interface WorkflowRun extends WorkflowRunSummary {
  nodes: WorkflowRunNode[];
  /** The graph as it was when the run started. */
  definition: { nodes: WorkflowNode[]; edges: WorkflowEdge[] };
}

export interface ScriptVersionItem {
  id: number;
  jobId: number;
  glueType: string;
  glueSource: string;
  glueRemark: string;
  createdAt: number;
}

/** An alarm channel; the server masks its secrets (`***`, tokens in URLs). */
export interface AlarmChannel {
  id: number;
  name: string;
  type: string;
  enabled: boolean;
  config: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

export interface AlarmChannelTestResult {
  sent: boolean;
  error: string | null;
  durationMs: number;
}

export interface User {
  id: number;
  username: string;
  role: 'ADMIN' | 'USER';
  /** The apps a USER may see and operate. */
  appIds: number[];
  /** The user must choose a new password before anything else (an imported or reset account). */
  mustChangePassword?: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface ApiToken {
  id: number;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

export interface FireLog {
  fromLineNum: number;
  toLineNum: number;
  logContent: string;
  isEnd: boolean;
}

/** Query values; `undefined` ones are left out, arrays repeat the parameter. */
export type Query = Record<string, string | number | boolean | Array<string | number> | undefined>;

/** The REST API's error envelope. */
export interface ErrorEnvelope {
  error: { code: string; field?: string; message: string };
}

/**
 * A request that did not succeed: the server's refusal (with its envelope), or no answer at
 * all (`status` undefined). `exitCode` is what the command exits with.
 */
export class ApiClientError extends Error {
  readonly status: number | undefined;
  readonly code: string;
  readonly field: string | undefined;
  readonly exitCode: ExitCode;

  constructor(
    message: string,
    options: { status?: number; code: string; field?: string; exitCode: ExitCode },
  ) {
    super(message);
    this.name = 'ApiClientError';
    this.status = options.status;
    this.code = options.code;
    this.field = options.field;
    this.exitCode = options.exitCode;
  }
}

export class ApiClient {
  readonly baseUrl: URL;
  private readonly token: string | undefined;

  constructor(options: ApiClientOptions) {
    // `new URL('api/v1/jobs', base)` keeps a path prefix only when the base ends with a slash.
    this.baseUrl = new URL(options.url.endsWith('/') ? options.url : `${options.url}/`);
    this.token = options.token;
  }

  // ---------------------------------------------------------------- apps
  listApps(query: Query = {}): Promise<Page<App>> {
    return this.request('GET', 'apps', { query });
  }
  getApp(id: number): Promise<App> {
    return this.request('GET', `apps/${id}`);
  }
  createApp(body: Record<string, unknown>): Promise<AppWithToken> {
    return this.request('POST', 'apps', { body });
  }
  rotateAppToken(id: number, body: { previousTokenValidUntil?: number } = {}): Promise<AppWithToken> {
    return this.request('POST', `apps/${id}/rotate-token`, { body });
  }
  updateApp(id: number, body: Record<string, unknown>): Promise<App> {
    return this.request('PATCH', `apps/${id}`, { body });
  }
  deleteApp(id: number): Promise<void> {
    return this.request('DELETE', `apps/${id}`);
  }

  // ---------------------------------------------------------------- jobs
  listJobs(query: Query = {}): Promise<Page<Job>> {
    return this.request('GET', 'jobs', { query });
  }
  getJob(id: number): Promise<Job> {
    return this.request('GET', `jobs/${id}`);
  }
  createJob(body: Record<string, unknown>): Promise<Job> {
    return this.request('POST', 'jobs', { body });
  }
  updateJob(id: number, body: Record<string, unknown>): Promise<Job> {
    return this.request('PATCH', `jobs/${id}`, { body });
  }
  deleteJob(id: number): Promise<void> {
    return this.request('DELETE', `jobs/${id}`);
  }
  startJob(id: number): Promise<Job> {
    return this.request('POST', `jobs/${id}/start`);
  }
  stopJob(id: number): Promise<Job> {
    return this.request('POST', `jobs/${id}/stop`);
  }
  triggerJob(id: number, body: Record<string, unknown>): Promise<{ fireIds: number[] }> {
    return this.request('POST', `jobs/${id}/trigger`, { body });
  }
  /** Newest first. */
  listScriptVersions(jobId: number): Promise<{ items: ScriptVersionItem[] }> {
    return this.request('GET', `jobs/${jobId}/script/versions`);
  }
  updateJobScript(
    jobId: number,
    body: { glueSource: string; glueRemark: string; glueType?: string },
  ): Promise<Job> {
    return this.request('PUT', `jobs/${jobId}/script`, { body });
  }
  restoreScriptVersion(jobId: number, versionId: number): Promise<Job> {
    return this.request('POST', `jobs/${jobId}/script/versions/${versionId}/restore`);
  }
  previewSchedule(query: Query): Promise<{ from: number; nextFireTimes: number[] }> {
    return this.request('GET', 'schedules/preview', { query });
  }

  // ---------------------------------------------------------------- fires
  listFires(query: Query = {}): Promise<Page<Fire>> {
    return this.request('GET', 'fires', { query });
  }
  getFire(id: number): Promise<Fire> {
    return this.request('GET', `fires/${id}`);
  }
  getFireLog(id: number, fromLineNum: number): Promise<FireLog> {
    return this.request('GET', `fires/${id}/log`, { query: { fromLineNum } });
  }
  killFire(id: number): Promise<Fire> {
    return this.request('POST', `fires/${id}/kill`);
  }

  // ---------------------------------------------------------------- workflows
  listWorkflows(query: Query = {}): Promise<Page<Workflow>> {
    return this.request('GET', 'workflows', { query });
  }
  getWorkflow(id: number): Promise<Workflow> {
    return this.request('GET', `workflows/${id}`);
  }
  createWorkflow(body: Record<string, unknown>): Promise<Workflow> {
    return this.request('POST', 'workflows', { body });
  }
  updateWorkflow(id: number, body: Record<string, unknown>): Promise<Workflow> {
    return this.request('PATCH', `workflows/${id}`, { body });
  }
  deleteWorkflow(id: number): Promise<void> {
    return this.request('DELETE', `workflows/${id}`);
  }
  startWorkflow(id: number): Promise<Workflow> {
    return this.request('POST', `workflows/${id}/start`);
  }
  stopWorkflow(id: number): Promise<Workflow> {
    return this.request('POST', `workflows/${id}/stop`);
  }
  triggerWorkflow(id: number, body: { param?: string }): Promise<{ runId: number }> {
    return this.request('POST', `workflows/${id}/trigger`, { body });
  }
  listWorkflowRuns(query: Query = {}): Promise<Page<WorkflowRunSummary>> {
    return this.request('GET', 'workflow-runs', { query });
  }
  getWorkflowRun(id: number): Promise<WorkflowRun> {
    return this.request('GET', `workflow-runs/${id}`);
  }
  stopWorkflowRun(id: number): Promise<WorkflowRun> {
    return this.request('POST', `workflow-runs/${id}/stop`);
  }
  retryWorkflowNode(id: number, key: string): Promise<WorkflowRun> {
    return this.request('POST', `workflow-runs/${id}/nodes/${encodeURIComponent(key)}/retry`);
  }
  markWorkflowNode(id: number, key: string, status: 'succeeded' | 'skipped'): Promise<WorkflowRun> {
    return this.request('POST', `workflow-runs/${id}/nodes/${encodeURIComponent(key)}/mark`, {
      body: { status },
    });
  }

  // ---------------------------------------------------------------- alarm channels
  listAlarmChannels(query: Query = {}): Promise<Page<AlarmChannel>> {
    return this.request('GET', 'alarm-channels', { query });
  }
  getAlarmChannel(id: number): Promise<AlarmChannel> {
    return this.request('GET', `alarm-channels/${id}`);
  }
  createAlarmChannel(body: Record<string, unknown>): Promise<AlarmChannel> {
    return this.request('POST', 'alarm-channels', { body });
  }
  updateAlarmChannel(id: number, body: Record<string, unknown>): Promise<AlarmChannel> {
    return this.request('PATCH', `alarm-channels/${id}`, { body });
  }
  deleteAlarmChannel(id: number): Promise<void> {
    return this.request('DELETE', `alarm-channels/${id}`);
  }
  testAlarmChannel(id: number, body: { alarmEmail?: string }): Promise<AlarmChannelTestResult> {
    return this.request('POST', `alarm-channels/${id}/test`, { body });
  }

  // ---------------------------------------------------------------- users and tokens
  listUsers(query: Query = {}): Promise<Page<User>> {
    return this.request('GET', 'users', { query });
  }
  createUser(body: Record<string, unknown>): Promise<User> {
    return this.request('POST', 'users', { body });
  }
  updateUser(id: number, body: Record<string, unknown>): Promise<User> {
    return this.request('PATCH', `users/${id}`, { body });
  }
  deleteUser(id: number): Promise<void> {
    return this.request('DELETE', `users/${id}`);
  }
  changePassword(body: { currentPassword: string; newPassword: string }): Promise<unknown> {
    return this.request('POST', 'me/password', { body });
  }
  listApiTokens(): Promise<{ items: ApiToken[] }> {
    return this.request('GET', 'tokens');
  }
  createApiToken(name: string): Promise<{ id: number; name: string; token: string; createdAt: number }> {
    return this.request('POST', 'tokens', { body: { name } });
  }
  revokeApiToken(id: number): Promise<void> {
    return this.request('DELETE', `tokens/${id}`);
  }

  /** The OpenAPI document the server describes its REST API with. */
  openApiDocument(): Promise<OpenApiDocument> {
    return this.request('GET', 'openapi.json');
  }

  /**
   * One request to `/api/v1/<path>`. Resolves with the parsed JSON body (undefined for 204).
   * @throws ApiClientError with the server's envelope, or `TW_ERR_SERVER_CALL_FAILED` (exit code 3) when no answer came.
   */
  async request<T>(
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    path: string,
    options: { query?: Query; body?: unknown } = {},
  ): Promise<T> {
    const url = new URL(`api/v1/${path}`, this.baseUrl);
    appendQuery(url, options.query);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token !== undefined && this.token !== '') headers.authorization = `Bearer ${this.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      throw unreachable(this.baseUrl, err);
    }
    const text = await response.text();
    if (!response.ok) throw refusal(response.status, text, method, url);
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ApiClientError(
        `${method} ${url.pathname} answered ${response.status} with a body that is not JSON`,
        {
          status: response.status,
          code: 'TW_ERR_SERVER_CALL_FAILED',
          exitCode: EXIT_CODES.failed,
        },
      );
    }
  }
}

/** Enough of an OpenAPI 3 document to find an operation's request body. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId?: string; requestBody?: unknown }>>;
  [key: string]: unknown;
}

function appendQuery(url: URL, query: Query | undefined): void {
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(item));
  }
}

function unreachable(base: URL, err: unknown): ApiClientError {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const reason =
    (err as Error).name === 'TimeoutError'
      ? `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`
      : (cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err)));
  return new ApiClientError(
    `cannot reach the Tickwheel server at ${base.href} (${reason}); check --url or TICKWHEEL_URL`,
    { code: 'TW_ERR_SERVER_CALL_FAILED', exitCode: EXIT_CODES.unreachable },
  );
}

function refusal(status: number, text: string, method: string, url: URL): ApiClientError {
  const envelope = parseEnvelope(text);
  const exitCode = exitCodeOfStatus(status);
  if (envelope === undefined) {
    return new ApiClientError(`${method} ${url.pathname} answered HTTP ${status}`, {
      status,
      code: 'TW_ERR_SERVER_CALL_FAILED',
      exitCode,
    });
  }
  const { code, field, message } = envelope.error;
  const hint = status === 401 ? ' (check --token or TICKWHEEL_TOKEN)' : '';
  return new ApiClientError(`${message}${hint}`, {
    status,
    code,
    exitCode,
    ...(field === undefined ? {} : { field }),
  });
}

function parseEnvelope(text: string): ErrorEnvelope | undefined {
  try {
    const body = JSON.parse(text) as Partial<ErrorEnvelope>;
    if (typeof body.error?.message === 'string' && typeof body.error.code === 'string')
      return body as ErrorEnvelope;
  } catch {
    // Not JSON (a proxy's error page): the status alone is reported.
  }
  return undefined;
}
