/**
 * The REST API client: typed from the server's OpenAPI document (schema.d.ts), sending the
 * session's CSRF token on every state-changing request, and turning error answers into
 * `ApiError`s that name the field and the reason.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** An error answer of the API: `{ error: { code, field?, message } }`, or a network failure. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;

  constructor(status: number, code: string, message: string, field?: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

/** The error code of every call (but a few) by a user who must first choose a new password. */
export const PASSWORD_CHANGE_REQUIRED = 'TW_ERR_PASSWORD_CHANGE_REQUIRED';

let csrfToken: string | undefined;
let onUnauthenticated: (() => void) | undefined;
let onPasswordChangeRequired: (() => void) | undefined;

/** The session's CSRF token (from `login` or `getCurrentUser`); undefined after logout. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Called when any request answers 401 (the session expired or was revoked). */
export function setUnauthenticatedHandler(handler: (() => void) | undefined): void {
  onUnauthenticated = handler;
}

/**
 * Called when any call answers TW_ERR_PASSWORD_CHANGE_REQUIRED (an admin asked for a new
 * password since the console last read `getCurrentUser`).
 */
export function setPasswordChangeRequiredHandler(handler: (() => void) | undefined): void {
  onPasswordChangeRequired = handler;
}

const session: Middleware = {
  onRequest({ request }) {
    if (csrfToken !== undefined && request.method !== 'GET' && request.method !== 'HEAD') {
      request.headers.set('x-csrf-token', csrfToken);
    }
    return request;
  },
  onResponse({ response, schemaPath }) {
    if (response.status === 401 && schemaPath !== '/api/v1/login') onUnauthenticated?.();
    return response;
  },
};

export const client = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
client.use(session);

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's data, or an `ApiError` for an error answer. */
export async function call<T>(request: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await request;
  } catch (err) {
    throw new ApiError(0, 'NETWORK', `the server did not answer: ${(err as Error).message}`);
  }
  const { data, error, response } = answer;
  if (!response.ok) {
    const refusal = toApiError(response.status, error);
    if (refusal.code === PASSWORD_CHANGE_REQUIRED) onPasswordChangeRequired?.();
    throw refusal;
  }
  return data as T;
}

function toApiError(status: number, body: unknown): ApiError {
  const error = (body as { error?: { code?: unknown; field?: unknown; message?: unknown } } | undefined)
    ?.error;
  if (error !== undefined && typeof error.message === 'string') {
    return new ApiError(
      status,
      typeof error.code === 'string' ? error.code : `HTTP_${status}`,
      error.message,
      typeof error.field === 'string' ? error.field : undefined,
    );
  }
  return new ApiError(status, `HTTP_${status}`, `the server answered HTTP ${status}`);
}
