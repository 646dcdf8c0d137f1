/**
 * What the server does with an executor call that carries a wrong access token: beyond the
 * protocol's answer, it leaves a trace an operator can find — a counter per path and a log line
 * per remote address — so a fleet deployed with a stale token is noticed before its runs are.
 */
import type { Logger } from 'pino';

/** One log line per remote address per this window; the failures in between are only counted. */
export const AUTH_FAILURE_LOG_WINDOW_MS = 60_000;

/**
 * Beyond this many remembered addresses, the ones whose window has passed are forgotten, so a
 * scan from many addresses cannot grow the map without end.
 */
const PRUNE_ABOVE = 1_024;

interface AddressState {
  /** When this address last got a log line. */
  loggedAt: number;
  /** Failures since then that got none. */
  suppressed: number;
}

export interface AuthFailureLogDeps {
  clock: { now(): number };
  logger: Pick<Logger, 'warn'>;
  windowMs?: number;
}

/**
 * A rate-limited warning for wrong-token executor calls: the first failure from an address is
 * logged at once, later ones within the window are counted and reported with the next line.
 * The token itself is never logged (it may be a near miss of the real one).
 *
 * @example
 * const failures = new AuthFailureLog({ clock, logger });
 * failures.record('10.0.0.5', '/api/registry');
 * // warn {"remoteAddress":"10.0.0.5","path":"/api/registry","suppressed":0} executor call with a wrong access token
 */
export class AuthFailureLog {
  private readonly byAddress = new Map<string, AddressState>();
  private readonly windowMs: number;

  constructor(private readonly deps: AuthFailureLogDeps) {
    this.windowMs = deps.windowMs ?? AUTH_FAILURE_LOG_WINDOW_MS;
  }

  record(remoteAddress: string, path: string): void {
    const now = this.deps.clock.now();
    const state = this.byAddress.get(remoteAddress);
    if (state !== undefined && now - state.loggedAt < this.windowMs) {
      state.suppressed++;
      return;
    }
    this.deps.logger.warn(
      {
        remoteAddress,
        path,
        suppressed: state?.suppressed ?? 0,
        windowMs: this.windowMs,
      },
      'executor call with a wrong access token (check the accessToken the executors are configured with)',
    );
    this.byAddress.delete(remoteAddress);
    this.byAddress.set(remoteAddress, { loggedAt: now, suppressed: 0 });
    if (this.byAddress.size > PRUNE_ABOVE) this.forgetQuietAddresses(now);
  }

  private forgetQuietAddresses(now: number): void {
    // Insertion order is logging order (entries are re-inserted when logged): the oldest come first.
    for (const [address, state] of this.byAddress) {
      if (now - state.loggedAt < this.windowMs) break;
      this.byAddress.delete(address);
    }
  }
}
