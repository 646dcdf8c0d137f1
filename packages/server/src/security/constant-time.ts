/** Comparing secrets without leaking, through timing, how much of a guess was right. */
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * True when `a` equals `b`. Both sides are hashed to a fixed length first, so neither the
 * position of the first difference nor the length of the secret shows in the time taken.
 */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
