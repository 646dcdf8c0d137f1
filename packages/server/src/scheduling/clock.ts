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

/**
 * `base` shifted by `offsetMs` (positive: ahead). For tests and chaos runs that need a node whose
 * clock is wrong (`internal.clockOffsetMs`); nothing else should use it.
 */
export function shiftedClock(base: Clock, offsetMs: number): Clock {
  if (offsetMs === 0) return base;
  return {
    now: () => base.now() + offsetMs,
    setTimer: (fn, ms) => base.setTimer(fn, ms),
    clearTimer: (handle) => base.clearTimer(handle),
  };
}

/** One reading of the database's clock: the local time before and after the statement that read it. */
export interface ClockSample {
  localBefore: number;
  databaseNow: number;
  localAfter: number;
}

/** Samples the offset is taken from: the one with the shortest round trip of the last this many. */
const OFFSET_SAMPLES = 8;

/**
 * The local clock corrected to the database's: `now()` is the local time plus the offset last
 * measured from the database, so every node of a cluster schedules, claims and fires on one
 * time whatever its own clock says. Timers are relative and go to the local clock unchanged.
 *
 * The offset comes from samples (`sample`): a statement that reads the database's now, timed
 * locally; the database's reading is taken to be at the middle of the round trip, so a sample
 * is wrong by at most half its round trip, and the offset is its whole millisecond below. Of the
 * last 8 samples the one with the shortest round trip counts (a sample that waited for a busy
 * pool is the least exact).
 *
 * @example
 * const clock = new DatabaseClock(systemClock);
 * await clock.sync(() => store.leases.databaseNow());
 * clock.now(); // ≈ the database's now
 */
export class DatabaseClock implements Clock {
  private offset = 0;
  private roundTrip = Number.POSITIVE_INFINITY;
  private readonly samples: { offset: number; roundTrip: number }[] = [];

  constructor(readonly base: Clock) {}

  now(): number {
    return this.base.now() + this.offset;
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    return this.base.setTimer(fn, ms);
  }

  clearTimer(handle: TimerHandle): void {
    this.base.clearTimer(handle);
  }

  /** Database clock minus local clock, in ms (0 until the first sample). */
  get offsetMs(): number {
    return this.offset;
  }

  /** The round trip of the sample the offset comes from (how exact it is: ± half of it). */
  get roundTripMs(): number {
    return this.roundTrip;
  }

  /** The local (uncorrected) time, for timing a sample. */
  localNow(): number {
    return this.base.now();
  }

  /** Takes one reading into account. */
  sample({ localBefore, databaseNow, localAfter }: ClockSample): void {
    if (!Number.isFinite(databaseNow) || localAfter < localBefore) return;
    const roundTrip = localAfter - localBefore;
    this.samples.push({ offset: databaseNow - (localBefore + localAfter) / 2, roundTrip });
    if (this.samples.length > OFFSET_SAMPLES) this.samples.shift();
    let best = this.samples[0] as { offset: number; roundTrip: number };
    for (const s of this.samples) if (s.roundTrip <= best.roundTrip) best = s;
    // The whole millisecond below: a node's clock may read up to a millisecond behind the
    // database's, never ahead, so a run released at its time is not early by the database's
    // clock (rounded, half a millisecond went up, and readings straddling a millisecond often do).
    this.offset = Math.floor(best.offset);
    this.roundTrip = best.roundTrip;
  }

  /** Reads the database's clock once through `readDatabaseNow` and takes the sample. */
  async sync(readDatabaseNow: () => Promise<number>): Promise<void> {
    const localBefore = this.base.now();
    const databaseNow = await readDatabaseNow();
    this.sample({ localBefore, databaseNow, localAfter: this.base.now() });
  }
}
