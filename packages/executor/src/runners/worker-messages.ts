/**
 * The messages between a worker runner and its worker thread (structured-cloned over
 * postMessage). One run at a time per worker.
 */
import type { TriggerParam } from '@tickwheel/protocol';
import type { RunOutcome, StopReason } from '../runner.js';

/** What the worker thread is started with. */
export interface WorkerData {
  /** File URL of the handler module. */
  moduleUrl: string;
  /** The handler name: the module's export of that name is preferred over its default export. */
  exportName: string;
}

export type ToWorker = { type: 'run'; trigger: TriggerParam } | { type: 'abort'; reason: StopReason };

export type FromWorker = { type: 'log'; text: string } | { type: 'done'; outcome: RunOutcome };
