/**
 * What the executor side of the server reports for `/metrics`. Plain calls, so this code does not
 * depend on prom-client: the ops module backs them with its counters and gauges.
 */
import type { FinishedStatus } from '../store/index.js';

export interface ExecutorMetrics {
  /** One result arrived in a callback, with its handle code; a re-sent duplicate counts again (this is traffic). */
  callbackResult(handleCode: number): void;
  /** A fire record was finalised (by a callback, a broadcast's last shard or the lost-run monitor). */
  fireFinished(status: FinishedStatus): void;
  /** Distinct executor addresses online now, over all apps. */
  executorsOnline(count: number): void;
  /** A call to the executor API with a wrong access token, by path (`/api/registry`, ... or `other`). */
  authFailure(path: string): void;
}

/** Metrics that go nowhere, for callers (and tests) that do not export any. */
export const NO_EXECUTOR_METRICS: ExecutorMetrics = {
  callbackResult: () => {},
  fireFinished: () => {},
  executorsOnline: () => {},
  authFailure: () => {},
};
