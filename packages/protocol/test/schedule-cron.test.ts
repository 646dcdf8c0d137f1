import { describe, expect, test } from 'vitest';
import { nextFireTimes, validateSchedule } from '../src/schedule/index.js';

/** Next `count` fire times of a CRON schedule after `fromIso`, as ISO strings (UTC). */
function cron(expression: string, fromIso: string, count = 3, timeZone?: string): string[] {
  return nextFireTimes(
    { scheduleType: 'CRON', scheduleConf: expression, timeZone },
    Date.parse(fromIso),
    count,
  ).map((t) => new Date(t).toISOString());
}

function invalidReason(expression: string, now = '2026-01-01T00:00:00Z'): unknown {
  try {
    validateSchedule({ scheduleType: 'CRON', scheduleConf: expression }, Date.parse(now));
  } catch (err) {
    return err;
  }
  return undefined;
}

const JAN_2026 = '2026-01-01T00:00:00Z';

describe('the Quartz cron dialect', () => {
  test('every-second * * * * * ? fires every second, strictly after the start', () => {
    expect(cron('* * * * * ?', '2026-01-01T00:00:00.500Z')).toEqual([
      '2026-01-01T00:00:01.000Z',
      '2026-01-01T00:00:02.000Z',
      '2026-01-01T00:00:03.000Z',
    ]);
  });

  test('a start exactly on a fire time does not return that time', () => {
    expect(cron('0 0 12 * * ?', '2026-01-01T12:00:00Z', 1)).toEqual(['2026-01-02T12:00:00.000Z']);
  });

  test('* * * * * * (both day fields *) is accepted as every day', () => {
    expect(cron('* * * * * *', JAN_2026)).toEqual([
      '2026-01-01T00:00:01.000Z',
      '2026-01-01T00:00:02.000Z',
      '2026-01-01T00:00:03.000Z',
    ]);
    expect(invalidReason('* * * * * *')).toBeUndefined();
  });

  test('day-of-week * with a specific day-of-month means that day of every month', () => {
    expect(cron('0 0 0 15 * *', JAN_2026, 2)).toEqual([
      '2026-01-15T00:00:00.000Z',
      '2026-02-15T00:00:00.000Z',
    ]);
  });

  test('day-of-month * with a named day-of-week means that weekday', () => {
    expect(cron('0 0 9 * * MON', JAN_2026, 2)).toEqual([
      '2026-01-05T09:00:00.000Z',
      '2026-01-12T09:00:00.000Z',
    ]);
  });

  test('both day fields specified is refused with the reason', () => {
    expect(invalidReason('0 0 0 13 * FRI')).toMatchObject({
      code: 'TW_ERR_INVALID_CRON',
      field: 'scheduleConf',
      message: 'scheduleConf: day-of-month and day-of-week cannot both be specified; use ? in one of them',
    });
  });

  test('steps with a numeric start 0/5 count from that start', () => {
    expect(cron('0/5 * * * * ?', JAN_2026)).toEqual([
      '2026-01-01T00:00:05.000Z',
      '2026-01-01T00:00:10.000Z',
      '2026-01-01T00:00:15.000Z',
    ]);
  });

  test('steps 3/20 fire at 3, 23 and 43 seconds', () => {
    expect(cron('3/20 * * * * ?', JAN_2026, 4)).toEqual([
      '2026-01-01T00:00:03.000Z',
      '2026-01-01T00:00:23.000Z',
      '2026-01-01T00:00:43.000Z',
      '2026-01-01T00:01:03.000Z',
    ]);
  });

  test('MON-FRI fires on weekdays only', () => {
    // 2026-01-02 is a Friday.
    expect(cron('0 0 9 ? * MON-FRI', '2026-01-02T10:00:00Z', 2)).toEqual([
      '2026-01-05T09:00:00.000Z',
      '2026-01-06T09:00:00.000Z',
    ]);
  });

  test('day-of-week numbers are Quartz numbers: 1 is Sunday and 7 is Saturday', () => {
    expect(cron('0 0 0 ? * 1', JAN_2026, 1)).toEqual(['2026-01-04T00:00:00.000Z']);
    expect(cron('0 0 0 ? * 7', JAN_2026, 1)).toEqual(['2026-01-03T00:00:00.000Z']);
  });

  test('month names JAN,JUL fire in January and July', () => {
    expect(cron('0 0 0 1 JAN,JUL ?', JAN_2026)).toEqual([
      '2026-07-01T00:00:00.000Z',
      '2027-01-01T00:00:00.000Z',
      '2027-07-01T00:00:00.000Z',
    ]);
  });

  test('names are case-insensitive', () => {
    expect(cron('0 0 0 1 jan ?', JAN_2026, 1)).toEqual(cron('0 0 0 1 JAN ?', JAN_2026, 1));
  });

  test('a wrap-around range FRI-MON covers Friday to Monday', () => {
    expect(cron('0 0 0 ? * FRI-MON', JAN_2026, 5)).toEqual([
      '2026-01-02T00:00:00.000Z',
      '2026-01-03T00:00:00.000Z',
      '2026-01-04T00:00:00.000Z',
      '2026-01-05T00:00:00.000Z',
      '2026-01-09T00:00:00.000Z',
    ]);
  });

  test('L fires on the last day of every month, Feb 29 in a leap year', () => {
    expect(cron('0 0 0 L * ?', '2028-01-15T00:00:00Z')).toEqual([
      '2028-01-31T00:00:00.000Z',
      '2028-02-29T00:00:00.000Z',
      '2028-03-31T00:00:00.000Z',
    ]);
  });

  test('L-3 fires three days before the last day of the month', () => {
    expect(cron('0 0 0 L-3 * ?', JAN_2026)).toEqual([
      '2026-01-28T00:00:00.000Z',
      '2026-02-25T00:00:00.000Z',
      '2026-03-28T00:00:00.000Z',
    ]);
  });

  test('L-30 fires only in 31-day months, on the 1st', () => {
    expect(cron('0 0 0 L-30 * ?', '2026-01-15T00:00:00Z')).toEqual([
      '2026-03-01T00:00:00.000Z',
      '2026-05-01T00:00:00.000Z',
      '2026-07-01T00:00:00.000Z',
    ]);
  });

  test('LW fires on the last weekday of the month', () => {
    // 2026-01-31 and 2026-02-28 are Saturdays.
    expect(cron('0 0 0 LW * ?', JAN_2026)).toEqual([
      '2026-01-30T00:00:00.000Z',
      '2026-02-27T00:00:00.000Z',
      '2026-03-31T00:00:00.000Z',
    ]);
  });

  test('15W fires on the weekday nearest the 15th', () => {
    // 2026-02-15 and 2026-03-15 are Sundays.
    expect(cron('0 0 0 15W * ?', JAN_2026)).toEqual([
      '2026-01-15T00:00:00.000Z',
      '2026-02-16T00:00:00.000Z',
      '2026-03-16T00:00:00.000Z',
    ]);
  });

  test('1W on a Saturday the 1st moves forward to Monday the 3rd, not into the previous month', () => {
    // 2026-08-01 is a Saturday.
    expect(cron('0 0 0 1W * ?', '2026-07-15T00:00:00Z', 1)).toEqual(['2026-08-03T00:00:00.000Z']);
  });

  test('31W never fires in a month that has no 31st', () => {
    expect(cron('0 0 0 31W * ?', '2028-05-15T00:00:00Z', 2)).toEqual([
      '2028-05-31T00:00:00.000Z',
      '2028-07-31T00:00:00.000Z',
    ]);
  });

  test('6#3 fires on the third Friday of the month', () => {
    expect(cron('0 0 10 ? * 6#3', JAN_2026)).toEqual([
      '2026-01-16T10:00:00.000Z',
      '2026-02-20T10:00:00.000Z',
      '2026-03-20T10:00:00.000Z',
    ]);
  });

  test('6#5 skips months without a fifth Friday', () => {
    expect(cron('0 0 10 ? * 6#5', JAN_2026, 2)).toEqual([
      '2026-01-30T10:00:00.000Z',
      '2026-05-29T10:00:00.000Z',
    ]);
  });

  test('6L fires on the last Friday of the month', () => {
    expect(cron('0 0 10 ? * 6L', JAN_2026)).toEqual([
      '2026-01-30T10:00:00.000Z',
      '2026-02-27T10:00:00.000Z',
      '2026-03-27T10:00:00.000Z',
    ]);
  });

  test('L alone in day-of-week means Saturday, as in Quartz', () => {
    expect(cron('0 0 0 ? * L', JAN_2026, 1)).toEqual(['2026-01-03T00:00:00.000Z']);
  });

  test('day 31 at the end of month skips the months that have no 31st', () => {
    expect(cron('0 0 0 31 * ?', JAN_2026, 4)).toEqual([
      '2026-01-31T00:00:00.000Z',
      '2026-03-31T00:00:00.000Z',
      '2026-05-31T00:00:00.000Z',
      '2026-07-31T00:00:00.000Z',
    ]);
  });

  test('23:59:59 on the last day of the month is the last second before the next month', () => {
    expect(cron('59 59 23 L * ?', '2026-02-01T00:00:00Z', 1)).toEqual(['2026-02-28T23:59:59.000Z']);
  });

  test('Feb 29 fires only in leap years', () => {
    expect(cron('0 0 12 29 2 ?', JAN_2026)).toEqual([
      '2028-02-29T12:00:00.000Z',
      '2032-02-29T12:00:00.000Z',
      '2036-02-29T12:00:00.000Z',
    ]);
  });

  test('a year field limits the fires to that year', () => {
    expect(cron('0 0 0 1 1 ? 2030', JAN_2026)).toEqual(['2030-01-01T00:00:00.000Z']);
  });

  test('a year field in the past never fires again, and validation says so', () => {
    expect(cron('0 0 0 1 1 ? 2020', JAN_2026)).toEqual([]);
    expect(invalidReason('0 0 0 1 1 ? 2020')).toMatchObject({
      code: 'TW_ERR_INVALID_SCHEDULE',
      field: 'scheduleConf',
      message: expect.stringMatching(/^scheduleConf: .*latest year it allows, 2020, is past/),
    });
  });

  test('0 0 0 30 2 ? never fires: nextFireTimes returns [] quickly and validation refuses it', () => {
    const started = performance.now();
    expect(cron('0 0 0 30 2 ?', JAN_2026)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(200);
    expect(invalidReason('0 0 0 30 2 ?')).toMatchObject({
      field: 'scheduleConf',
      message: expect.stringMatching(/^scheduleConf: '0 0 0 30 2 \?' never fires/),
    });
  });

  test('an expression with surrounding and repeated spaces reads the same', () => {
    expect(cron('  0  0 12   * * ? ', JAN_2026, 1)).toEqual(['2026-01-01T12:00:00.000Z']);
  });
});
