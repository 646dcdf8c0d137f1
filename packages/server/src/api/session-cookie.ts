/**
 * The console's session cookie, read and written with the `cookie` package in every Fastify
 * context that authenticates (the REST API, `/metrics`), whether or not a cookie plugin is
 * registered there.
 */
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'tw_session';

/** Sets the cookie: httpOnly, SameSite=Strict, Secure over https, for every path of the server. */
export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  sessionId: string,
  expiresAt: number,
): void {
  reply.header(
    'set-cookie',
    stringifySetCookie({
      name: SESSION_COOKIE,
      value: sessionId,
      path: '/',
      expires: new Date(expiresAt),
      httpOnly: true,
      sameSite: 'strict',
      secure: request.protocol === 'https',
    }),
  );
}

/** The session id the request's Cookie header carries, if any. */
export function readSessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  const value = parseCookie(header)[SESSION_COOKIE];
  return value === undefined || value === '' ? undefined : value;
}

/** Tells the browser to drop the cookie (`logout`). */
export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  setSessionCookie(request, reply, '', 0);
}
