/**
 * Runs the demo executor as a program, configured through environment variables:
 *
 * | variable | meaning | default |
 * | --- | --- | --- |
 * | `TICKWHEEL_ACCESS_TOKEN` | access token | a new random one, printed |
 * | `TICKWHEEL_SERVER` | server base URLs, comma-separated | none: results only go to the run logs |
 * | `TICKWHEEL_APP` | app name | `tickwheel-demo` |
 * | `TICKWHEEL_HOST` / `TICKWHEEL_PORT` | where to listen | `127.0.0.1` / `9999` |
 * | `TICKWHEEL_LOG_DIR` | run logs | `<tmp>/tickwheel-demo-logs` |
 *
 * It prints curl lines that run each handler through the executor's `run` call, and stops
 * gracefully on SIGINT/SIGTERM (a second signal exits at once).
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { Executor } from '@tickwheel/executor';
import { DEMO_HANDLERS, type DemoExecutorOptions, startDemoExecutor } from './app.js';

const DEFAULT_PORT = 9999;

const options = optionsFromEnvironment(process.env);
const executor = await startDemoExecutor(options).catch((err: unknown) => {
  // A port in use, an invalid variable: say which and stop, without a stack trace.
  console.error(`cannot start the demo executor: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
printHowToRun(executor, options);
stopOnSignals(executor);

function optionsFromEnvironment(env: NodeJS.ProcessEnv): DemoExecutorOptions & { accessToken: string } {
  const servers = (env.TICKWHEEL_SERVER ?? '')
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
  return {
    appName: env.TICKWHEEL_APP || undefined,
    // No default secret: without a configured token the demo makes one up and prints it.
    accessToken: env.TICKWHEEL_ACCESS_TOKEN || randomBytes(16).toString('hex'),
    serverAddresses: servers,
    host: env.TICKWHEEL_HOST || undefined,
    port: env.TICKWHEEL_PORT ? Number(env.TICKWHEEL_PORT) : DEFAULT_PORT,
    logDir: env.TICKWHEEL_LOG_DIR || path.join(os.tmpdir(), 'tickwheel-demo-logs'),
  };
}

function printHowToRun(executor: Executor, options: DemoExecutorOptions & { accessToken: string }): void {
  const address = executor.address ?? '';
  const now = Date.now();
  const lines = [
    '',
    `Demo executor listening on ${address}`,
    `Access token: ${options.accessToken}`,
    `Run logs: ${options.logDir}`,
    '',
    'Run a handler (give every run a new logId; the executor refuses one it has seen):',
    ...DEMO_HANDLERS.map((handler, i) => runCommand(address, options.accessToken, handler, i + 1, now)),
    '',
    'Read a run log (the logDateTim of its run, and its logId):',
    curl(address, options.accessToken, 'log', { logDateTim: now, logId: 1, fromLineNum: 1 }),
    '',
    'Ctrl+C stops the executor.',
    '',
  ];
  console.log(lines.join('\n'));
}

/** The `run` body of one demo handler; `sharded-cleanup` runs as shard 1 of 3. */
function runCommand(address: string, token: string, handler: string, logId: number, now: number): string {
  const shard = handler === 'sharded-cleanup' ? { broadcastIndex: 1, broadcastTotal: 3 } : {};
  const body = {
    jobId: logId,
    executorHandler: handler,
    executorParams: '',
    executorBlockStrategy: 'SERIAL_EXECUTION',
    executorTimeout: 0,
    logId,
    logDateTime: now,
    glueType: 'BEAN',
    ...shard,
  };
  return curl(address, token, 'run', body);
}

function curl(address: string, token: string, call: string, body: object): string {
  return `  curl -s ${address}${call} -H 'XXL-JOB-ACCESS-TOKEN: ${token}' -H 'Content-Type: application/json' -d '${JSON.stringify(body)}'`;
}

function stopOnSignals(executor: Executor): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`${signal}: stopping the demo executor (again to exit at once)`);
    executor.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('stop failed:', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
