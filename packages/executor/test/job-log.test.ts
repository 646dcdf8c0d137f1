import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { capturingLogger } from '@tickwheel/test-fixtures/executor-fixture';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobLogs, type JobLogsOptions } from '../src/job-log.js';
import { DAY_INDEX_FILE, DAY_INDEX_RECORD_BYTES, DAY_LOG_FILE } from '../src/log-file-layout.js';

const silent = pino({ level: 'silent' });
const LINE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} \[job\] /;
const DAY_MS = 24 * 60 * 60 * 1000;

let logDir: string;

beforeEach(async () => {
  logDir = await mkdtemp(path.join(os.tmpdir(), 'tw-job-log-'));
});

afterEach(async () => {
  await rm(logDir, { recursive: true, force: true });
});

function jobLogs(options: Partial<JobLogsOptions> & { now?: () => number } = {}): JobLogs {
  return jobLogsOf(options);
}

function jobLogsOf(options: Partial<JobLogsOptions> & { now?: () => number } = {}): JobLogs {
  return new JobLogs({ logDir, retentionDays: 30, logger: silent, ...options });
}

function localDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** Writes a run's log with `count` numbered lines (`line 1` ...), without timestamps. */
async function writeNumberedLog(logs: JobLogs, logId: number, at: number, count: number): Promise<void> {
  const writer = logs.open(logId, at);
  for (let i = 1; i <= count; i++) writer.write(`line ${i}\n`);
  await writer.close();
}

