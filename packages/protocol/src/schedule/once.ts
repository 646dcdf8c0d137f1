import { invalidSchedule } from './invalid.js';

const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}(?::?\d{2})?)$/;

/**
 * Parses the instant of a ONCE schedule: ISO-8601 with an explicit offset or `Z`
 * (`2026-05-01T09:30:00+02:00`), or epoch milliseconds as digits (`1777620600000`). A local time
 * without an offset is refused: which zone was meant is exactly what cannot be guessed.
 *
 * @throws TickwheelError (`TW_ERR_INVALID_SCHEDULE`, field `scheduleConf`).
 */
export function parseOnceInstant(scheduleConf: string): number {
  const text = scheduleConf.trim();
  if (/^\d{1,15}$/.test(text)) return Number(text);
  const match = ISO_INSTANT.exec(text);
  if (match === null) {
    throw invalidSchedule(
      'scheduleConf',
      `ONCE needs an ISO-8601 instant with an offset or Z (e.g. 2026-05-01T09:30:00+02:00) or epoch milliseconds, got '${scheduleConf}'`,
    );
  }
  const [, year, month, day, hour, minute, second = '0', fraction = '0', zone = 'Z'] = match;
  const wall = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    Number(second),
  );
  const date = new Date(wall);
  // Date.UTC rolls 30 February over into March; a date that does not survive the round trip is not a date.
  if (
    date.getUTCFullYear() !== Number(year) ||
    date.getUTCMonth() !== Number(month) - 1 ||
    date.getUTCDate() !== Number(day) ||
    date.getUTCHours() !== Number(hour) ||
    date.getUTCMinutes() !== Number(minute) ||
    date.getUTCSeconds() !== Number(second)
  ) {
    throw invalidSchedule('scheduleConf', `ONCE instant '${scheduleConf}' is not a real date and time`);
  }
  const offset = offsetMs(zone);
  if (offset === undefined) {
    throw invalidSchedule(
      'scheduleConf',
      `ONCE instant '${scheduleConf}' has an impossible UTC offset '${zone}'`,
    );
  }
  return wall + Number(fraction.padEnd(3, '0')) - offset;
}

/** `Z`, `+05:30`, `+0530` or `+05` in ms, or undefined past ±18:00 (the ISO-8601 / java.time limit). */
function offsetMs(zone: string): number | undefined {
  if (zone === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || '0');
  if (minutes > 59 || hours * 60 + minutes > 18 * 60) return undefined;
  return sign * (hours * 60 + minutes) * 60_000;
}
