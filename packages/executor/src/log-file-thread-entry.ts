/**
 * The job log files' thread (log-file-thread.ts). Per message: every write in order, with plain
 * synchronous calls, each error reported with its file, then one answer with the message's
 * sequence number. In the `file-per-run` layout a writer's file stays open from its first text
 * until a write closes it; in `file-per-day` each day's writes of the message are appended to the
 * day's file in one write and their index records to its index in another, both files opened
 * and closed within the message.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import {
  CLOSE_FLAG,
  DAY_INDEX_FILE,
  DAY_INDEX_FIRST,
  DAY_INDEX_RECORD_BYTES,
  FIRST_FLAG,
} from './log-file-layout.js';
import type { LogFileAnswer, LogFileBatch } from './log-file-thread.js';

const port = parentPort;
if (port === null) throw new Error('log-file-thread-entry.js runs only as a worker thread');

/** The open descriptor of each writer, by its id. */
const fds = new Map<number, number>();

port.on('message', (batch: LogFileBatch) => port.postMessage(writeBatch(batch)));

function writeBatch(batch: LogFileBatch): LogFileAnswer {
  return batch.layout === 'file-per-day' ? writeDays(batch) : writeFiles(batch);
}

function writeFiles({ seq, ids, paths, texts, lengths, flags }: LogFileBatch): LogFileAnswer {
  const errors: LogFileAnswer['errors'] = [];
  let offset = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const file = paths[i]!;
    const length = lengths[i]!;
    const text = texts.slice(offset, offset + length);
    const close = (flags[i]! & CLOSE_FLAG) !== 0;
    offset += length;
    try {
      if (text !== '') {
        let fd = fds.get(id);
        if (fd === undefined) {
          fd = openForAppend(file);
          fds.set(id, fd);
        }
        writeAll(fd, text);
      }
      if (close) {
        const fd = fds.get(id);
        fds.delete(id);
        if (fd !== undefined) fs.closeSync(fd);
      }
    } catch (err) {
      if (close) closeQuietly(id);
      errors.push({ path: file, message: err instanceof Error ? err.message : String(err) });
    }
  }
  return { seq, errors };
}

/** One day's share of a message in the `file-per-day` layout. */
interface DayWrites {
  texts: Buffer[];
  logIds: number[];
  firsts: boolean[];
  /** The write is its run's last (its log closes): the run's chain ends. */
  lasts: boolean[];
}

/**
 * What the thread knows of a day's index: its records so far, and the last record of each run
 * still writing, which its next record points back to. Dropped when the index is not as this
 * thread left it (deleted, cut after a failed write): the reader then scans where a number is
 * missing. Also dropped once none of its runs is writing (nothing to keep: an executor up for
 * months holds only the days with runs still going).
 */
interface DayChain {
  records: number;
  lastOf: Map<number, number>;
}

const chains = new Map<string, DayChain>();

function writeDays({ seq, logIds, paths, texts, lengths, flags }: LogFileBatch): LogFileAnswer {
  const days = new Map<string, DayWrites>();
  let offset = 0;
  for (let i = 0; i < paths.length; i++) {
    const length = lengths[i]!;
    const text = texts.slice(offset, offset + length);
    offset += length;
    const file = paths[i]!;
    const last = (flags[i]! & CLOSE_FLAG) !== 0;
    if (text === '') {
      // A close with nothing left to write: the run's next record, if any, starts no chain.
      if (last) forget(indexOf(file), logIds[i]!);
      continue;
    }
    let day = days.get(file);
    if (day === undefined) {
      day = { texts: [], logIds: [], firsts: [], lasts: [] };
      days.set(file, day);
    }
    day.texts.push(Buffer.from(text, 'utf8'));
    day.logIds.push(logIds[i]!);
    day.firsts.push((flags[i]! & FIRST_FLAG) !== 0);
    day.lasts.push(last);
  }
  const errors: LogFileAnswer['errors'] = [];
  for (const [file, day] of days) {
    try {
      appendToDay(file, day);
    } catch (err) {
      chains.delete(indexOf(file));
      errors.push({ path: file, message: err instanceof Error ? err.message : String(err) });
    }
  }
  return { seq, errors };
}

/** Run `logId` of the day's index `indexPath` has closed: its chain ends, and the day's with its last run. */
function forget(indexPath: string, logId: number): void {
  const chain = chains.get(indexPath);
  if (chain === undefined) return;
  chain.lastOf.delete(logId);
  if (chain.lastOf.size === 0) chains.delete(indexPath);
}

function indexOf(file: string): string {
  return path.join(path.dirname(file), DAY_INDEX_FILE);
}

/**
 * Appends a day's writes to its file, then their records to its index. The offsets come from the
 * file's size (one executor process writes a log directory); a record cut short by a crash is
 * dropped before the index grows, so the records stay aligned.
 */
function appendToDay(file: string, { texts, logIds, firsts, lasts }: DayWrites): void {
  const indexPath = indexOf(file);
  const fd = openForAppend(file);
  let indexFd: number | undefined;
  try {
    indexFd = openForAppend(indexPath);
    const indexSize = fs.fstatSync(indexFd).size;
    const cut = indexSize % DAY_INDEX_RECORD_BYTES;
    if (cut !== 0) fs.ftruncateSync(indexFd, indexSize - cut);
    const records = (indexSize - cut) / DAY_INDEX_RECORD_BYTES;
    let chain = chains.get(indexPath);
    if (chain === undefined || chain.records !== records) {
      chain = { records, lastOf: new Map() };
      chains.set(indexPath, chain);
    }
    const index = Buffer.allocUnsafe(texts.length * DAY_INDEX_RECORD_BYTES);
    let offset = fs.fstatSync(fd).size;
    for (let i = 0; i < texts.length; i++) {
      const at = i * DAY_INDEX_RECORD_BYTES;
      const logId = logIds[i]!;
      const length = texts[i]!.length;
      index.writeDoubleLE(logId, at);
      index.writeDoubleLE(offset, at + 8);
      index.writeDoubleLE(chain.lastOf.get(logId) ?? -1, at + 16);
      index.writeUInt32LE(length, at + 24);
      index.writeUInt32LE(firsts[i] ? DAY_INDEX_FIRST : 0, at + 28);
      if (lasts[i]) chain.lastOf.delete(logId);
      else chain.lastOf.set(logId, records + i);
      offset += length;
    }
    writeBytes(fd, texts.length === 1 ? texts[0]! : Buffer.concat(texts));
    writeBytes(indexFd, index);
    chain.records = records + texts.length;
    // No run of the day still writing: nothing to keep (a later write starts afresh, as after a restart).
    if (chain.lastOf.size === 0) chains.delete(indexPath);
  } finally {
    fs.closeSync(fd);
    if (indexFd !== undefined) fs.closeSync(indexFd);
  }
}

/** Opens `file` to append, making its directory when it is missing (owner only, as the file). */
function openForAppend(file: string): number {
  try {
    return fs.openSync(file, 'a', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    return fs.openSync(file, 'a', 0o600);
  }
}

/** Writes all of `text`: one `writeSync` may write only part of it. */
function writeAll(fd: number, text: string): void {
  writeBytes(fd, Buffer.from(text, 'utf8'));
}

function writeBytes(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
}

/** Closes a writer's file after a failed write, the close's own error aside (the write's is reported). */
function closeQuietly(id: number): void {
  const fd = fds.get(id);
  fds.delete(id);
  if (fd !== undefined) {
    try {
      fs.closeSync(fd);
    } catch {}
  }
}