describe('JobLogs files', () => {
  it('puts a run log at <logDir>/<yyyy-MM-dd>/<logId>.log', async () => {
    const at = Date.UTC(2024, 9, 4, 12);
    const writer = jobLogs().open(42, at);
    writer.log('hello');
    await writer.close();
    expect(writer.path).toBe(path.join(logDir, localDate(at), '42.log'));
    expect(await readFile(writer.path, 'utf8')).toMatch(/\[job\] hello\n$/);
  });

  it('takes the date folder from logDateTime in the executor local time zone', () => {
    const previous = process.env.TZ;
    try {
      process.env.TZ = 'Asia/Shanghai';
      expect(jobLogs().logFilePath(7, Date.UTC(2024, 9, 3, 20))).toBe(
        path.join(logDir, '2024-10-04', '7.log'),
      );
      process.env.TZ = 'America/New_York';
      expect(jobLogs().logFilePath(7, Date.UTC(2024, 9, 3, 20))).toBe(
        path.join(logDir, '2024-10-03', '7.log'),
      );
    } finally {
      if (previous === undefined) delete process.env.TZ;
      else process.env.TZ = previous;
    }
  });

  it('starts each logged line with a millisecond timestamp and its source and formats arguments like console.log', async () => {
    const writer = jobLogs().open(1, Date.now());
    writer.log('param %s, shard %d', 'abc', 3);
    writer.log('object', { a: 1 });
    await writer.close();
    const lines = (await readFile(writer.path, 'utf8')).split('\n');
    expect(lines[0]).toMatch(LINE);
    expect(lines[0]).toMatch(/ param abc, shard 3$/);
    expect(lines[1]).toMatch(/ object \{ a: 1 \}$/);
  });

  it('stamps lines with the injected clock', async () => {
    const at = new Date(2024, 0, 2, 3, 4, 5, 6).getTime();
    const writer = jobLogs({ now: () => at }).open(1, at);
    writer.log('tick');
    await writer.close();
    expect(await readFile(writer.path, 'utf8')).toBe('2024-01-02 03:04:05.006 [job] tick\n');
  });

  it('stamps each line with its own second and day, across midnight and a clock that steps back', async () => {
    const times = [
      new Date(2024, 0, 2, 23, 59, 58, 7).getTime(),
      new Date(2024, 0, 2, 23, 59, 58, 999).getTime(),
      new Date(2024, 0, 2, 23, 59, 59, 50).getTime(),
      new Date(2024, 0, 3, 0, 0, 0, 0).getTime(),
      new Date(2024, 0, 2, 23, 59, 58, 500).getTime(),
    ];
    let i = 0;
    const writer = jobLogs({ now: () => times[i++]! }).open(1, times[0]!);
    for (let n = 0; n < times.length; n++) writer.log('%s', `line ${n}`);
    await writer.close();
    expect((await readFile(writer.path, 'utf8')).split('\n')).toEqual([
      '2024-01-02 23:59:58.007 [job] line 0',
      '2024-01-02 23:59:58.999 [job] line 1',
      '2024-01-02 23:59:59.050 [job] line 2',
      '2024-01-03 00:00:00.000 [job] line 3',
      '2024-01-02 23:59:58.500 [job] line 4',
      '',
    ]);
  });

  it("puts the runs of each local day in that day's folder, however they alternate", () => {
    const logs = jobLogs();
    const lastOfDay = new Date(2024, 2, 30, 23, 59, 59, 999).getTime();
    const nextDay = new Date(2024, 2, 31, 0, 0, 0, 0).getTime();
    const endOfNextDay = new Date(2024, 2, 31, 23, 59, 59, 999).getTime();
    expect(logs.logFilePath(1, lastOfDay)).toBe(path.join(logDir, '2024-03-30', '1.log'));
    expect(logs.logFilePath(2, nextDay)).toBe(path.join(logDir, '2024-03-31', '2.log'));
    expect(logs.logFilePath(3, lastOfDay)).toBe(path.join(logDir, '2024-03-30', '3.log'));
    expect(logs.logFilePath(4, endOfNextDay)).toBe(path.join(logDir, '2024-03-31', '4.log'));
    expect(jobLogs({ layout: 'file-per-day' }).logFilePath(5, nextDay)).toBe(
      path.join(logDir, '2024-03-31', DAY_LOG_FILE),
    );
  });

  it('appends raw output as it comes and starts the next logged line on a new line', async () => {
    const writer = jobLogs().open(1, Date.now(), 'script');
    writer.write('partial ');
    writer.write('output');
    writer.log('exit code 0');
    await writer.close();
    const lines = (await readFile(writer.path, 'utf8')).split('\n');
    expect(lines[0]).toBe('partial output');
    expect(lines[1]).toMatch(/ \[script\] exit code 0$/);
  });

  it('keeps the order of many writes made in one turn', async () => {
    const writer = jobLogs().open(1, Date.now());
    for (let i = 0; i < 2_000; i++) {
      if (i % 2 === 0) writer.log(`n${i}`);
      else writer.write(`n${i}\n`);
    }
    await writer.close();
    const lines = (await readFile(writer.path, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(2_000);
    lines.forEach((line, i) => {
      expect(line.endsWith(`n${i}`)).toBe(true);
    });
  });

  it('ends an unterminated output line on close so later appended lines stand alone', async () => {
    const logs = jobLogs();
    const at = Date.now();
    const writer = logs.open(5, at);
    writer.write('no newline');
    await writer.close();
    await logs.append(5, at, 'callback delivered');
    const lines = (await readFile(writer.path, 'utf8')).split('\n');
    expect(lines[0]).toBe('no newline');
    expect(lines[1]).toMatch(/ callback delivered$/);
    expect(lines).toHaveLength(3);
  });

  it.each([
    'file-per-run',
    'file-per-day',
  ] as const)('logs a write that fails (the folder is a file), naming the file, and still lets the run close its log, laid out %s', async (layout) => {
    const notAFolder = path.join(logDir, 'not-a-folder');
    await writeFile(notAFolder, 'x');
    const { logger, lines } = capturingLogger();
    const writer = new JobLogs({ logDir: notAFolder, layout, retentionDays: 30, logger }).open(1, Date.now());
    writer.log('lost');
    await writer.close();
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'job log write failed', file: writer.path }));
  });

  it('still records lines logged after close', async () => {
    const writer = jobLogs().open(1, Date.now());
    writer.log('during');
    await writer.close();
    writer.log('late');
    await new Promise((r) => setTimeout(r, 50));
    expect(await readFile(writer.path, 'utf8')).toMatch(/during\n.* late\n$/);
  });
});

