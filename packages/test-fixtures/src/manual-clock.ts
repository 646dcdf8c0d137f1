/**
 * A clock for tests that moves only when told to. It has the shape of the `Clock` the server
 * (`scheduling/clock.ts`) and the executor (`clock.ts`) take, whose real one is `systemClock`.
 */

/** What `setTimer` returns; only meaningful to the clock that made it. */
export type TimerHandle = { readonly timer: unknown };

interface ManualTimer {
  readonly timer: number;
  readonly dueAt: number;
  readonly fn: () => void;
}

/**
 * A clock that only moves when told to. `advance(ms)` walks time forward timer by timer: each
 * due timer runs with `now()` at its own due time, in due-time order (ties in the order they
 * were set), and timers set by a callback run too if they fall due before the target.
 *
 * Between timers it waits for `settle()` (by default: one turn of the event loop, which drains
 * every pending promise callback), so async work a timer starts on an in-memory database
 * completes before time moves on. Work that waits on real I/O needs a `settle` that waits for it.
 *
 * @example
 * const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
 * clock.setTimer(() => console.log('tick', clock.now()), 1000);
 * await clock.advance(1500); // logs "tick 1767225601000"; clock.now() is then 1767225601500
 */
export class ManualClock {
  private current: number;
  private timers: ManualTimer[] = [];
  private nextTimer = 1;
  /** Awaited after each timer callback; replace it to wait for work that does real I/O. */
  settle: () => Promise<void> = () => new Promise((resolve) => setImmediate(resolve));

  constructor(startEpochMs = 0) {
    this.current = startEpochMs;
  }

  now(): number {
    return this.current;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    const timer: ManualTimer = { timer: this.nextTimer++, dueAt: this.current + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer;
  }

  clearTimer(handle: TimerHandle): void {
    this.timers = this.timers.filter((timer) => timer !== handle);
  }

  /** How many timers are set and not yet run. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, running every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.current + ms);
  }

  /**
   * Moves time forward by `ms` without running any timer, as a blocked event loop or a paused
   * process would; the timers that fell due meanwhile run at the next `advance`.
   */
  stall(ms: number): void {
    this.current += ms;
  }

  /** Moves time forward to `epochMs` (never backwards), running every timer due by then. */
  async advanceTo(epochMs: number): Promise<void> {
    await this.settle();
    for (let timer = this.earliestDue(epochMs); timer; timer = this.earliestDue(epochMs)) {
      this.timers = this.timers.filter((other) => other !== timer);
      this.current = Math.max(this.current, timer.dueAt);
      timer.fn();
      await this.settle();
    }
    this.current = Math.max(this.current, epochMs);
  }

  private earliestDue(limit: number): ManualTimer | undefined {
    let earliest: ManualTimer | undefined;
    for (const timer of this.timers) {
      if (timer.dueAt > limit) continue;
      if (
        !earliest ||
        timer.dueAt < earliest.dueAt ||
        (timer.dueAt === earliest.dueAt && timer.timer < earliest.timer)
      ) {
        earliest = timer;
      }
    }
    return earliest;
  }
}
