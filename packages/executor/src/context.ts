/**
 * The context a job handler receives, and how a handler's return value, thrown error or
 * `success()`/`fail()` call become the run's result. Shared by the in-process runner and the
 * worker entry, so both isolations give handlers the same contract.
 */
import { capHandleMsg, HandleCode, type TriggerParam } from '@tickwheel/protocol';
import type { RunOutcome } from './runner.js';

/**
 * What a handler gets for one run.
 *
 * @example
 * ex.handle('report', async (ctx) => {
 *   ctx.log('building report for', ctx.param);
 *   const rows = await buildReport(ctx.param, { signal: ctx.signal });
 *   return `${rows} rows`; // success, with this message
 * });
 */
export interface JobContext {
  readonly jobId: number;
  readonly logId: number;
  /** The job parameter (`executorParams`), '' when none. */
  readonly param: string;
  /** Shard index (0-based) and count of a broadcast run; 0 and 1 otherwise. */
  readonly shardIndex: number;
  readonly shardTotal: number;
  /** Epoch ms of the fire. */
  readonly logDateTime: number;
  /** Appends one line to the run's log (formatted like console.log), readable from the console. */
  log(...args: unknown[]): void;
  /**
   * Aborted on timeout, kill and cover-early (`signal.reason.kind` says which). In-process
   * handlers must watch it: the lane reports the run as stopped and moves on, but cannot stop
   * code that ignores the signal. Only `isolation: 'worker'` stops busy code for real.
   */
  readonly signal: AbortSignal;
  /** Sets the result to success, with an optional message. */
  success(msg?: string): void;
  /** Sets the result to failure (code 500), with an optional message. */
  fail(msg?: string): void;
}

/** A job handler: its return value (string → message, object → JSON message) or thrown error sets the result. */
export type JobHandler = (ctx: JobContext) => unknown;

/** A context plus the means to turn how the handler ended into an outcome. */
export interface HandlerRun {
  context: JobContext;
  /** The outcome of a handler that returned `value`. */
  outcomeOfReturn(value: unknown): RunOutcome;
  /** The outcome of a handler that threw `err`. */
  outcomeOfError(err: unknown): RunOutcome;
}

/**
 * Builds the context of one run; `writeLog` receives each `ctx.log(...)` call's arguments.
 * `signal` is the run's AbortSignal, or a function giving it: the lane makes one only for a run
 * that reads `ctx.signal` (most never do, and each costs an AbortController).
 */
export function createHandlerRun(
  trigger: TriggerParam,
  writeLog: (...args: unknown[]) => void,
  signal: AbortSignal | (() => AbortSignal),
): HandlerRun {
  let explicit: RunOutcome | undefined;
  const signalOf = typeof signal === 'function' ? signal : () => signal;
  const context: JobContext = {
    jobId: trigger.jobId,
    logId: trigger.logId,
    param: trigger.executorParams,
    shardIndex: trigger.broadcastIndex,
    shardTotal: trigger.broadcastTotal,
    logDateTime: trigger.logDateTime,
    log: writeLog,
    get signal() {
      return signalOf();
    },
    success(msg?: string) {
      explicit = { code: HandleCode.SUCCESS, msg: capHandleMsg(msg ?? null) };
    },
    fail(msg?: string) {
      explicit = { code: HandleCode.FAIL, msg: capHandleMsg(msg ?? null) };
    },
  };
  return {
    context,
    // An explicit success()/fail() wins over the return value: the handler said so on purpose.
    outcomeOfReturn: (value) => explicit ?? { code: HandleCode.SUCCESS, msg: capHandleMsg(messageOf(value)) },
    // A thrown error always fails the run, even after success(): the handler did not finish.
    outcomeOfError: (err) => ({ code: HandleCode.FAIL, msg: capHandleMsg(errorMessage(err)) }),
  };
}

function messageOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'object') {
    try {
      return JSON.stringify(value) ?? null;
    } catch {
      return String(value);
    }
  }
  return String(value);
}

/** The message of a thrown value: an Error's message, anything else as text. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
