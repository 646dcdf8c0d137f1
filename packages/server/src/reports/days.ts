/** Report days are UTC calendar days, named `YYYY-MM-DD`; a fire belongs to the day it was scheduled for. */

export const DAY_MS = 86_400_000;

/** The start (00:00 UTC) of the day holding `ms`. */
export function dayStartOf(ms: number): number {
  return ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
}

/** `YYYY-MM-DD` of the UTC day holding `ms`. */
export function dayName(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The start (00:00 UTC) of a `YYYY-MM-DD` day. */
export function dayStart(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

/** The `count` days ending with the day holding `ms`, oldest first. */
export function lastDays(ms: number, count: number): string[] {
  const today = dayStartOf(ms);
  return Array.from({ length: count }, (_, i) => dayName(today - (count - 1 - i) * DAY_MS));
}
