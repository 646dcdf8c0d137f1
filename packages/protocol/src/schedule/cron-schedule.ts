import { Cron } from 'croner';
import { LruCache } from './lru-cache.js';
import { parseQuartzCron, type QuartzCron } from './quartz-cron.js';
import { MAX_BACKWARD_SHIFT, type WallMs, type ZoneOffsets } from './time-zone.js';

/** A parsed cron expression: the Quartz facts and one croner instance that walks wall time. */
export interface CompiledCron extends QuartzCron {
  cron: Cron;
}

/**
 * How many parsed expressions stay in memory. Each croner `Cron` holds ~84 KB (a 10 000-entry
 * year table), so 500 entries cap the cache near 40 MB; real fleets share a few hundred
 * distinct expressions, and a miss only costs a re-parse (about 0.2 ms).
 */
export const CRON_CACHE_SIZE = 500;
const compiled = new LruCache<string, CompiledCron>(CRON_CACHE_SIZE);

/** How many parsed expressions the cache holds now (for tests and metrics). */
export function cachedCronCount(): number {
  return compiled.size;
}

/**
 * Parses (or finds in the cache) a Quartz cron expression. The cache is keyed by expression
 * alone: croner runs at UTC offset 0, where its timeline is the wall clock of any zone, and
 * the zone is applied afterwards, so one instance serves the expression in every zone.
 *
 * @throws TickwheelError (`TW_ERR_INVALID_CRON`, field `scheduleConf`) for a bad expression.
 */
export function compileCron(expression: string): CompiledCron {
  let entry = compiled.get(expression);
  if (entry === undefined) {
    const quartz = parseQuartzCron(expression);
    // Without a function croner schedules nothing: no timer is created, nothing to stop.
    const cron = new Cron(quartz.cronerPattern, {
      utcOffset: 0,
      mode: '7-part',
      alternativeWeekdays: true,
      domAndDow: true,
      dayOffset: quartz.lastDayOffset === undefined ? 0 : -quartz.lastDayOffset,
    });
    entry = { ...quartz, cron };
    compiled.set(expression, entry);
  }
  return entry;
}

/**
 * The next `count` fire instants of `cron` in `zone`, strictly after `from`, ascending.
 *
 * Croner enumerates matching wall times; each is mapped to its real instants here, which is
 * where Tickwheel's DST rules live (croner's own time-zone mode classifies jobs differently,
 * e.g. it skips `0 *\/15 2 * * ?` in a spring-forward gap and fires `0 0 1,2 * * ?` twice in a
 * repeated hour):
 * - a wall time inside a spring-forward gap fires once, at the first instant after the gap;
 * - a wall time inside a repeated hour fires at its first occurrence, and also at its second
 *   when the hour field is `*` or a step (such jobs keep their rhythm in real elapsed time).
 *
 * Every loop turn moves the wall cursor forward and croner stops at year 9999, so the search
 * ends even for an expression that never fires.
 */
export function nextCronTimes(cron: CompiledCron, zone: ZoneOffsets, from: number, count: number): number[] {
  const times: number[] = [];
  if (count <= 0) return times;
  // Second occurrences of repeated wall times: they come after every first occurrence of that
  // repeated hour, so they wait here until a later instant (or the end) lets them out.
  const repeats: number[] = [];
  const accept = (instant: number): void => {
    const last = times.at(-1);
    if (instant > from && (last === undefined || instant > last) && times.length < count) times.push(instant);
  };
  let cursor = firstWallToSearch(zone, from) - 1;
  while (times.length < count) {
    const wall = nextMatchingWall(cron, cursor);
    if (wall === undefined) break;
    cursor = wall;
    const instants = zone.instantsOf(wall);
    const instant =
      instants.kind === 'single'
        ? instants.instant
        : instants.kind === 'gap'
          ? instants.transition
          : instants.first;
    while (repeats.length > 0 && repeats[0]! < instant) accept(repeats.shift()!);
    accept(instant);
    if (instants.kind === 'overlap' && cron.hourRepeats) repeats.push(instants.second);
  }
  for (const instant of repeats) accept(instant);
  return times;
}

/**
 * The earliest wall time that can map to an instant after `from`: `from`'s own wall time, or,
 * when the clock falls back within the next few hours, the wall time `from` has in the later
 * offset (the repeated hour's second copy is after `from` though its wall time is earlier).
 */
function firstWallToSearch(zone: ZoneOffsets, from: number): WallMs {
  let offset = zone.offsetAt(from);
  for (const change of zone.changesBetween(from, from + MAX_BACKWARD_SHIFT)) {
    offset = Math.min(offset, change.offset);
  }
  return from + offset;
}

/** The first wall time after `cursor` the expression matches, or undefined when there is none. */
function nextMatchingWall(cron: CompiledCron, cursor: WallMs): WallMs | undefined {
  let after = cursor;
  for (;;) {
    const next = cron.cron.nextRun(new Date(after));
    if (next === null) return undefined;
    const wall = next.getTime();
    if (cron.lastDayOffset === undefined || isLastDayMinus(wall, cron.lastDayOffset)) return wall;
    // `L-n` runs as `L` shifted back n days; a shift that left the month (L-30 in a 30-day
    // month) matches nothing in Quartz, so look further.
    after = wall;
  }
}

function isLastDayMinus(wall: WallMs, offset: number): boolean {
  const date = new Date(wall);
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  return date.getUTCDate() === lastDay - offset;
}
