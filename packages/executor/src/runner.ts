/**
 * The seam between a job's lane and whatever runs its code: an in-process handler, a handler
 * module in a worker thread, or a script in a child process. A lane owns one runner at a time
 * and replaces it when the handler name or script version changes.
 */
import type { TriggerParam } from '@tickwheel/protocol';
import type { JobLogWriter } from './job-log.js';

/** The result of one run, as reported to the server (200 success, 500 failure, 502 timeout). */
export interface RunOutcome {
  code: number;
  msg: string | null;
  /**
   * A workflow node's output, as a JSON value of at most `WORKFLOW_LIMITS.outputBytes` bytes;
   * absent when the run produced none (always, outside a workflow and for scripts).
   */
  output?: unknown;
}

export interface RunRequest {
  trigger: TriggerParam;
  /** The run's log file. */
  log: JobLogWriter;
  /**
   * Aborted on timeout, kill and cover-early; `signal.reason` is a {@link StopReason}. A runner
   * must settle promptly after the abort when it can stop the code (worker, script); the lane
   * does not wait for an in-process handler that ignores the signal. A getter: the lane makes
   * the AbortController on first read, so read it only when the runner needs it.
   */
  readonly signal: AbortSignal;
}

export type StopReason =
  | { kind: 'timeout' }
  | { kind: 'kill'; msg: string }
  | { kind: 'cover-early'; msg: string }
  | { kind: 'shutdown'; msg: string };

export interface Runner {
  /** A name for logs: the handler name or the glue type and version. */
  readonly description: string;
  run(request: RunRequest): Promise<RunOutcome>;
  /** Releases what the runner holds (a worker thread, a handler's `destroy` hook). */
  destroy(): Promise<void>;
}
