/** The executor access token check of PROTOCOL.md, in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Returns a check for the `XXL-JOB-ACCESS-TOKEN` header. Both sides are hashed first, so the
 * comparison takes the same time whatever the lengths and wherever the first difference is.
 */
export function accessTokenCheck(token: string): (header: string | string[] | undefined) => boolean {
  const expected = digest(token);
  return (header) => timingSafeEqual(expected, digest(typeof header === 'string' ? header : ''));
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
