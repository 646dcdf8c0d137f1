/**
 * The demo executor app: one executor with four handlers, each showing one thing a handler does.
 * Copy this file and `handlers/` to start your own app.
 *
 * @example
 * const executor = await startDemoExecutor({
 *   serverAddresses: ['http://scheduler:8080/'],
 *   accessToken: process.env.TICKWHEEL_ACCESS_TOKEN,
 * });
 * process.once('SIGTERM', () => void executor.stop());
 */
import { createExecutor, type Executor, type ExecutorOptions } from '@tickwheel/executor';
import reportProgress from './handlers/report-progress.js';
import shardedCleanup from './handlers/sharded-cleanup.js';
import syncWithAbort from './handlers/sync-with-abort.js';

export const DEMO_APP_NAME = 'tickwheel-demo';

/** The handler names the demo registers, for the server's job definitions. */
export const DEMO_HANDLERS = [
  'report-progress',
  'crunch-numbers',
  'sync-with-abort',
  'sharded-cleanup',
] as const;

/** Executor options; `appName` defaults to `tickwheel-demo`. */
export type DemoExecutorOptions = Omit<ExecutorOptions, 'appName'> & { appName?: string };

/** Creates the demo executor, registers its handlers and starts it. */
export async function startDemoExecutor(options: DemoExecutorOptions): Promise<Executor> {
  const executor = createExecutor({ ...options, appName: options.appName ?? DEMO_APP_NAME });
  executor.handle('report-progress', reportProgress);
  // A worker handler is loaded by the worker thread from its own module: pass the file, not the function.
  executor.handle('crunch-numbers', {
    isolation: 'worker',
    module: new URL('./handlers/crunch-numbers.js', import.meta.url),
  });
  executor.handle('sync-with-abort', syncWithAbort);
  executor.handle('sharded-cleanup', shardedCleanup);
  await executor.start();
  return executor;
}
