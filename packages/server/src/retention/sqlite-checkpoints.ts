/**
 * The WAL checkpoints of a retention sweep on SQLite, on a thread of their own.
 *
 * Deleting a million records writes hundreds of megabytes of WAL. SQLite folds the WAL back into
 * the database file (a checkpoint, with an fsync) on the commit that crosses 1,000 pages — a
 * commit of the server's own connection, whose driver runs on the server's thread: every few
 * batches, scheduling stalled for tens of milliseconds (a hundred and more on a loaded disk),
 * whatever the size of the batch. During a sweep, the server's connection checkpoints no more
 * (`wal_autocheckpoint = 0`) and a worker thread with its own connection to the same file runs
 * a PASSIVE checkpoint in a pause between two batches, at most once a second: it waits for no
 * reader or writer, so the server's statements go on while it copies and syncs, and a second's
 * worth of deletes costs one sync of the database file (each sync also holds up the disk's other
 * writers, the server's WAL appends among them). After the sweep the connection checkpoints on
 * its own again.
 *
 * If the worker cannot start or fails, the connection simply checkpoints on its own again (as
 * before the sweep): slower to the scheduler, never a WAL that grows without bound.
 *
 * An experiment of bench/retention (`--checkpoint-thread`), off by default: it makes a sweep of
 * a million records faster (no checkpoint on the server's thread), but the lateness it saves did
 * not show above the noise of the shared machine it was measured on.
 */
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { SqliteConnection } from '../store/connection.js';
import { closeSqliteWorker, nextAnswer, startSqliteWorker } from '../store/sqlite-worker.js';

/** Least time between two checkpoints of a sweep. */
export const CHECKPOINT_INTERVAL_MS = 1_000;

/** What one checkpoint did, in WAL frames (pages): SQLite's own counts. */
export interface WalCheckpoint {
  /** Frames in the WAL. */
  walFrames: number;
  /** Frames now in the database file (all of them, unless a reader still needed older ones). */
  checkpointedFrames: number;
}

/** What a sweep does around its batches (the retention monitor calls it). */
export interface SweepCheckpoints {
  /** Before the first batch: the server's connection stops checkpointing on its own. */
  begin(): Promise<void>;
  /**
   * Between two batches: folds the WAL written so far into the database file, off the server's
   * thread, unless the last checkpoint is less than CHECKPOINT_INTERVAL_MS old. Resolves with
   * what it did; undefined when it did nothing (too soon, or the thread is not running).
   */
  checkpoint(): Promise<WalCheckpoint | undefined>;
  /** After the last batch (or a failure): the server's connection checkpoints on its own again. */
  end(): Promise<void>;
}

/**
 * The worker's code (store/sqlite-worker.ts): it opens the database, answers each `checkpoint`
 * with SQLite's counts, and closes the connection on `close`.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
try {
  db = new Database(workerData.file, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  parentPort.postMessage({ type: 'ready' });
} catch (err) {
  parentPort.postMessage({ type: 'failed', message: String((err && err.message) || err) });
}
parentPort.on('message', (message) => {
  if (message === 'close') {
    try { db && db.close(); } catch {}
    parentPort.close();
    return;
  }
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ type: 'checkpointed', log: result.log, checkpointed: result.checkpointed });
  } catch (err) {
    parentPort.postMessage({ type: 'failed', message: String((err && err.message) || err) });
  }
});
`;

type CheckpointAnswer = { type: 'checkpointed'; log: number; checkpointed: number };

/**
 * The sweep checkpoints of the SQLite database behind `conn`; undefined for an in-memory one
 * (no WAL, no file another connection could open).
 */
export function sqliteSweepCheckpoints(
  conn: Pick<SqliteConnection, 'sqlite'>,
  logger: Pick<Logger, 'warn'>,
  intervalMs = CHECKPOINT_INTERVAL_MS,
): SweepCheckpoints | undefined {
  const { sqlite } = conn;
  if (sqlite.memory || sqlite.name === '' || sqlite.name === ':memory:') return undefined;
  return new WorkerCheckpoints(sqlite, logger, intervalMs);
}

class WorkerCheckpoints implements SweepCheckpoints {
  private readonly sqlite: SqliteConnection['sqlite'];
  private readonly logger: Pick<Logger, 'warn'>;
  private worker: Worker | undefined;
  /** Resolves once the worker has exited (however: closed, failed, terminated). */
  private exited: Promise<void> = Promise.resolve();
  /** The connection's own `wal_autocheckpoint` before the sweep, restored after it. */
  private autocheckpoint: number | undefined;
  private readonly intervalMs: number;
  /** `performance.now()` when the last checkpoint started. */
  private lastCheckpointAt = Number.NEGATIVE_INFINITY;

  constructor(sqlite: SqliteConnection['sqlite'], logger: Pick<Logger, 'warn'>, intervalMs: number) {
    this.sqlite = sqlite;
    this.logger = logger;
    this.intervalMs = intervalMs;
  }

  async begin(): Promise<void> {
    if (this.worker !== undefined) return;
    // Never what keeps the process alive: a sweep cut short by a stop still ends it.
    const started = await startSqliteWorker(WORKER_SOURCE, { file: this.sqlite.name });
    if ('failure' in started) {
      this.logger.warn(
        { reason: started.failure },
        'retention: the checkpoint thread did not start; the server checkpoints the WAL itself',
      );
      return;
    }
    this.worker = started.worker;
    this.exited = started.exited;
    this.autocheckpoint = Number(this.sqlite.pragma('wal_autocheckpoint', { simple: true }));
    this.sqlite.pragma('wal_autocheckpoint = 0');
  }

  async checkpoint(): Promise<WalCheckpoint | undefined> {
    const worker = this.worker;
    if (worker === undefined || performance.now() - this.lastCheckpointAt < this.intervalMs) return undefined;
    this.lastCheckpointAt = performance.now();
    worker.postMessage('checkpoint');
    const answer = await nextAnswer<CheckpointAnswer>(worker);
    if (answer.type === 'checkpointed') {
      return { walFrames: answer.log, checkpointedFrames: answer.checkpointed };
    }
    this.logger.warn(
      { reason: answer.message },
      'retention: a checkpoint on its own thread failed; the server checkpoints the WAL itself',
    );
    await this.end();
    return undefined;
  }

  async end(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (this.autocheckpoint !== undefined) {
      this.sqlite.pragma(`wal_autocheckpoint = ${this.autocheckpoint}`);
      this.autocheckpoint = undefined;
    }
    if (worker === undefined) return;
    await closeSqliteWorker(worker, 'close', this.exited);
  }
}
