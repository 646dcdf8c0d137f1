/**
 * A statement that gets no answer at all — the database host stalled or a network path dropped
 * its packets without a reset — would otherwise wait for the operating system's TCP timeout
 * (about 15 minutes on Linux) and hold everything queued behind it: the scheduler's tick, a
 * transaction, the pool slot. The drivers' own query timeouts answer the caller but keep the
 * silent connection in use (a later statement on it is stuck the same way), so the watchdog
 * destroys the connection's socket instead: the statement fails with a clear error, the pool
 * drops the connection, and the next statement opens a new one.
 *
 * It is off while migrations run (an index build on a large table may take minutes with the
 * socket quiet), and on from then on.
 */
import { performance } from 'node:perf_hooks';
import type { Connection as MysqlCoreConnection } from 'mysql2';
import type pg from 'pg';

interface Socket {
  destroy(err?: Error): void;
  once(event: 'close', listener: () => void): void;
}

/**
 * The limit in force (a statement without an answer after `timeoutMs` ends its connection; 0 =
 * off), and the sockets of the pool's idle connections. A statement without an answer says the
 * path to the database went silent, and the connections idle in the pool went silent with it:
 * each would cost the statement that takes it the whole limit again, one after another. So an
 * expired statement closes them all at once; the next statements open fresh connections. A
 * connection that was in use then (between two statements of a transaction, or handed back to
 * the pool just after) is not trusted either: the first statement it is given afterwards finds
 * it has not answered since, closes it and fails at once, and its caller tries again.
 */
export class StatementWatchdog {
  timeoutMs = 0;
  /** `performance.now()` when a statement last got no answer. */
  lastExpiredAt = Number.NEGATIVE_INFINITY;
  readonly #idle = new Map<object, Socket>();
  readonly #watched = new WeakSet<Socket>();

  /** `connection` went back to the pool; its socket is `socket`. */
  idle(connection: object, socket: Socket | undefined): void {
    if (socket === undefined) return;
    this.#idle.set(connection, socket);
    if (this.#watched.has(socket)) return;
    // One listener per socket for its life, not one per release.
    this.#watched.add(socket);
    socket.once('close', () => {
      if (this.#idle.get(connection) === socket) this.#idle.delete(connection);
    });
  }

  /** `connection` was taken from the pool. */
  busy(connection: object): void {
    this.#idle.delete(connection);
  }

  /** Closes the socket of the statement that got no answer, and those of every idle connection. */
  expire(socket: Socket, err: StatementTimeoutError): void {
    this.lastExpiredAt = performance.now();
    socket.destroy(err);
    const idle = [...this.#idle.values()];
    this.#idle.clear();
    for (const other of idle) other.destroy(err);
  }
}

export class StatementTimeoutError extends Error {
  constructor(timeoutMs: number, untrusted = false) {
    super(
      untrusted
        ? `database connection has not answered since a statement got no answer within ${timeoutMs} ms; it was closed`
        : `database statement got no answer within ${timeoutMs} ms; its connection was closed`,
    );
    this.name = 'StatementTimeoutError';
  }
}

type Callback = (...results: unknown[]) => void;

/**
 * Wraps `query` so that each call in flight longer than the watchdog's limit expires (which
 * destroys `socket`, and the idle connections' with it), and a call on a connection that has not
 * answered since the last expiry destroys `socket` first; the call's own promise or callback then
 * fails as the driver reports it.
 */
function watched<F extends (...args: never[]) => unknown>(
  query: F,
  watchdog: StatementWatchdog,
  socket: Socket,
): F {
  // When this connection last answered (opened: its handshake was answered).
  let answeredAt = performance.now();
  return function (this: unknown, ...args: unknown[]) {
    const limit = watchdog.timeoutMs;
    if (limit <= 0) return query.apply(this, args as never[]);
    // Silent since a statement got no answer: closed now, so this statement fails at once.
    if (answeredAt < watchdog.lastExpiredAt) socket.destroy(new StatementTimeoutError(limit, true));
    const timer = setTimeout(() => watchdog.expire(socket, new StatementTimeoutError(limit)), limit);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      answeredAt = performance.now();
    };
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (...results: unknown[]) => {
        done();
        (last as Callback)(...results);
      };
      return query.apply(this, args as never[]);
    }
    const result = query.apply(this, args as never[]) as { then?: unknown; once?: unknown } | undefined;
    if (result !== null && typeof result === 'object' && typeof result.once === 'function') {
      // A command object (mysql2's Query, which a pool passes in and whose `then` throws; a pg
      // submittable): an emitter that ends or fails.
      const emitter = result as unknown as { once(event: string, fn: () => void): void };
      emitter.once('end', done);
      emitter.once('error', done);
    } else if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
      (result as Promise<unknown>).then(done, done);
    } else {
      done();
    }
    return result;
  } as unknown as F;
}

/** The socket under a PostgreSQL client. */
export function postgresSocket(client: pg.ClientBase): Socket | undefined {
  return (client as unknown as { connection?: { stream?: Socket } }).connection?.stream;
}

/** The socket under a MySQL connection. */
export function mysqlSocket(connection: MysqlCoreConnection): Socket | undefined {
  return (connection as unknown as { stream?: Socket }).stream;
}

/** Watches every statement of a PostgreSQL client. */
export function watchPostgresClient(client: pg.PoolClient, watchdog: StatementWatchdog): void {
  const socket = postgresSocket(client);
  if (socket === undefined) return;
  client.query = watched(client.query.bind(client), watchdog, socket) as typeof client.query;
}

/** Watches every statement of a MySQL connection. */
export function watchMysqlConnection(connection: MysqlCoreConnection, watchdog: StatementWatchdog): void {
  const target = connection as unknown as { query: (...args: never[]) => unknown };
  const socket = mysqlSocket(connection);
  if (socket === undefined) return;
  // The socket, not `destroy()`: that ends the stream politely, which a silent peer never answers.
  target.query = watched(target.query.bind(connection), watchdog, socket);
}