describe.each(['file-per-run', 'file-per-day'] as const)('JobLogs read, laid out %s', (layout) => {
  const jobLogs = (options: Partial<JobLogsOptions> = {}) => jobLogsOf({ layout, ...options });

  it('answers lines fromLineNum..toLineNum, 1-based, with isEnd false for an existing file', async () => {
    const logs = jobLogs();
    const at = Date.now();
    await writeNumberedLog(logs, 9, at, 5);
    expect(await logs.read(9, at, 1)).toEqual({
      fromLineNum: 1,
      toLineNum: 5,
      logContent: 'line 1\nline 2\nline 3\nline 4\nline 5\n',
      isEnd: false,
    });
    expect(await logs.read(9, at, 4)).toEqual({
      fromLineNum: 4,
      toLineNum: 5,
      logContent: 'line 4\nline 5\n',
      isEnd: false,
    });
  });

  it('answers the missing-file message with isEnd true when the run has no log', async () => {
    expect(await jobLogs().read(404, Date.now(), 1)).toEqual({
      fromLineNum: 1,
      toLineNum: 0,
      logContent: 'readLog fail, logFile not exists',
      isEnd: true,
    });
  });

  it('sees the lines a running run logged just before the read, its file still open', async () => {
    const logs = jobLogs();
    const at = Date.now();
    const writer = logs.open(11, at);
    writer.log('first');
    writer.write('second\n');
    const page = await logs.read(11, at, 1);
    expect(page.toLineNum).toBe(2);
    expect(page.logContent).toMatch(/\[job\] first\nsecond\n$/);
    await writer.close();
  });

  it('keeps apart the logs of many runs written in the same turns', async () => {
    const logs = jobLogs();
    const at = Date.now();
    const writers = Array.from({ length: 200 }, (_, i) => logs.open(1_000 + i, at));
    for (const [i, writer] of writers.entries()) writer.log(`run ${i}`);
    await new Promise((resolve) => setImmediate(resolve));
    for (const [i, writer] of writers.entries()) writer.write(`then ${i}\n`);
    await Promise.all(writers.map((writer) => writer.close()));
    for (let i = 0; i < writers.length; i++) {
      const page = await logs.read(1_000 + i, at, 1);
      expect(page.toLineNum).toBe(2);
      expect(page.logContent).toMatch(new RegExp(`\\[job\\] run ${i}\nthen ${i}\n$`));
    }
  });

  it('answers no lines and toLineNum = fromLineNum - 1 when asked beyond the end', async () => {
    const logs = jobLogs();
    const at = Date.now();
    await writeNumberedLog(logs, 9, at, 3);
    expect(await logs.read(9, at, 4)).toEqual({ fromLineNum: 4, toLineNum: 3, logContent: '', isEnd: false });
    expect(await logs.read(9, at, 50)).toEqual({
      fromLineNum: 50,
      toLineNum: 49,
      logContent: '',
      isEnd: false,
    });
  });

  it('caps the lines of one read and lets the caller page with toLineNum + 1', async () => {
    const logs = jobLogs({ maxLinesPerRead: 10 });
    const at = Date.now();
    await writeNumberedLog(logs, 9, at, 25);
    const pages: Array<[number, number]> = [];
    let content = '';
    let from = 1;
    for (;;) {
      const page = await logs.read(9, at, from);
      if (page.toLineNum < page.fromLineNum) break;
      pages.push([page.fromLineNum, page.toLineNum]);
      content += page.logContent;
      from = page.toLineNum + 1;
    }
    expect(pages).toEqual([
      [1, 10],
      [11, 20],
      [21, 25],
    ]);
    expect(content).toBe(Array.from({ length: 25 }, (_, i) => `line ${i + 1}\n`).join(''));
  });

  it('caps the bytes of one read', async () => {
    const logs = jobLogs({ maxBytesPerRead: 100 });
    const at = Date.now();
    const writer = logs.open(9, at);
    for (let i = 0; i < 10; i++) writer.write(`${String(i).repeat(29)}\n`);
    await writer.close();
    const page = await logs.read(9, at, 1);
    expect(page.toLineNum).toBe(3);
    expect(Buffer.byteLength(page.logContent)).toBeLessThanOrEqual(100);
    expect((await logs.read(9, at, 4)).fromLineNum).toBe(4);
  });

  it('cuts a single line longer than the byte cap rather than answering it whole', async () => {
    const logs = jobLogs({ maxBytesPerRead: 64 });
    const at = Date.now();
    const writer = logs.open(9, at);
    writer.write(`${'x'.repeat(1_000)}\nnext\n`);
    await writer.close();
    const page = await logs.read(9, at, 1);
    expect(page.toLineNum).toBe(1);
    expect(page.logContent.length).toBeLessThanOrEqual(65);
    expect((await logs.read(9, at, 2)).logContent).toBe('next\n');
  });

  it('cuts a line of multi-byte characters to the byte cap in bytes, not in characters', async () => {
    const logs = jobLogs({ maxBytesPerRead: 64 });
    const at = Date.now();
    const writer = logs.open(9, at);
    writer.write(`${'日'.repeat(100_000)}\nnext\n`);
    await writer.close();
    const page = await logs.read(9, at, 1);
    expect(page.toLineNum).toBe(1);
    expect(Buffer.byteLength(page.logContent)).toBeLessThanOrEqual(64);
    expect(page.logContent).toMatch(/^日+\n$/);
    expect((await logs.read(9, at, 2)).logContent).toBe('next\n');
  });

  it('counts \\r\\n, \\n and a lone \\r each as one line end, across reads', async () => {
    const logs = jobLogs({ maxLinesPerRead: 2 });
    const at = Date.now();
    const writer = logs.open(9, at);
    writer.write('one\r\ntwo\rthree\nfour');
    await writer.close();
    expect(await logs.read(9, at, 1)).toMatchObject({ toLineNum: 2, logContent: 'one\ntwo\n' });
    expect(await logs.read(9, at, 3)).toMatchObject({ toLineNum: 4, logContent: 'three\nfour\n' });
  });

  it('numbers lines correctly deep into a large file', async () => {
    const logs = jobLogs({ maxLinesPerRead: 1_000 });
    const at = Date.now();
    await writeNumberedLog(logs, 9, at, 100_000);
    const page = await logs.read(9, at, 99_998);
    expect(page).toEqual({
      fromLineNum: 99_998,
      toLineNum: 100_000,
      logContent: 'line 99998\nline 99999\nline 100000\n',
      isEnd: false,
    });
    expect((await logs.read(9, at, 1)).toLineNum).toBe(1_000);
  });
});

