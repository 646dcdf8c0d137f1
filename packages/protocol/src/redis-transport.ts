/**
 * Tickwheel's `redis` transport (not in XXL-JOB): runs reach an executor through a Redis stream of
 * its own instead of an HTTP call, as the message-queue dispatch of the seed articles proposes.
 * Like `http-pull`, the executor opens no port; unlike it, a run the server has written waits in
 * Redis until the executor reads it, and any server node writes to any executor's stream with no
 * relay between nodes.
 *
 * Keys, for an executor of instance id `<instance>` (its address is `stream://<instance>/`):
 *
 * - `tickwheel:run:<instance>` — its runs. The server `XADD`s one entry per run, fields
 *   `logId` (the fire id) and `body` (the TriggerParam as JSON), `MAXLEN ~ RUN_STREAM_MAX_LEN`,
 *   and sets the key to expire `STREAM_TTL_SECONDS` after its last run (an executor that is gone
 *   leaves nothing behind for long). The executor reads it through the consumer group
 *   `RUN_GROUP` (created by the executor at start, from the stream's beginning, `MKSTREAM`), with
 *   its instance id as consumer name, and `XACK`s an entry once its lane has accepted the run, or
 *   refused it (a refusal — DISCARD_LATER, an unknown handler — also goes back as a failed result
 *   by the usual `api/callback`, so the record says why at once; a repeat of a logId the executor
 *   already took is acknowledged and nothing else).
 * - `tickwheel:call:<instance>` — the other calls (`beat`, `idleBeat`, `kill`, `log`). The server
 *   `XADD`s a field `frame`, a PullCallFrame (pull.ts) with `replyTo` set, `MAXLEN ~
 *   CALL_STREAM_MAX_LEN`, expiring like the runs. The executor reads it in the same group and
 *   answers each call exactly as its HTTP endpoint would, by `PUBLISH`ing a PullAnswerFrame (with
 *   the same `id`, and `instance`) to the channel `replyTo`.
 * - `tickwheel:reply:<node id>` — the channel each server node subscribes to for its answers.
 *
 * Registration and its heartbeats (`api/registry` with `registryValue` = `stream://<instance>/`)
 * and results (`api/callback`, the spill when the server is away) stay on HTTP, as with
 * `http-pull`. A run written to the stream counts as dispatched (trigger code 200, "queued on
 * Redis"); what the executor does with it comes back as its result. An executor that dies with
 * runs unread or unacknowledged: its instance is never read again (a restarted executor is a new
 * instance, with a new stream), so the lost-run rule fails those records and retries go elsewhere
 * under new logIds — a run is never run twice. With Redis unreachable the server sends nothing:
 * the fire stays pending in the database and is sent once Redis answers again.
 */
import { isInstanceId } from './constants.js';

/** The key prefix of every Tickwheel key in Redis. */
export const REDIS_KEY_PREFIX = 'tickwheel:';
/** The consumer group executors read their streams with. */
export const RUN_GROUP = 'executor';
/** Approximate most entries kept in a run stream (`XADD … MAXLEN ~`). */
export const RUN_STREAM_MAX_LEN = 100_000;
/** Approximate most entries kept in a call stream. */
export const CALL_STREAM_MAX_LEN = 1_000;
/** A stream expires this long after the last entry written to it. */
export const STREAM_TTL_SECONDS = 24 * 60 * 60;

export function runStreamKey(instance: string): string {
  return `${REDIS_KEY_PREFIX}run:${instance}`;
}

export function callStreamKey(instance: string): string {
  return `${REDIS_KEY_PREFIX}call:${instance}`;
}

export function replyChannel(nodeId: string): string {
  return `${REDIS_KEY_PREFIX}reply:${nodeId}`;
}

/** The address of the Redis-stream executor with instance id `instance`: `stream://<instance>/`. */
export function streamAddress(instance: string): string {
  return `stream://${instance}/`;
}

/** The instance id of a stream address, or undefined when it is not one. */
export function streamInstanceOf(address: string): string | undefined {
  if (!address.startsWith('stream://')) return undefined;
  const instance = address.slice('stream://'.length).replace(/\/$/, '');
  return isInstanceId(instance) ? instance : undefined;
}

/** True for an address of the form `stream://<instance id>/`. */
export function isStreamAddress(address: string): boolean {
  return streamInstanceOf(address) !== undefined;
}
