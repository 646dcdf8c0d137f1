/**
 * The alarm queue's timings and limits, their defaults and their validation, in one place.
 * They reach the server as `internal.alarms` (tests shorten them); the defaults suit production.
 */
import { integerIn } from '../option-checks.js';

export interface AlarmQueueLimits {
  /** Sends in flight at once to one channel (a slow channel holds only its own). Default 2. */
  concurrencyPerChannel?: number;
  /** Time one send may take before it is aborted and counted as failed. Default 10,000 ms. */
  sendTimeoutMs?: number;
  /** Tries per alarm and channel, the first included. Default 3. */
  maxAttempts?: number;
  /** Wait before the first retry; each later one waits twice as long. Default 2,000 ms. */
  retryDelayMs?: number;
  /** The longest wait between two tries. Default 60,000 ms. */
  maxRetryDelayMs?: number;
  /** Alarms waiting for one channel; beyond, a new one fails at once (an alarm storm). Default 1,000. */
  maxWaitingPerChannel?: number;
  /**
   * How long the queue vouches for an owed alarm it holds (store/owed-alarms.ts) without renewing;
   * it renews every third of it. An alarm whose node stopped is sent again by the owed-alarm
   * sweep once this has passed since the last renewal (and the sweep has run). Default 120,000 ms.
   */
  holdMs?: number;
}

export type ResolvedAlarmQueueLimits = Required<AlarmQueueLimits>;

export const ALARM_QUEUE_DEFAULTS: ResolvedAlarmQueueLimits = {
  concurrencyPerChannel: 2,
  sendTimeoutMs: 10_000,
  maxAttempts: 3,
  retryDelayMs: 2_000,
  maxRetryDelayMs: 60_000,
  maxWaitingPerChannel: 1_000,
  holdMs: 120_000,
};

/** Fills defaults and validates; throws `TW_ERR_INVALID_OPTION` naming the first bad option. */
export function resolveAlarmQueueLimits(
  limits: AlarmQueueLimits = {},
  prefix = 'internal.alarms',
): ResolvedAlarmQueueLimits {
  const d = ALARM_QUEUE_DEFAULTS;
  const int = (name: keyof AlarmQueueLimits, min: number, max: number): number =>
    integerIn(`${prefix}.${name}`, limits[name], d[name], min, max);
  return {
    concurrencyPerChannel: int('concurrencyPerChannel', 1, 100),
    sendTimeoutMs: int('sendTimeoutMs', 10, 600_000),
    maxAttempts: int('maxAttempts', 1, 20),
    retryDelayMs: int('retryDelayMs', 0, 3_600_000),
    maxRetryDelayMs: int('maxRetryDelayMs', 0, 3_600_000),
    maxWaitingPerChannel: int('maxWaitingPerChannel', 1, 1_000_000),
    holdMs: int('holdMs', 100, 86_400_000),
  };
}
