/**
 * The executors' journal of runs: one JSON line per run start and per run end, written with a
 * synchronous write and fdatasync before the handler goes on, so a kill -9 of the executor loses
 * no run that started.
 */
import { closeSync, existsSync, fdatasyncSync, openSync, readFileSync, writeSync } from 'node:fs';

export interface JournalLine {
  /** Job id, log id (the fire record's id), scheduled time (ctx.logDateTime), executor name. */
  jobId: number;
  logId: number;
  scheduledAt: number;
  executor: string;
  /** `start` when the handler began, `end` when it returned. */
  phase: 'start' | 'end';
  at: number;
}

export class Journal {
  private readonly fd: number;

  constructor(file: string) {
    this.fd = openSync(file, 'a');
  }

  append(line: JournalLine): void {
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    fdatasyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Every line of the journals (a torn last line of a killed executor is left out). */
export function readJournals(files: readonly string[]): JournalLine[] {
  const lines: JournalLine[] = [];
  for (const file of files) {
    if (!existsSync(file)) continue;
    for (const text of readFileSync(file, 'utf8').split('\n')) {
      if (text.trim() === '') continue;
      try {
        lines.push(JSON.parse(text) as JournalLine);
      } catch {
        // A line cut by the kill: the write had not returned, so the handler had not gone on.
      }
    }
  }
  return lines;
}
