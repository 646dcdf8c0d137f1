import { describe, expect, test } from 'vitest';
import { nextFireTimes } from '../src/schedule/index.js';

/** Next `count` fire times of a CRON schedule in `timeZone` after `fromIso`, as ISO strings (UTC). */
function cron(timeZone: string, expression: string, fromIso: string, count: number): string[] {
  return nextFireTimes(
    { scheduleType: 'CRON', scheduleConf: expression, timeZone },
    Date.parse(fromIso),
    count,
  ).map((t) => new Date(t).toISOString().replace('.000Z', 'Z'));
}

describe('America/New_York (springs forward 2026-03-08 02:00 EST to 03:00 EDT, falls back 2026-11-01 02:00 EDT to 01:00 EST)', () => {
  test('a fixed time inside the spring-forward gap fires once, at the first instant after the gap', () => {
    // 02:30 does not exist on 2026-03-08: it fires at 03:00 EDT (07:00Z), then 02:30 EDT the next day.
    expect(cron('America/New_York', '0 30 2 * * ?', '2026-03-07T12:00:00Z', 2)).toEqual([
      '2026-03-08T07:00:00Z',
      '2026-03-09T06:30:00Z',
    ]);
  });

  test('a quarter-hourly job fires once at the end of the gap and goes on from there', () => {
    expect(cron('America/New_York', '0 */15 * * * ?', '2026-03-08T06:30:00Z', 3)).toEqual([
      '2026-03-08T06:45:00Z', // 01:45 EST
      '2026-03-08T07:00:00Z', // 03:00 EDT: 02:00-02:45 do not exist
      '2026-03-08T07:15:00Z',
    ]);
  });

  test('a job with a fixed hour inside the gap fires once at the end of the gap, whatever its minutes', () => {
    expect(cron('America/New_York', '0 */15 2 * * ?', '2026-03-08T00:00:00Z', 2)).toEqual([
      '2026-03-08T07:00:00Z',
      '2026-03-09T06:00:00Z',
    ]);
  });

  test('a fixed time inside the repeated hour fires once, at its first occurrence', () => {
    expect(cron('America/New_York', '0 30 1 * * ?', '2026-10-31T12:00:00Z', 2)).toEqual([
      '2026-11-01T05:30:00Z', // 01:30 EDT
      '2026-11-02T06:30:00Z', // 01:30 EST
    ]);
  });

  test('a fixed hour with stepped minutes fires only in the first copy of the repeated hour', () => {
    expect(cron('America/New_York', '0 */15 1 * * ?', '2026-11-01T04:00:00Z', 5)).toEqual([
      '2026-11-01T05:00:00Z',
      '2026-11-01T05:15:00Z',
      '2026-11-01T05:30:00Z',
      '2026-11-01T05:45:00Z',
      '2026-11-02T06:00:00Z',
    ]);
  });

  test('a list of hours fires once per wall time in the repeated hour', () => {
    expect(cron('America/New_York', '0 0 1,2 * * ?', '2026-11-01T00:00:00Z', 3)).toEqual([
      '2026-11-01T05:00:00Z', // 01:00 EDT
      '2026-11-01T07:00:00Z', // 02:00 EST
      '2026-11-02T06:00:00Z',
    ]);
  });

  test('a quarter-hourly job keeps firing every 15 real minutes through both copies of the repeated hour', () => {
    expect(cron('America/New_York', '0 */15 * * * ?', '2026-11-01T04:50:00Z', 10)).toEqual([
      '2026-11-01T05:00:00Z', // 01:00 EDT
      '2026-11-01T05:15:00Z',
      '2026-11-01T05:30:00Z',
      '2026-11-01T05:45:00Z',
      '2026-11-01T06:00:00Z', // 01:00 EST
      '2026-11-01T06:15:00Z',
      '2026-11-01T06:30:00Z',
      '2026-11-01T06:45:00Z',
      '2026-11-01T07:00:00Z', // 02:00 EST
      '2026-11-01T07:15:00Z',
    ]);
  });

  test('0 0/30 0/1 * * ? (hour as a step) fires in both copies of the repeated hour', () => {
    expect(cron('America/New_York', '0 0/30 0/1 * * ?', '2026-11-01T04:45:00Z', 5)).toEqual([
      '2026-11-01T05:00:00Z',
      '2026-11-01T05:30:00Z',
      '2026-11-01T06:00:00Z',
      '2026-11-01T06:30:00Z',
      '2026-11-01T07:00:00Z',
    ]);
  });

  test('starting inside the first copy of the repeated hour still finds the second copy', () => {
    expect(cron('America/New_York', '0 */15 * * * ?', '2026-11-01T05:50:00Z', 2)).toEqual([
      '2026-11-01T06:00:00Z',
      '2026-11-01T06:15:00Z',
    ]);
  });

  test('starting inside the second copy of the repeated hour does not go back to the first', () => {
    expect(cron('America/New_York', '0 30 1 * * ?', '2026-11-01T06:10:00Z', 1)).toEqual([
      '2026-11-02T06:30:00Z',
    ]);
    expect(cron('America/New_York', '0 */15 * * * ?', '2026-11-01T06:10:00Z', 1)).toEqual([
      '2026-11-01T06:15:00Z',
    ]);
  });

  test('every-second fire times stay strictly ascending and unique across both transitions', () => {
    for (const from of ['2026-03-08T06:59:50Z', '2026-11-01T05:59:50Z', '2026-11-01T06:59:50Z']) {
      const times = nextFireTimes(
        { scheduleType: 'CRON', scheduleConf: '* * * * * ?', timeZone: 'America/New_York' },
        Date.parse(from),
        30,
      );
      expect(times).toHaveLength(30);
      times.forEach((t, i) => {
        expect(t).toBe(Date.parse(from) + (i + 1) * 1000);
      });
    }
  });
});

