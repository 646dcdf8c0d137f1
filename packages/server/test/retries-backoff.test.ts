import { describe, expect, it } from 'vitest';
import { retryDelayMs } from '../src/retries/backoff.js';

describe('retry back-off', () => {
  it('waits the same delay before every retry under FIXED', () => {
    const fixed = { strategy: 'FIXED', delaySeconds: 7, maxDelaySeconds: 1 } as const;
    expect([1, 2, 5].map((attempt) => retryDelayMs(fixed, attempt))).toEqual([7_000, 7_000, 7_000]);
  });

  it('doubles the delay with each retry under EXPONENTIAL, up to the longest wait', () => {
    const exponential = { strategy: 'EXPONENTIAL', delaySeconds: 10, maxDelaySeconds: 60 } as const;
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(exponential, attempt))).toEqual([
      10_000, 20_000, 40_000, 60_000, 60_000,
    ]);
  });

  it('retries at once with a zero delay, as XXL-JOB does', () => {
    expect(retryDelayMs({ strategy: 'EXPONENTIAL', delaySeconds: 0, maxDelaySeconds: 0 }, 3)).toBe(0);
  });

  it('never overflows on a long chain', () => {
    const exponential = { strategy: 'EXPONENTIAL', delaySeconds: 1, maxDelaySeconds: 600 } as const;
    expect(retryDelayMs(exponential, 1_000)).toBe(600_000);
  });
});
