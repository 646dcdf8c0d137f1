/**
 * The job log files' thread (log-file-thread.ts). Per message: every write in order, with plain
 * synchronous calls, each error reported with its file, then one answer with the message's
 * sequence number. A writer's file stays open from its first text until a write closes it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import type { LogFileAnswer, LogFileBatch } from './log-file-thread.js';

const port = parentPort;
if (port === null) throw new Error('log-file-thread-entry.js runs only as a worker thread');

/** The open descriptor of each writer, by its id. */
const fds = new Map<number, number>();

port.on('message', (batch: LogFileBatch) => port.postMessage(writeBatch(batch)));

function writeBatch({ seq, ids, paths, texts, lengths, closes }: LogFileBatch): LogFileAnswer {
  const errors: LogFileAnswer['errors'] = [];
  let offset = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const file = paths[i]!;
    const length = lengths[i]!;
    const text = texts.slice(offset, offset + length);
    const close = closes[i] === 1;
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
  const bytes = Buffer.from(text, 'utf8');
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