describe('JobLogs laid out file-per-day', () => {
  const dayLogs = (options: Partial<JobLogsOptions> = {}) =>
    jobLogsOf({ layout: 'file-per-day', ...options });
  const lines = async (logs: JobLogs, logId: number, at: number) =>
    (await logs.read(logId, at, 1)).logContent;

  it('appends every run of a day to the day file and index, no file a run', async () => {
    const logs = dayLogs();
    const today = Date.now();
    const yesterday = today - DAY_MS;
    for (const [logId, at] of [
      [1, today],
      [2, yesterday],
      [3, today],
    ] as const) {
      const writer = logs.open(logId, at);
      writer.write(`run ${logId}\n`);
      await writer.close();
      expect(writer.path).toBe(path.join(logDir, localDate(at), DAY_LOG_FILE));
    }
    expect((await readdir(path.join(logDir, localDate(today)))).sort()).toEqual([
      DAY_INDEX_FILE,
      DAY_LOG_FILE,
    ]);
    expect(await readFile(path.join(logDir, localDate(today), DAY_LOG_FILE), 'utf8')).toBe('run 1\nrun 3\n');
    const index = await readFile(path.join(logDir, localDate(today), DAY_INDEX_FILE));
    expect(index.length).toBe(2 * DAY_INDEX_RECORD_BYTES);
    expect(await lines(logs, 2, yesterday)).toBe('run 2\n');
    expect(await lines(logs, 3, today)).toBe('run 3\n');
    // Asked under another day, a run is not found.
    expect((await logs.read(3, yesterday, 1)).logContent).toBe('readLog fail, logFile not exists');
  });

  it('reads a run written before the executor restarted, and the new one appends after it', async () => {
    const at = Date.now();
    const before = dayLogs();
    await writeNumberedLog(before, 1, at, 3);
    const open = before.open(2, at);
    open.write('begun\n');
    await before.close();
    const after = dayLogs();
    await writeNumberedLog(after, 3, at, 2);
    await after.append(2, at, 'delivered after the restart');
    expect(await lines(after, 1, at)).toBe('line 1\nline 2\nline 3\n');
    expect(await lines(after, 3, at)).toBe('line 1\nline 2\n');
    expect(await lines(after, 2, at)).toMatch(/^begun\n.* delivered after the restart\n$/);
  });

  it('drops an index record a crash cut short, so the records after it stay aligned', async () => {
    const at = Date.now();
    const logs = dayLogs();
    await writeNumberedLog(logs, 1, at, 2);
    await appendFile(
      path.join(logDir, localDate(at), DAY_INDEX_FILE),
      Buffer.alloc(DAY_INDEX_RECORD_BYTES - 5, 7),
    );
    await writeNumberedLog(logs, 2, at, 4);
    expect(await lines(logs, 1, at)).toBe('line 1\nline 2\n');
    expect(await lines(logs, 2, at)).toBe('line 1\nline 2\nline 3\nline 4\n');
    const index = await readFile(path.join(logDir, localDate(at), DAY_INDEX_FILE));
    expect(index.length % DAY_INDEX_RECORD_BYTES).toBe(0);
  });

  it('finds an early run of a long day, its lines written over many turns between others', async () => {
    const at = Date.now();
    const logs = dayLogs();
    const early = logs.open(7, at);
    early.write('first of 7\n');
    // More index records after it than one read of the index takes.
    for (let turn = 0; turn < 3; turn++) {
      const writers = Array.from({ length: 2_000 }, (_, i) => logs.open(10_000 * (turn + 1) + i, at));
      for (const writer of writers) writer.log('other');
      await Promise.all(writers.map((writer) => writer.close()));
      early.write(`turn ${turn} of 7\n`);
    }
    await early.close();
    await logs.append(7, at, 'end of 7');
    expect(await lines(logs, 7, at)).toMatch(
      /^first of 7\nturn 0 of 7\nturn 1 of 7\nturn 2 of 7\n.* end of 7\n$/,
    );
    expect((await logs.read(7, at, 3)).logContent).toMatch(/^turn 1 of 7\nturn 2 of 7\n/);
    expect((await logs.read(404, at, 1)).isEnd).toBe(true);
  });

  /** Run 7 writes `a`, then 20 other runs, then `b`, then 20 more, then `c`, and closes. */
  async function runBetweenOthers(logs: JobLogs, at: number): Promise<void> {
    const run = logs.open(7, at);
    for (const [turn, line] of ['a', 'b', 'c'].entries()) {
      run.write(`${line}\n`);
      await logs.read(7, at, 1);
      if (line === 'c') break;
      const others = Array.from({ length: 20 }, (_, i) => logs.open(100 * (turn + 1) + i, at));
      for (const [i, other] of others.entries()) other.write(`other ${i}\n`);
      await Promise.all(others.map((other) => other.close()));
    }
    await run.close();
  }

  /** The day's index, and the number of the first record of `logId`. */
  async function indexWith(at: number, logId: number): Promise<{ index: Buffer; record: number }> {
    const index = await readFile(path.join(logDir, localDate(at), DAY_INDEX_FILE));
    for (let record = 0; record * DAY_INDEX_RECORD_BYTES < index.length; record++) {
      if (index.readDoubleLE(record * DAY_INDEX_RECORD_BYTES) === logId) return { index, record };
    }
    throw new Error(`no record of ${logId}`);
  }

  it('reads a run through its own records, not those of the runs written between them', async () => {
    const at = Date.now();
    const logs = dayLogs();
    await runBetweenOthers(logs, at);
    // A record between `a` and `b` made to name run 7: a reader scanning every record would take it.
    const { index, record } = await indexWith(at, 110);
    index.writeDoubleLE(7, record * DAY_INDEX_RECORD_BYTES);
    await writeFile(path.join(logDir, localDate(at), DAY_INDEX_FILE), index);
    expect(await lines(logs, 7, at)).toBe('a\nb\nc\n');
  });

  it("scans back from a record whose previous number leads to another run's record", async () => {
    const at = Date.now();
    const logs = dayLogs();
    await runBetweenOthers(logs, at);
    // `c`'s previous number pointed before `b`, at another run's record: followed blindly, `b` is lost.
    const { index } = await indexWith(at, 7);
    const { record: other } = await indexWith(at, 105);
    const c = index.length / DAY_INDEX_RECORD_BYTES - 1;
    expect(index.readDoubleLE(c * DAY_INDEX_RECORD_BYTES)).toBe(7);
    index.writeDoubleLE(other, c * DAY_INDEX_RECORD_BYTES + 16);
    await writeFile(path.join(logDir, localDate(at), DAY_INDEX_FILE), index);
    expect(await lines(logs, 7, at)).toBe('a\nb\nc\n');
  });
});

