import type { Clock, TimerHandle } from './clock.js';

/** A claimed fire waiting for its time: the fire record's id and when it is due (epoch ms). */
export interface DueFire {
  fireId: number;
  dueAt: number;
}

export interface WheelOptions {
  clock: Clock;
  /**
   * Receives every fire that fell due at one wake, earliest first. Called synchronously from the
   * timer; it should hand the ids on and return (an exception is re-thrown after the wheel has
   * re-armed, so the wheel keeps running).
   */
  onDue: (fires: DueFire[]) => void;
  /**
   * Wake only on multiples of this many ms (epoch time): a fire due in between waits for the next
   * one, never less than its own time. Default 1: each fire at its own millisecond.
   */
  resolutionMs?: number;
}

/**
 * Claimed fires waiting in memory for their time, with millisecond resolution (XXL-JOB reads a
 * 60-slot ring once a second; this wakes at each fire's own millisecond).
 *
 * A binary min-heap on due time: insert and pop are O(log n), and it holds two numbers per fire,
 * never job objects. Exactly one timer is armed, for the earliest entry (rounded up to the
 * `resolutionMs` grid); an insert re-arms it only when it is earlier still. A wake drains every
 * entry that is due by then into one batch, so an aligned burst (thousands due at the same
 * millisecond) costs one wake, and with a resolution above 1 ms spread fires go in batches too.
 *
 * Lateness: on an idle event loop Node timers fire 0-2 ms after their time (they are
 * millisecond-granular and never early by more than the ~1 ms rounding between the monotonic
 * timer clock and `Date.now()`, which the wheel absorbs by re-arming). Under load a fire is late
 * by however long the event loop was busy; the batch then carries every fire that fell due meanwhile.
 *
 * @example
 * const wheel = new Wheel({ clock: systemClock, onDue: (fires) => pipeline.onDue(fires.map((f) => f.fireId)) });
 * wheel.add(41, Date.now() + 250);
 */
export class Wheel {
  private readonly clock: Clock;
  private readonly onDue: (fires: DueFire[]) => void;
  /** Heap arrays, parallel: ids[i] is due at times[i]. */
  private readonly ids: number[] = [];
  private readonly times: number[] = [];
  /**
   * The live entries and their due time. Cancelled or re-added entries stay in the heap until
   * they surface and are skipped there (lazy deletion keeps cancel O(1)).
   */
  private readonly live = new Map<number, number>();
  private timer: TimerHandle | undefined;
  private armedFor: number | undefined;
  private readonly resolutionMs: number;

  constructor(options: WheelOptions) {
    this.clock = options.clock;
    this.onDue = options.onDue;
    this.resolutionMs = options.resolutionMs ?? 1;
  }

  /** How many fires are waiting. */
  get size(): number {
    return this.live.size;
  }

  /** Whether `fireId` is waiting. */
  has(fireId: number): boolean {
    return this.live.has(fireId);
  }

  /** The earliest due time waiting, or undefined when the wheel is empty. */
  nextDueAt(): number | undefined {
    this.dropStaleTop();
    return this.times[0];
  }

  /**
   * Waits `fireId` until `dueAt` (a time already past is handed over at the next wake, at once).
   * Adding a fire id that is already waiting moves it to the new time: it is handed over once.
   */
  add(fireId: number, dueAt: number): void {
    this.live.set(fireId, dueAt);
    this.push(fireId, dueAt);
    this.compactIfMostlyStale();
    this.arm();
  }

  /** Stops `fireId` from being handed over; false if it was not waiting. */
  cancel(fireId: number): boolean {
    return this.live.delete(fireId);
  }

  /**
   * Disarms the timer and empties the wheel, returning what was still waiting, earliest first.
   * The fire records of those stay `pending` in the store, so the next start (or the node that
   * takes the shard over) re-arms them; this return value is for logging and tests.
   */
  stop(): DueFire[] {
    this.disarm();
    const waiting = [...this.live].map(([fireId, dueAt]) => ({ fireId, dueAt }));
    waiting.sort((a, b) => a.dueAt - b.dueAt);
    this.live.clear();
    this.ids.length = 0;
    this.times.length = 0;
    return waiting;
  }

  private wake(): void {
    this.timer = undefined;
    this.armedFor = undefined;
    const due = this.popDue(this.clock.now());
    try {
      if (due.length > 0) this.onDue(due);
    } finally {
      this.arm();
    }
  }

  private popDue(now: number): DueFire[] {
    const due: DueFire[] = [];
    while (this.times.length > 0 && (this.times[0] as number) <= now) {
      const fireId = this.ids[0] as number;
      const dueAt = this.times[0] as number;
      this.pop();
      if (this.live.get(fireId) !== dueAt) continue;
      this.live.delete(fireId);
      due.push({ fireId, dueAt });
    }
    return due;
  }

  /** Keeps one timer armed for the earliest live entry, moving it only when that changed. */
  private arm(): void {
    const earliest = this.nextDueAt();
    if (earliest === undefined) {
      this.disarm();
      return;
    }
    const resolution = this.resolutionMs;
    const wakeAt = resolution > 1 ? Math.ceil(earliest / resolution) * resolution : earliest;
    if (this.armedFor !== undefined && this.armedFor <= wakeAt) return;
    this.disarm();
    this.armedFor = wakeAt;
    this.timer = this.clock.setTimer(() => this.wake(), wakeAt - this.clock.now());
  }

  private disarm(): void {
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    this.armedFor = undefined;
  }

  private dropStaleTop(): void {
    while (this.ids.length > 0 && this.live.get(this.ids[0] as number) !== this.times[0]) this.pop();
  }

  /** Rebuilds the heap from the live entries once stale ones (cancelled, moved) outnumber them. */
  private compactIfMostlyStale(): void {
    if (this.ids.length < 1024 || this.ids.length < 2 * this.live.size) return;
    this.ids.length = 0;
    this.times.length = 0;
    for (const [fireId, dueAt] of this.live) this.push(fireId, dueAt);
  }

  private push(fireId: number, dueAt: number): void {
    const ids = this.ids;
    const times = this.times;
    let i = ids.length;
    ids.push(fireId);
    times.push(dueAt);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((times[parent] as number) <= dueAt) break;
      ids[i] = ids[parent] as number;
      times[i] = times[parent] as number;
      i = parent;
    }
    ids[i] = fireId;
    times[i] = dueAt;
  }

  /** Removes the root (the earliest entry). */
  private pop(): void {
    const ids = this.ids;
    const times = this.times;
    const lastId = ids.pop() as number;
    const lastTime = times.pop() as number;
    const n = ids.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && (times[child + 1] as number) < (times[child] as number)) child++;
      if ((times[child] as number) >= lastTime) break;
      ids[i] = ids[child] as number;
      times[i] = times[child] as number;
      i = child;
    }
    ids[i] = lastId;
    times[i] = lastTime;
  }
}
