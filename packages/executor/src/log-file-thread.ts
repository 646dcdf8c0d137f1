/**
 * The thread that writes job log files. A no-op run is mostly its log file (open, write its
 * lines, close): done through Node's asynchronous `fs` calls, each of those steps is a round
 * trip through the libuv thread pool, and together they cost a few times the run itself. Here
 * the writers' text of the turns of the event loop within {@link FLUSH_DELAY_MS} goes to one
 * worker thread in one message (of every turn since the last answer, while the worker is busy
 * with a message), and the worker makes the plain synchronous calls, many files per message. The
 * event loop never waits on the disk, and the disk work costs no more than its system calls.
 *
 * The worker starts on the first write and ends after a while without any, so an executor that
 * is idle (or a short-lived JobLogs) holds no thread. It is unref'd: it never keeps the process
 * alive; whoever needs lines on disk waits for `settled()` (a writer's `close` does).
 *
 * The worker's code is `log-file-thread-entry.ts`, compiled beside this file. When the executor
 * runs from its sources (a test runner), the built one is used: `npm run build` first.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { CLOSE_FLAG, FIRST_FLAG, type JobLogLayout } from './log-file-layout.js';

/** A file's share of one flush: the text to append, and whether to close it afterwards. */
export interface LogFileWrite {
  /** The writer's id: the worker keeps one descriptor open per id until a write closes it. */
  id: number;
  /** The run's; the `file-per-day` layout's index names it. */
  logId: number;
  path: string;
  text: string;
  close: boolean;
  /** The run's first text (`file-per-day`: marked in the index so a reader stops there). */
  first: boolean;
}

/** Something with text to flush: asked for it once per flush, at the first flush after it was marked. */
export interface LogFileSource {
  takeWrite(): LogFileWrite;
}

/**
 * How long text waits for more before it goes to the worker. Each message wakes both threads (the
 * worker for it, the event loop for its answer); a message a turn was 10–15 % of an executor's
 * CPU a run at 15,000 runs a second (docs/benchmarks.md, *Executor*). The lines keep the time they
 * were logged at; only their arrival on disk waits, and `settled()` waits for it.
 */
export const FLUSH_DELAY_MS = 5;

/** How long the worker stays up without writes before it is ended. */
const IDLE_END_MS = 10_000;

/**
 * One flush's writes, as the worker gets them: flat arrays and one string (`texts`, each write's
 * `lengths[i]` characters in turn); `flags[i]` has {@link CLOSE_FLAG} when the write closes its
 * file and {@link FIRST_FLAG} when it is its run's first text.
 */
export interface LogFileBatch {
  seq: number;
  layout: JobLogLayout;
  ids: Float64Array;
  logIds: Float64Array;
  paths: string[];
  texts: string;
  lengths: Uint32Array;
  flags: Uint8Array;
}

/** The worker's answer to one batch: the writes that failed, with their file. */
export interface LogFileAnswer {
  seq: number;
  errors: { path: string; message: string }[];
}

