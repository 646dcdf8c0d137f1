/**
 * @tickwheel/executor — embed a Tickwheel (or XXL-JOB) executor in a Node service.
 *
 * @example
 * import { createExecutor } from '@tickwheel/executor';
 *
 * const ex = createExecutor({
 *   appName: 'orders',
 *   serverAddresses: ['http://scheduler:8080/'],
 *   accessTokenFile: '/etc/tickwheel/token',
 *   port: 9999,
 * });
 * ex.handle('syncOrders', async (ctx) => {
 *   ctx.log('syncing', ctx.param);
 *   await syncOrders({ signal: ctx.signal });
 *   return 'done';
 * });
 * await ex.start();
 * process.once('SIGTERM', () => void ex.stop());
 */
import { Executor } from './executor.js';
import type { ExecutorOptions } from './options.js';

/** The values of the `transport` option: `http` (it listens), `http-pull` (it connects out) and `redis` (it reads Redis streams). */
export type { Transport } from '@tickwheel/protocol';
/** Errors the executor throws (bad options, a second start), with `code` and `field`. */
export { isTickwheelError, TickwheelError } from '@tickwheel/protocol';
export type { JobContext, JobHandler, JobWorkflow } from './context.js';
export type { ExecutorRequestListener, HandleOptions, StopOptions } from './executor.js';
/** The values of the `logLayout` option. */
export { JOB_LOG_LAYOUTS, type JobLogLayout } from './log-file-layout.js';
export { callPathUnder, normalizeMountPrefix } from './mount-path.js';
export type { ExecutorOptions, InternalOptions } from './options.js';
export type { RunOutcome, StopReason } from './runner.js';
export type { HandlerHooks } from './runners/in-process.js';
export { readTokenFile, type TokenFileWarning } from './token-file.js';
export type { Executor };

/**
 * Creates an executor; options are validated here, and an invalid one throws a
 * `TickwheelError` with code `TW_ERR_INVALID_OPTION` naming it (`field`).
 */
export function createExecutor(options: ExecutorOptions): Executor {
  return new Executor(options);
}
