/**
 * The worker runner (`isolation: 'worker'`): the handler module runs in a `worker_threads`
 * Worker, so a run that must stop (timeout, kill, cover-early) really stops: the worker first
 * gets an `abort` message (the handler's AbortSignal fires), and is terminated if it has not
 * finished within a short grace, which ends even a CPU-bound `while (true) {}`.
 *
 * One warm worker serves a lane's runs one after the other (the module is loaded once); a
 * terminated or crashed worker is replaced by a new one at the next run.
 */
import { Worker } from 'node:worker_threads';
import { HandleCode } from '@tickwheel/protocol';
import type { Logger } from 'pino';
import { errorMessage } from '../context.js';
import type { Runner, RunOutcome, RunRequest, StopReason } from '../runner.js';
import type { HandlerHooks } from './in-process.js';
import type { FromWorker, ToWorker, WorkerData } from './worker-messages.js';

/** The entry runs from the built package (`dist/runners/worker-entry.js`), next to this file. */
const WORKER_ENTRY = new URL('./worker-entry.js', import.meta.url);

export interface WorkerRunnerOptions {
  name: string;
  /** File URL of the handler module. */
  moduleUrl: string;
  hooks: HandlerHooks;
  /** Time an aborted run gets to finish before its worker is terminated. */
  stopGraceMs: number;
  logger: Logger;
}

export class WorkerRunner implements Runner {
  readonly description: string;
  private warm: Worker | undefined;
  private initialized = false;
  private destroyed = false;
  /** Workers of aborted runs inside their grace period. */
  private readonly retiring = new Set<Worker>();

  constructor(private readonly options: WorkerRunnerOptions) {
    this.description = `${options.name} (worker ${options.moduleUrl})`;
  }

  async run({ trigger, log, signal }: RunRequest): Promise<RunOutcome> {
    const initFailure = await this.initOnce();
    if (initFailure) return initFailure;
    const worker = this.takeWorker();
    return new Promise<RunOutcome>((resolve) => {
      const settle = (outcome: RunOutcome) => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const onMessage = (message: FromWorker) => {
        if (message.type === 'log') log.log(message.text);
        else settle(message.outcome);
      };
      const onError = (err: Error) => {
        this.forget(worker);
        if (err.stack) log.log(err.stack);
        settle({ code: HandleCode.FAIL, msg: `job handler worker failed: ${errorMessage(err)}` });
      };
      const onExit = (exitCode: number) => {
        this.forget(worker);
        settle({ code: HandleCode.FAIL, msg: `job handler worker exited with code ${exitCode}` });
      };
      const onAbort = () => {
        this.retire(worker, signal.reason as StopReason);
        // The lane has already reported the stop; this outcome is only there to settle.
        settle({ code: HandleCode.FAIL, msg: 'run stopped' });
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.post(worker, { type: 'run', trigger });
    });
  }

  async destroy(): Promise<void> {
    this.destroyed = true;
    const workers = [...this.retiring, ...(this.warm ? [this.warm] : [])];
    this.warm = undefined;
    this.retiring.clear();
    await Promise.all(workers.map((w) => w.terminate()));
    if (this.initialized) {
      this.initialized = false;
      await this.options.hooks.destroy?.();
    }
  }

  private takeWorker(): Worker {
    if (this.warm) return this.warm;
    const workerData: WorkerData = { moduleUrl: this.options.moduleUrl, exportName: this.options.name };
    const worker = new Worker(WORKER_ENTRY, { workerData });
    // An idle warm worker must not keep the process alive; the endpoint's server does that.
    worker.unref();
    worker.on('error', (err) =>
      this.options.logger.debug({ err, handler: this.options.name }, 'handler worker error'),
    );
    // A worker that died between runs (an error thrown after its handler returned) is not reused.
    worker.once('exit', () => this.forget(worker));
    this.warm = worker;
    return worker;
  }

  /**
   * Lets an aborted run's worker wind down: the abort message fires the handler's signal; a
   * handler that finishes within the grace keeps its worker warm, any other is terminated.
   */
  private retire(worker: Worker, reason: StopReason): void {
    if (this.warm === worker) this.warm = undefined;
    this.retiring.add(worker);
    const timer = setTimeout(() => {
      worker.off('message', onDone);
      this.retiring.delete(worker);
      void worker.terminate();
    }, this.options.stopGraceMs);
    const onDone = (message: FromWorker) => {
      if (message.type !== 'done') return;
      clearTimeout(timer);
      worker.off('message', onDone);
      this.retiring.delete(worker);
      if (this.warm === undefined && !this.destroyed) this.warm = worker;
      else void worker.terminate();
    };
    worker.on('message', onDone);
    this.post(worker, { type: 'abort', reason });
  }

  private forget(worker: Worker): void {
    if (this.warm === worker) this.warm = undefined;
  }

  private post(worker: Worker, message: ToWorker): void {
    worker.postMessage(message);
  }

  private async initOnce(): Promise<RunOutcome | undefined> {
    if (this.initialized) return undefined;
    try {
      await this.options.hooks.init?.();
    } catch (err) {
      return {
        code: HandleCode.FAIL,
        msg: `job handler [${this.options.name}] init failed: ${errorMessage(err)}`,
      };
    }
    this.initialized = true;
    return undefined;
  }
}
