/**
 * Tickwheel's `http-pull` transport (not in XXL-JOB): an executor that opens no port. It connects
 * out to any server node with a WebSocket and keeps the connection; the server sends the calls of
 * PROTOCOL.md (`beat`, `idleBeat`, `run`, `runBatch`, `kill`, `log`) over it as frames, and the
 * executor answers each exactly as its HTTP endpoint would. Everything else stays as in push mode
 * and goes out over plain HTTP from the executor: registration and its heartbeats (`api/registry`,
 * `api/registryRemove`) under its pull address, and results (`api/callback`, with the spill when
 * the server is away). So registration, removal, the lost-run rule (a dropped connection is a
 * missed heartbeat, not an immediate failure), callbacks and per-app tokens are those of push.
 *
 * The connection: `GET <server>/api/pull` upgraded to a WebSocket, with the headers
 * `XXL-JOB-ACCESS-TOKEN` (the app's token), `XXL-JOB-APPNAME` (the app) and `Tickwheel-Instance`
 * (the executor's instance id; its pull address is `pull://<instance>/`). A wrong token or app is
 * refused before the upgrade (HTTP 401 with a ReturnT body naming why). After the upgrade every
 * frame is a JSON text frame of one of the shapes below; the server pings every
 * `PULL_PING_INTERVAL_MS` (WebSocket ping) and closes a connection that misses two.
 *
 * @example
 * // server → executor
 * {"t":"call","id":7,"call":"run","body":{"jobId":3,"executorHandler":"demo",…,"logId":42}}
 * // executor → server
 * {"t":"answer","id":7,"answer":{"code":200,"msg":null},"runBatch":1000,"killByLogId":true}
 */
import { isInstanceId } from './constants.js';

/** The server's WebSocket path, under its base URL (`ws://scheduler:8080/api/pull`). */
export const PULL_PATH = 'api/pull';
/** How often the server pings a pull connection; two missed pongs close it. */
export const PULL_PING_INTERVAL_MS = 15_000;
/** The executor's reconnect back-off: doubling from the first, never over the last, with jitter. */
export const PULL_RECONNECT_MIN_MS = 250;
export const PULL_RECONNECT_MAX_MS = 15_000;
/** The largest frame either side takes (the executor's HTTP body limit). */
export const MAX_PULL_FRAME_BYTES = 5 * 1024 * 1024;

/** The transports an executor can be reached by (`redis`: redis-transport.ts). */
export const TRANSPORTS = ['http', 'http-pull', 'redis'] as const;
export type Transport = (typeof TRANSPORTS)[number];

/** The calls a server makes over a pull connection: the HTTP endpoint's call paths. */
export type PullCall = 'beat' | 'idleBeat' | 'run' | 'runBatch' | 'kill' | 'log';

/** Server → executor: one call, answered by an `answer` frame with the same `id`. */
export interface PullCallFrame {
  t: 'call';
  /** Unique per connection while the call is open. */
  id: number;
  call: PullCall;
  /** The call's body as the HTTP endpoint takes it: TriggerParam, an array of them, KillParam, … */
  body: unknown;
  /** The `redis` transport only: the channel to publish the answer to (redis-transport.ts). */
  replyTo?: string;
}

/** Executor → server: the answer to call `id`, and what the HTTP answer's headers would say. */
export interface PullAnswerFrame {
  t: 'answer';
  id: number;
  /** The ReturnT the HTTP endpoint would answer (a `runBatch` answer's payload as there). */
  answer: unknown;
  /** `Tickwheel-Run-Batch`: the most runs one `runBatch` takes. */
  runBatch?: number;
  /** `Tickwheel-Kill: logId`: `kill` takes a logId and stops that run only. */
  killByLogId?: boolean;
  /** The `redis` transport only: the answering executor's instance id. */
  instance?: string;
}

export type PullFrame = PullCallFrame | PullAnswerFrame;

/** The address of the pull executor with instance id `instance`: `pull://<instance>/`. */
export function pullAddress(instance: string): string {
  return `pull://${instance}/`;
}

/** True for an address of the form `pull://<instance id>/` (the trailing slash optional). */
export function isPullAddress(address: string): boolean {
  return pullInstanceOf(address) !== undefined;
}

/** The instance id of a pull address, or undefined when it is not one. */
export function pullInstanceOf(address: string): string | undefined {
  if (!address.startsWith('pull://')) return undefined;
  const instance = address.slice('pull://'.length).replace(/\/$/, '');
  return isInstanceId(instance) ? instance : undefined;
}

/** Reads a frame; undefined when the text is not one of the shapes above. */
export function parsePullFrame(text: string): PullFrame | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const frame = value as Record<string, unknown>;
  if (!Number.isSafeInteger(frame.id)) return undefined;
  if (frame.t === 'call' && typeof frame.call === 'string' && PULL_CALLS.has(frame.call)) {
    return frame as unknown as PullCallFrame;
  }
  if (frame.t === 'answer' && 'answer' in frame) return frame as unknown as PullAnswerFrame;
  return undefined;
}

const PULL_CALLS: ReadonlySet<string> = new Set(['beat', 'idleBeat', 'run', 'runBatch', 'kill', 'log']);
