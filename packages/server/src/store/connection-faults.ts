/**
 * What a pool does with a connection the database drops while it sits idle (a terminated backend,
 * a restarted PostgreSQL or pgbouncer, a killed MariaDB thread): the driver removes it, and we
 * only report it. Such a fault is weather, not death: without a listener the driver's `error`
 * event would end the process. The statements in flight fail on their own and are retried by
 * whoever issued them (the scheduler's next tick, the monitors' next round).
 */
import type { Logger } from 'pino';

/** Called with each error of an idle pooled connection; never throws. */
export type ConnectionErrorHandler = (error: Error) => void;

/** Shortest gap between two warnings about dropped connections; a restart drops the whole pool at once. */
export const CONNECTION_WARN_INTERVAL_MS = 10_000;

/**
 * A handler that logs a warning at most once per `intervalMs`, counting what it held back.
 *
 * @example
 * openStore({ database, onConnectionError: warnConnectionErrors(logger) });
 */
export function warnConnectionErrors(
  logger: Logger,
  intervalMs = CONNECTION_WARN_INTERVAL_MS,
  now: () => number = Date.now,
): ConnectionErrorHandler {
  let lastWarnAt = Number.NEGATIVE_INFINITY;
  let heldBack = 0;
  return (error) => {
    const at = now();
    if (at - lastWarnAt < intervalMs) {
      heldBack++;
      return;
    }
    logger.warn(
      { err: error, droppedSinceLastWarning: heldBack },
      'database connection lost; the pool drops it and opens a new one when needed',
    );
    lastWarnAt = at;
    heldBack = 0;
  };
}
