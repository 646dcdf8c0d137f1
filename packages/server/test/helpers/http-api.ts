/**
 * The REST API over real HTTP, the way a script (bearer token) or the console (session cookie
 * and CSRF token) calls it, for suites that start real servers (`startServer`) rather than the
 * injected harness of api-server.ts.
 */
import { type Dispatcher, fetch, type Response } from 'undici';

export interface HttpSession {
  /** The `Cookie` header value. */
  cookie: string;
  csrfToken: string;
}

export interface HttpCallOptions {
  /** A bearer token. */
  token?: string;
  /** A console session (its CSRF token goes with every request). */
  session?: HttpSession;
  body?: unknown;
  headers?: Record<string, string>;
  /** An undici dispatcher, e.g. an Agent bound to another local address. */
  dispatcher?: Dispatcher;
}

/** One request to `baseUrl` (a server's `url`) + `path` (`/api/v1/...`), whatever it answers. */
export function callHttp(
  baseUrl: string,
  method: string,
  path: string,
  options: HttpCallOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.session !== undefined) {
    headers.cookie = options.session.cookie;
    headers['x-csrf-token'] = options.session.csrfToken;
  }
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(new URL(path.replace(/^\//, ''), baseUrl), {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
  });
}

/** Calls the REST API and returns its JSON; throws on an answer that is not 2xx. */
export async function callApiOk<T = Record<string, unknown>>(
  baseUrl: string,
  method: string,
  path: string,
  options: HttpCallOptions = {},
): Promise<T> {
  const res = await callHttp(baseUrl, method, path, options);
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** Signs in over HTTP; throws unless it worked. */
export async function signInHttp(
  baseUrl: string,
  username: string,
  password: string,
  options: Pick<HttpCallOptions, 'headers' | 'dispatcher'> = {},
): Promise<HttpSession> {
  const res = await callHttp(baseUrl, 'POST', '/api/v1/login', { ...options, body: { username, password } });
  if (res.status !== 200) throw new Error(`login: HTTP ${res.status} ${await res.text()}`);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  return { cookie, csrfToken: ((await res.json()) as { csrfToken: string }).csrfToken };
}
