/**
 * What a run's job log costs the file system, alone: the executor's way (one file a run: open,
 * the start and end lines in one write, the callback-delivery line in another, close; what
 * `log-file-thread-entry.ts` does) against the same text appended to one file in batches of
 * runs (each record headed by its logId and length, as a log kept by logId in shared files would
 * be). Prints the process's CPU a run, and its system part, for each.
 *
 *   node bench/dist/executor/log-files.js [--dir /dev/shm/tw-log-files] [--runs 100000] [--batch 100]
 *
 * The folder is made and removed; `--dir` on the file system the executors' `logDir` is on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: '/dev/shm/tw-log-files' },
    runs: { type: 'string', default: '100000' },
    batch: { type: 'string', default: '100' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(
    'node bench/dist/executor/log-files.js [--dir /dev/shm/tw-log-files] [--runs 100000] [--batch 100]',
  );
  process.exit(0);
}
const runs = Number(values.runs);
const batch = Number(values.batch);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs: a positive integer, not ${values.runs}`);
if (!Number.isInteger(batch) || batch < 1)
  throw new Error(`--batch: a positive integer, not ${values.batch}`);
const dir = values.dir;

const START_END =
  '2026-12-04 18:00:00.000 [job] ----------- tickwheel run start: jobId=1 logId=1 runner=noop glueType=BEAN param="" shard=0/1\n' +
  '2026-12-04 18:00:00.001 [job] ----------- tickwheel run end: handleCode=200 handleMsg=\n';
const DELIVERED = '2026-12-04 18:00:00.010 [job] ----------- callback delivered to http://127.0.0.1:8080/\n';

function measure(name: string, work: () => void): void {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  console.log(
    `${name}: ${((used.user + used.system) / runs).toFixed(2)} µs CPU a run, ${(used.system / runs).toFixed(2)} of it in the kernel`,
  );
}

fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(path.join(dir, 'runs'), { recursive: true });
try {
  console.log(`${runs} runs in ${dir}`);
  measure('a file a run (open, write, write, close)', () => {
    for (let i = 0; i < runs; i++) {
      const fd = fs.openSync(path.join(dir, 'runs', `${i}.log`), 'a', 0o600);
      fs.writeSync(fd, START_END);
      fs.writeSync(fd, DELIVERED);
      fs.closeSync(fd);
    }
  });
  const fd = fs.openSync(path.join(dir, 'shared.log'), 'a', 0o600);
  measure(`one file, ${batch} runs a write`, () => {
    let text = '';
    for (let i = 0; i < runs; i++) {
      text += `${i} ${START_END.length}\n${START_END}${i} ${DELIVERED.length}\n${DELIVERED}`;
      if ((i + 1) % batch === 0 || i === runs - 1) {
        fs.writeSync(fd, text);
        text = '';
      }
    }
  });
  fs.closeSync(fd);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
