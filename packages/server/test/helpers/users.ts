/**
 * Users for the permission suites, made through the REST API as an admin would: `addUser`
 * creates the user, signs them in (a console session with its CSRF token) and gives them a
 * bearer token of their own.
 */
import type { LightMyRequestResponse } from 'fastify';
import type { ApiHarness } from './api-server.js';

export interface TestUser {
  id: number;
  username: string;
  password: string;
  /** The user's own bearer token. */
  token: string;
  /** The user's console session. */
  session: SessionCredentials;
}

export interface SessionCredentials {
  cookie: string;
  csrfToken: string;
}

let counter = 0;

/** Creates a user (default role USER) with permission on `appIds`. */
export async function addUser(
  api: ApiHarness,
  fields: { appIds?: number[]; role?: 'ADMIN' | 'USER' } = {},
): Promise<TestUser> {
  counter += 1;
  const username = `user-${counter}-${Math.random().toString(36).slice(2, 8)}`;
  const password = `password of ${username}`;
  const created = await api.call('POST', '/api/v1/users', {
    body: { username, password, role: fields.role ?? 'USER', appIds: fields.appIds ?? [] },
  });
  if (created.statusCode !== 201) throw new Error(`createUser: ${created.statusCode} ${created.body}`);
  const session = await signIn(api, username, password);
  const minted = await withSession(api, session, 'POST', '/api/v1/tokens', { name: 'own' });
  if (minted.statusCode !== 201) throw new Error(`createApiToken: ${minted.statusCode} ${minted.body}`);
  return { id: created.json().id, username, password, token: minted.json().token, session };
}

/** Signs in; throws unless it worked. */
export async function signIn(
  api: ApiHarness,
  username: string,
  password: string,
  remoteAddress = '127.0.0.1',
): Promise<SessionCredentials> {
  const res = await attemptLogin(api, username, password, remoteAddress);
  if (res.statusCode !== 200) throw new Error(`login: ${res.statusCode} ${res.body}`);
  return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrfToken: res.json().csrfToken };
}

/** One `login` call from `remoteAddress`, whatever it answers. */
export function attemptLogin(
  api: ApiHarness,
  username: string,
  password: string,
  remoteAddress = '127.0.0.1',
): Promise<LightMyRequestResponse> {
  return api.app.inject({
    method: 'POST',
    url: '/api/v1/login',
    remoteAddress,
    payload: { username, password },
  });
}

/** A request made with a console session and its CSRF token (`csrf: false` leaves the token out). */
export function withSession(
  api: ApiHarness,
  session: SessionCredentials,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  body?: unknown,
  options: { csrf?: boolean } = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { cookie: session.cookie };
  if (options.csrf !== false) headers['x-csrf-token'] = session.csrfToken;
  return api.call(method, url, { token: null, headers, ...(body === undefined ? {} : { body }) });
}
