/**
 * Time as the scheduling engine sees it. The planner, the wheel and the lease manager never call
 * `Date.now()` or `setTimeout` themselves: they take a `Clock`, so tests move time with a
 * `ManualClock` (test/helpers/clock.ts) instead of sleeping, and one real-clock test proves the system clock works.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Runs `fn` once, `ms` milliseconds from now (0 or less: as soon as possible). */
  setTimer(fn: () => void, ms: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

/** What `setTimer` returns; only meaningful to the clock that made it. */
export type TimerHandle = { readonly timer: unknown };

/**
 * Node's timers take at most 2^31 − 1 ms and fire at once beyond it (with a warning). A longer
 * wait is cut to this; callers re-check the time when woken, so waking early is harmless.
 */
const MAX_TIMER_MS = 2_147_483_647;

/** The real clock: `Date.now()` and Node timers (about 1 ms accurate on an idle event loop). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => ({ timer: setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS)) }),
  clearTimer: (handle) => clearTimeout(handle.timer as NodeJS.Timeout),
};
