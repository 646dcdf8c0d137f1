/**
 * Starts a real executor on loopback (ephemeral port, temp log dir) wired to a test server, and
 * tears both down afterwards.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createExecutor, type Executor, type ExecutorOptions } from '@tickwheel/executor';
import { type Logger, pino } from 'pino';
import { type CallAnswer, type CallOptions, callExecutor } from './executor-client.js';
import { startTestServer, type TestServer } from './test-server.js';

export const TOKEN = 'test-token-0123456789abcdefghijklmn';

export interface ExecutorFixture {
  ex: Executor;
  server: TestServer;
  logDir: string;
  address: string;
  /** The executor's own log lines (pino JSON), for assertions on warnings. */
  logLines: Array<Record<string, unknown>>;
  call(call: string, body?: unknown, options?: CallOptions): Promise<CallAnswer>;
  close(): Promise<void>;
}

/** A pino logger that keeps its lines in memory. */
export function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

export async function tempDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'tickwheel-executor-test-'));
}

/**
 * Creates and starts an executor. `register` adds handlers before start; `options` override
 * the defaults (token, ephemeral port, temp log dir, the test server as the only server).
 */
export async function startExecutor(
  register: (ex: Executor) => void = () => {},
  options: Partial<ExecutorOptions> = {},
): Promise<ExecutorFixture> {
  const server = await startTestServer({ accessToken: TOKEN });
  const logDir = await tempDir();
  const { logger, lines } = capturingLogger();
  const ex = createExecutor({
    appName: 'test-app',
    accessToken: TOKEN,
    port: 0,
    serverAddresses: [server.address],
    logDir,
    logger,
    ...options,
    internal: { heartbeatIntervalMs: 60_000, ...options.internal },
  });
  register(ex);
  await ex.start();
  const address = ex.address!;
  return {
    ex,
    server,
    logDir,
    address,
    logLines: lines,
    call: (call, body = {}, callOptions = {}) =>
      callExecutor(address, call, body, { token: TOKEN, ...callOptions }),
    async close() {
      await ex.stop({ timeoutMs: 0 });
      await server.stop();
      await rm(logDir, { recursive: true, force: true });
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `predicate` every 10 ms until it holds; throws after `timeoutMs`. */
export async function until(predicate: () => boolean, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
