import { describe, expect, test } from 'vitest';
import { isTickwheelError } from '../src/errors.js';
import { nextFireTimes, type Schedule, validateSchedule } from '../src/schedule/index.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

/** The error validateSchedule throws for `schedule`, or undefined when it accepts it. */
function refusal(
  schedule: Schedule,
): { code: string; field: string | undefined; message: string } | undefined {
  try {
    validateSchedule(schedule, NOW);
  } catch (err) {
    if (!isTickwheelError(err)) throw err;
    return { code: err.code, field: err.field, message: err.message };
  }
  return undefined;
}

function cronRefusal(expression: string) {
  return refusal({ scheduleType: 'CRON', scheduleConf: expression });
}

describe('invalid cron expressions', () => {
  test('a wrong number of fields is refused, naming the count expected', () => {
    expect(cronRefusal('0 * * * *')).toEqual({
      code: 'TW_ERR_INVALID_CRON',
      field: 'scheduleConf',
      message:
        "scheduleConf: expected 6 or 7 fields (second minute hour day-of-month month day-of-week [year]) but got 5 in '0 * * * *'",
    });
    expect(cronRefusal('0 0 0 1 1 ? 2030 x')?.message).toMatch(/expected 6 or 7 fields .* but got 8/);
  });

  test('an empty expression is refused', () => {
    expect(cronRefusal('   ')?.message).toMatch(/^scheduleConf: a cron expression is required/);
  });

  test.each([
    ['60 * * * * ?', 'second value 60 is out of range 0-59'],
    ['0 60 * * * ?', 'minute value 60 is out of range 0-59'],
    ['0 0 24 * * ?', 'hour value 24 is out of range 0-23'],
    ['0 0 0 32 * ?', 'day-of-month value 32 is out of range 1-31'],
    ['0 0 0 0 * ?', 'day-of-month value 0 is out of range 1-31'],
    ['0 0 0 1 13 ?', 'month value 13 is out of range 1-12'],
    ['0 0 0 ? * 0', 'day-of-week value 0 is out of range 1-7'],
    ['0 0 0 ? * 8', 'day-of-week value 8 is out of range 1-7'],
    ['0 0 0 1 1 ? 1969', 'year value 1969 is out of range 1970-2099'],
    ['0 0 0 1 1 ? 2100', 'year value 2100 is out of range 1970-2099'],
  ])('an out-of-range value in %s is refused: %s', (expression, reason) => {
    expect(cronRefusal(expression)).toEqual({
      code: 'TW_ERR_INVALID_CRON',
      field: 'scheduleConf',
      message: `scheduleConf: ${reason}`,
    });
  });

  test.each([
    ['a b c d e f', "second value 'A' is not a number"],
    ['0 0 0 ? * FOO', "day-of-week value 'FOO' is not a number or a name (SUN,MON,TUE,WED,THU,FRI,SAT)"],
    ['0 0 0 1 FOO ?', "month value 'FOO' is not a number or a name (JAN,"],
    ['0/0 * * * * ?', "second step '0' in '0/0' must be a whole number from 1 to 59"],
    ['0/60 * * * * ?', "second step '60' in '0/60' must be a whole number from 1 to 59"],
    ['0 0 ? * * *', "'?' is only allowed in day-of-month and day-of-week (hour)"],
    ['0 0 0 ? * ?', "'?' may stand in only one of day-of-month and day-of-week"],
    ['0 0 0 L,15 * ?', "day-of-month 'L,15': L and W cannot be combined with other days"],
    ['0 0 0 L-31 * ?', "day-of-month 'L-31': the offset from the last day must be at most 30"],
    ['0 0 0 15X * ?', "day-of-month value '15X' is not a number"],
    ['0 0 0 ? * 6#6', "day-of-week '6#6': the week after # must be 1-5"],
    ['0 0 0 ? * 6#3,2#1', "day-of-week '6#3,2#1': L and # cannot be combined with other days"],
    ['0 0 0 1,,2 * ?', "day-of-month '1,,2' has an empty list item"],
    ['0 0 0 1 1 ? 2030-2020', "year range '2030-2020' must go from the earlier to the later year"],
  ])('garbage %s is refused with the reason: %s', (expression, reason) => {
    const error = cronRefusal(expression);
    expect(error).toMatchObject({ code: 'TW_ERR_INVALID_CRON', field: 'scheduleConf' });
    expect(error?.message).toContain(`scheduleConf: ${reason}`);
  });

  test('nextFireTimes refuses an invalid expression the same way validateSchedule does', () => {
    expect(() => nextFireTimes({ scheduleType: 'CRON', scheduleConf: '0 0 25 * * ?' }, NOW, 1)).toThrow(
      expect.objectContaining({ code: 'TW_ERR_INVALID_CRON', field: 'scheduleConf' }),
    );
  });
});

describe('the schedule type and time zone', () => {
  test('an unknown schedule type is refused, naming the field scheduleType', () => {
    expect(refusal({ scheduleType: 'HOURLY', scheduleConf: '1' })).toEqual({
      code: 'TW_ERR_INVALID_SCHEDULE',
      field: 'scheduleType',
      message: "scheduleType: 'HOURLY' is not a schedule type (one of NONE, CRON, FIX_RATE, FIX_DELAY, ONCE)",
    });
  });

  test('a time zone that is not an IANA zone is refused, naming the field timeZone', () => {
    expect(
      refusal({ scheduleType: 'CRON', scheduleConf: '0 0 0 * * ?', timeZone: 'Mars/Olympus_Mons' }),
    ).toEqual({
      code: 'TW_ERR_INVALID_SCHEDULE',
      field: 'timeZone',
      message:
        "timeZone: 'Mars/Olympus_Mons' is not an IANA time zone (e.g. UTC, Europe/London, America/New_York)",
    });
    expect(() =>
      nextFireTimes(
        { scheduleType: 'CRON', scheduleConf: '0 0 0 * * ?', timeZone: 'EST5EDT+garbage' },
        NOW,
        1,
      ),
    ).toThrow(expect.objectContaining({ field: 'timeZone' }));
  });

  test('a missing or empty time zone means UTC', () => {
    const utc = nextFireTimes({ scheduleType: 'CRON', scheduleConf: '0 0 9 * * ?', timeZone: 'UTC' }, NOW, 2);
    expect(nextFireTimes({ scheduleType: 'CRON', scheduleConf: '0 0 9 * * ?' }, NOW, 2)).toEqual(utc);
    expect(
      nextFireTimes({ scheduleType: 'CRON', scheduleConf: '0 0 9 * * ?', timeZone: '' }, NOW, 2),
    ).toEqual(utc);
    expect(utc).toEqual([Date.parse('2026-01-01T09:00:00Z'), Date.parse('2026-01-02T09:00:00Z')]);
  });

  test('a valid schedule passes validation', () => {
    expect(cronRefusal('0 0/10 9-17 ? * MON-FRI')).toBeUndefined();
    expect(
      refusal({ scheduleType: 'CRON', scheduleConf: '0 0 9 * * ?', timeZone: 'Australia/Sydney' }),
    ).toBeUndefined();
  });
});
