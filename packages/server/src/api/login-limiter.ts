/**
 * The login rate limit. Failed sign-ins are counted per (username, client address): after
 * `maxFailuresPerUser` failures of one username from one address, that pair waits
 * `firstDelayMs` (1 minute), and each further failure doubles the wait, up to `windowMs`
 * (15 minutes). A stranger guessing the admin's password from one address therefore holds back
 * only himself: the admin signs in from anywhere else. Each address also has
 * `maxFailuresPerAddress` failures over a sliding window, whatever the usernames, so spraying
 * names from one address is bounded too. While held back, `login` answers 429 with
 * `Retry-After` without checking the password, so guessing costs the attacker the wait, not one
 * scrypt.
 *
 * Counts live in this process's memory: each server node limits on its own (behind a load
 * balancer of n nodes an attacker gets at most n times the limit), and a restart forgets them.
 * A success clears its (username, address) count but not the address's, so one valid account
 * cannot be used to reset the count of an address that guesses at others.
 */

/** How many failures each key may have, and how long it then waits. */
export interface LoginLimits {
  /** Failures of one username from one address before its first wait. Default 5. */
  maxFailuresPerUser: number;
  /** Failures per client address (any usernames) within the window. Default 20. */
  maxFailuresPerAddress: number;
  /** The per-address sliding window, and the longest wait of a (username, address). Default 15 minutes. */
  windowMs: number;
  /** The first wait of a (username, address); it doubles with each further failure. Default 1 minute. */
  firstDelayMs: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  maxFailuresPerUser: 5,
  maxFailuresPerAddress: 20,
  windowMs: 15 * 60 * 1000,
  firstDelayMs: 60 * 1000,
};

/** Keys tracked at most per kind; past it the oldest go first, so a spray of names cannot exhaust memory. */
const MAX_TRACKED_KEYS = 100_000;

/** The failures of one username from one address. */
interface PairFailures {
  count: number;
  lastAt: number;
  heldUntil: number;
}

export class LoginLimiter {
  private readonly limits: LoginLimits;
  private readonly now: () => number;
  private readonly byPair = new Map<string, PairFailures>();
  private readonly byAddress = new Map<string, number[]>();

  constructor(now: () => number, limits: Partial<LoginLimits> = {}) {
    this.now = now;
    this.limits = { ...DEFAULT_LOGIN_LIMITS, ...limits };
  }

  /** Milliseconds until this username may try again from this address; 0 when it may now. */
  retryAfterMs(username: string, address: string): number {
    const now = this.now();
    const pair = this.pairOf(username, address, now);
    return Math.max(pair === undefined ? 0 : pair.heldUntil - now, this.addressWait(address, now), 0);
  }

  recordFailure(username: string, address: string): void {
    const now = this.now();
    const key = pairKey(username, address);
    const pair = this.pairOf(username, address, now) ?? { count: 0, lastAt: now, heldUntil: 0 };
    pair.count += 1;
    pair.lastAt = now;
    const { maxFailuresPerUser, firstDelayMs, windowMs } = this.limits;
    if (pair.count >= maxFailuresPerUser) {
      const doublings = Math.min(pair.count - maxFailuresPerUser, 30);
      pair.heldUntil = now + Math.min(firstDelayMs * 2 ** doublings, windowMs);
    }
    remember(this.byPair, key, pair);
    const times = this.recentAtAddress(address, now);
    times.push(now);
    // Only the newest `max` matter for the limit.
    remember(this.byAddress, address, times.slice(-this.limits.maxFailuresPerAddress));
  }

  recordSuccess(username: string, address: string): void {
    this.byPair.delete(pairKey(username, address));
  }

  /** The pair's failures, forgotten once it has been quiet for the window after its last wait. */
  private pairOf(username: string, address: string, now: number): PairFailures | undefined {
    const key = pairKey(username, address);
    const pair = this.byPair.get(key);
    if (pair === undefined) return undefined;
    if (now - Math.max(pair.lastAt, pair.heldUntil) < this.limits.windowMs) return pair;
    this.byPair.delete(key);
    return undefined;
  }

  /** Failures of `address` still inside the window, oldest first. */
  private recentAtAddress(address: string, now: number): number[] {
    const times = this.byAddress.get(address);
    if (times === undefined) return [];
    const kept = times.filter((at) => at > now - this.limits.windowMs);
    if (kept.length === 0) this.byAddress.delete(address);
    else this.byAddress.set(address, kept);
    return kept;
  }

  private addressWait(address: string, now: number): number {
    const times = this.recentAtAddress(address, now);
    const max = this.limits.maxFailuresPerAddress;
    if (times.length < max) return 0;
    // The oldest failure that keeps the count at the limit leaves the window first.
    return times[times.length - max]! + this.limits.windowMs - now;
  }
}

function pairKey(username: string, address: string): string {
  return `${address}\n${username}`;
}

/** Sets `key` as the newest entry of `map`, dropping the oldest past the bound. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_TRACKED_KEYS) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
