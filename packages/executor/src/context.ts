/**
 * The context a job handler receives, and how a handler's return value, thrown error or
 * `success()`/`fail()` call become the run's result, and its return value or `setOutput()` the
 * output of a workflow node's run. Shared by the in-process runner and the worker entry, so both
 * isolations give handlers the same contract.
 */
import {
  capHandleMsg,
  HandleCode,
  type TriggerParam,
  WORKFLOW_LIMITS,
  type WorkflowUpstreamNode,
} from '@tickwheel/protocol';
import type { RunOutcome } from './runner.js';

/** The workflow run a run belongs to, when it runs a workflow node. */
export interface JobWorkflow {
  readonly runId: number;
  /** The key of the node this run is. */
  readonly nodeKey: string;
  /** The workflow run's param; null when it has none. */
  readonly param: string | null;
}

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
  /**
   * The workflow run this run is a node of; undefined outside a workflow.
   *
   * @example
   * if (ctx.workflow) ctx.log('node', ctx.workflow.nodeKey, 'of workflow run', ctx.workflow.runId);
   */
  readonly workflow?: JobWorkflow;
  /**
   * The outputs of the nodes with an edge into this one, by node key: `{status, output}`, output
   * null when that node produced none. `{}` outside a workflow.
   *
   * @example
   * const rows = (ctx.upstream.extract?.output as { rows: number } | null)?.rows ?? 0;
   */
  readonly upstream: Readonly<Record<string, Readonly<WorkflowUpstreamNode>>>;
  /**
   * Sets the output this workflow node hands to the nodes downstream of it, in place of the
   * handler's return value (the last call wins; `undefined` means none). Any JSON value of at most
   * `WORKFLOW_LIMITS.outputBytes` bytes of JSON; a larger one, or one JSON cannot write (a BigInt,
   * a cycle), is dropped with a line in the run's log, and the result is unchanged. Outside a
   * workflow nothing is sent (the run's log says so).
   *
   * @example
   * ctx.setOutput({ files: written.length });
   * return `${written.length} files written`; // the message; the output is the object above
   */
  setOutput(value: unknown): void;
}

/**
 * A job handler: its return value (string → message, object → JSON message) or thrown error sets
 * the result; in a workflow, its return value is also the node's output unless `setOutput` set one.
 */
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
 * Where a run's AbortSignal comes from: the signal itself, or something that makes it when read
 * (the lane's run request: it makes one only for a run that reads `ctx.signal`; most never do,
 * and each costs an AbortController).
 */
export type SignalSource = AbortSignal | { readonly signal: AbortSignal };

/** Builds the context of one run; `writeLog` receives each `ctx.log(...)` call's arguments. */
export function createHandlerRun(
  trigger: TriggerParam,
  writeLog: (...args: unknown[]) => void,
  signal: SignalSource,
): HandlerRun {
  return new OneHandlerRun(trigger, writeLog, signal);
}

/**
 * One run's context and its outcome. Classes, not a literal with closures for every member: a busy
 * executor makes thousands a second. The context's `log`, `success`, `fail` and `setOutput` stay
 * functions of their own, so a handler may take them out of `ctx` and call them alone.
 */
class OneHandlerRun implements HandlerRun {
  readonly context: JobContext;
  /** What `success()`/`fail()` set. */
  explicit: RunOutcome | undefined;
  /** What `setOutput()` set. */
  output: { value: unknown } | undefined;

  constructor(
    private readonly trigger: TriggerParam,
    private readonly writeLog: (...args: unknown[]) => void,
    signal: SignalSource,
  ) {
    this.context = new RunContext(trigger, writeLog, signal, this);
  }

  // An explicit success()/fail() wins over the return value: the handler said so on purpose.
  outcomeOfReturn(value: unknown): RunOutcome {
    return this.withOutput(
      this.explicit ?? { code: HandleCode.SUCCESS, msg: capHandleMsg(messageOf(value)) },
      value,
    );
  }

