/**
 * The console's session cookie, written and read here rather than through @fastify/cookie, so
 * it works the same in every Fastify context that authenticates (the REST API, `/metrics`)
 * whether or not some other part of the server registered that plugin. The value is a
 * base64url session id, which needs no encoding.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'tw_session';

/** Sets the cookie: httpOnly, SameSite=Strict, Secure over https, for every path of the server. */
export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  sessionId: string,
  expiresAt: number,
): void {
  const attributes = [
    `${SESSION_COOKIE}=${sessionId}`,
    'Path=/',
    `Expires=${new Date(expiresAt).toUTCString()}`,
    'HttpOnly',
    'SameSite=Strict',
  ];
  if (request.protocol === 'https') attributes.push('Secure');
  reply.header('set-cookie', attributes.join('; '));
}

/** The session id the request's Cookie header carries, if any. */
export function readSessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = pair.slice(eq + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}
