/**
 * Starting while the database is away (still booting, restarting, behind a restarting pgbouncer):
 * the start waits and tries again instead of failing in its first statement, so nodes and their
 * database can come up in any order. Only faults of the connection are waited out; a wrong
 * password, a missing database or a failing migration ends the start at once.
 */
import type { Logger } from 'pino';

/** Pause before the second attempt; each later pause doubles, up to `WAIT_MAX_DELAY_MS`. */
export const WAIT_FIRST_DELAY_MS = 500;
export const WAIT_MAX_DELAY_MS = 5_000;

/** Error codes of a database that cannot be reached, or cannot answer yet. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  // PostgreSQL: starting up, shutting down, too many connections, terminated by an administrator.
  '57P01',
  '57P02',
  '57P03',
  '53300',
  // MariaDB/MySQL: server gone, too many connections.
  'ER_CON_COUNT_ERROR',
]);

const UNREACHABLE_MESSAGES =
  /Connection terminated|connection closed|Connection lost|socket hang up|timeout exceeded when trying to connect|connect ETIMEDOUT/i;

/** True when `err` says the database could not be reached rather than that a statement is wrong. */
export function isUnreachable(err: unknown): boolean {
  if (err === null || typeof err !== 'object') return false;
  const { code, message, errors, cause } = err as {
    code?: unknown;
    message?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
  // "schema migration failed" carries the driver's error as its cause.
  if (cause !== undefined && cause !== err && isUnreachable(cause)) return true;
  // Node reports a refused dual-stack connect as an AggregateError of the per-address errors.
  if (Array.isArray(errors) && errors.some(isUnreachable)) return true;
  return typeof message === 'string' && UNREACHABLE_MESSAGES.test(message);
}

/**
 * Runs `attempt` until it succeeds, waiting out an unreachable database for at most `waitMs`
 * (0: not at all); logs one warning per failed attempt. Any other error is thrown at once.
 *
 * @example
 * const store = await waitForDatabase(() => openStore({ database }), { waitMs: 60_000, logger });
 */
export async function waitForDatabase<T>(
  attempt: () => Promise<T>,
  { waitMs, logger }: { waitMs: number; logger: Logger },
): Promise<T> {
  const deadline = Date.now() + waitMs;
  let delayMs = WAIT_FIRST_DELAY_MS;
  for (let attemptNo = 1; ; attemptNo++) {
    try {
      return await attempt();
    } catch (err) {
      const left = deadline - Date.now();
      if (!isUnreachable(err) || left <= 0) throw err;
      const pause = Math.min(delayMs, left);
      logger.warn(
        { err, attempt: attemptNo, retryInMs: pause, givesUpInMs: left },
        'database unreachable at start; trying again',
      );
      await new Promise((resolve) => setTimeout(resolve, pause));
      delayMs = Math.min(delayMs * 2, WAIT_MAX_DELAY_MS);
    }
  }
}
