/**
 * Long reads of a SQLite store, on a thread of their own.
 *
 * better-sqlite3 runs every statement on the thread that calls it, and on SQLite that thread is
 * the server's: a statement that reads a day of fire records (the reports monitor's, every
 * minute) holds the event loop for as long as it reads — 300 ms at 100,000 records, and it grows
 * with the day — and every fire due meanwhile waits (bench/retention's control arm showed it).
 * Here a worker thread opens its own read-only connection to the same file and runs such
 * statements there. In WAL mode a reader never waits for the writer nor holds it up, so the
 * server's thread goes on claiming, dispatching and writing results while the read runs; the
 * reader sees the last committed state, as the server's own connection would. On Linux the
 * thread runs at the lowest CPU priority: on a busy machine the figures wait for the scheduler.
 *
 * The thread starts on the first read and ends after a while without any, so a server that reads
 * nothing long holds no thread. If it cannot start (or dies), the read runs on the server's
 * connection, as it would without it.
 *
 * The thread's code is `sqlite-reader-thread-entry.ts`, compiled beside this file. When the server
 * runs from its sources (a test runner), the built one is used: `npm run build` first.
 */
import type { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.js';
import { closeSqliteWorker, sqliteWorkerEntry, startSqliteWorker } from './sqlite-worker.js';

/** How long the thread stays up without reads before it is ended. */
const IDLE_END_MS = 30_000;

/** What the thread is started with. */
export interface SqliteReaderThreadData {
  file: string;
  busyTimeoutMs: number;
}

/** A message to the thread: a read, or the end of the connection. */
export type SqliteReadCall =
  | { type: 'read'; seq: number; sql: string; parameters: readonly unknown[] }
  | { type: 'close' };

/** The thread's answer to one read: its rows, or the error. */
export type SqliteReadAnswer =
  | { type: 'rows'; seq: number; rows: unknown[] }
  | { type: 'error'; seq: number; message: string };

interface PendingRead {
  resolve: (rows: unknown[]) => void;
  reject: (err: Error) => void;
}

/** Runs read-only statements of one SQLite file on a worker thread. */
export class SqliteReaderThread {
  private readonly file: string;
  private readonly busyTimeoutMs: number;
  private readonly fallback: Pick<Kysely<Database>, 'executeQuery'>;
  private worker: Promise<Worker | undefined> | undefined;
  private readonly pending = new Map<number, PendingRead>();
  private seq = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;

  /** `fallback`: the server's own connection, for when the thread is not there. */
  constructor(sqlite: BetterSqlite3.Database, fallback: Pick<Kysely<Database>, 'executeQuery'>) {
    this.file = sqlite.name;
    this.busyTimeoutMs = Number(sqlite.pragma('busy_timeout', { simple: true }));
    this.fallback = fallback;
  }

  /** The rows of `query` (a SELECT compiled by Kysely), read on the thread. */
  async read<R>(query: CompiledQuery<R>): Promise<R[]> {
    const worker = this.closed ? undefined : await this.workerOf();
    if (worker === undefined) return (await this.fallback.executeQuery(query)).rows;
    clearTimeout(this.idleTimer);
    const seq = ++this.seq;
    try {
      return (await new Promise<unknown[]>((resolve, reject) => {
        this.pending.set(seq, { resolve, reject });
        worker.postMessage({
          type: 'read',
          seq,
          sql: query.sql,
          parameters: query.parameters,
        } satisfies SqliteReadCall);
      })) as R[];
    } finally {
      if (this.pending.size === 0) this.endWhenIdle();
    }
  }

  /** Ends the thread (a store's close); later reads run on the server's connection. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    await this.end();
  }

  private workerOf(): Promise<Worker | undefined> {
    this.worker ??= this.start();
    return this.worker;
  }

  private async start(): Promise<Worker | undefined> {
    const data: SqliteReaderThreadData = { file: this.file, busyTimeoutMs: this.busyTimeoutMs };
    const started = await startSqliteWorker(sqliteWorkerEntry('sqlite-reader-thread-entry.js'), { ...data });
    if ('failure' in started) return undefined;
    const { worker } = started;
    worker.on('message', (answer: SqliteReadAnswer) => this.answered(answer));
    worker.on('error', (err) => this.lost(worker, err));
    worker.on('exit', (code) => this.lost(worker, new Error(`the reader thread exited (${code})`)));
    return worker;
  }

  private answered(answer: SqliteReadAnswer): void {
    const read = this.pending.get(answer.seq);
    if (read === undefined) return;
    this.pending.delete(answer.seq);
    if (answer.type === 'rows') read.resolve(answer.rows);
    else read.reject(new Error(answer.message));
  }

  /** The thread died: its reads fail (the caller's next sweep reads again); the next read starts another. */
  private lost(worker: Worker, err: Error): void {
    void this.worker?.then((current) => {
      if (current !== worker) return;
      this.worker = undefined;
      for (const read of this.pending.values()) read.reject(err);
      this.pending.clear();
    });
  }

  private endWhenIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.pending.size === 0) void this.end();
    }, IDLE_END_MS);
    this.idleTimer.unref();
  }

  private async end(): Promise<void> {
    const started = this.worker;
    this.worker = undefined;
    const worker = await started;
    if (worker === undefined) return;
    worker.removeAllListeners('exit');
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    await closeSqliteWorker(worker, { type: 'close' } satisfies SqliteReadCall, exited);
    for (const read of this.pending.values()) read.reject(new Error('the reader thread was closed'));
    this.pending.clear();
  }
}
