/**
 * A real Tickwheel server for the REST commands' tests (`createServer` on 127.0.0.1, an ephemeral
 * port, SQLite in a temp dir, an admin API token seeded), real executors registered with it, and
 * the built `tickwheel` binary run against it without blocking the server's event loop.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createExecutor, type Executor, type ExecutorOptions } from '@tickwheel/executor';
import { createServer, type ServerOptions, type TickwheelServer } from '@tickwheel/server';
import { storeOf } from '@tickwheel/server/internal';
import { pino } from 'pino';
import { CLI_BIN } from './cli-process.js';

export const API_TOKEN = 'cli-rest-test-api-token-0123456789';
const ACCESS_TOKEN = 'cli-rest-test-access-token-0123456789';

export interface RestServer {
  server: TickwheelServer;
  url: string;
  /** The environment that points the CLI at this server with the admin token. */
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export async function startRestServer(options: ServerOptions = {}): Promise<RestServer> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'tw-cli-rest-'));
  const server = await createServer({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    accessToken: ACCESS_TOKEN,
    apiToken: API_TOKEN,
    logger: pino({ level: 'silent' }),
    env: {},
    lookAheadMs: 1_000,
    ...options,
    internal: { tickIntervalMs: 50, leaseTtlMs: 3_000, ...options.internal },
  });
  return {
    server,
    url: server.url,
    env: cliEnv(server.url, API_TOKEN),
    async close() {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The process environment less any Tickwheel settings of the machine, plus `url` and `token`. */
export function cliEnv(url: string, token: string | undefined): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('TICKWHEEL_')),
  );
  return { ...env, TICKWHEEL_URL: url, ...(token === undefined ? {} : { TICKWHEEL_TOKEN: token }) };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI to completion (at most `timeoutMs`), asynchronously; `input` is its stdin. */
export function cli(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 15_000,
  input?: string,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    child.stdin?.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `tickwheel ${args.join(' ')} ran over ${timeoutMs} ms.\nstdout:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs the CLI with `--json` and parses its output; fails the test on a non-zero exit. */
export async function cliJson<T>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const result = await cli([...args, '--json'], env);
  if (result.code !== 0) {
    throw new Error(`tickwheel ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  }
  return JSON.parse(result.stdout) as T;
}

export interface TestExecutor {
  ex: Executor;
  close(): Promise<void>;
}

/** A real executor on 127.0.0.1:0 registered with `server` under `appName`. */
export async function startTestExecutor(
  server: TickwheelServer,
  appName: string,
  register: (ex: Executor) => void,
  options: Partial<ExecutorOptions> = {},
): Promise<TestExecutor> {
  const logDir = await mkdtemp(path.join(os.tmpdir(), 'tw-cli-executor-'));
  const ex = createExecutor({
    appName,
    serverAddresses: [server.url],
    accessToken: server.accessToken,
    host: '127.0.0.1',
    port: 0,
    logDir,
    logger: pino({ level: 'silent' }),
    ...options,
  });
  register(ex);
  await ex.start();
  const address = ex.address;
  await waitUntil(async () =>
    (await storeOf(server).registry.listAlive(0, appName)).some((row) => row.registry_value === address),
  );
  return {
    ex,
    async close() {
      await ex.stop({ timeoutMs: 0 });
      await rm(logDir, { recursive: true, force: true });
    },
  };
}

export async function waitUntil(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
