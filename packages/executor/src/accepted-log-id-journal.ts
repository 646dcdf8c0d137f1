/**
 * The accepted logIds on disk, so that a restarted executor still refuses a `run` it accepted
 * before (the server re-sends one after a crash or a takeover): at-most-once execution per logId
 * across restarts, not only within one process.
 *
 * File: `<logDir>/callbacklog/accepted-logids.log`, one line per accepted run,
 * `<logId> <acceptedAtEpochMs>\n`, appended. Acceptances are written in batches (group commit):
 * the ids accepted while the previous write and fsync were going are appended with one write and
 * one fdatasync. A `run` is answered, and the run started, only once its line is on disk, so a
 * crash at any point either leaves the id on disk or leaves a run that was neither answered as
 * accepted nor started.
 *
 * Bounds: the file is rewritten (temp file, fsync, rename, folder fsync, as the callback spill
 * files are) with only the ids still remembered (the same window as in memory: `ttlMs`, at most
 * `limit` ids) once it holds twice the limit's lines, and at every start. A torn last line (a
 * crash mid-append) is skipped when the file is read back; the rewrite at start drops it.
 */
import { type FileHandle, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { AcceptedLogIds } from './accepted-log-ids.js';

export const ACCEPTED_LOG_IDS_FILE = 'accepted-logids.log';

interface Batch {
  lines: string[];
  ids: number[];
  done: Promise<boolean>;
  settle(ok: boolean): void;
}

export interface AcceptedLogIdJournalOptions {
  /** Folder of the file (the callback spill folder); created when needed. */
  dir: string;
  /** The in-memory ids the file mirrors; filled from the file by `open`. */
  accepted: AcceptedLogIds;
  /** The file is compacted once it holds more lines than this. */
  maxLines: number;
  /** Called with the ids of a batch that could not be written (their runs are refused). */
  onLost(logIds: number[]): void;
  logger: Logger;
}

export class AcceptedLogIdJournal {
  readonly file: string;
  private handle: FileHandle | undefined;
  private lines = 0;
  private next: Batch | undefined;
  /** Batch of each id not yet on disk, for the lane to wait on before starting the run. */
  private readonly pending = new Map<number, Promise<boolean>>();
  private flushing: Promise<void> | undefined;

  constructor(private readonly options: AcceptedLogIdJournalOptions) {
    this.file = path.join(options.dir, ACCEPTED_LOG_IDS_FILE);
  }

  /** Reads the ids accepted by earlier processes into memory and rewrites the file with them. */
  async open(): Promise<void> {
    const skipped = await this.load();
    if (skipped > 0) {
      this.options.logger.warn(
        { file: this.file, skipped },
        'accepted logIds file had unreadable lines (a write torn by a crash); skipped',
      );
    }
    await this.compact();
  }

  /**
   * Appends `logId` with the next batch. Resolves true once it is on disk, false when it could
   * not be written (the run must then be refused). Never rejects.
   */
  record(logId: number, at: number): Promise<boolean> {
    let batch = this.next;
    if (batch === undefined) {
      batch = newBatch();
      this.next = batch;
      if (this.flushing === undefined) setImmediate(() => this.startFlushing());
    }
    batch.lines.push(`${logId} ${at}\n`);
    batch.ids.push(logId);
    this.pending.set(logId, batch.done);
    return batch.done;
  }

  /** The write `logId` waits for, or undefined when it is on disk already. */
  recording(logId: number): Promise<boolean> | undefined {
    return this.pending.get(logId);
  }

  /** Waits for the writes under way and closes the file. */
  async close(): Promise<void> {
    while (this.flushing !== undefined || this.next !== undefined) {
      if (this.flushing === undefined) this.startFlushing();
      await this.flushing;
    }
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }

  private startFlushing(): void {
    if (this.flushing !== undefined || this.next === undefined) return;
    this.flushing = this.flushAll();
  }

  /**
   * Writes batch after batch until none is waiting. `flushing` is cleared in the same step as the
   * last check for a batch, so a `record` that comes after it schedules a new flush.
   */
  private async flushAll(): Promise<void> {
    try {
      while (this.next !== undefined) {
        const batch = this.next;
        this.next = undefined;
        const written = await this.write(batch);
        for (const logId of batch.ids) {
          if (this.pending.get(logId) === batch.done) this.pending.delete(logId);
        }
        if (!written) this.options.onLost(batch.ids);
        batch.settle(written);
      }
    } finally {
      this.flushing = undefined;
    }
  }

  /** Appends one batch, or compacts when the file is full (the compacted file holds the batch). */
  private async write(batch: Batch): Promise<boolean> {
    try {
      if (this.lines + batch.lines.length > this.options.maxLines) {
        await this.compact();
        return true;
      }
      this.handle ??= await open(this.file, 'a', 0o600);
      await this.handle.write(batch.lines.join(''));
      await this.handle.datasync();
      this.lines += batch.lines.length;
      return true;
    } catch (err) {
      this.options.logger.error(
        { err, file: this.file, count: batch.lines.length },
        'could not record accepted logIds; those runs are refused',
      );
      // A partly written batch may have left a torn line: the next write starts on a fresh file.
      await this.handle?.close().catch(() => undefined);
      this.handle = undefined;
      this.lines = Number.POSITIVE_INFINITY;
      return false;
    }
  }

  /** Rewrites the file with the ids still remembered, atomically; the next append reopens it. */
  private async compact(): Promise<void> {
    const temp = `${this.file}.tmp`;
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    let text = '';
    let count = 0;
    for (const [logId, at] of this.options.accepted.entries()) {
      text += `${logId} ${at}\n`;
      count++;
    }
    try {
      await mkdir(this.options.dir, { recursive: true, mode: 0o700 });
      const handle = await open(temp, 'w', 0o600);
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.file);
      await syncFolder(this.options.dir);
    } catch (err) {
      await unlink(temp).catch(() => undefined);
      throw err;
    }
    this.lines = count;
  }

  /** Fills memory from the file; returns how many lines could not be read. */
  private async load(): Promise<number> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
    let skipped = 0;
    let start = 0;
    while (start < text.length) {
      const end = text.indexOf('\n', start);
      // A last line without its newline is a torn append, whatever it looks like.
      const line = end < 0 ? undefined : text.slice(start, end);
      const match = line === undefined ? null : LINE.exec(line);
      if (match) this.options.accepted.restore(Number(match[1]), Number(match[2]));
      else skipped++;
      if (end < 0) break;
      start = end + 1;
    }
    return skipped;
  }
}

const LINE = /^(-?\d{1,16}) (\d{1,16})$/;

function newBatch(): Batch {
  let settle!: (ok: boolean) => void;
  const done = new Promise<boolean>((resolve) => {
    settle = resolve;
  });
  return { lines: [], ids: [], done, settle };
}

/** Makes a rename durable where the platform allows opening a folder (Linux, macOS). */
async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch {
    // Not supported on this platform (Windows): the rename is as durable as it makes it.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
