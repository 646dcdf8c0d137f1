/**
 * Every dispatch option, its default and its validation, in one place. `resolveDispatchOptions()`
 * runs once when a {@link Dispatcher} is created; nothing deeper re-checks or re-defaults.
 */
import { DEFAULT_CALL_TIMEOUT_MS } from '@tickwheel/protocol';
import { integerIn, invalid, optionalFunction } from '../option-checks.js';
import { NetworkRules } from '../security/network-rules.js';
import type { CallRecord, ExecutorAddress } from './executor-client.js';
import type { PullTransport } from './pull-connections.js';
import type { FenceVerdict, SendToFence } from './send-fence.js';

/** Options of the dispatch layer (executor client, routes, fast/slow lanes). */
export interface DispatchOptions {
  /**
   * Token sent to executors in `XXL-JOB-ACCESS-TOKEN`. An empty string sends the header empty,
   * as XXL-JOB 3.x does when no token is configured (only for insecure set-ups).
   */
  accessToken: string;
  /**
   * The token for a call whose target carries none (`ExecutorAddress.accessToken`): the app's,
   * from the executor directory. Default: `accessToken` for every such call.
   */
  tokenFor?: (target: ExecutorAddress) => string;
  /** Time one call to one executor may take, connect to last body byte. Default 3,000 ms. */
  callTimeoutMs?: number;
  /** Keep-alive connections kept at most per executor origin. Default 32. */
  connectionsPerExecutor?: number;
  /**
   * Requests pipelined per connection. Default 1 (XXL-JOB's Netty endpoint answers in order,
   * but a slow answer would hold back the ones behind it; concurrent connections avoid that).
   */
  pipelining?: number;
  /**
   * Dispatches in flight at once in the fast lane. Default 2,000. XXL-JOB's fast trigger pool has
   * 200 threads, each held for one `run` call; here a dispatch in flight is a promise, runs to a
   * Tickwheel executor share one `runBatch` request, and the connections per executor bound the
   * calls. At 200, a `run` round trip of 30 ms capped the node near 6,500 fires a second.
   */
  fastConcurrency?: number;
  /** Dispatches in flight at once in the slow lane. Default 500. */
  slowConcurrency?: number;
  /** A dispatch that took longer than this counts as slow. Default 500 ms. */
  slowDispatchMs?: number;
  /** A job with more slow dispatches than this in one window goes to the slow lane. Default 10. */
  slowDispatchLimit?: number;
  /** Length of the fixed, clock-aligned window slow dispatches are counted in. Default 60,000 ms. */
  slowWindowMs?: number;
  /**
   * Jobs whose ROUND / LEAST_FREQUENTLY_USED / LEAST_RECENTLY_USED state is kept at most; the
   * job tracked longest is forgotten first. Default 100,000.
   */
  maxTrackedJobs?: number;
  /** Wall clock (epoch ms) for the daily route reset and the slow-lane windows. Default `Date.now`. */
  now?: () => number;
  /** Random source in [0, 1) for RANDOM and the random start of ROUND and LFU. Default `Math.random`. */
  random?: () => number;
  /**
   * Asked right before each `run` goes out (send-fence.ts): the run is sent only when admitted;
   * a record sent before to another executor is sent there instead. Without it every run is sent.
   */
  fence?: (send: SendToFence) => Promise<FenceVerdict>;
  /**
   * The fence asked for several runs at once (`Dispatcher.dispatchMany`), their verdicts in their
   * order: one promise a batch. Without it a batch asks `fence` for each run.
   */
  fenceMany?: (sends: readonly SendToFence[]) => Promise<FenceVerdict[]>;
  /** Called after every executor call with its latency and result (for metrics). */
  onCall?: (record: CallRecord) => void;
  /** Where executors may be connected to (the server's `allowedNetworks`). Default: the rules' defaults. */
  networkRules?: NetworkRules;
  /** The calls to pull executors (`pull://` addresses; pull-connections.ts). Default none. */
  pull?: PullTransport;
  /**
   * The calls to Redis-stream executors (`stream://` addresses; redis-streams.ts). Default none:
   * such calls fail as `connection` and a run to one is a failed dispatch. With it, a run that
   * fails as `connection` (Redis unreachable) is not sent: its record stays pending.
   */
  stream?: StreamTransport;
}

