import type { Clock, TimerHandle } from '../../src/clock.js';

interface ManualTimer {
  readonly timer: number;
  readonly dueAt: number;
  readonly fn: () => void;
}

/**
 * A clock that only moves when told to (the real one is `systemClock`). `advance(ms)` runs every
 * timer that falls due on the way, in due-time order, with `now()` at the timer's due time, and
 * the timers those set too when they fall due before the target. Between timers it lets one turn
 * of the event loop pass; work that waits on real I/O (a server's answer) is waited for by the
 * test, not by the clock.
 *
 * @example
 * const clock = new ManualClock();
 * createExecutor({ ...options, internal: { clock } });
 * await clock.advance(30_000); // one heartbeat
 */
export class ManualClock implements Clock {
  private current: number;
  private timers: ManualTimer[] = [];
  private nextTimer = 1;

  constructor(startEpochMs = Date.parse('2026-01-01T00:00:00Z')) {
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
    const target = this.current + ms;
    await settle();
    for (let timer = this.earliestDue(target); timer; timer = this.earliestDue(target)) {
      this.timers = this.timers.filter((other) => other !== timer);
      this.current = Math.max(this.current, timer.dueAt);
      timer.fn();
      await settle();
    }
    this.current = Math.max(this.current, target);
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

function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
