import { describe, expect, test } from 'vitest';
import { ErrorCodes, TickwheelError } from '../src/errors.js';

describe('the error catalogue', () => {
  test('every code has an HTTP error status and a message', () => {
    for (const [code, { status, message }] of Object.entries(ErrorCodes)) {
      expect(code).toMatch(/^TW_ERR_[A-Z_]+$/);
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
      expect(message, code).not.toBe('');
    }
  });

  test('a TickwheelError without a message takes the catalogue’s', () => {
    const error = new TickwheelError('TW_ERR_INVALID_CRON', undefined, 'scheduleConf');
    expect(error.toJSON()).toEqual({
      code: 'TW_ERR_INVALID_CRON',
      field: 'scheduleConf',
      message: 'invalid cron expression',
    });
  });

  test('the specific codes keep the status of the general ones they refine', () => {
    expect(ErrorCodes.TW_ERR_INVALID_CRON.status).toBe(ErrorCodes.TW_ERR_INVALID_SCHEDULE.status);
    expect(ErrorCodes.TW_ERR_UNKNOWN_ENUM_VALUE.status).toBe(ErrorCodes.TW_ERR_INVALID_FIELD.status);
    expect(ErrorCodes.TW_ERR_UNKNOWN_JOB.status).toBe(ErrorCodes.TW_ERR_NOT_FOUND.status);
    expect(ErrorCodes.TW_ERR_UNKNOWN_APP.status).toBe(ErrorCodes.TW_ERR_NOT_FOUND.status);
  });
});
