/**
 * The hot statements of a SQLite store (the claim, the due load, the send fence, the dispatch
 * marks and the results) on a thread of their own.
 *
 * better-sqlite3 runs a statement on the thread that calls it. On SQLite those statements were
 * half of the server's thread at 10,000 fires a second (bench/fire's profile: the claim's insert
 * and advance, the results' and marks' updates, their commits), so the event loop that claims,
 * routes and sends had the other half, and a second core stood idle. Here a worker thread opens
 * its own connection to the same file and runs them; the server's thread builds each batch's
 * arguments, posts them, and goes on sending while the statement runs. The thread runs the same
 * functions of the same modules as the server's connection would (hot/*.ts), one message at a
 * time, in the order they were posted (two queues here choose that order; see PRIORITY), each
 * write in a `BEGIN IMMEDIATE` transaction of its own: the guarantees written at the top of each
 * hot module hold as they are. Everything else (the
 * API, the sweeps, the workflows) stays on the server's connection; SQLite lets one writer at a
 * time, and each side waits for the other on `busy_timeout`, a hot transaction lasting a few
 * milliseconds.
 *
 * The server starts the thread (an in-memory database has none: a second connection would open
 * another database). If it cannot start, or dies, the statements run on the server's connection,
 * as they would without it; a call in flight when it died fails as a statement would.
 *
 * The thread's code is `sqlite-hot-thread-entry.ts`, compiled beside this file. When the server
 * runs from its sources (a test runner), the built one is used: `npm run build` first.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { Logger } from 'pino';
import { closeSqliteWorker, startSqliteWorker } from './sqlite-worker.js';

/**
 * What the thread runs (hot/*.ts; the entry maps each to its function), and `exec`: one write of
 * the query builder's, routed here by sqlite-hot-dialect.ts.
 */
export type SqliteHotOp = 'claim' | 'load' | 'fence' | 'mark' | 'finish' | 'exec';

/** A message to the thread. */
export interface SqliteHotCall {
  seq: number;
  op: SqliteHotOp;
  arg: unknown;
}

/** The thread's answer to one call. */
export type SqliteHotAnswer =
  | { seq: number; ok: true; result: unknown }
  | { seq: number; ok: false; message: string; code?: string };

/** What the thread is started with. */
export interface SqliteHotThreadData {
  file: string;
  busyTimeoutMs: number;
  /** The checkpoint thread runs: this connection leaves the WAL to it, as the server's does. */
  checkpointing: boolean;
}

interface PendingCall {
  resolve: (result: never) => void;
  reject: (err: Error) => void;
}

interface QueuedCall extends PendingCall {
  op: SqliteHotOp;
  arg: unknown;
}

/**
 * Two queues to the thread. A send waits on its load and its fence, and the claim must stay
 * ahead of the fires; marks and results only record what happened (in parts: connection.ts
 * `sqliteHotParts`). When both wait they take turns, so the loads and fences of a burst wait for
 * at most one part of the marks and results of the second before, not for all of them (the thread
 * runs one statement at a time and is busy most of each second at 10,000 fires a second), and
 * the marks and results are never starved: a result the executor waits on longer than its
 * callback timeout is sent again, which costs more than it waited.
 */
const PRIORITY: Record<SqliteHotOp, 0 | 1> = {
  load: 0,
  fence: 0,
  claim: 0,
  // A heartbeat, a lease or an API edit: few, small, and someone waits on each.
  exec: 0,
  mark: 1,
  finish: 1,
};

/**
 * Calls posted to the thread and not yet answered, at most. Four keep it busy (the next is there
 * when one ends) while what waits here can still be overtaken by a more urgent call.
 */
const IN_FLIGHT = 4;

