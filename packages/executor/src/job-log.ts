/**
 * Job logs: one file per run at `<logDir>/<yyyy-MM-dd>/<logId>.log`.
 * (Interface fixed here; implementation in progress.)
 */
import type { LogResult } from '@tickwheel/protocol';

/** Appends lines to one run's log file. Writes are ordered; `close` flushes. */
export interface JobLogWriter {
  readonly path: string;
  /** Appends one line: a timestamp, then the arguments formatted like console.log. */
  log(...args: unknown[]): void;
  /** Appends raw text (script output), split into lines as it comes. */
  write(chunk: string): void;
  close(): Promise<void>;
}

export interface JobLogsOptions {
  logDir: string;
  /** Files older than this many days are deleted by the daily sweep; 0 keeps them forever. */
  retentionDays: number;
  /** Cap on lines returned by one `read`. */
  maxLinesPerRead?: number;
  /** Cap on bytes returned by one `read`. */
  maxBytesPerRead?: number;
}
