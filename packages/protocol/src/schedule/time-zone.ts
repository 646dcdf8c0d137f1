import { invalidSchedule } from './invalid.js';
import { LruCache } from './lru-cache.js';

/**
 * Wall-clock time in a zone, written as the epoch milliseconds the same calendar fields would
 * have in UTC ("2026-03-08 02:30:00 in New York" is `Date.UTC(2026, 2, 8, 2, 30)`). Cron
 * arithmetic happens in wall time; this module maps wall times to real instants.
 */
export type WallMs = number;

/** Where the real instants of one wall time are. */
export type WallInstants =
  /** The usual case: the wall time happens once. */
  | { kind: 'single'; instant: number }
  /** Spring forward: the wall time never happens; `transition` is the first instant after the gap. */
  | { kind: 'gap'; transition: number }
  /** Fall back: the wall time happens twice, `first` in the earlier offset, `second` an hour (or so) later. */
  | { kind: 'overlap'; first: number; second: number };

interface OffsetChange {
  /** First instant (epoch ms) of the new offset. */
  at: number;
  /** The new offset, in ms to add to an instant to get its wall time. */
  offset: number;
}

/** Offsets of one UTC calendar year: the offset at its first instant and the changes inside it. */
interface YearOffsets {
  startOffset: number;
  changes: OffsetChange[];
}

const SECOND = 1000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** No zone is more than 15 h from UTC, so every instant of a wall time lies within 15 h of it. */
const MAX_OFFSET = 15 * HOUR;
/** The longest backward jump a zone makes at once (real zones: 1 h, a few historical 2 h). */
export const MAX_BACKWARD_SHIFT = 3 * HOUR;

/**
 * The UTC offsets of one IANA time zone, read from `Intl` (the ICU time-zone data Node ships) and
 * kept as a table of offset changes per year, so that looking up an offset is an array scan of
 * two or three entries instead of an `Intl` call (~1 µs each).
 */
export class ZoneOffsets {
  readonly timeZone: string;
  readonly #format: Intl.DateTimeFormat;
  readonly #years = new Map<number, YearOffsets>();

  /** @throws TickwheelError (field `timeZone`) when `Intl` does not know the zone. */
  constructor(timeZone: string) {
    this.timeZone = timeZone;
    try {
      this.#format = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw invalidSchedule(
        'timeZone',
        `'${timeZone}' is not an IANA time zone (e.g. UTC, Europe/London, America/New_York)`,
      );
    }
  }

  /** The offset (ms to add to get wall time) in force at `instant`. */
  offsetAt(instant: number): number {
    const year = this.#yearOffsets(utcYear(instant));
    let offset = year.startOffset;
    for (const change of year.changes) {
      if (change.at > instant) break;
      offset = change.offset;
    }
    return offset;
  }

  /** The offset changes with `from < at <= to`, oldest first. */
  changesBetween(from: number, to: number): OffsetChange[] {
    const found: OffsetChange[] = [];
    for (let y = utcYear(from); y <= utcYear(to); y++) {
      const year = this.#yearOffsets(y);
      if (y !== utcYear(from) && year.startOffset !== this.offsetAt(Date.UTC(y, 0, 1) - 1)) {
        found.push({ at: Date.UTC(y, 0, 1), offset: year.startOffset });
      }
      for (const change of year.changes) {
        if (change.at > from && change.at <= to) found.push(change);
      }
    }
    return found;
  }

  /** The real instants at which the wall clock of this zone shows `wall`. */
  instantsOf(wall: WallMs): WallInstants {
    const windowStart = wall - MAX_OFFSET;
    const windowEnd = wall + MAX_OFFSET;
    const segments = [{ from: windowStart, offset: this.offsetAt(windowStart) }];
    for (const change of this.changesBetween(windowStart, windowEnd)) {
      segments.push({ from: change.at, offset: change.offset });
    }
    const instants: number[] = [];
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i]!;
      const until = segments[i + 1]?.from ?? Number.POSITIVE_INFINITY;
      const instant = wall - segment.offset;
      if (instant >= segment.from && instant < until) instants.push(instant);
    }
    const [first, second] = instants;
    if (first === undefined) return { kind: 'gap', transition: this.#gapEnd(wall, segments) };
    if (second === undefined) return { kind: 'single', instant: first };
    return { kind: 'overlap', first, second };
  }

  /** The change whose forward jump skips `wall`: its wall time before the jump is <= wall. */
  #gapEnd(wall: WallMs, segments: { from: number; offset: number }[]): number {
    for (let i = 1; i < segments.length; i++) {
      const before = segments[i - 1]!;
      const after = segments[i]!;
      if (after.from + before.offset <= wall && wall < after.from + after.offset) return after.from;
    }
    // Unreachable for a consistent offset table: a wall time with no instant lies in some gap.
    return wall - this.offsetAt(wall);
  }

  #yearOffsets(year: number): YearOffsets {
    let table = this.#years.get(year);
    if (table === undefined) {
      table = this.#scanYear(year);
      this.#years.set(year, table);
    }
    return table;
  }

  /**
   * Finds the offset changes of one year by sampling the offset once a day and bisecting every
   * day whose two ends differ down to the second (zones change on whole seconds). A zone that
   * changed and changed back within one day would be missed; no zone has done so since 1970.
   */
  #scanYear(year: number): YearOffsets {
    const start = Date.UTC(year, 0, 1);
    const end = Date.UTC(year + 1, 0, 1);
    const startOffset = this.#readOffset(start);
    const changes: OffsetChange[] = [];
    let previousAt = start;
    let previousOffset = startOffset;
    for (let at = start + DAY; previousAt < end; at = Math.min(at + DAY, end)) {
      const offset = this.#readOffset(at);
      if (offset !== previousOffset) {
        const changeAt = this.#bisectChange(previousAt, at, previousOffset);
        if (changeAt < end) changes.push({ at: changeAt, offset: this.#readOffset(changeAt) });
      }
      previousAt = at;
      previousOffset = offset;
    }
    return { startOffset, changes };
  }

  /** The first whole second in (low, high] whose offset differs from `lowOffset`. */
  #bisectChange(low: number, high: number, lowOffset: number): number {
    let lo = low;
    let hi = high;
    while (hi - lo > SECOND) {
      const mid = lo + Math.floor((hi - lo) / 2 / SECOND) * SECOND;
      if (this.#readOffset(mid) === lowOffset) lo = mid;
      else hi = mid;
    }
    return hi;
  }

  #readOffset(instant: number): number {
    const fields = { year: 0, month: 1, day: 1, hour: 0, minute: 0, second: 0 };
    for (const part of this.#format.formatToParts(instant)) {
      if (part.type in fields) fields[part.type as keyof typeof fields] = Number(part.value);
    }
    const wall = Date.UTC(
      fields.year,
      fields.month - 1,
      fields.day,
      fields.hour,
      fields.minute,
      fields.second,
    );
    return wall - Math.floor(instant / SECOND) * SECOND;
  }
}

function utcYear(instant: number): number {
  return new Date(instant).getUTCFullYear();
}

/** A handful of zones is the usual case; the bound only stops unbounded growth from odd input. */
const ZONE_CACHE_SIZE = 1000;
const zones = new LruCache<string, ZoneOffsets>(ZONE_CACHE_SIZE);

/** The offsets of `timeZone`, shared by every schedule in that zone. */
export function zoneOffsets(timeZone: string): ZoneOffsets {
  let zone = zones.get(timeZone);
  if (zone === undefined) {
    zone = new ZoneOffsets(timeZone);
    zones.set(timeZone, zone);
  }
  return zone;
}
