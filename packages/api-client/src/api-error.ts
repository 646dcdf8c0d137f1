/**
 * What a call that did not succeed throws: the API's error answer
 * (`{ error: { code, field?, message } }`), an answer that is not the API's, or no answer at all.
 */

/** The code of the calls that got no answer of the API's (the catalogue's, @tickwheel/protocol). */
export const SERVER_CALL_FAILED = 'TW_ERR_SERVER_CALL_FAILED';

export interface ApiErrorOptions {
  /** The HTTP status answered; 0 when no answer came (unreachable, timed out). */
  status: number;
  /** The API's error code (`TW_ERR_NOT_FOUND`, ...), or TW_ERR_SERVER_CALL_FAILED. */
  code: string;
  /** The input field at fault, when the API names one. */
  field?: string | undefined;
  /** What went wrong underneath (the fetch failure). */
  cause?: unknown;
}

/**
 * A refusal of the API, or a call that got no usable answer.
 *
 * @example
 * try {
 *   await call(api.GET('/api/v1/jobs/{id}', { params: { path: { id: 7 } } }));
 * } catch (err) {
 *   if (err instanceof ApiError && err.status === 404) console.log('no job 7');
 *   else throw err;
 * }
 */
export class ApiError extends Error {
  /** The HTTP status answered; 0 when no answer came. */
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;

  constructor(message: string, options: ApiErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.status = options.status;
    this.code = options.code;
    this.field = options.field;
  }
}

/**
 * The error of an answer with an error status: the API's own error (code, field, message) when the
 * body is one, else `<METHOD> <path> answered HTTP <status>` (a proxy's error page, say).
 */
export function refusalOf(request: Request, status: number, bodyText: string): ApiError {
  const error = errorBody(bodyText);
  if (error === undefined) {
    return new ApiError(`${request.method} ${new URL(request.url).pathname} answered HTTP ${status}`, {
      status,
      code: SERVER_CALL_FAILED,
    });
  }
  return new ApiError(error.message, { status, code: error.code, field: error.field });
}

/** The error of a call that got no answer (the fetch failed), or whose answer could not be read. */
export function noAnswer(cause: unknown): ApiError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ApiError(`the server did not answer: ${reason}`, { status: 0, code: SERVER_CALL_FAILED, cause });
}

interface ErrorBody {
  code: string;
  field?: string;
  message: string;
}

function errorBody(text: string): ErrorBody | undefined {
  let body: { error?: { code?: unknown; field?: unknown; message?: unknown } };
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page): the status alone is reported.
    return undefined;
  }
  const error = body?.error;
  if (typeof error?.code !== 'string' || typeof error.message !== 'string') return undefined;
  return {
    code: error.code,
    message: error.message,
    ...(typeof error.field === 'string' ? { field: error.field } : {}),
  };
}
