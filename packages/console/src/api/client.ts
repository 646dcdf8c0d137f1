/**
 * The console's client of the REST API (@tickwheel/api-client) and what only a browser session
 * needs: the session's CSRF token on every state-changing request, and the callbacks that drop the
 * user on a 401 and ask for a new password when a call is refused for want of one. The session
 * cookie goes along by fetch's default (same-origin credentials).
 */
import { ApiError, call as callApi, createApiClient, type Middleware } from '@tickwheel/api-client';

export { ApiError };

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

export const client = createApiClient({ baseUrl: '', middleware: [session] });

/** The answer's data, or an `ApiError` for an error answer (see @tickwheel/api-client's `call`). */
export async function call<T>(answer: Promise<{ data?: T; response: Response }>): Promise<T> {
  try {
    return await callApi(answer);
  } catch (err) {
    if (err instanceof ApiError && err.code === PASSWORD_CHANGE_REQUIRED) onPasswordChangeRequired?.();
    throw err;
  }
}
