/**
 * The WAL checkpoints of a SQLite store, on a thread of their own.
 *
 * In WAL mode SQLite folds the log back into the database file (a checkpoint: copy the pages,
 * sync the log and the file) on the commit that crosses `wal_autocheckpoint` pages (1,000), in
 * the committing connection's thread. On SQLite that thread is the server's: at 10,000 fires a
 * second (11,000 pages of log a second) one came ten times a second, each holding the event loop
 * for the copy and two syncs — a few milliseconds on a quiet disk, a hundred and more on a busy
 * one — and with it every claim, send and result behind it (bench/fire: in one 30-second run of three, claims fell
 * from 4.5 s ahead to 1–3 s late and stayed there; with no checkpoint on the server's thread, none
 * did in any run).
 *
 * So the server's connection checkpoints no more (`wal_autocheckpoint = 0`) and a worker thread
 * with its own connection to the same file does it, every `intervalMs`:
 * - a PASSIVE checkpoint, which waits for no reader or writer: the server's statements go on
 *   while it copies and syncs (20–50 ms a second at 10,000 fires a second, which write about
 *   40 MB of log a second);
 * - a passive checkpoint copies the frames that were in the log when it began, and at a high
 *   write rate new ones always come in meanwhile, so the log is never wholly copied and SQLite
 *   never starts it over: it would grow without bound. When the log holds `restartFrames` frames
 *   or more, a RESTART checkpoint follows at once: it takes the write lock for the little the
 *   passive one left plus the syncs (10–20 ms at that rate: the server's next write waits that
 *   long, once per `restartFrames` frames instead of a whole checkpoint once per 1,000), and the
 *   next write starts the log over. It waits at most `restartWaitMs` for a writer or a reader to
 *   finish (a long report read never holds the server's writes up): when it cannot, the log
 *   starts over after a later one.
 *
 * If the thread cannot start, or fails, the server's connection checkpoints on its own again
 * (slower to the scheduler, never a log that grows without bound). An in-memory database has no
 * WAL and no checkpointer.
 *
 * The thread's code is `sqlite-checkpointer-entry.ts`, compiled beside this file. When the server
 * runs from its sources (a test runner), the built one is used: `npm run build` first.
 */
