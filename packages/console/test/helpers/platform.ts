/**
 * A real platform for the browser tests: the server (SQLite in a temp dir, 127.0.0.1, an
 * ephemeral port) serving the built console, and a real executor registered with it over HTTP,
 * app `console-e2e`, with handlers the tests drive:
 * - `echo`: logs its param and returns it;
 * - `slow`: logs a line every 300 ms for `param` seconds (default 30), stops when killed;
 * - `gated`: logs five lines, waits until the test calls `openGate()`, logs five more;
 * - `html`: logs markup that must be shown as text (it sets `window.__pwned` if it ever runs);
 * - `fail`: throws.
 * Script (GLUE) jobs run on the same executor (bash).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createExecutor, type Executor } from '@tickwheel/executor';
import { createServer, type TickwheelServer } from '@tickwheel/server';
import { pino } from 'pino';
import { consoleDir } from '../../index.js';

export const ADMIN_USERNAME = 'admin';
export const ADMIN_PASSWORD = 'console-e2e-admin-password';
export const APP_NAME = 'console-e2e';
export const HTML_LOG_LINE =
  '<script>window.__pwned = 1</script><b>not bold</b><img src=x onerror="window.__pwned=2">';

export interface Platform {
  server: TickwheelServer;
  /** The console's and the API's base URL, e.g. http://127.0.0.1:41234/ */
  url: string;
  executor: Executor;
  executorAddress: string;
  /** The id of the app `console-e2e` (created through the API, AUTO addresses). */
  appId: number;
  /** The installation-wide executor token (what apps in compatibility mode accept). */
  installationToken: string;
  /** Lets the runs of `gated` waiting after their fifth line go on. */
  openGate(): void;
  /** Calls the REST API as the admin (bearer token); throws on an error answer. */
  api<T = unknown>(method: string, apiPath: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

export async function startPlatform(): Promise<Platform> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'tw-console-e2e-'));
  const logDir = await mkdtemp(path.join(os.tmpdir(), 'tw-console-e2e-logs-'));
  const apiToken = randomBytes(24).toString('hex');
  const accessToken = randomBytes(16).toString('hex');
  const logger = pino({ level: process.env.TW_E2E_LOG_LEVEL ?? 'silent' });
  const server = await createServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    adminPassword: ADMIN_PASSWORD,
    apiToken,
    accessToken,
    // TW_CONSOLE_DIR: a console built elsewhere (`vite build --outDir`), so one engineer's build
    // does not empty dist/ under another's running test.
    consoleDir: process.env.TW_CONSOLE_DIR ?? consoleDir,
    logger,
    env: {},
    lookAheadMs: 1_000,
    internal: {
      tickIntervalMs: 50,
      leaseTtlMs: 3_000,
      registryMonitorIntervalMs: 500,
      // The dashboard reads the daily reports: recompute them often enough for a test to see its fires.
      reportsMonitorIntervalMs: 2_000,
    },
  });

  const api = async <T>(method: string, apiPath: string, body?: unknown): Promise<T> => {
    const response = await fetch(new URL(apiPath.replace(/^\//, ''), server.url), {
      method,
      headers: {
        authorization: `Bearer ${apiToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${apiPath}: HTTP ${response.status} ${text}`);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  };

  // The app's own executor token, answered once by createApp.
  const app = await api<{ id: number; accessToken: string }>('POST', '/api/v1/apps', {
    appName: APP_NAME,
    title: 'Console e2e',
  });
  const executor = createExecutor({
    appName: APP_NAME,
    serverAddresses: [server.url],
    accessToken: app.accessToken,
    host: '127.0.0.1',
    port: 0,
    logDir,
    logger,
    // The script editor's test runs the shell scripts it saves.
    enableScripts: true,
    internal: { heartbeatIntervalMs: 500, callbackRetryIntervalMs: 500 },
  });
  executor.handle('echo', async (ctx) => {
    ctx.log(`echo param: ${ctx.param}`);
    return `echoed ${ctx.param}`;
  });
  executor.handle('slow', async (ctx) => {
    const seconds = Number(ctx.param) || 30;
    for (let i = 1; i <= Math.ceil((seconds * 1000) / 300); i++) {
      ctx.log(`slow line ${i}`);
      await sleep(300, undefined, { signal: ctx.signal });
    }
    return 'slow done';
  });
  let release = () => {};
  let gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  executor.handle('gated', async (ctx) => {
    for (let i = 1; i <= 5; i++) ctx.log(`gated line ${i}`);
    await gate;
    for (let i = 6; i <= 10; i++) {
      ctx.log(`gated line ${i}`);
      await sleep(100, undefined, { signal: ctx.signal });
    }
    return 'gated done';
  });
  executor.handle('html', async (ctx) => {
    ctx.log(HTML_LOG_LINE);
    return HTML_LOG_LINE;
  });
  executor.handle('fail', async () => {
    throw new Error('fails on purpose');
  });
  await executor.start();
  const executorAddress = executor.address!;
  await waitFor(async () => {
    const found = await api<{ onlineAddresses: string[] }>('GET', `/api/v1/apps/${app.id}`);
    return found.onlineAddresses.includes(executorAddress);
  }, 'the executor registered');

  return {
    server,
    url: server.url,
    executor,
    executorAddress,
    appId: app.id,
    installationToken: accessToken,
    openGate() {
      const open = release;
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      open();
    },
    api,
    async stop() {
      await executor.stop({ timeoutMs: 0 });
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
      await rm(logDir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` every 100 ms until it is true; throws naming `what` after `timeoutMs`. */
export async function waitFor(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}
