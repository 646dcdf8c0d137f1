import { invalidCron } from './invalid.js';

/**
 * The Quartz cron dialect (what XXL-JOB stores), checked field by field and rewritten into a
 * pattern croner evaluates the same way.
 *
 * Croner does the calendar arithmetic; this layer exists because croner differs from Quartz on
 * the edges: it has no `L-n` and no day-of-week `L`, no wrap-around ranges (`FRI-MON`, `22-2`),
 * years 1-9999 instead of 1970-2099, a `?` that is just `*`, and error messages in its own
 * 0-based terms. Plain fields are therefore expanded here into explicit value lists with Quartz's
 * own range and step rules, so croner only ever sees lists, `*` and the day specials it shares
 * with Quartz (`L`, `LW`, `nW`, `nL`, `n#k`).
 */
export interface QuartzCron {
  /** The 7-part pattern for croner (`alternativeWeekdays`, `domAndDow`, mode `7-part`). */
  cronerPattern: string;
  /** For `L-n`: n, the days before the last day of the month (croner runs `L` with `dayOffset: -n`). */
  lastDayOffset: number | undefined;
  /** True when the hour field is `*` or a step: such jobs fire in both copies of a repeated hour. */
  hourRepeats: boolean;
  /** The last year the year field allows, or undefined when it allows every year. */
  lastYear: number | undefined;
}

