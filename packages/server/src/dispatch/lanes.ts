/**
 * The fast and slow dispatch lanes (XXL-JOB's fast/slow trigger pools). Every dispatch runs in
 * one of two lanes of bounded concurrency; a job whose dispatches took longer than 500 ms more
 * than 10 times in one window (a fixed, clock-aligned minute) dispatches in the slow lane, so a
 * slow or hung executor fills the slow lane's slots, not the fast lane's that every other job uses.
 *
 * Moving back: XXL-JOB forgets every count at the minute boundary, so a still-slow job returns to
 * the fast lane each minute and stalls it again for 11 dispatches. Here a job stays slow while
 * its count is over the limit in the current *or the previous* window: it moves back to the fast
 * lane at the first window boundary after a whole window in which it was slow at most 10 times.
 *
 * The time a dispatch counts is its own run time, not the time it waited for a slot, so a busy
 * fast lane does not push its jobs into the slow one.
 */
import { performance } from 'node:perf_hooks';

export type LaneName = 'fast' | 'slow';

export interface LaneOptions {
  fastConcurrency: number;
  slowConcurrency: number;
  slowDispatchMs: number;
  slowDispatchLimit: number;
  slowWindowMs: number;
  now: () => number;
}

export interface LaneStats {
  running: number;
  queued: number;
}

export class DispatchLanes {
  private readonly fast: BoundedLane;
  private readonly slow: BoundedLane;
  private window = Number.NaN;
  /** Slow dispatches per job id in the current and the previous window. */
  private current = new Map<number, number>();
  private previous = new Map<number, number>();

  constructor(private readonly options: LaneOptions) {
    this.fast = new BoundedLane(options.fastConcurrency);
    this.slow = new BoundedLane(options.slowConcurrency);
  }

  /**
   * Runs `task` for `jobId` in the job's lane once a slot is free; the lane is passed to the task.
   * No async function wraps a dispatch here (nor in BoundedLane): each costs a promise and a
   * suspended frame a dispatch, and the send path makes one a fire (bench/fire's allocation a fire).
   */
  run<T>(jobId: number, task: (lane: LaneName) => Promise<T>): Promise<T> {
    const lane = this.laneOf(jobId);
    return (lane === 'slow' ? this.slow : this.fast).run(() => {
      const started = performance.now();
      const running = task(lane);
      const timed = () => this.recordDuration(jobId, performance.now() - started);
      running.then(timed, timed);
      return running;
    });
  }

  /**
   * Takes up to `count` of the fast lane's free slots at once for a batch of dispatches sent
   * together (Dispatcher.dispatchMany), without a promise a dispatch; none while dispatches wait
   * for a slot, so a batch never overtakes them. Returns how many were taken: the batch's other
   * dispatches go through `run`. Give them back with `releaseFast`.
   */
  takeFast(count: number): number {
    return this.fast.take(count);
  }

  /**
   * Gives back the fast-lane slot a batched dispatch of `jobId` took (`takeFast`), whose outcome
   * took `ms`: a slow one counts for the job as its own dispatch would.
   */
  releaseFast(jobId: number, ms: number): void {
    this.recordDuration(jobId, ms);
    this.fast.release();
  }

  /** The lane the job's next dispatch runs in. */
  laneOf(jobId: number): LaneName {
    this.rollWindow();
    const limit = this.options.slowDispatchLimit;
    return (this.current.get(jobId) ?? 0) > limit || (this.previous.get(jobId) ?? 0) > limit
      ? 'slow'
      : 'fast';
  }

  stats(): { fast: LaneStats; slow: LaneStats } {
    return { fast: this.fast.stats(), slow: this.slow.stats() };
  }

  private recordDuration(jobId: number, ms: number): void {
    if (ms <= this.options.slowDispatchMs) return;
    this.rollWindow();
    this.current.set(jobId, (this.current.get(jobId) ?? 0) + 1);
  }

  private rollWindow(): void {
    const window = Math.floor(this.options.now() / this.options.slowWindowMs);
    if (window === this.window) return;
    this.previous = window === this.window + 1 ? this.current : new Map();
    this.current = new Map();
    this.window = window;
  }
}

/** At most `limit` tasks at once; the others wait in arrival order. */
class BoundedLane {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private head = 0;

  constructor(private readonly limit: number) {}

  /** Runs `task` once a slot is free; the slot is freed (or handed on) once its promise settles. */
  run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) {
      this.running += 1;
      return this.inSlot(task);
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.inSlot(task));
  }

  /** Runs `task` in a slot this caller holds, and lets the slot go when it settles (or throws). */
  private inSlot<T>(task: () => Promise<T>): Promise<T> {
    let running: Promise<T>;
    try {
      running = task();
    } catch (err) {
      this.release();
      return Promise.reject(err);
    }
    running.then(this.released, this.released);
    return running;
  }

  private readonly released = (): void => this.release();

  /** Takes up to `count` free slots now (none while tasks wait); each is given back with `release`. */
  take(count: number): number {
    if (this.head < this.waiting.length) return 0;
    const taken = Math.max(0, Math.min(count, this.limit - this.running));
    this.running += taken;
    return taken;
  }

  stats(): LaneStats {
    return { running: this.running, queued: this.waiting.length - this.head };
  }

  /** Hands the slot to the next waiting task, or frees it. */
  release(): void {
    if (this.head < this.waiting.length) {
      const next = this.waiting[this.head]!;
      this.head += 1;
      // Drop the consumed prefix now and then instead of shifting the array on every release.
      if (this.head === this.waiting.length) {
        this.waiting.length = 0;
        this.head = 0;
      } else if (this.head >= 1024 && this.head * 2 >= this.waiting.length) {
        this.waiting.splice(0, this.head);
        this.head = 0;
      }
      next();
    } else {
      this.running -= 1;
    }
  }
}