describe('Europe/London (springs forward 2026-03-29 01:00 GMT to 02:00 BST, falls back 2026-10-25 02:00 BST to 01:00 GMT)', () => {
  test('a fixed time inside the spring-forward gap fires at 02:00 BST', () => {
    expect(cron('Europe/London', '0 30 1 * * ?', '2026-03-28T12:00:00Z', 2)).toEqual([
      '2026-03-29T01:00:00Z',
      '2026-03-30T00:30:00Z',
    ]);
  });

  test('a fixed time inside the repeated hour fires once, in BST', () => {
    expect(cron('Europe/London', '0 30 1 * * ?', '2026-10-24T12:00:00Z', 2)).toEqual([
      '2026-10-25T00:30:00Z',
      '2026-10-26T01:30:00Z',
    ]);
  });

  test('an hourly job fires at 01:00 BST and again at 01:00 GMT', () => {
    expect(cron('Europe/London', '0 0 * * * ?', '2026-10-24T23:30:00Z', 3)).toEqual([
      '2026-10-25T00:00:00Z',
      '2026-10-25T01:00:00Z',
      '2026-10-25T02:00:00Z',
    ]);
  });
});

describe('Australia/Sydney (falls back 2026-04-05 03:00 AEDT to 02:00 AEST, springs forward 2026-10-04 02:00 AEST to 03:00 AEDT)', () => {
  test('a fixed time inside the repeated hour fires once, in AEDT', () => {
    expect(cron('Australia/Sydney', '0 30 2 * * ?', '2026-04-04T00:00:00Z', 2)).toEqual([
      '2026-04-04T15:30:00Z',
      '2026-04-05T16:30:00Z',
    ]);
  });

  test('an hourly job fires at 02:00 AEDT and again at 02:00 AEST', () => {
    expect(cron('Australia/Sydney', '0 0 * * * ?', '2026-04-04T14:30:00Z', 3)).toEqual([
      '2026-04-04T15:00:00Z',
      '2026-04-04T16:00:00Z',
      '2026-04-04T17:00:00Z',
    ]);
  });

  test('a fixed time inside the spring-forward gap fires at 03:00 AEDT', () => {
    expect(cron('Australia/Sydney', '0 30 2 * * ?', '2026-10-03T00:00:00Z', 2)).toEqual([
      '2026-10-03T16:00:00Z',
      '2026-10-04T15:30:00Z',
    ]);
  });
});

describe('Asia/Kolkata (UTC+05:30, no DST)', () => {
  test('a daily job fires at its wall time, five and a half hours before UTC', () => {
    expect(cron('Asia/Kolkata', '0 0 9 * * ?', '2026-01-01T00:00:00Z', 2)).toEqual([
      '2026-01-01T03:30:00Z',
      '2026-01-02T03:30:00Z',
    ]);
  });

  test('an hourly job fires at half past each UTC hour', () => {
    expect(cron('Asia/Kolkata', '0 0 * * * ?', '2026-01-01T00:00:00Z', 2)).toEqual([
      '2026-01-01T00:30:00Z',
      '2026-01-01T01:30:00Z',
    ]);
  });

  test('the last day of the month is the local last day, not the UTC one', () => {
    // 2026-01-31 00:00 IST is 2026-01-30 18:30Z.
    expect(cron('Asia/Kolkata', '0 0 0 L * ?', '2026-01-15T00:00:00Z', 1)).toEqual(['2026-01-30T18:30:00Z']);
  });
});