/** The module the worker runs, built beside this one (or, from the sources, in dist/). */
function entryUrl(): URL {
  const beside = new URL('./log-file-thread-entry.js', import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  return new URL('../dist/log-file-thread-entry.js', import.meta.url);
}

interface Batch {
  seq: number;
  done: Promise<void>;
  resolve: () => void;
}

export class LogFileThread {
  private worker: Worker | undefined;
  private dirty: LogFileSource[] = [];
  /** The batch gathering the writes of the coming flush. */
  private gathering: Batch | undefined;
  /** Batches sent and not answered, oldest first. */
  private readonly sent: Batch[] = [];
  private seq = 0;
  private flushScheduled = false;
  /** Messages posted to the worker so far (each carries the writes of one or more turns). */
  messages = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  /**
   * Writers with text written and not closed: the worker holds their files open (`file-per-run`)
   * or their runs' place in the day's index (`file-per-day`), so it is ended only when there are none.
   */
  private readonly open = new Set<number>();

  /**
   * `layout` says how the worker writes: a file a writer (`file-per-run`), or each date folder's
   * writes appended to its shared file and index in one go (`file-per-day`), which keeps no file
   * open between messages.
   */
  constructor(
    private readonly logger: Logger,
    private readonly layout: JobLogLayout = 'file-per-run',
  ) {}

  /** Takes `source`'s text at the next flush (within FLUSH_DELAY_MS); returns when that write is done. */
  mark(source: LogFileSource): Promise<void> {
    this.dirty.push(source);
    return this.gather().done;
  }

  /** Resolves once every write marked so far is done (or failed, which is logged). */
  settled(): Promise<void> {
    if (this.gathering !== undefined) return this.gathering.done;
    const last = this.sent.at(-1);
    return last === undefined ? Promise.resolve() : last.done;
  }

  /** Waits for the writes marked so far, then ends the worker (a later write starts a new one). */
  async close(): Promise<void> {
    await this.settled();
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const worker = this.worker;
    this.worker = undefined;
    this.open.clear();
    await worker?.terminate();
  }

  private gather(): Batch {
    if (this.gathering !== undefined) return this.gathering;
    let resolve!: () => void;
    const done = new Promise<void>((r) => {
      resolve = r;
    });
    const batch = { seq: ++this.seq, done, resolve };
    this.gathering = batch;
    // One batch in flight at a time: while the worker writes one, the next gathers the writes of
    // every turn until its answer (and FLUSH_DELAY_MS more), so under load the messages (and the
    // two threads' wake-ups) get fewer and larger instead of one a turn.
    if (this.sent.length === 0) this.scheduleFlush();
    return batch;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setTimeout(() => this.flush(), FLUSH_DELAY_MS);
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.gathering;
    if (batch === undefined) return;
    this.gathering = undefined;
    const sources = this.dirty;
    this.dirty = [];
    // Flat arrays and one string: a message of many small objects costs several times as much to copy.
    const count = sources.length;
    const ids = new Float64Array(count);
    const logIds = new Float64Array(count);
    const flags = new Uint8Array(count);
    const lengths = new Uint32Array(count);
    const paths: string[] = new Array(count);
    let texts = '';
    for (let i = 0; i < count; i++) {
      const write = (sources[i] as LogFileSource).takeWrite();
      if (write.close) this.open.delete(write.id);
      else if (write.text !== '') this.open.add(write.id);
      ids[i] = write.id;
      logIds[i] = write.logId;
      flags[i] = (write.close ? CLOSE_FLAG : 0) | (write.first ? FIRST_FLAG : 0);
      lengths[i] = write.text.length;
      paths[i] = write.path;
      texts += write.text;
    }
    this.sent.push(batch);
    this.messages++;
    this.workerOf().postMessage({
      seq: batch.seq,
      layout: this.layout,
      ids,
      logIds,
      paths,
      texts,
      lengths,
      flags,
    } satisfies LogFileBatch);
  }

  private workerOf(): Worker {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.worker !== undefined) return this.worker;
    const worker = new Worker(entryUrl());
    worker.unref();
    worker.on('message', (answer: LogFileAnswer) => this.answered(answer));
    worker.on('error', (err) => this.lost(worker, err));
    worker.on('exit', (code) => {
      if (this.worker === worker && code !== 0) this.lost(worker, new Error(`exited with code ${code}`));
    });
    this.worker = worker;
    return worker;
  }

  private answered({ seq, errors }: LogFileAnswer): void {
    for (const error of errors) {
      // A full disk must not fail the run: the lines are lost and the executor's own log says so.
      this.logger.error({ err: new Error(error.message), file: error.path }, 'job log write failed');
    }
    while (this.sent.length > 0 && (this.sent[0] as Batch).seq <= seq) (this.sent.shift() as Batch).resolve();
    if (this.sent.length > 0) return;
    if (this.gathering !== undefined) this.scheduleFlush();
    else if (this.open.size === 0) this.endWhenIdle();
  }

  /** The worker died (it should not): what it had not answered is lost; the next write starts another. */
  private lost(worker: Worker, err: unknown): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.logger.error(
      { err, batches: this.sent.length },
      'job log writer thread failed; its pending lines are lost',
    );
    this.open.clear();
    for (const batch of this.sent.splice(0)) batch.resolve();
    // What gathered behind the lost batches goes to a new worker.
    if (this.gathering !== undefined) this.scheduleFlush();
  }

  private endWhenIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      const worker = this.worker;
      if (worker === undefined || this.sent.length > 0 || this.gathering !== undefined || this.open.size > 0)
        return;
      this.worker = undefined;
      void worker.terminate();
    }, IDLE_END_MS);
    this.idleTimer.unref();
  }
}
