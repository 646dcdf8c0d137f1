/**
 * Shared set-up of the executor-API and monitor suites: a real Fastify server on loopback with
 * the executor-facing API over a real store, the directory and the result recorder as the server
 * wires them, and fire records to finish.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { ACCESS_TOKEN_HEADER, JSON_CONTENT_TYPE, type ReturnT } from '@tickwheel/protocol';
import Fastify, { type FastifyInstance } from 'fastify';
import { type Logger, pino } from 'pino';
import type { FenceVerdict, SendToFence } from '../../src/dispatch/send-fence.js';
import { AppCredentials } from '../../src/executor-api/app-credentials.js';
import { registerExecutorApi } from '../../src/executor-api/index.js';
import { ResultRecorder } from '../../src/executor-api/result-recorder.js';
import { ExecutorDirectory } from '../../src/executors/directory.js';
import type { ExecutorMetrics } from '../../src/executors/metrics.js';
import { SERVER_DEFAULTS } from '../../src/options.js';
import type { FinishedFire, FinishedStatus, Store } from '../../src/store/index.js';

export const TOKEN = 'executor-api-test-token-0123456789abcdef';
export const silentLogger = pino({ level: 'silent' });

/** Metrics that remember what they were told. */
export class RecordingMetrics implements ExecutorMetrics {
  readonly callbacks: number[] = [];
  readonly finished: FinishedStatus[] = [];
  online = -1;
  readonly authFailures: string[] = [];
  callbackResult(handleCode: number): void {
    this.callbacks.push(handleCode);
  }
  fireFinished(status: FinishedStatus): void {
    this.finished.push(status);
  }
  executorsOnline(count: number): void {
    this.online = count;
  }
  authFailure(path: string): void {
    this.authFailures.push(path);
  }
}

/** A clock tests set by hand; the API reads only `now()`. */
export class SettableClock {
  constructor(public current: number) {}
  now(): number {
    return this.current;
  }
}

export interface ApiServer {
  app: FastifyInstance;
  /** Base address with a trailing slash, as executors are configured with it. */
  address: string;
  directory: ExecutorDirectory;
  recorder: ResultRecorder;
  metrics: RecordingMetrics;
  /** Every batch the recorder's hook (`announceTo`) was called with. */
  hookCalls: FinishedFire[][];
  /** What a registration of a new executor instance calls (set it to the lost-run monitor's). */
  onInstanceRegistered: ((address: string, instance: string) => Promise<unknown>) | undefined;
  close(): Promise<void>;
}

