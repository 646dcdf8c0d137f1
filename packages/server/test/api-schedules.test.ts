import { SCHEDULE_TYPES } from '@tickwheel/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, expectError, startApiServer } from './helpers/api-server.js';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApiServer();
});
afterAll(async () => {
  await api.close();
});

function preview(query: Record<string, string | number>) {
  return api.call(
    'GET',
    `/api/v1/schedules/preview?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`,
  );
}

describe('previewSchedule', () => {
  it('gives the next N times of a CRON schedule in its time zone', async () => {
    const from = Date.parse('2026-06-05T12:00:00Z');
    const res = await preview({
      scheduleType: 'CRON',
      scheduleConf: '0 30 9 ? * MON-FRI',
      timeZone: 'Europe/London',
      from,
      count: 2,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      from,
      nextFireTimes: [Date.parse('2026-06-08T08:30:00Z'), Date.parse('2026-06-09T08:30:00Z')],
    });
  });

  it('counts from now by default, five times', async () => {
    api.clock.set(Date.parse('2026-01-01T00:00:00Z'));
    const res = await preview({ scheduleType: 'FIX_RATE', scheduleConf: '30' });
    expect(res.json().nextFireTimes).toEqual(
      [1, 2, 3, 4, 5].map((k) => Date.parse('2026-01-01T00:00:00Z') + k * 30_000),
    );
  });

  it('gives nothing for NONE', async () => {
    expect((await preview({ scheduleType: 'NONE' })).json().nextFireTimes).toEqual([]);
  });

  it('refuses an expression it cannot read with TW_ERR_INVALID_CRON, naming scheduleConf and the reason', async () => {
    const error = expectError(
      await preview({ scheduleType: 'CRON', scheduleConf: '0 0 24 * * ?' }),
      400,
      'TW_ERR_INVALID_CRON',
      'scheduleConf',
    );
    expect(error.message).toBe('scheduleConf: hour value 24 is out of range 0-23');
  });

  it('says why a schedule never fires instead of answering nothing', async () => {
    const error = expectError(
      await preview({ scheduleType: 'CRON', scheduleConf: '0 0 0 30 2 ?' }),
      400,
      'TW_ERR_INVALID_SCHEDULE',
      'scheduleConf',
    );
    expect(error.message).toContain('never fires');
  });

  it('refuses an unknown schedule type, listing the allowed ones', async () => {
    const error = expectError(
      await preview({ scheduleType: 'HOURLY' }),
      400,
      'TW_ERR_UNKNOWN_ENUM_VALUE',
      'scheduleType',
    );
    expect(error.message).toBe(`scheduleType: must be one of ${SCHEDULE_TYPES.join(', ')}`);
  });

  it('refuses a missing schedule type and a count over 100', async () => {
    expectError(
      await api.call('GET', '/api/v1/schedules/preview'),
      400,
      'TW_ERR_MISSING_FIELD',
      'scheduleType',
    );
    expectError(
      await preview({ scheduleType: 'FIX_RATE', scheduleConf: '1', count: 101 }),
      400,
      'TW_ERR_INVALID_FIELD',
      'count',
    );
  });
});
