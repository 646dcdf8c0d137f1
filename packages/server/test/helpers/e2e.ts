/**
 * End-to-end set-up: a real server (`createServer` on 127.0.0.1, an ephemeral port, SQLite in a
 * temp dir unless a database URL is given) and real executors on loopback, registered with it
 * over HTTP. Apps and jobs are written through the store as a seed; everything after that goes
 * through the server's own paths (claim, wheel, dispatch, callback).
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createExecutor, type Executor, type ExecutorOptions } from '@tickwheel/executor';
import { nextFireTimes } from '@tickwheel/protocol';
import { pino } from 'pino';
import { createServer, type ServerOptions, type TickwheelServer } from '../../src/index.js';
import { storeOf } from '../../src/internal.js';
import type { FireRow, JobRow, NewJob, Store } from '../../src/store/index.js';

export const E2E_TOKEN = 'e2e-access-token-0123456789abcdefghij';

/** Timings short enough for tests: claims every 50 ms, one second of look-ahead. */
export const FAST_ENGINE: ServerOptions = {
  lookAheadMs: 1_000,
  internal: { tickIntervalMs: 50, leaseTtlMs: 3_000 },
};

export interface E2eServer {
  server: TickwheelServer;
  store: Store;
  dataDir: string;
  /** Stops the server (if still running) and removes its data dir. */
  close(): Promise<void>;
}

