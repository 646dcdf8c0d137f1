/**
 * The error catalogue: every error Tickwheel raises on purpose has a code here, a default
 * message, and (where it concerns input) the field it is about.
 */
export const ErrorCodes = {
  TW_ERR_INVALID_SCHEDULE: 'invalid schedule',
  TW_ERR_INVALID_FIELD: 'invalid field',
  TW_ERR_MISSING_FIELD: 'missing field',
  TW_ERR_INVALID_JSON: 'malformed JSON',
  TW_ERR_BODY_TOO_LARGE: 'request body too large',
  TW_ERR_INVALID_OPTION: 'invalid option',
  TW_ERR_ACCESS_TOKEN: 'the access token is wrong',
  TW_ERR_HANDLER_NOT_FOUND: 'job handler not found',
  TW_ERR_DUPLICATE_HANDLER: 'job handler already registered',
  TW_ERR_NOT_STARTED: 'not started',
  TW_ERR_ALREADY_STARTED: 'already started',
  TW_ERR_SERVER_CALL_FAILED: 'no scheduling server accepted the call',
  TW_ERR_UNAUTHENTICATED: 'authentication required',
  TW_ERR_LOGIN_FAILED: 'wrong username or password',
  TW_ERR_FORBIDDEN: 'not allowed',
  TW_ERR_CSRF: 'missing or wrong CSRF token',
  TW_ERR_PASSWORD_CHANGE_REQUIRED: 'the password must be changed first',
  TW_ERR_RATE_LIMITED: 'too many attempts; try again later',
  TW_ERR_NOT_FOUND: 'not found',
  TW_ERR_CONFLICT: 'conflicts with the current state',
  TW_ERR_EXECUTOR_CALL_FAILED: 'the call to the executor failed',
  TW_ERR_INTERNAL: 'internal error',
  TW_ERR_STORE_UNAVAILABLE: 'the database could not be used',
  TW_ERR_ALARM_SEND_FAILED: 'the alarm channel did not take the alarm',
} as const;

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
    super(message ?? ErrorCodes[code], options);
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
