/**
 * The wait before a retry. XXL-JOB retries a failed fire at once, which hammers a struggling
 * dependency; a job here says how long to wait:
 *
 * - FIXED: `delaySeconds` before every retry;
 * - EXPONENTIAL: `delaySeconds · 2^(attempt − 1)`, at most `maxDelaySeconds`
 *   (10 s, 20 s, 40 s, … for a delay of 10 s).
 *
 * `attempt` counts retries from 1: the first retry of a fire is attempt 1.
 */
import type { JobRow } from '../store/index.js';

export const BACKOFF_STRATEGIES = ['FIXED', 'EXPONENTIAL'] as const;
export type BackoffStrategy = (typeof BACKOFF_STRATEGIES)[number];

export const ALARM_ON = ['EVERY_FAILURE', 'FINAL_FAILURE'] as const;
export type AlarmOn = (typeof ALARM_ON)[number];

export interface RetryBackoff {
  strategy: BackoffStrategy;
  delaySeconds: number;
  maxDelaySeconds: number;
}

/** The longest wait a job may ask for, before any retry: one week. */
export const MAX_RETRY_DELAY_SECONDS = 7 * 24 * 3600;

/** The job's back-off as stored. */
export function backoffOf(
  job: Pick<JobRow, 'retry_backoff_strategy' | 'retry_delay_seconds' | 'retry_max_delay_seconds'>,
): RetryBackoff {
  return {
    strategy: job.retry_backoff_strategy === 'EXPONENTIAL' ? 'EXPONENTIAL' : 'FIXED',
    delaySeconds: job.retry_delay_seconds,
    maxDelaySeconds: job.retry_max_delay_seconds,
  };
}

/** Milliseconds to wait before retry number `attempt` (1-based). */
export function retryDelayMs(backoff: RetryBackoff, attempt: number): number {
  if (backoff.strategy === 'FIXED') return backoff.delaySeconds * 1000;
  // 2^(attempt − 1) overflows nothing that matters: the cap applies long before.
  const exponent = Math.min(Math.max(attempt, 1) - 1, 40);
  const seconds = Math.min(
    backoff.delaySeconds * 2 ** exponent,
    Math.max(backoff.maxDelaySeconds, backoff.delaySeconds),
  );
  return seconds * 1000;
}