describe('JobLogs retention', () => {
  const today = new Date(2024, 9, 10, 15, 30).getTime();

  async function makeFolders(names: string[]): Promise<void> {
    for (const name of names) {
      await mkdir(path.join(logDir, name), { recursive: true });
      await writeFile(path.join(logDir, name, '1.log'), 'x\n');
    }
  }

  it('deletes date folders older than the retention and keeps newer ones, gluesource and other folders', async () => {
    await makeFolders([
      '2024-10-01',
      '2024-10-06',
      '2024-10-07',
      '2024-10-08',
      '2024-10-10',
      'gluesource',
      'notes',
    ]);
    const removed = await jobLogs({ retentionDays: 3, now: () => today }).sweep();
    expect(removed).toBe(3);
    expect((await readdir(logDir)).sort()).toEqual(['2024-10-08', '2024-10-10', 'gluesource', 'notes']);
  });

  it('keeps everything when the retention is 0', async () => {
    await makeFolders(['2000-01-01', '2024-10-10']);
    expect(await jobLogs({ retentionDays: 0, now: () => today }).sweep()).toBe(0);
    expect((await readdir(logDir)).sort()).toEqual(['2000-01-01', '2024-10-10']);
  });

  it('raises a retention below 3 days to 3 days', async () => {
    await makeFolders(['2024-10-07', '2024-10-08', '2024-10-09']);
    expect(await jobLogs({ retentionDays: 1, now: () => today }).sweep()).toBe(1);
    expect((await readdir(logDir)).sort()).toEqual(['2024-10-08', '2024-10-09']);
  });

  it('sweeps as soon as retention starts', async () => {
    await makeFolders([localDate(Date.now() - 40 * DAY_MS), localDate(Date.now())]);
    const logs = jobLogs({ retentionDays: 30 });
    logs.startRetention();
    try {
      const deadline = Date.now() + 5_000;
      while ((await readdir(logDir)).length > 1 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await readdir(logDir)).toEqual([localDate(Date.now())]);
    } finally {
      logs.stopRetention();
    }
  });

  it('sweeps nothing when the log folder does not exist yet', async () => {
    await rm(logDir, { recursive: true });
    expect(await jobLogs({ retentionDays: 3 }).sweep()).toBe(0);
  });
});