export async function startApiServer(
  store: Store,
  clock: { now(): number } = { now: () => Date.now() },
  logger: Logger = silentLogger,
): Promise<ApiServer> {
  const metrics = new RecordingMetrics();
  const hookCalls: FinishedFire[][] = [];
  const directory = new ExecutorDirectory({
    apps: store.apps,
    registry: store.registry,
    clock,
    metrics,
    installationToken: TOKEN,
    deadTimeoutMs: SERVER_DEFAULTS.executorDeadAfterMs,
  });
  const recorder = new ResultRecorder({
    fires: store.fires,
    clock,
    logger: silentLogger,
    metrics,
  });
  recorder.announceTo((finished) => {
    hookCalls.push([...finished]);
  });
  const app = Fastify({ logger: false });
  const credentials = new AppCredentials({ installationToken: TOKEN, apps: store.apps, clock });
  registerExecutorApi(app, {
    credentials,
    registry: store.registry,
    fires: store.fires,
    directory,
    recorder,
    onInstanceRegistered: (address, instance) =>
      server.onInstanceRegistered?.(address, instance) ?? Promise.resolve(),
    clock,
    logger,
    metrics,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const server: ApiServer = {
    onInstanceRegistered: undefined,
    app,
    address: `http://127.0.0.1:${port}/`,
    directory,
    recorder,
    metrics,
    hookCalls,
    async close() {
      await recorder.idle();
      await app.close();
    },
  };
  return server;
}

export interface PostOptions {
  method?: string;
  /** Default: the right token. `null` sends no token header. */
  token?: string | null;
  /** Default `application/json;charset=UTF-8`; `null` sends no content type. */
  contentType?: string | null;
  headers?: Record<string, string>;
}

export interface RawAnswer {
  status: number;
  contentType: string | null;
  body: ReturnT<unknown>;
}

/** Sends one raw request; a string body is sent as is, anything else as JSON. */
export async function post(
  base: string,
  path: string,
  body: unknown,
  options: PostOptions = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? TOKEN : options.token;
  if (token !== null) headers[ACCESS_TOKEN_HEADER] = token;
  const contentType = options.contentType === undefined ? JSON_CONTENT_TYPE : options.contentType;
  if (contentType !== null) headers['content-type'] = contentType;
  const method = options.method ?? 'POST';
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const response = await fetch(new URL(path, base), {
    method,
    headers,
    // A byte body makes fetch add no content type of its own.
    body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.from(text, 'utf8'),
  });
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: (await response.json()) as ReturnT<unknown>,
  };
}

/** An AUTO (or MANUAL) app with a unique name and one job. */
export async function createAppWithJob(
  store: Store,
  now: number,
  app: { addressType?: 'AUTO' | 'MANUAL'; addressList?: string | null; appName?: string } = {},
): Promise<{ appId: number; appName: string; jobId: number }> {
  const appName = app.appName ?? `app-${randomBytes(4).toString('hex')}`;
  const row = await store.apps.createApp(
    {
      appName,
      title: 'Test app',
      addressType: app.addressType ?? 'AUTO',
      addressList: app.addressList ?? null,
    },
    now,
  );
  const job = await store.jobs.createJob(
    { app_id: row.id, name: 'test job', executor_handler: 'demo', trigger_status: 1, next_fire_at: null },
    now,
  );
  return { appId: row.id, appName, jobId: job.id };
}

/** Fire records of a job, dispatched to `address` at `triggerAt` (null: left pending). */
export async function createDispatchedFires(
  store: Store,
  target: { appId: number; jobId: number },
  count: number,
  address: string | null,
  triggerAt: number,
  extra: { parentFireId?: number; shardIndex?: number; shardTotal?: number; instance?: string } = {},
): Promise<number[]> {
  const ids = await store.fires.createFires(
    Array.from({ length: count }, (_, i) => ({
      jobId: target.jobId,
      appId: target.appId,
      scheduledAt: triggerAt,
      triggerType: 'MANUAL' as const,
      executorHandler: 'demo',
      executorParam: null,
      parentFireId: extra.parentFireId ?? null,
      shardIndex: (extra.shardIndex ?? 0) + i,
      shardTotal: extra.shardTotal ?? 1,
    })),
    triggerAt,
  );
  if (address !== null) {
    await store.fires.markDispatched(
      ids.map((fireId) => ({
        fireId,
        triggerAt,
        executorAddress: address,
        triggerCode: 200,
        triggerMsg: 'test',
        executorInstance: extra.instance ?? null,
      })),
    );
  }
  return ids;
}

/**
 * A dispatcher's send fence backed by the store, as the server's: before each `run` goes out the
 * record gets the executor it is sent to (`sent_to`), so a callback that races ahead of the
 * dispatch mark still finds the address its sender names. Trigger-once fences: no shard lease.
 */
export function storeFence(store: Store): (send: SendToFence) => Promise<FenceVerdict> {
  return async (send) => {
    const [answer] = await store.fires.fenceSends('test-node', Date.now(), [
      { fireId: send.fireId, address: send.address, lease: null },
    ]);
    if (answer === undefined) throw new Error(`the fence gave no answer for fire ${send.fireId}`);
    const { fireId: _, ...verdict } = answer;
    return verdict;
  };
}

export function callbackItem(logId: number, handleCode = 200, handleMsg: string | null = null) {
  return { logId, logDateTim: Date.now(), handleCode, handleMsg };
}