/** The module the thread runs, built beside this one (or, from the sources, in dist/). */
function entryUrl(): URL {
  const beside = new URL('./sqlite-hot-thread-entry.js', import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  return new URL('../../dist/store/sqlite-hot-thread-entry.js', import.meta.url);
}

/** Runs the hot statements of one SQLite file on a worker thread; see the file comment. */
export class SqliteHotThread {
  private readonly file: string;
  private readonly busyTimeoutMs: number;
  private worker: Worker | undefined;
  private exited: Promise<void> = Promise.resolve();
  private readonly pending = new Map<number, PendingCall>();
  /** Calls not yet posted, by priority. */
  private readonly queued: QueuedCall[][] = [[], []];
  /** The queue whose turn it is when both wait. */
  private turn: 0 | 1 = 0;
  private seq = 0;
  private logger: Pick<Logger, 'warn'> | undefined;
  private closed = false;

  constructor(sqlite: BetterSqlite3.Database) {
    this.file = sqlite.name;
    this.busyTimeoutMs = Number(sqlite.pragma('busy_timeout', { simple: true }));
  }

  /** Whether calls go to the thread (false before `start`, after `close` or a failure). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /**
   * Starts the thread. Resolves false (the statements stay on the server's connection) when it
   * cannot start; `logger` is told then, and if the thread fails later.
   */
  async start(logger: Pick<Logger, 'warn'>, options: { checkpointing: boolean }): Promise<boolean> {
    if (this.worker !== undefined || this.closed) return this.worker !== undefined;
    this.logger = logger;
    const data: SqliteHotThreadData = {
      file: this.file,
      busyTimeoutMs: this.busyTimeoutMs,
      checkpointing: options.checkpointing,
    };
    const started = await startSqliteWorker(entryUrl(), { ...data });
    if ('failure' in started) {
      logger.warn(
        { reason: started.failure },
        'the hot statements thread did not start; the server runs them on its own thread',
      );
      return false;
    }
    if (this.closed) {
      await closeSqliteWorker(started.worker, { type: 'close' }, started.exited);
      return false;
    }
    const { worker } = started;
    this.worker = worker;
    this.exited = started.exited;
    worker.on('message', this.onAnswer);
    worker.on('error', this.onError);
    worker.on('exit', this.onExit);
    return true;
  }

  /** Runs `op` on the thread; rejects as the statement would have failed. */
  run<T>(op: SqliteHotOp, arg: unknown): Promise<T> {
    if (this.worker === undefined)
      return Promise.reject(new Error('the hot statements thread is not running'));
    return new Promise<T>((resolve, reject) => {
      this.queued[PRIORITY[op]]!.push({ op, arg, resolve: resolve as (result: never) => void, reject });
      this.pump();
    });
  }

  /** Whether no call is on the thread or waiting for it (a small call may then run on the server's connection). */
  get idle(): boolean {
    return this.pending.size === 0 && this.waiting === 0;
  }

  /** Calls waiting to be posted to the thread (a metric of how far behind it is). */
  get waiting(): number {
    return this.queued[0]!.length + this.queued[1]!.length;
  }

  /** Posts the most urgent waiting calls while fewer than IN_FLIGHT are on the thread. */
  private pump(): void {
    const worker = this.worker;
    if (worker === undefined) return;
    while (this.pending.size < IN_FLIGHT) {
      const [urgent, later] = this.queued as [QueuedCall[], QueuedCall[]];
      const queue = later.length === 0 || (urgent.length > 0 && this.turn === 0) ? urgent : later;
      const call = queue.shift();
      if (call === undefined) return;
      this.turn = queue === urgent ? 1 : 0;
      const seq = ++this.seq;
      this.pending.set(seq, call);
      worker.postMessage({ seq, op: call.op, arg: call.arg } satisfies SqliteHotCall);
      // A thread with calls in flight keeps the process alive until they are answered.
      if (this.pending.size === 1) worker.ref();
    }
  }

  /** Ends the thread once the calls posted so far are answered (before the store closes). */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (worker === undefined) return;
    this.worker = undefined;
    worker.off('error', this.onError);
    worker.off('exit', this.onExit);
    // The close message queues behind the calls in flight: they are answered first. Calls not
    // yet posted fail as on a closed connection.
    this.rejectQueued('the hot statements thread closed');
    await closeSqliteWorker(worker, { type: 'close' }, this.exited);
    this.rejectAll('the hot statements thread closed');
  }

  private readonly onAnswer = (answer: SqliteHotAnswer) => {
    const call = this.pending.get(answer.seq);
    if (call === undefined) return;
    this.pending.delete(answer.seq);
    this.pump();
    if (this.pending.size === 0 && this.worker !== undefined && !this.closed) this.worker.unref();
    if (answer.ok) call.resolve(answer.result as never);
    else
      call.reject(
        Object.assign(new Error(answer.message), answer.code === undefined ? {} : { code: answer.code }),
      );
  };

  private readonly onError = (err: Error) => this.failed(err.message);
  private readonly onExit = (code: number) => this.failed(`the thread exited (${code})`);

  private failed(reason: string): void {
    const worker = this.worker;
    if (worker === undefined) return;
    this.worker = undefined;
    this.logger?.warn({ reason }, 'the hot statements thread failed; the server runs them on its own thread');
    worker.off('error', this.onError);
    worker.off('exit', this.onExit);
    void worker.terminate();
    this.rejectAll(`the hot statements thread failed: ${reason}`);
    this.rejectQueued(`the hot statements thread failed: ${reason}`);
  }

  private rejectAll(message: string): void {
    for (const call of this.pending.values()) call.reject(new Error(message));
    this.pending.clear();
  }

  private rejectQueued(message: string): void {
    for (const queue of this.queued) {
      for (const call of queue.splice(0)) call.reject(new Error(message));
    }
  }
}