  // A thrown error always fails the run, even after success(): the handler did not finish. An
  // output it set before throwing still goes downstream (a FAILURE edge may want to read it).
  outcomeOfError(err: unknown): RunOutcome {
    return this.withOutput({ code: HandleCode.FAIL, msg: capHandleMsg(errorMessage(err)) }, undefined);
  }

  /**
   * The outcome with the run's output: what `setOutput` set, else `returned`. Only a workflow
   * node's run has one: outside a workflow nothing is downstream, and sending every return value
   * would double the callback of every job that returns its message.
   */
  private withOutput(outcome: RunOutcome, returned: unknown): RunOutcome {
    if (this.trigger.workflow === undefined) {
      if (this.output !== undefined)
        this.writeLog(`${OUTPUT_LINE} not sent: this run is not a workflow node's`);
      return outcome;
    }
    const output = outputOf(this.output === undefined ? returned : this.output.value, this.writeLog);
    return output === undefined ? outcome : { ...outcome, output };
  }
}

class RunContext implements JobContext {
  readonly jobId: number;
  readonly logId: number;
  readonly param: string;
  readonly shardIndex: number;
  readonly shardTotal: number;
  readonly logDateTime: number;
  readonly log: (...args: unknown[]) => void;
  readonly success: (msg?: string) => void;
  readonly fail: (msg?: string) => void;
  declare readonly workflow?: JobWorkflow;
  readonly upstream: JobContext['upstream'];
  readonly setOutput: (value: unknown) => void;
  readonly #signal: SignalSource;

  constructor(
    trigger: TriggerParam,
    writeLog: (...args: unknown[]) => void,
    signal: SignalSource,
    run: OneHandlerRun,
  ) {
    this.jobId = trigger.jobId;
    this.logId = trigger.logId;
    this.param = trigger.executorParams;
    this.shardIndex = trigger.broadcastIndex;
    this.shardTotal = trigger.broadcastTotal;
    this.logDateTime = trigger.logDateTime;
    this.log = writeLog;
    this.success = (msg) => {
      run.explicit = { code: HandleCode.SUCCESS, msg: capHandleMsg(msg ?? null) };
    };
    this.fail = (msg) => {
      run.explicit = { code: HandleCode.FAIL, msg: capHandleMsg(msg ?? null) };
    };
    const workflow = trigger.workflow;
    if (workflow !== undefined) {
      (this as { workflow?: JobWorkflow }).workflow = {
        runId: workflow.runId,
        nodeKey: workflow.nodeKey,
        param: workflow.param,
      };
    }
    this.upstream = workflow?.upstream ?? NO_UPSTREAM;
    this.setOutput = (value) => {
      run.output = { value };
    };
    this.#signal = signal;
  }

  get signal(): AbortSignal {
    const source = this.#signal;
    return source instanceof AbortSignal ? source : source.signal;
  }
}

const NO_UPSTREAM: JobContext['upstream'] = Object.freeze({});
const OUTPUT_LINE = '----------- tickwheel output';

/**
 * `value` as the JSON value the server will store, or undefined when there is none: undefined
 * itself, or a value that is not JSON or is over `WORKFLOW_LIMITS.outputBytes` (logged). The
 * value goes through its JSON text so what travels (over postMessage, into a spill file) is
 * exactly what the server stores, whatever classes or `toJSON` methods it had.
 */
function outputOf(value: unknown, writeLog: (...args: unknown[]) => void): unknown {
  if (value === undefined) return undefined;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    writeLog(`${OUTPUT_LINE} dropped: it cannot be written as JSON (${errorMessage(err)})`);
    return undefined;
  }
  if (text === undefined) {
    writeLog(`${OUTPUT_LINE} dropped: a ${typeof value} cannot be written as JSON`);
    return undefined;
  }
  const bytes = Buffer.byteLength(text);
  if (bytes > WORKFLOW_LIMITS.outputBytes) {
    writeLog(
      `${OUTPUT_LINE} dropped: its JSON is ${bytes} bytes, over the limit of ${WORKFLOW_LIMITS.outputBytes} bytes`,
    );
    return undefined;
  }
  return JSON.parse(text);
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