export async function tempDir(prefix = 'tw-e2e-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

/** A server on 127.0.0.1:0 over SQLite in a fresh temp dir (or `options.database`). */
export async function startServer(options: ServerOptions = {}, dataDir?: string): Promise<E2eServer> {
  const dir = dataDir ?? (await tempDir());
  const server = await createServer({
    port: 0,
    host: '127.0.0.1',
    dataDir: dir,
    accessToken: E2E_TOKEN,
    logger: pino({ level: process.env.TW_E2E_LOG_LEVEL ?? 'silent' }),
    env: {},
    ...FAST_ENGINE,
    ...options,
    internal: { ...FAST_ENGINE.internal, ...options.internal },
  });
  return {
    server,
    store: storeOf(server),
    dataDir: dir,
    async close() {
      await server.stop();
      if (dataDir === undefined) await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface E2eExecutor {
  ex: Executor;
  address: string;
  logDir: string;
  close(): Promise<void>;
}

/** A real executor on 127.0.0.1:0 registered with `server` under `appName`. */
export async function startExecutor(
  server: TickwheelServer,
  appName: string,
  register: (ex: Executor) => void,
  options: Partial<ExecutorOptions> = {},
): Promise<E2eExecutor> {
  const logDir = await tempDir('tw-e2e-executor-');
  const ex = createExecutor({
    appName,
    serverAddresses: [server.url],
    accessToken: server.accessToken,
    // A pull or Redis-stream executor listens nowhere.
    ...(options.transport === undefined || options.transport === 'http'
      ? { host: '127.0.0.1', port: 0 }
      : {}),
    logDir,
    logger: pino({ level: process.env.TW_E2E_LOG_LEVEL ?? 'silent' }),
    ...options,
    internal: { heartbeatIntervalMs: 1_000, callbackRetryIntervalMs: 500, ...options.internal },
  });
  register(ex);
  await ex.start();
  const address = ex.address!;
  await waitFor(
    async () =>
      (await storeOf(server).registry.listAlive(0, appName)).some((r) => r.registry_value === address),
    { what: `executor ${address} registered` },
  );
  return {
    ex,
    address,
    logDir,
    async close() {
      await ex.stop({ timeoutMs: 0 });
      await rm(logDir, { recursive: true, force: true });
    },
  };
}

/** Creates an AUTO app. */
export async function createApp(store: Store, appName: string): Promise<number> {
  return (await store.apps.createApp({ appName, title: appName, addressType: 'AUTO' }, Date.now())).id;
}

/**
 * Creates a started job whose first fire is the schedule's next time after `from` (default now).
 */
export async function createJob(
  store: Store,
  job: NewJob & { schedule_type: string; schedule_conf: string },
  from = Date.now(),
): Promise<JobRow> {
  const schedule = {
    scheduleType: job.schedule_type,
    scheduleConf: job.schedule_conf,
    timeZone: job.time_zone ?? 'UTC',
  };
  const next = job.schedule_type === 'NONE' ? null : (nextFireTimes(schedule, from, 1)[0] ?? null);
  return store.jobs.createJob(
    { trigger_status: next === null ? 0 : 1, next_fire_at: next, ...job },
    Date.now(),
  );
}

/** The fire records of a job, oldest first. */
export async function firesOf(store: Store, jobId: number): Promise<FireRow[]> {
  return (await store.fires.listFires({ jobId, limit: 10_000 })).reverse();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `predicate` every 25 ms until it holds; throws after `timeoutMs`. */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  { timeoutMs = 8_000, what = 'condition' }: { timeoutMs?: number; what?: string } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

const EXECUTOR_PROCESS = fileURLToPath(new URL('../fixtures/executor-process.mjs', import.meta.url));

/** A node process whose stdout is collected as it comes. */
export class ChildProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcessByStdio<null, Readable, Readable>;

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
    });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  /**
   * The first match of `pattern` in stdout; throws after `timeoutMs` or when the process exits.
   * The default wait is long because a start beside the suite's other files on two cores has
   * taken more than 10 s before printing anything.
   */
  async waitForOutput(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    void this.exited.then((how) => {
      exit = how;
    });
    const started = Date.now();
    const deadline = started + timeoutMs;
    for (;;) {
      const match = this.stdout.match(pattern);
      if (match) return match;
      if (exit !== undefined || Date.now() > deadline) {
        const how =
          exit === undefined
            ? `still running after ${Date.now() - started} ms`
            : `exited (code ${exit.code}, signal ${exit.signal})`;
        throw new Error(
          `no ${pattern} in the output: ${how}.\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`,
        );
      }
      await sleep(25);
    }
  }

  /** Sends SIGKILL and waits for the exit. */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

/**
 * An executor in its own process (test/fixtures/executor-process.mjs), started (and registered,
 * when `to` is an `E2eServer` or names a `store`).
 */
export async function spawnExecutor(
  to: E2eServer | { url: string; accessToken: string; store?: Store },
  appName: string,
  env: Record<string, string> = {},
): Promise<{ process: ChildProcess; address: string; logDir: string }> {
  const server =
    'server' in to ? { url: to.server.url, accessToken: to.server.accessToken, store: to.store } : to;
  const logDir = await tempDir('tw-e2e-executor-');
  const child = new ChildProcess([EXECUTOR_PROCESS], {
    TW_APP: appName,
    TW_SERVER: server.url,
    TW_TOKEN: server.accessToken,
    TW_LOG_DIR: logDir,
    ...env,
  });
  const [, address] = await child.waitForOutput(/listening (\S+)/);
  const store = server.store;
  if (store !== undefined) {
    await waitFor(
      async () => (await store.registry.listAlive(0, appName)).some((r) => r.registry_value === address),
      { what: `executor process ${address} registered` },
    );
  }
  return { process: child, address: address!, logDir };
}

/** A port that was free a moment ago (for a process that must come back on the same port). */
export async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Calls one of the server's executor-facing endpoints (`registry`, `callback`, ...) as an executor would. */
export async function callServer(
  server: { url: string; accessToken: string },
  call: string,
  body: unknown,
): Promise<{ code: number; msg?: string | null }> {
  const response = await fetch(`${server.url}api/${call}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json;charset=UTF-8', 'XXL-JOB-ACCESS-TOKEN': server.accessToken },
    body: JSON.stringify(body),
  });
  return (await response.json()) as { code: number; msg?: string | null };
}

/** Registers `address` under `appName` as an executor would, whether anything listens there or not. */
export async function registerAddress(
  server: { url: string; accessToken: string },
  appName: string,
  address: string,
): Promise<void> {
  const answer = await callServer(server, 'registry', {
    registryGroup: 'EXECUTOR',
    registryKey: appName,
    registryValue: address,
  });
  if (answer.code !== 200) throw new Error(`registry refused ${address}: ${answer.msg}`);
}