interface FieldSpec {
  label: string;
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const MONTH_NAMES: Readonly<Record<string, number>> = {
  JAN: 1,
  FEB: 2,
  MAR: 3,
  APR: 4,
  MAY: 5,
  JUN: 6,
  JUL: 7,
  AUG: 8,
  SEP: 9,
  OCT: 10,
  NOV: 11,
  DEC: 12,
};

/** Quartz numbering: 1 = SUN ... 7 = SAT (Unix cron has 0 = SUN ... 6 = SAT). */
const DAY_NAMES: Readonly<Record<string, number>> = {
  SUN: 1,
  MON: 2,
  TUE: 3,
  WED: 4,
  THU: 5,
  FRI: 6,
  SAT: 7,
};

const SECOND: FieldSpec = { label: 'second', min: 0, max: 59 };
const MINUTE: FieldSpec = { label: 'minute', min: 0, max: 59 };
const HOUR: FieldSpec = { label: 'hour', min: 0, max: 23 };
const DAY_OF_MONTH: FieldSpec = { label: 'day-of-month', min: 1, max: 31 };
const MONTH: FieldSpec = { label: 'month', min: 1, max: 12, names: MONTH_NAMES };
const DAY_OF_WEEK: FieldSpec = { label: 'day-of-week', min: 1, max: 7, names: DAY_NAMES };
const YEAR: FieldSpec = { label: 'year', min: 1970, max: 2099 };

const FIELD_LAYOUT = 'second minute hour day-of-month month day-of-week [year]';
/** Quartz accepts L-0 to L-30. */
const MAX_LAST_DAY_OFFSET = 30;

/**
 * Parses a Quartz cron expression.
 *
 * @throws TickwheelError (`TW_ERR_INVALID_CRON`, field `scheduleConf`) saying what is wrong.
 */
export function parseQuartzCron(expression: string): QuartzCron {
  const fields = expression.trim().toUpperCase().split(/\s+/);
  if (fields.length === 1 && fields[0] === '') {
    throw invalidCron(`a cron expression is required (${FIELD_LAYOUT})`);
  }
  if (fields.length !== 6 && fields.length !== 7) {
    throw invalidCron(`expected 6 or 7 fields (${FIELD_LAYOUT}) but got ${fields.length} in '${expression}'`);
  }
  const [second, minute, hour, dayOfMonth, month, dayOfWeek, year = '*'] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  const domGiven = dayOfMonth !== '*' && dayOfMonth !== '?';
  const dowGiven = dayOfWeek !== '*' && dayOfWeek !== '?';
  // Field by field, left to right, so the first mistake in the expression is the one reported.
  const secondPart = plainField(second, SECOND);
  const minutePart = plainField(minute, MINUTE);
  const hourPart = plainField(hour, HOUR);
  const dom = domGiven ? parseDayOfMonth(dayOfMonth) : { pattern: '*', lastDayOffset: undefined };
  const monthPart = plainField(month, MONTH);
  if (dayOfMonth === '?' && dayOfWeek === '?') {
    // Quartz refuses it too: `?` means "the other day field decides", so two of them leave no
    // day rule at all rather than "every day" (write `*` in one of them for that).
    throw invalidCron(
      "'?' may stand in only one of day-of-month and day-of-week; give the other a value or *",
    );
  }
  const dowPart = dowGiven ? parseDayOfWeek(dayOfWeek) : '*';
  const years = year === '*' ? undefined : expandField(year, YEAR);
  if (domGiven && dowGiven) {
    throw invalidCron('day-of-month and day-of-week cannot both be specified; use ? in one of them');
  }
  const parts = [
    secondPart,
    minutePart,
    hourPart,
    dom.pattern,
    monthPart,
    dowPart,
    years === undefined ? '*' : years.join(','),
  ];
  return {
    cronerPattern: parts.join(' '),
    lastDayOffset: dom.lastDayOffset,
    hourRepeats: hour.includes('*') || hour.includes('/'),
    lastYear: years === undefined ? undefined : Math.max(...years),
  };
}

function plainField(text: string, spec: FieldSpec): string {
  if (text === '*') return '*';
  if (text.includes('?')) {
    throw invalidCron(`'?' is only allowed in day-of-month and day-of-week (${spec.label})`);
  }
  return expandField(text, spec).join(',');
}

function parseDayOfMonth(text: string): { pattern: string; lastDayOffset: number | undefined } {
  if (!/[LW]/.test(text)) {
    return { pattern: expandField(text, DAY_OF_MONTH).join(','), lastDayOffset: undefined };
  }
  if (text.includes(',')) {
    throw invalidCron(`day-of-month '${text}': L and W cannot be combined with other days`);
  }
  if (text === 'L' || text === 'LW') return { pattern: text, lastDayOffset: undefined };
  const lastMinus = /^L-(\d+)$/.exec(text);
  if (lastMinus) {
    const offset = Number(lastMinus[1]);
    if (offset > MAX_LAST_DAY_OFFSET) {
      throw invalidCron(
        `day-of-month '${text}': the offset from the last day must be at most ${MAX_LAST_DAY_OFFSET}`,
      );
    }
    return { pattern: 'L', lastDayOffset: offset };
  }
  const weekday = /^(\d+)W$/.exec(text);
  if (weekday) return { pattern: `${parseValue(weekday[1]!, DAY_OF_MONTH)}W`, lastDayOffset: undefined };
  throw invalidCron(
    `day-of-month '${text}' is not valid: expected days, ranges, steps, L, L-n, LW or nW (e.g. 15W)`,
  );
}

function parseDayOfWeek(text: string): string {
  if (text === 'L') return String(DAY_NAMES.SAT);
  if (!/[L#]/.test(text)) return expandField(text, DAY_OF_WEEK).join(',');
  if (text.includes(',')) {
    throw invalidCron(`day-of-week '${text}': L and # cannot be combined with other days`);
  }
  const last = /^([A-Z]{3}|\d+)L$/.exec(text);
  if (last) return `${parseValue(last[1]!, DAY_OF_WEEK)}L`;
  const nth = /^([A-Z]{3}|\d+)#(\d+)$/.exec(text);
  if (nth) {
    const n = Number(nth[2]);
    if (n < 1 || n > 5) throw invalidCron(`day-of-week '${text}': the week after # must be 1-5`);
    return `${parseValue(nth[1]!, DAY_OF_WEEK)}#${n}`;
  }
  throw invalidCron(
    `day-of-week '${text}' is not valid: expected days (1-7 = SUN-SAT), ranges, steps, L, nL (e.g. 6L) or n#k (e.g. 6#3)`,
  );
}

/** The sorted values a comma-separated field allows, with Quartz's rules for ranges and steps. */
function expandField(text: string, spec: FieldSpec): number[] {
  const values = new Set<number>();
  for (const item of text.split(',')) {
    if (item === '') throw invalidCron(`${spec.label} '${text}' has an empty list item`);
    for (const value of expandItem(item, spec)) values.add(value);
  }
  return [...values].sort((a, b) => a - b);
}

/**
 * One list item: `*`, `n`, `a-b`, each optionally `/step`, or `n/step` (n, n+step, ... up to the
 * field's maximum). A range whose end is below its start wraps round the field as in Quartz
 * (`22-2` is 22,23,0,1,2; `FRI-MON` is FRI,SAT,SUN,MON).
 */
function expandItem(item: string, spec: FieldSpec): number[] {
  const [base = '', stepText, extra] = item.split('/');
  if (extra !== undefined) throw invalidCron(`${spec.label} '${item}' has more than one '/'`);
  const size = spec.max - spec.min + 1;
  let step = 1;
  if (stepText !== undefined) {
    step = /^\d+$/.test(stepText) ? Number(stepText) : Number.NaN;
    // Quartz's limits: 59 for seconds and minutes, 23 for hours, the field's maximum elsewhere.
    const maxStep = spec === YEAR ? size : spec.max;
    if (!(step >= 1 && step <= maxStep)) {
      throw invalidCron(
        `${spec.label} step '${stepText}' in '${item}' must be a whole number from 1 to ${maxStep}`,
      );
    }
  }
  let start: number;
  let end: number;
  if (base === '*' || base === '') {
    if (base === '' && stepText === undefined) throw invalidCron(`${spec.label} '${item}' is empty`);
    start = spec.min;
    end = spec.max;
  } else if (base.includes('-')) {
    const [from = '', to = '', more] = base.split('-');
    if (more !== undefined) throw invalidCron(`${spec.label} range '${base}' has more than one '-'`);
    start = parseValue(from, spec);
    end = parseValue(to, spec);
  } else {
    start = parseValue(base, spec);
    end = stepText === undefined ? start : spec.max;
  }
  if (end < start) {
    if (spec === YEAR) throw invalidCron(`year range '${base}' must go from the earlier to the later year`);
    end += size;
  }
  const values: number[] = [];
  for (let value = start; value <= end; value += step) {
    values.push(value > spec.max ? value - size : value);
  }
  return values;
}

function parseValue(text: string, spec: FieldSpec): number {
  const named = spec.names?.[text];
  const value = named ?? (/^\d+$/.test(text) ? Number(text) : Number.NaN);
  if (Number.isNaN(value)) {
    const names = spec.names ? ` or a name (${Object.keys(spec.names).join(',')})` : '';
    throw invalidCron(`${spec.label} value '${text}' is not a number${names}`);
  }
  if (value < spec.min || value > spec.max) {
    throw invalidCron(`${spec.label} value ${value} is out of range ${spec.min}-${spec.max}`);
  }
  return value;
}
