/**
 * Job logs: one file per run at `<logDir>/<yyyy-MM-dd>/<logId>.log` (the protocol's layout, the
 * default) or, with the `file-per-day` layout, the runs of a day appended to one shared file
 * with an index; written by the run while it goes, read back by the server's `log` call in
 * capped pages, and deleted by a daily sweep once older than the retention.
 */
import { type FileHandle, open, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { format } from 'node:util';
import { type LogResult, WireMessages } from '@tickwheel/protocol';
import { type Logger, pino } from 'pino';
import { type Clock, repeatEvery, systemClock } from './clock.js';
import {
  DAY_INDEX_FILE,
  DAY_INDEX_FIRST,
  DAY_INDEX_RECORD_BYTES,
  DAY_LOG_FILE,
  type JobLogLayout,
} from './log-file-layout.js';
import { type LogFileSource, LogFileThread, type LogFileWrite } from './log-file-thread.js';

/** Appends lines to one run's log file. Writes are ordered; `close` flushes. */
export interface JobLogWriter {
  /** The run's file; with the `file-per-day` layout, the day's shared file. */
  readonly path: string;
  /** Appends one line: a timestamp, then the arguments formatted like console.log. */
  log(...args: unknown[]): void;
  /** Appends raw text (script output), split into lines as it comes. */
  write(chunk: string): void;
  close(): Promise<void>;
}

export interface JobLogsOptions {
  logDir: string;
  /** Default `file-per-run`. */
  layout?: JobLogLayout;
  /** Files older than this many days are deleted by the daily sweep; 0 keeps them forever. */
  retentionDays: number;
  /** Cap on lines returned by one `read`. */
  maxLinesPerRead?: number;
  /** Cap on bytes returned by one `read`. */
  maxBytesPerRead?: number;
}

export const DEFAULT_MAX_LINES_PER_READ = 1_000;
export const DEFAULT_MAX_BYTES_PER_READ = 1024 * 1024;
/**
 * Shortest retention the sweep applies: a positive `retentionDays` below it is raised to it.
 * XXL-JOB ignores retentions under 3 days for the same reason: a run fired late yesterday may
 * still be running, and the server may still page through the logs of recent runs.
 */
export const MIN_RETENTION_DAYS = 3;
/** Folder for GLUE script sources (PROTOCOL.md); it holds no dates and the sweep leaves it alone. */
export const GLUE_SOURCE_FOLDER = 'gluesource';
/** Line prefix source used by `open` when the caller names none. */
export const DEFAULT_LOG_SOURCE = 'job';

const DAY_MS = 24 * 60 * 60 * 1000;
const DATE_FOLDER = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A local day's folder: `[start, end)` in epoch ms (23 or 25 hours on a DST change), its path, and its shared file. */
interface DayFolder {
  start: number;
  end: number;
  folder: string;
  dayFile: string;
}

/**
 * The job log files of one executor.
 *
 * @example
 * const logs = new JobLogs({ logDir: '/var/log/tickwheel', retentionDays: 30 });
 * const log = logs.open(trigger.logId, trigger.logDateTime);
 * log.log('start, param %s', trigger.executorParams);
 * await log.close();
 * const page = await logs.read(trigger.logId, trigger.logDateTime, 1);
 */
export class JobLogs {
  readonly logDir: string;
  private readonly retentionDays: number;
  private readonly maxLinesPerRead: number;
  private readonly maxBytesPerRead: number;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly clock: Clock;
  private readonly thread: LogFileThread;
  readonly layout: JobLogLayout;
  private stopSweeping: (() => void) | undefined;
  /** The date folder of the last run opened. */
  private lastDay: DayFolder | undefined;

  /**
   * `now` stamps the lines and dates the sweep (default `Date.now`); `clock` times the daily sweep
   * (default the system clock). Kept apart: stamping is on every line's path.
   */
  constructor(options: JobLogsOptions & { logger?: Logger; now?: () => number; clock?: Clock }) {
    this.logDir = options.logDir;
    this.retentionDays = options.retentionDays > 0 ? Math.max(MIN_RETENTION_DAYS, options.retentionDays) : 0;
    this.maxLinesPerRead = options.maxLinesPerRead ?? DEFAULT_MAX_LINES_PER_READ;
    this.maxBytesPerRead = options.maxBytesPerRead ?? DEFAULT_MAX_BYTES_PER_READ;
    this.logger = options.logger ?? pino({ name: 'tickwheel-executor' });
    this.now = options.now ?? Date.now;
    this.clock = options.clock ?? systemClock;
    this.layout = options.layout ?? 'file-per-run';
    this.thread = new LogFileThread(this.logger, this.layout);
  }

  /**
   * The file of one run (with `file-per-day`, the day's shared file it is written to). The date
   * folder is the date of `logDateTime` in the executor's local time zone, as XXL-JOB does (it
   * formats with the JVM's default zone), so a server that asks with the same `logDateTim` finds
   * the file.
   */
  logFilePath(logId: number, logDateTime: number): string {
    const day = this.dayOf(logDateTime);
    return this.layout === 'file-per-day' ? day.dayFile : `${day.folder}${path.sep}${logId}.log`;
  }

  /** The date folder of `logDateTime`, kept for the runs of the same local day (nearly all of them). */
  private dayOf(logDateTime: number): DayFolder {
    const last = this.lastDay;
    if (last !== undefined && logDateTime >= last.start && logDateTime < last.end) return last;
    const start = localDayStart(logDateTime);
    const folder = path.join(this.logDir, localDate(logDateTime));
    const day: DayFolder = {
      start: start.getTime(),
      end: new Date(start.getFullYear(), start.getMonth(), start.getDate() + 1).getTime(),
      folder,
      dayFile: path.join(folder, DAY_LOG_FILE),
    };
    this.lastDay = day;
    return day;
  }

  /** The writer of one run's log; the file (and its date folder) is created on the first line. */
  open(logId: number, logDateTime: number, source: string = DEFAULT_LOG_SOURCE): JobLogWriter {
    return new FileJobLogWriter(logId, this.logFilePath(logId, logDateTime), source, this.now, this.thread);
  }

  /** Appends one timestamped line to a run's log, e.g. after its writer was closed. */
  async append(
    logId: number,
    logDateTime: number,
    line: string,
    source: string = DEFAULT_LOG_SOURCE,
  ): Promise<void> {
    const write = {
      id: ++lastWriterId,
      logId,
      path: this.logFilePath(logId, logDateTime),
      text: formatLine(this.now(), source, line),
      close: true,
      // Not known to be the run's first text: a reader scans on past it.
      first: false,
    };
    await this.thread.mark({ takeWrite: () => write });
  }

  /**
   * Lines `fromLineNum..toLineNum` (1-based) of a run's log, at most `maxLinesPerRead` lines and
   * about `maxBytesPerRead` bytes; the caller pages with `toLineNum + 1`. The file is streamed,
   * so a large log is never held in memory whole. An existing file always answers
   * `isEnd: false`, as XXL-JOB executors do: only the caller knows when the run has finished.
   */
  async read(logId: number, logDateTim: number, fromLineNum: number): Promise<LogResult> {
    const from = Math.max(1, Math.trunc(fromLineNum));
    // Lines logged before this read are on disk before it opens the file.
    await this.thread.settled();
    const lines =
      this.layout === 'file-per-day'
        ? await this.readDayLines(logId, logDateTim, from)
        : await this.readFileLines(logId, logDateTim, from);
    if (lines === undefined) {
      return { fromLineNum: from, toLineNum: 0, logContent: WireMessages.logFileNotExists, isEnd: true };
    }
    return {
      fromLineNum: from,
      toLineNum: from - 1 + lines.length,
      logContent: lines.join(''),
      isEnd: false,
    };
  }

  /** The page of the run's own file (`file-per-run`); undefined when it has none. */
  private async readFileLines(
    logId: number,
    logDateTim: number,
    from: number,
  ): Promise<string[] | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.logFilePath(logId, logDateTim), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    return this.readLines(handle, from);
  }

  /**
   * The page in the `file-per-day` layout: the run's segments from the day's index (its last record
   * found scanning back from the end, then the run's own records through their links), then the
   * segments' bytes from the day's file, in order, as one text; undefined when the run has none.
   */
  private async readDayLines(logId: number, logDateTim: number, from: number): Promise<string[] | undefined> {
    const folder = path.join(this.logDir, localDate(logDateTim));
    const segments = await findDaySegments(path.join(folder, DAY_INDEX_FILE), logId);
    if (segments.length === 0) return undefined;
    const page = new PageOfLines(from, this.maxLinesPerRead, this.maxBytesPerRead);
    const handle = await open(path.join(folder, DAY_LOG_FILE), 'r');
    try {
      read: for (const { offset, length } of segments) {
        for (let done = 0; done < length; ) {
          // A new buffer each time: the page may keep parts of it.
          const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, length - done));
          const { bytesRead } = await handle.read(chunk, 0, chunk.length, offset + done);
          if (bytesRead === 0) break;
          if (page.add(chunk.subarray(0, bytesRead))) break read;
          done += bytesRead;
        }
      }
      page.end();
    } finally {
      await handle.close();
    }
    return page.lines;
  }

  /** Reads the page starting at line `from`, each line with its `\n`; closes the handle. */
  private async readLines(handle: FileHandle, from: number): Promise<string[]> {
    const page = new PageOfLines(from, this.maxLinesPerRead, this.maxBytesPerRead);
    const stream = handle.createReadStream();
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        if (page.add(chunk)) break;
      }
      page.end();
    } finally {
      stream.destroy();
    }
    return page.lines;
  }

  /**
   * Deletes the date folders older than the retention and returns how many folders it removed.
   * A folder dated D goes once `today - D >= retentionDays` (XXL-JOB's rule), today being the
   * local date; other folders (`gluesource`, anything not named like a date) stay.
   */
  async sweep(): Promise<number> {
    if (this.retentionDays === 0) return 0;
    let entries: string[];
    try {
      entries = await readdir(this.logDir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
    const today = localDayStart(this.now());
    let removed = 0;
    for (const name of entries) {
      const day = parseDateFolder(name);
      if (day === undefined || daysBetween(day, today) < this.retentionDays) continue;
      try {
        await rm(path.join(this.logDir, name), { recursive: true, force: true });
        removed++;
      } catch (err) {
        this.logger.warn({ err, folder: name }, 'job log retention could not delete a folder');
      }
    }
    if (removed > 0)
      this.logger.info({ removed, retentionDays: this.retentionDays }, 'job log retention swept');
    return removed;
  }

  /** Sweeps now and then once a day; the timer does not keep the process alive. */
  startRetention(intervalMs: number = DAY_MS): void {
    if (this.retentionDays === 0 || this.stopSweeping) return;
    const sweepLogged = () => {
      this.sweep().catch((err: unknown) => this.logger.error({ err }, 'job log retention sweep failed'));
    };
    sweepLogged();
    this.stopSweeping = repeatEvery(this.clock, intervalMs, sweepLogged);
  }

  stopRetention(): void {
    this.stopSweeping?.();
    this.stopSweeping = undefined;
  }

  /**
   * Waits until every line logged so far is on disk and ends the writer thread. Call it once
   * the runs are over (the executor does at stop); a line logged later starts the thread again.
   */
  close(): Promise<void> {
    return this.thread.close();
  }
}

let lastWriterId = 0;

const READ_CHUNK_BYTES = 64 * 1024;
/** Index records read at a time while scanning back. */
const INDEX_RECORDS_PER_READ = 4_096;

interface DaySegment {
  offset: number;
  length: number;
}

/**
 * The segments of run `logId` in a day's index, in the order they were written: its last record
 * found scanning back from the end, then each record's `previous` number followed back to the
 * run's first record; where a record has none, the scan goes on back from it (for a run not in
 * the index, through all of it). A number that does not lead to a record of the run (an index
 * cut by a crash) is not followed. A missing index has none.
 */
async function findDaySegments(indexPath: string, logId: number): Promise<DaySegment[]> {
  let handle: FileHandle;
  try {
    handle = await open(indexPath, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const found: DaySegment[] = [];
  try {
    // A record cut short by a crash is ignored (the writer drops it before its next append).
    const records = Math.floor((await handle.stat()).size / DAY_INDEX_RECORD_BYTES);
    const buffer = Buffer.allocUnsafe(INDEX_RECORDS_PER_READ * DAY_INDEX_RECORD_BYTES);
    // The records held in `buffer`: [bufferStart, bufferEnd).
    let bufferStart = 0;
    let bufferEnd = 0;
    let record = records - 1;
    // The record whose `previous` number led to `record`, while that is not yet confirmed.
    let jumpedFrom: number | undefined;
    while (record >= 0) {
      if (record < bufferStart || record >= bufferEnd) {
        bufferStart = Math.max(0, record + 1 - INDEX_RECORDS_PER_READ);
        bufferEnd = record + 1;
        const bytes = (bufferEnd - bufferStart) * DAY_INDEX_RECORD_BYTES;
        const { bytesRead } = await handle.read(buffer, 0, bytes, bufferStart * DAY_INDEX_RECORD_BYTES);
        if (bytesRead < bytes) break;
      }
      const at = (record - bufferStart) * DAY_INDEX_RECORD_BYTES;
      if (buffer.readDoubleLE(at) !== logId) {
        // Not the run's: scan on back, from where a wrong `previous` number was read if one led here.
        record = (jumpedFrom ?? record) - 1;
        jumpedFrom = undefined;
        continue;
      }
      found.push({ offset: buffer.readDoubleLE(at + 8), length: buffer.readUInt32LE(at + 24) });
      if ((buffer.readUInt32LE(at + 28) & DAY_INDEX_FIRST) !== 0) break;
      const previous = buffer.readDoubleLE(at + 16);
      jumpedFrom = previous >= 0 && previous < record ? record : undefined;
      record = jumpedFrom === undefined ? record - 1 : previous;
    }
  } finally {
    await handle.close();
  }
  return found.reverse();
}

/**
 * A writer that never blocks the event loop: `log` and `write` gather text, and a few
 * milliseconds later (the thread's FLUSH_DELAY_MS) the log file thread (log-file-thread.ts)
 * appends all of it in one write, so the order of calls is the order in the file and a chatty
 * handler costs one write per flush rather than one per line. In the `file-per-run` layout the
 * thread opens the file on the first text and keeps it open until `close`; a quick run's start
 * and end lines share one write. Lines logged after `close` are appended one-off.
 */
class FileJobLogWriter implements JobLogWriter, LogFileSource {
  private readonly id = ++lastWriterId;
  private pending = '';
  /** No text of this run has gone to the thread yet: its next write is the run's first. */
  private first = true;
  /** Handed to the thread for the end of this turn. */
  private marked = false;
  private closed = false;
  /** False while raw output has left a line open, so the next `log` line starts afresh. */
  private atLineStart = true;

  constructor(
    private readonly logId: number,
    readonly path: string,
    private readonly source: string,
    private readonly now: () => number,
    private readonly thread: LogFileThread,
  ) {}

  log(...args: unknown[]): void {
    // One string is its own format (`format` returns it as it is, `%` and all), and most lines are one.
    const message = args.length === 1 && typeof args[0] === 'string' ? args[0] : format(...args);
    this.enqueue((this.atLineStart ? '' : '\n') + formatLine(this.now(), this.source, message));
    this.atLineStart = true;
  }

  write(chunk: string): void {
    if (chunk === '') return;
    this.enqueue(chunk);
    this.atLineStart = chunk.endsWith('\n');
  }

  close(): Promise<void> {
    if (!this.atLineStart) this.write('\n');
    if (!this.closed) {
      this.closed = true;
      this.markForFlush();
    }
    return this.thread.settled();
  }

  takeWrite(): LogFileWrite {
    const first = this.first && this.pending !== '';
    if (first) this.first = false;
    const write = {
      id: this.id,
      logId: this.logId,
      path: this.path,
      text: this.pending,
      close: this.closed,
      first,
    };
    this.pending = '';
    this.marked = false;
    return write;
  }

  private enqueue(text: string): void {
    this.pending += text;
    this.markForFlush();
  }

  private markForFlush(): void {
    if (this.marked) return;
    this.marked = true;
    void this.thread.mark(this);
  }
}

/** The second `stampOfSecond` was made for (epoch seconds), and its `yyyy-MM-dd HH:mm:ss.`. */
let stampSecond = Number.NaN;
let stampOfSecond = '';

/**
 * `yyyy-MM-dd HH:mm:ss.SSS [source] message\n`, in local time like the file's date folder. The
 * stamp up to the second is kept for the next line of the same second: a busy executor writes
 * thousands of lines a second, and each made a Date, a date and four padded numbers. (Zone offsets
 * are whole seconds, so a local second starts where an epoch second does.)
 */
function formatLine(epochMs: number, source: string, message: string): string {
  const second = Math.floor(epochMs / 1000);
  if (second !== stampSecond) {
    const d = new Date(second * 1000);
    stampOfSecond = `${localDate(second * 1000)} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.`;
    stampSecond = second;
  }
  const ms = Math.floor(epochMs) - second * 1000;
  return `${stampOfSecond}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms} [${source}] ${message}\n`;
}

function localDate(epochMs: number): string {
  const d = new Date(epochMs);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

function localDayStart(epochMs: number): Date {
  const d = new Date(epochMs);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate());
}

function parseDateFolder(name: string): Date | undefined {
  const m = DATE_FOLDER.exec(name);
  if (!m) return undefined;
  const day = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isNaN(day.getTime()) ? undefined : day;
}

/** Whole calendar days from `a` to `b` (local midnights), immune to DST's 23/25-hour days. */
function daysBetween(a: Date, b: Date): number {
  return Math.round((b.getTime() - a.getTime()) / DAY_MS);
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * The lines of one read, fed with the file's bytes. Lines end at `\n`, `\r\n` or a lone `\r`
 * (script progress output), as Node's readline and Java's LineNumberReader count them. Lines
 * before `from` are only counted; a line is kept while the page has room, and one longer than the
 * whole byte cap is cut to the cap (at a character boundary) rather than held or sent whole, so
 * neither memory nor the answer grows with the file or with its longest line.
 */
class PageOfLines {
  readonly lines: string[] = [];
  private lineNum = 0;
  private bytes = 0;
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private afterCR = false;
  private full = false;

  constructor(
    private readonly from: number,
    private readonly maxLines: number,
    private readonly maxBytes: number,
  ) {}

  /** Takes the next bytes of the file; true once the page is full. */
  add(chunk: Buffer): boolean {
    let start = 0;
    for (let i = 0; i < chunk.length && !this.full; i++) {
      const byte = chunk[i];
      if (byte !== LF && byte !== CR) {
        this.afterCR = false;
        continue;
      }
      // The \n of a \r\n pair ends nothing: the \r ended the line.
      if (byte === LF && this.afterCR && i === start) {
        this.afterCR = false;
        start = i + 1;
        continue;
      }
      this.keep(chunk.subarray(start, i));
      this.completeLine();
      this.afterCR = byte === CR;
      start = i + 1;
      if (byte === CR && chunk[i + 1] === LF) {
        this.afterCR = false;
        start = i + 2;
        i++;
      }
    }
    if (!this.full) this.keep(chunk.subarray(start));
    return this.full;
  }

  /** The file ended: a last line without its line break is a line too. */
  end(): void {
    if (!this.full && this.partialBytes > 0) this.completeLine();
  }

  /** Holds part of the current line, at most the byte cap of it (and nothing of a skipped line). */
  private keep(bytes: Buffer): void {
    if (bytes.length === 0 || this.lineNum + 1 < this.from) return;
    const room = this.maxBytes + 1 - this.partialBytes;
    if (room <= 0) return;
    const kept = bytes.length > room ? bytes.subarray(0, room) : bytes;
    this.partial.push(kept);
    this.partialBytes += kept.length;
  }

  private completeLine(): void {
    this.lineNum++;
    const bytes = this.partial.length === 1 ? (this.partial[0] as Buffer) : Buffer.concat(this.partial);
    this.partial = [];
    this.partialBytes = 0;
    if (this.lineNum < this.from) return;
    const size = Math.min(bytes.length, this.maxBytes - 1) + 1;
    if (this.lines.length > 0 && this.bytes + size > this.maxBytes) {
      this.full = true;
      return;
    }
    this.lines.push(`${textWithin(bytes, this.maxBytes - 1)}\n`);
    this.bytes += size;
    if (this.lines.length >= this.maxLines) this.full = true;
  }
}

/** The bytes as UTF-8 text, cut to at most `maxBytes` at a character boundary. */
function textWithin(bytes: Buffer, maxBytes: number): string {
  if (bytes.length <= maxBytes) return bytes.toString('utf8');
  let end = maxBytes;
  // A UTF-8 continuation byte is 10xxxxxx: back off to the start of the character.
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