import type { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { Logger } from 'pino';
import { closeSqliteWorker, sqliteWorkerEntry, startSqliteWorker } from './sqlite-worker.js';

export interface SqliteCheckpointerOptions {
  /** Time between two checkpoints. Default 1,000 ms. */
  intervalMs?: number;
  /** Frames in the log from which a checkpoint starts it over (RESTART). Default 16,384 (64 MiB of 4 KiB pages). */
  restartFrames?: number;
  /** How long a RESTART checkpoint waits for a writer or a reader before it gives up for this interval. Default 25 ms. */
  restartWaitMs?: number;
}

export const CHECKPOINTER_DEFAULTS = {
  intervalMs: 1_000,
  restartFrames: 16_384,
  restartWaitMs: 25,
} as const satisfies Required<SqliteCheckpointerOptions>;

/** What one checkpoint did, in frames (pages): SQLite's own counts. */
export interface WalCheckpoint {
  /** PASSIVE, or RESTART when the passive one found `restartFrames` or more in the log. */
  mode: 'PASSIVE' | 'RESTART';
  /** Frames in the log when it ran (0 once a restart has let the log start over). */
  walFrames: number;
  /** Frames of those now in the database file. */
  checkpointedFrames: number;
  /** A RESTART that could not take the lock within `restartWaitMs` (the log starts over after a later one). */
  busy: boolean;
}

/** What the thread is started with (the options, and the file). */
export interface SqliteCheckpointerThreadData extends Required<SqliteCheckpointerOptions> {
  file: string;
}

/** What the thread posts: each checkpoint's counts (SQLite's own names), or that it failed. */
export type CheckpointerAnswer =
  | { type: 'checkpointed'; mode: WalCheckpoint['mode']; busy: boolean; log: number; checkpointed: number }
  | { type: 'failed'; message: string };

/** The one message to the thread: it stops checkpointing and closes the connection. */
export type CheckpointerCall = 'close';

/** Checkpoints one SQLite file on a worker thread while it runs; see the file comment. */
export class SqliteCheckpointer {
  private readonly sqlite: BetterSqlite3.Database;
  private logger: Pick<Logger, 'warn'> | undefined;
  private onCheckpoint: ((checkpoint: WalCheckpoint) => void) | undefined;
  private readonly options: Required<SqliteCheckpointerOptions>;
  private worker: Worker | undefined;
  private exited: Promise<void> = Promise.resolve();
  /** The connection's own `wal_autocheckpoint` while the thread runs, restored when it stops. */
  private autocheckpoint: number | undefined;
  private latest: WalCheckpoint | undefined;
  private closed = false;

  constructor(sqlite: BetterSqlite3.Database, options: SqliteCheckpointerOptions = {}) {
    this.sqlite = sqlite;
    this.options = { ...CHECKPOINTER_DEFAULTS, ...options };
  }

  /** The last checkpoint's counts; undefined before the first. */
  get last(): WalCheckpoint | undefined {
    return this.latest;
  }

  /** Whether the thread is checkpointing (false before `start`, after `close` or a failure). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /**
   * Starts the thread, then stops the connection's own checkpoints. Resolves false (and the
   * connection keeps checkpointing itself) when the thread cannot start. `logger` is told when
   * it cannot, or fails later; `onCheckpoint` of each checkpoint (the metrics).
   */
  async start(
    logger: Pick<Logger, 'warn'>,
    onCheckpoint?: (checkpoint: WalCheckpoint) => void,
  ): Promise<boolean> {
    if (this.worker !== undefined || this.closed) return this.worker !== undefined;
    this.logger = logger;
    this.onCheckpoint = onCheckpoint;
    const { intervalMs, restartFrames, restartWaitMs } = this.options;
    const data: SqliteCheckpointerThreadData = {
      file: this.sqlite.name,
      intervalMs,
      restartFrames,
      restartWaitMs,
    };
    const started = await startSqliteWorker(sqliteWorkerEntry('sqlite-checkpointer-entry.js'), { ...data });
    if ('failure' in started) {
      logger.warn(
        { reason: started.failure },
        'the WAL checkpoint thread did not start; the server checkpoints the WAL itself',
      );
      return false;
    }
    if (this.closed) {
      await closeSqliteWorker(started.worker, 'close' satisfies CheckpointerCall, started.exited);
      return false;
    }
    const { worker } = started;
    this.worker = worker;
    this.exited = started.exited;
    worker.on('message', (answer: CheckpointerAnswer) => this.answered(answer));
    worker.on('error', this.onError);
    worker.on('exit', this.onExit);
    this.autocheckpoint = Number(this.sqlite.pragma('wal_autocheckpoint', { simple: true }));
    this.sqlite.pragma('wal_autocheckpoint = 0');
    return true;
  }

  /** Ends the thread and gives the checkpoints back to the connection (before it closes). */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.detach();
    if (worker === undefined) return;
    worker.off('exit', this.onExit);
    worker.off('error', this.onError);
    await closeSqliteWorker(worker, 'close' satisfies CheckpointerCall, this.exited);
  }

  private readonly onError = (err: Error) => this.failed(err.message);
  private readonly onExit = (code: number) => this.failed(`the thread exited (${code})`);

  private answered(answer: CheckpointerAnswer): void {
    if (answer.type === 'failed') {
      this.failed(answer.message);
      return;
    }
    this.latest = {
      mode: answer.mode,
      walFrames: answer.log,
      checkpointedFrames: answer.checkpointed,
      busy: answer.busy,
    };
    this.onCheckpoint?.(this.latest);
  }

  private failed(reason: string): void {
    const worker = this.worker;
    if (worker === undefined) return;
    this.detach();
    this.logger?.warn({ reason }, 'the WAL checkpoint thread failed; the server checkpoints the WAL itself');
    worker.off('exit', this.onExit);
    worker.off('error', this.onError);
    void worker.terminate();
  }

  /** Forgets the thread and lets the connection checkpoint on its own again. */
  private detach(): void {
    this.worker = undefined;
    if (this.autocheckpoint !== undefined && this.sqlite.open) {
      this.sqlite.pragma(`wal_autocheckpoint = ${this.autocheckpoint}`);
    }
    this.autocheckpoint = undefined;
  }
}
