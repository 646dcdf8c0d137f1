import { beforeAll, describe, expect, test } from 'vitest';
import { nextFireTimes } from '../src/schedule/index.js';
import { askQuartz, type QuartzAnswer, type QuartzCase } from './quartz/quartz-oracle.js';

/** Every feature of the dialect, in the spelling XXL-JOB users have in their databases. */
const EXPRESSIONS = [
  '* * * * * ?',
  '0 * * * * ?',
  '0/5 * * * * ?',
  '3/20 * * * * ?',
  '*/7 * * * * ?',
  '10-40/10 * * * * ?',
  '0 0/30 0/1 * * ?',
  '0 */15 * * * ?',
  '0 5/15 * * * ?',
  '0 0 * * * ?',
  '0 30 2 * * ?',
  '0 0 22-2 * * ?',
  '15 45 8,12,18 * * ?',
  '0 0 12 * * ?',
  '0 15 10 ? * MON-FRI',
  '0 0 9 ? * 2-6',
  '0 0 0 ? * FRI-MON',
  '0 0 8 ? * SUN,SAT',
  '0 0 0 ? * 2/2',
  '0 0 0 ? * L',
  '0 0 0 1 JAN,JUL ?',
  '0 0 0 1 1/3 ?',
  '0 0 0 1 NOV-FEB ?',
  '0 0 0 L * ?',
  '0 59 23 L * ?',
  '0 0 0 L-3 * ?',
  '0 0 0 L-30 * ?',
  '0 0 0 LW * ?',
  '0 0 0 15W * ?',
  '0 0 0 1W * ?',
  '0 0 0 30W * ?',
  '0 0 10 ? * 6#3',
  '0 0 10 ? * MON#1',
  '0 0 10 ? * 6#5',
  '0 0 10 ? * 6L',
  '0 0 10 ? * 2L',
  '0 0 12 29 2 ?',
  '0 0 0 31 * ?',
  '0 0 0 30 * ?',
  '0 0 0 */5 * ?',
  '0 0 0 28-3 * ?',
  '0 0 0 1 1 ? 2030',
  '0 0 0 1 1 ? 2020',
  '0 0 6 ? * MON 2026-2028',
  '0 0 0 1 * ? 2025/2',
  '0 0 0 30 2 ?',
  '30 10 5 15 4 ?',
  '0 0/10 9-17 ? * MON-FRI',
];

/*
 * Not compared, on purpose: `31W` (nW with n past the month's end). Quartz builds that day with
 * a lenient java.util.Calendar, so in a 30-day month it fires on the 30th when the next month
 * starts on a Saturday (June 2028) and not otherwise; Tickwheel never fires nW in a month that
 * has no day n (schedule-cron.test.ts).
 */

/** Expressions both Quartz and Tickwheel refuse. */
const INVALID = [
  '* * * * *',
  '0 0 0 * * * * *',
  '60 * * * * ?',
  '0 60 * * * ?',
  '0 0 24 * * ?',
  '0 0 0 32 * ?',
  '0 0 0 0 * ?',
  '0 0 0 1 13 ?',
  '0 0 0 ? * 8',
  '0 0 0 13 * 6',
  '0 0 0 ? * MON#6',
  '0 0 0 L-31 * ?',
  'a b c d e f',
  '0 0 0 ? * FOO',
  '0 0 0 L,15 * ?',
  '0 0 0 ? * 6#3,2#1',
  '0/60 * * * * ?',
  '0 0 0 ? * ?',
];

const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/London',
  'Australia/Sydney',
  'Asia/Kolkata',
  'Asia/Shanghai',
];

const STARTS = [
  '2024-02-27T10:15:30.250Z', // leap February
  '2024-12-31T23:59:59Z', // year end
  '2025-01-31T23:59:59Z', // month end
  '2025-07-04T04:00:00Z',
  '2026-06-15T12:00:00Z',
  '2028-02-28T12:00:00Z', // leap February again
].map((iso) => Date.parse(iso));

const COUNT = 6;

function corpus(): QuartzCase[] {
  const cases: QuartzCase[] = [];
  for (const expression of EXPRESSIONS) {
    for (const zone of ZONES) {
      for (const from of STARTS) {
        cases.push({ id: `${cases.length}`, expression, zone, from, count: COUNT });
      }
    }
  }
  for (const expression of INVALID)
    cases.push({ id: `${cases.length}`, expression, zone: 'UTC', from: 0, count: 1 });
  return cases;
}

function tickwheelTimes(c: QuartzCase): number[] {
  return nextFireTimes(
    { scheduleType: 'CRON', scheduleConf: c.expression, timeZone: c.zone },
    c.from,
    c.count,
  );
}

describe('fire times match Quartz CronExpression', () => {
  const cases = corpus();
  let answers: Map<string, QuartzAnswer>;

  beforeAll(() => {
    answers = askQuartz(cases);
  });

  test('every valid expression in every zone gives Quartz fire times wherever no DST change is near', () => {
    let compared = 0;
    let skipped = 0;
    const mismatches: string[] = [];
    for (const c of cases.filter((c) => EXPRESSIONS.includes(c.expression))) {
      const quartz = answers.get(c.id);
      if (quartz === undefined || !quartz.ok) {
        mismatches.push(
          `${c.expression}: Quartz refused it (${quartz?.ok === false ? quartz.error : 'no answer'})`,
        );
        continue;
      }
      const ours = tickwheelTimes(c);
      const windowEnd = Math.max(c.from, ...quartz.times, ...ours);
      if (quartz.transition !== undefined && quartz.transition <= windowEnd) {
        skipped++;
        continue;
      }
      compared++;
      if (JSON.stringify(ours) !== JSON.stringify(quartz.times)) {
        const show = (times: number[]) => times.map((t) => new Date(t).toISOString()).join(' ');
        mismatches.push(
          `${c.expression} in ${c.zone} after ${new Date(c.from).toISOString()}:\n  quartz    ${show(quartz.times)}\n  tickwheel ${show(ours)}`,
        );
      }
    }
    console.log(
      `compared ${compared} cases with Quartz, skipped ${skipped} whose window crosses a DST change`,
    );
    expect(mismatches).toEqual([]);
    expect(compared).toBeGreaterThan(1000);
  });

  test('expressions Quartz refuses are refused with an error naming scheduleConf', () => {
    for (const c of cases.filter((c) => INVALID.includes(c.expression))) {
      expect(answers.get(c.id), c.expression).toMatchObject({ ok: false });
      expect(() => tickwheelTimes(c), c.expression).toThrow(
        expect.objectContaining({ code: 'TW_ERR_INVALID_CRON', field: 'scheduleConf' }),
      );
    }
  });
});
