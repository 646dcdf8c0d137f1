/**
 * The login rate limit: failed sign-ins counted per username and per client address over a
 * sliding window. Once a key reaches its limit, `login` answers 429 with `Retry-After` without
 * checking the password, so guessing costs the attacker the window, not one scrypt.
 *
 * Counts live in this process's memory: each server node limits on its own (behind a load
 * balancer of n nodes an attacker gets at most n times the limit), and a restart forgets them.
 * A success clears its username's count but not its address's, so one valid account cannot be
 * used to reset the count of an address that guesses at others.
 */

/** How many failures each key may have within the window. */
export interface LoginLimits {
  /** Failures per username. Default 5. */
  maxFailuresPerUser: number;
  /** Failures per client address. Default 20. */
  maxFailuresPerAddress: number;
  /** The sliding window, ms. Default 15 minutes. */
  windowMs: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  maxFailuresPerUser: 5,
  maxFailuresPerAddress: 20,
  windowMs: 15 * 60 * 1000,
};

/** Keys tracked at most per kind; past it the oldest go first, so a spray of names cannot exhaust memory. */
const MAX_TRACKED_KEYS = 100_000;

export class LoginLimiter {
  private readonly limits: LoginLimits;
  private readonly now: () => number;
  private readonly byUser = new Map<string, number[]>();
  private readonly byAddress = new Map<string, number[]>();

  constructor(now: () => number, limits: Partial<LoginLimits> = {}) {
    this.now = now;
    this.limits = { ...DEFAULT_LOGIN_LIMITS, ...limits };
  }

  /** Milliseconds until this username may try again from this address; 0 when it may now. */
  retryAfterMs(username: string, address: string): number {
    const now = this.now();
    return Math.max(
      this.waitFor(this.byUser, username, this.limits.maxFailuresPerUser, now),
      this.waitFor(this.byAddress, address, this.limits.maxFailuresPerAddress, now),
    );
  }

  recordFailure(username: string, address: string): void {
    const now = this.now();
    this.add(this.byUser, username, this.limits.maxFailuresPerUser, now);
    this.add(this.byAddress, address, this.limits.maxFailuresPerAddress, now);
  }

  recordSuccess(username: string): void {
    this.byUser.delete(username);
  }

  /** Failures of `key` still inside the window, oldest first. */
  private recent(map: Map<string, number[]>, key: string, now: number): number[] {
    const times = map.get(key);
    if (times === undefined) return [];
    const kept = times.filter((at) => at > now - this.limits.windowMs);
    if (kept.length === 0) map.delete(key);
    else map.set(key, kept);
    return kept;
  }

  private waitFor(map: Map<string, number[]>, key: string, max: number, now: number): number {
    const times = this.recent(map, key, now);
    if (times.length < max) return 0;
    // The oldest failure that keeps the count at the limit leaves the window first.
    return times[times.length - max]! + this.limits.windowMs - now;
  }

  private add(map: Map<string, number[]>, key: string, max: number, now: number): void {
    const times = this.recent(map, key, now);
    times.push(now);
    // Only the newest `max` matter for the limit.
    map.delete(key);
    map.set(key, times.slice(-max));
    if (map.size > MAX_TRACKED_KEYS) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
    }
  }
}
