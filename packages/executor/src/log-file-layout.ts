/**
 * The job log files' layouts and the shapes the log file thread and its worker share
 * (job-log.ts, log-file-thread.ts, log-file-thread-entry.ts): a module of constants, so the
 * worker loads nothing else.
 */

/**
 * How runs' logs are laid out in a date folder:
 * - `file-per-run` (default): `<yyyy-MM-dd>/<logId>.log`, the protocol's layout, a file a person
 *   can open by the run's id; each run creates, writes and closes a file of its own.
 * - `file-per-day`: `<yyyy-MM-dd>/runs.log`, every run's lines appended to one file a day in
 *   writes of many runs, with `<yyyy-MM-dd>/runs.idx` saying where each run's lines are. No file
 *   is created a run: for executors that run many short jobs a second (a file a run costs
 *   ~15 µs of CPU on tmpfs and 80–500 µs on ext4, docs/benchmarks.md). The logs are read through
 *   the `log` call (the console) or `JobLogs.read`; the files are not meant for people.
 */
export const JOB_LOG_LAYOUTS = ['file-per-run', 'file-per-day'] as const;
export type JobLogLayout = (typeof JOB_LOG_LAYOUTS)[number];
/** The `file-per-day` layout's shared file of a date folder. */
export const DAY_LOG_FILE = 'runs.log';
/** The `file-per-day` layout's index of a date folder: {@link DAY_INDEX_RECORD_BYTES} a segment. */
export const DAY_INDEX_FILE = 'runs.idx';
/**
 * One index record: where one write of one run's text went in the day's file. Little-endian:
 * logId (float64), offset in `runs.log` (float64), the record number of the run's previous record
 * in this index or -1 when it is not known (float64), length in bytes (uint32), flags (uint32:
 * {@link DAY_INDEX_FIRST}). A reader finds a run's last record scanning back from the end, then
 * follows the `previous` numbers: a long run's reads cost its own records, not every record
 * written since it started. Where a number is missing (a line appended after the run's log was
 * closed, a log thread restarted mid-run) the reader scans back from there.
 */
export const DAY_INDEX_RECORD_BYTES = 32;
/** Index flag: the run's first text in this file; a reader stops there. */
export const DAY_INDEX_FIRST = 1;

/** A write's flags in a batch: it closes its file. */
export const CLOSE_FLAG = 1;
/** A write's flags in a batch: it is its run's first text. */
export const FIRST_FLAG = 2;
