/**
 * Time as the executor's background loops see it: the registry heartbeat, the re-send of spilled
 * callbacks, the lane idle release and the memory of accepted logIds take a `Clock`, so tests
 * move time instead of sleeping. The same shape as the server's clock. A run's own timings (its
 * timeout, the callback batch delay, the log line stamps) stay on Node's timers and `Date.now()`:
 * they are on every run's path and no test waits on them for long.
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

/** Node's timers take at most 2^31 − 1 ms and fire at once beyond it; longer waits are cut to this. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The real clock: `Date.now()` and Node timers. Its timers are unref'd: the executor lives in its
 * user's process, and its housekeeping must never be what keeps that process alive.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => ({ timer: setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS)).unref() }),
  clearTimer: (handle) => clearTimeout(handle.timer as NodeJS.Timeout),
};

/**
 * Runs `fn` every `intervalMs` on `clock` until the returned function is called. The next timer is
 * set before `fn` runs, so a throwing `fn` does not end the loop; like `setInterval`, a late
 * timer is not caught up with a burst.
 */
export function repeatEvery(clock: Clock, intervalMs: number, fn: () => void): () => void {
  let handle: TimerHandle | undefined;
  const arm = () => {
    handle = clock.setTimer(() => {
      arm();
      fn();
    }, intervalMs);
  };
  arm();
  return () => {
    if (handle) clock.clearTimer(handle);
    handle = undefined;
  };
}
