/**
 * The in-process runner: calls a handler function on the executor's own event loop.
 *
 * Stopping is cooperative. On timeout, kill or cover-early the run's AbortSignal fires and the
 * lane reports the stop at once and moves on, but a handler that ignores the signal keeps running
 * in the background (JavaScript cannot interrupt a function). Only `isolation: 'worker'` stops
 * busy or stuck code for real.
 */
import { HandleCode } from '@tickwheel/protocol';
import { createHandlerRun, errorMessage, type JobHandler } from '../context.js';
import type { Runner, RunOutcome, RunRequest } from '../runner.js';

/** Hooks of a handler: `init` before its lane's first run, `destroy` when the lane is released. */
export interface HandlerHooks {
  init?: () => unknown;
  destroy?: () => unknown;
}

export class InProcessRunner implements Runner {
  readonly description: string;
  private initialized = false;

  constructor(
    name: string,
    private readonly handler: JobHandler,
    private readonly hooks: HandlerHooks,
  ) {
    this.description = name;
  }

  async run(request: RunRequest): Promise<RunOutcome> {
    const { trigger, log } = request;
    if (!this.initialized) {
      const initFailure = await this.initOnce();
      if (initFailure) return initFailure;
    }
    // The signal is read only if the handler reads `ctx.signal`.
    const run = createHandlerRun(trigger, (...args) => log.log(...args), request);
    try {
      return run.outcomeOfReturn(await this.handler(run.context));
    } catch (err) {
      if (err instanceof Error && err.stack) log.log(err.stack);
      return run.outcomeOfError(err);
    }
  }

  async destroy(): Promise<void> {
    if (!this.initialized) return;
    this.initialized = false;
    await this.hooks.destroy?.();
  }

  private async initOnce(): Promise<RunOutcome | undefined> {
    if (this.initialized) return undefined;
    try {
      await this.hooks.init?.();
    } catch (err) {
      return {
        code: HandleCode.FAIL,
        msg: `job handler [${this.description}] init failed: ${errorMessage(err)}`,
      };
    }
    this.initialized = true;
    return undefined;
  }
}