/** The Redis-stream transport as the dispatcher sees it. */
export interface StreamTransport extends PullTransport {
  /** False while Redis is known to be unreachable: a fire for stream executors only is kept back unrouted. */
  readonly available?: boolean;
}

export interface ResolvedDispatchOptions {
  accessToken: string;
  tokenFor: ((target: ExecutorAddress) => string) | undefined;
  callTimeoutMs: number;
  connectionsPerExecutor: number;
  pipelining: number;
  fastConcurrency: number;
  slowConcurrency: number;
  slowDispatchMs: number;
  slowDispatchLimit: number;
  slowWindowMs: number;
  maxTrackedJobs: number;
  now: () => number;
  random: () => number;
  fence: DispatchOptions['fence'];
  fenceMany: DispatchOptions['fenceMany'];
  onCall: DispatchOptions['onCall'];
  networkRules: NetworkRules;
  pull: PullTransport | undefined;
  stream: StreamTransport | undefined;
}

export const DISPATCH_DEFAULTS = {
  callTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
  connectionsPerExecutor: 32,
  pipelining: 1,
  fastConcurrency: 2_000,
  slowConcurrency: 500,
  slowDispatchMs: 500,
  slowDispatchLimit: 10,
  slowWindowMs: 60_000,
  maxTrackedJobs: 100_000,
} as const;

/** Fills defaults and validates; throws `TW_ERR_INVALID_OPTION` naming the first bad option. */
export function resolveDispatchOptions(options: DispatchOptions): ResolvedDispatchOptions {
  if (options === null || typeof options !== 'object') throw invalid('options', 'must be an object');
  if (typeof options.accessToken !== 'string') {
    throw invalid('accessToken', 'must be a string (empty only for an insecure set-up)');
  }
  const d = DISPATCH_DEFAULTS;
  return {
    accessToken: options.accessToken,
    tokenFor: options.tokenFor,
    callTimeoutMs: integerIn('callTimeoutMs', options.callTimeoutMs, d.callTimeoutMs, 1, 600_000),
    connectionsPerExecutor: integerIn(
      'connectionsPerExecutor',
      options.connectionsPerExecutor,
      d.connectionsPerExecutor,
      1,
      10_000,
    ),
    pipelining: integerIn('pipelining', options.pipelining, d.pipelining, 1, 100),
    fastConcurrency: integerIn('fastConcurrency', options.fastConcurrency, d.fastConcurrency, 1, 100_000),
    slowConcurrency: integerIn('slowConcurrency', options.slowConcurrency, d.slowConcurrency, 1, 100_000),
    slowDispatchMs: integerIn('slowDispatchMs', options.slowDispatchMs, d.slowDispatchMs, 1, 600_000),
    slowDispatchLimit: integerIn(
      'slowDispatchLimit',
      options.slowDispatchLimit,
      d.slowDispatchLimit,
      0,
      1_000_000,
    ),
    slowWindowMs: integerIn('slowWindowMs', options.slowWindowMs, d.slowWindowMs, 1, 86_400_000),
    maxTrackedJobs: integerIn('maxTrackedJobs', options.maxTrackedJobs, d.maxTrackedJobs, 1, 100_000_000),
    now: optionalFunction('now', options.now, Date.now),
    random: optionalFunction('random', options.random, Math.random),
    fence: optionalFunction('fence', options.fence, undefined),
    fenceMany: optionalFunction('fenceMany', options.fenceMany, undefined),
    onCall: optionalFunction('onCall', options.onCall, undefined),
    networkRules: options.networkRules ?? new NetworkRules(),
    pull: options.pull,
    stream: options.stream,
  };
}
