/**
 * The error catalogue: every error Tickwheel raises on purpose has a code here, the HTTP status
 * it answers with, a default message, and (where it concerns input) the field it is about — as
 * Fastify's `createError(code, message, statusCode)` gives each `FST_ERR_...` its status.
 *
 * A code says what went wrong as precisely as a caller can act on it: a cron expression that
 * does not parse is `TW_ERR_INVALID_CRON`, not the general `TW_ERR_INVALID_FIELD`. Codes are
 * never renamed or removed (the console's translations and users' scripts match on them).
 *
 * A code no request can cause (a wrong start-up option, a handler registered twice) has status
 * 500: should one ever reach an HTTP answer, the program is at fault, not the caller.
 */
export const ErrorCodes = {
  TW_ERR_INVALID_SCHEDULE: { status: 400, message: 'invalid schedule' },
  TW_ERR_INVALID_CRON: { status: 400, message: 'invalid cron expression' },
  TW_ERR_INVALID_FIELD: { status: 400, message: 'invalid field' },
  TW_ERR_MISSING_FIELD: { status: 400, message: 'missing field' },
  TW_ERR_UNKNOWN_ENUM_VALUE: { status: 400, message: 'not one of the allowed values' },
  TW_ERR_INVALID_JSON: { status: 400, message: 'malformed JSON' },
  TW_ERR_BODY_TOO_LARGE: { status: 413, message: 'request body too large' },
  TW_ERR_INVALID_OPTION: { status: 500, message: 'invalid option' },
  TW_ERR_ACCESS_TOKEN: { status: 401, message: 'the access token is wrong' },
  TW_ERR_HANDLER_NOT_FOUND: { status: 404, message: 'job handler not found' },
  TW_ERR_DUPLICATE_HANDLER: { status: 500, message: 'job handler already registered' },
  TW_ERR_NOT_STARTED: { status: 500, message: 'not started' },
  TW_ERR_ALREADY_STARTED: { status: 500, message: 'already started' },
  TW_ERR_SERVER_CALL_FAILED: { status: 502, message: 'no scheduling server accepted the call' },
  TW_ERR_UNAUTHENTICATED: { status: 401, message: 'authentication required' },
  TW_ERR_LOGIN_FAILED: { status: 401, message: 'wrong username or password' },
  TW_ERR_FORBIDDEN: { status: 403, message: 'not allowed' },
  TW_ERR_CSRF: { status: 403, message: 'missing or wrong CSRF token' },
  TW_ERR_PASSWORD_CHANGE_REQUIRED: { status: 403, message: 'the password must be changed first' },
  TW_ERR_RATE_LIMITED: { status: 429, message: 'too many attempts; try again later' },
  TW_ERR_NOT_FOUND: { status: 404, message: 'not found' },
  TW_ERR_UNKNOWN_JOB: { status: 404, message: 'no such job' },
  TW_ERR_UNKNOWN_APP: { status: 404, message: 'no such app' },
  TW_ERR_CONFLICT: { status: 409, message: 'conflicts with the current state' },
  TW_ERR_EXECUTOR_CALL_FAILED: { status: 502, message: 'the call to the executor failed' },
  TW_ERR_INTERNAL: { status: 500, message: 'internal error' },
  TW_ERR_STORE_UNAVAILABLE: { status: 503, message: 'the database could not be used' },
  TW_ERR_ALARM_SEND_FAILED: { status: 502, message: 'the alarm channel did not take the alarm' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ErrorCodes;

/**
 * The one error class Tickwheel throws. `field` names the input the error is about (a dotted
 * path such as `callbackList[2].logId`), or is undefined when no single field is to blame.
 *
 * @example
 * throw new TickwheelError('TW_ERR_INVALID_FIELD', 'executorTimeout must be an integer >= 0', 'executorTimeout');
 */
export class TickwheelError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;

  constructor(code: ErrorCode, message?: string, field?: string, options?: { cause?: unknown }) {
    super(message ?? ErrorCodes[code].message, options);
    this.name = 'TickwheelError';
    this.code = code;
    this.field = field;
  }

  toJSON(): { code: ErrorCode; field: string | undefined; message: string } {
    return { code: this.code, field: this.field, message: this.message };
  }
}

/** True when `err` is a TickwheelError, optionally with the given code. */
export function isTickwheelError(err: unknown, code?: ErrorCode): err is TickwheelError {
  return err instanceof TickwheelError && (code === undefined || err.code === code);
}
