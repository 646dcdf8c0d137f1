import { describe, expect, test } from 'vitest';
import { nextFireTimes, type Schedule, validateSchedule } from '../src/schedule/index.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

function refused(schedule: Schedule, now = NOW): unknown {
  try {
    validateSchedule(schedule, now);
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('FIX_RATE', () => {
  test('fires every N seconds counted from the previous scheduled time', () => {
    const previous = Date.parse('2026-01-01T00:00:00.250Z');
    expect(nextFireTimes({ scheduleType: 'FIX_RATE', scheduleConf: '30' }, previous, 3)).toEqual([
      previous + 30_000,
      previous + 60_000,
      previous + 90_000,
    ]);
  });

  test.each([
    '0',
    '-5',
    '1.5',
    'abc',
    '',
    '30s',
  ])('refuses %j: the interval must be a positive whole number', (conf) => {
    expect(refused({ scheduleType: 'FIX_RATE', scheduleConf: conf })).toMatchObject({
      code: 'TW_ERR_INVALID_SCHEDULE',
      field: 'scheduleConf',
      message: expect.stringContaining('FIX_RATE needs the interval as a positive whole number of seconds'),
    });
  });
});

describe('FIX_DELAY', () => {
  test('fires N seconds after the previous run finished', () => {
    const finished = Date.parse('2026-01-01T10:00:07.123Z');
    expect(nextFireTimes({ scheduleType: 'FIX_DELAY', scheduleConf: '60' }, finished, 1)).toEqual([
      finished + 60_000,
    ]);
  });

  test('refuses a zero delay', () => {
    expect(refused({ scheduleType: 'FIX_DELAY', scheduleConf: '0' })).toMatchObject({
      field: 'scheduleConf',
    });
  });
});

describe('ONCE', () => {
  test('an ISO-8601 instant with an offset fires once at that instant', () => {
    const schedule: Schedule = { scheduleType: 'ONCE', scheduleConf: '2026-05-01T09:30:00+02:00' };
    expect(nextFireTimes(schedule, NOW, 3)).toEqual([Date.parse('2026-05-01T07:30:00Z')]);
    expect(refused(schedule)).toBeUndefined();
  });

  test('an ISO-8601 instant in Z with milliseconds fires at that millisecond', () => {
    expect(nextFireTimes({ scheduleType: 'ONCE', scheduleConf: '2026-05-01T07:30:00.250Z' }, NOW, 1)).toEqual(
      [Date.parse('2026-05-01T07:30:00.250Z')],
    );
  });

  test('epoch milliseconds as digits fire at that instant', () => {
    expect(nextFireTimes({ scheduleType: 'ONCE', scheduleConf: '1777620600000' }, NOW, 1)).toEqual([
      1777620600000,
    ]);
  });

  test('after its instant a ONCE schedule never fires again', () => {
    const instant = Date.parse('2026-05-01T07:30:00Z');
    expect(nextFireTimes({ scheduleType: 'ONCE', scheduleConf: String(instant) }, instant, 1)).toEqual([]);
  });

  test('a ONCE instant in the past is invalid', () => {
    expect(refused({ scheduleType: 'ONCE', scheduleConf: '2025-12-31T23:59:59Z' })).toMatchObject({
      code: 'TW_ERR_INVALID_SCHEDULE',
      field: 'scheduleConf',
      message:
        'scheduleConf: ONCE instant 2025-12-31T23:59:59.000Z is not after now (2026-01-01T00:00:00.000Z)',
    });
  });

  test.each([
    '2026-05-01T09:30:00',
    '2026-05-01 09:30:00Z',
    'tomorrow',
    '2026-02-30T00:00:00Z',
    '2026-05-01T09:30:00+25:00',
  ])('refuses %j: an instant needs a real date, a time and an offset', (conf) => {
    expect(refused({ scheduleType: 'ONCE', scheduleConf: conf })).toMatchObject({
      code: 'TW_ERR_INVALID_SCHEDULE',
      field: 'scheduleConf',
    });
  });
});

describe('NONE', () => {
  test('never fires', () => {
    expect(nextFireTimes({ scheduleType: 'NONE', scheduleConf: '' }, NOW, 5)).toEqual([]);
    expect(refused({ scheduleType: 'NONE', scheduleConf: '  ' })).toBeUndefined();
  });

  test('refuses a configuration', () => {
    expect(refused({ scheduleType: 'NONE', scheduleConf: '0 0 0 * * ?' })).toMatchObject({
      field: 'scheduleConf',
      message: "scheduleConf: NONE takes no configuration, got '0 0 0 * * ?'",
    });
  });
});
