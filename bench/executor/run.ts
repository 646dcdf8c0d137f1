/**
 * bench/executor — how many no-op runs per second one executor takes through its HTTP endpoint
 * on loopback, and the executor's CPU time per run (claim of the request, lane, handler, job log
 * file, batched callback). The executor runs in a child process; this process is the load
 * generator and the callback receiver.
 *
 *   npm run bench:executor -- [--runs 20000] [--jobs 100] [--concurrency 64] [--rounds 3]
 *     [--log-dir <folder>] [--log-layout file-per-run|file-per-day] [--json]
 *
 * After a warm-up, `--rounds` rounds of `--runs` runs each are measured and the median round is
 * reported (with the best one beside it): on a shared machine one round can be slowed by other
 * work, and the median is steadier than a single figure. `--log-dir` (default the OS temp
 * folder) picks the file system of the job logs: every run creates a file, whose kernel cost
 * depends on the disk, so a tmpfs such as /dev/shm isolates the executor's own cost.
 * `--log-layout` is the executor's `logLayout` (default `file-per-run`; `file-per-day` creates
 * no file a run).
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { JOB_LOG_LAYOUTS, type JobLogLayout } from '@tickwheel/executor';
import { parseCallbackBody } from '@tickwheel/protocol';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20000' },
    jobs: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '3' },
    json: { type: 'boolean', default: false },
    'log-dir': { type: 'string', default: os.tmpdir() },
    'log-layout': { type: 'string', default: 'file-per-run' },
  },
});
const runs = Number(values.runs);
const jobs = Number(values.jobs);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);
for (const [name, value] of Object.entries({ runs, jobs, concurrency, rounds })) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name}: must be an integer >= 1`);
}
const logLayout = values['log-layout'] as JobLogLayout;
if (!JOB_LOG_LAYOUTS.includes(logLayout))
  throw new Error(`--log-layout: one of ${JOB_LOG_LAYOUTS.join(', ')}, not ${values['log-layout']}`);
const token = 'bench-executor-access-token-0123456789abcdef';

let callbacks = 0;
let failures = 0;
let onAllCallbacks: () => void = () => undefined;
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    if (req.url === '/api/callback') {
      for (const result of parseCallbackBody(JSON.parse(Buffer.concat(chunks).toString('utf8')))) {
        callbacks++;
        if (result.handleCode !== 200) failures++;
      }
      if (callbacks >= runs) onAllCallbacks();
    }
    res.writeHead(200, { 'content-type': 'application/json;charset=UTF-8' });
    res.end('{"code":200,"msg":null}');
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
const serverAddress = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;

const logDir = mkdtempSync(path.join(values['log-dir'], 'tickwheel-bench-'));
const child = fork(
  new URL('./executor-process.js', import.meta.url),
  [serverAddress, logDir, token, logLayout],
  {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: process.env.TW_BENCH_PROFILE
      ? ['--cpu-prof', '--cpu-prof-dir', process.env.TW_BENCH_PROFILE]
      : [],
  },
);
const [ready] = (await once(child, 'message')) as [{ address: string }];
const runUrl = new URL('run', ready.address);

async function childCpu(): Promise<NodeJS.CpuUsage> {
  child.send({ type: 'cpu' });
  const [answer] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage }];
  return answer.cpu;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
function postRun(logId: number): Promise<void> {
  const body = JSON.stringify({
    jobId: (logId % jobs) + 1,
    executorHandler: 'noop',
    executorParams: '',
    executorBlockStrategy: 'SERIAL_EXECUTION',
    executorTimeout: 0,
    logId,
    logDateTime: Date.now(),
    glueType: 'BEAN',
    glueSource: '',
    glueUpdatetime: 0,
    broadcastIndex: 0,
    broadcastTotal: 1,
  });
  return new Promise((resolve, reject) => {
    const req = http.request(
      runUrl,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json;charset=UTF-8',
          'content-length': Buffer.byteLength(body),
          'XXL-JOB-ACCESS-TOKEN': token,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { code: number; msg: string };
          if (answer.code === 200) resolve();
          else reject(new Error(`run ${logId} refused: ${answer.msg}`));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function drive(from: number, count: number): Promise<void> {
  let next = from;
  const end = from + count;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < end) await postRun(next++);
    }),
  );
}

// Warm up JIT, sockets and lanes, then measure.
const warmup = Math.min(2_000, runs);
callbacks = -warmup;
// Warm-up logIds sit far above the measured ones (1, 2, ...), which must not repeat them.
await drive(1_000_000_000, warmup);
await new Promise<void>((resolve) => {
  const check = setInterval(() => {
    if (callbacks >= 0) {
      clearInterval(check);
      resolve();
    }
  }, 10);
});

interface Round {
  acceptedPerSecond: number;
  completedPerSecond: number;
  cpuUserMicrosPerRun: number;
  cpuSystemMicrosPerRun: number;
  cpuMicrosPerRun: number;
}

async function measureRound(firstLogId: number): Promise<Round> {
  callbacks = 0;
  const allCallbacks = new Promise<void>((resolve) => {
    onAllCallbacks = resolve;
  });
  const cpuBefore = await childCpu();
  const started = process.hrtime.bigint();
  await drive(firstLogId, runs);
  const accepted = Number(process.hrtime.bigint() - started) / 1e9;
  await allCallbacks;
  const finished = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuAfter = await childCpu();
  const user = (cpuAfter.user - cpuBefore.user) / runs;
  const system = (cpuAfter.system - cpuBefore.system) / runs;
  return {
    acceptedPerSecond: runs / accepted,
    completedPerSecond: runs / finished,
    cpuUserMicrosPerRun: user,
    cpuSystemMicrosPerRun: system,
    cpuMicrosPerRun: user + system,
  };
}

const measured: Round[] = [];
for (let round = 0; round < rounds; round++) measured.push(await measureRound(1 + round * runs));

child.send({ type: 'stop' });
await once(child, 'exit');
agent.destroy();
receiver.close();
rmSync(logDir, { recursive: true, force: true });

const byCpu = [...measured].sort((a, b) => a.cpuMicrosPerRun - b.cpuMicrosPerRun);
const median = byCpu[Math.floor((byCpu.length - 1) / 2)] as Round;
const best = byCpu[0] as Round;
const setup = {
  runs,
  jobs,
  concurrency,
  rounds,
  logDir: values['log-dir'],
  logLayout,
  node: process.version,
  cpus: os.availableParallelism(),
};

if (values.json) {
  console.log(JSON.stringify({ ...setup, failures, median, best, perRound: measured }, null, 2));
} else {
  const row = (k: string, m: string, b: string) =>
    console.log(`| ${k.padEnd(44)} | ${m.padStart(12)} | ${b.padStart(12)} |`);
  const fixed = (n: number) => n.toFixed(0);
  const micros = (n: number) => n.toFixed(1);
  console.log(
    `runs ${runs} per round, ${rounds} rounds, jobs (lanes) ${jobs}, client concurrency ${concurrency}, job logs ${logLayout} in ${values['log-dir']}, node ${process.version}, ${setup.cpus} CPUs`,
  );
  console.log('');
  row('measure (no-op BEAN handler)', 'median round', 'best round');
  console.log(`| ${'-'.repeat(44)} | ${'-'.repeat(11)}: | ${'-'.repeat(11)}: |`);
  row('runs/s accepted (run answered)', fixed(median.acceptedPerSecond), fixed(best.acceptedPerSecond));
  row(
    'runs/s completed (callback received)',
    fixed(median.completedPerSecond),
    fixed(best.completedPerSecond),
  );
  row('executor CPU µs per run', micros(median.cpuMicrosPerRun), micros(best.cpuMicrosPerRun));
  row('  of which user', micros(median.cpuUserMicrosPerRun), micros(best.cpuUserMicrosPerRun));
  row(
    '  of which system (kernel: sockets, files)',
    micros(median.cpuSystemMicrosPerRun),
    micros(best.cpuSystemMicrosPerRun),
  );
  console.log('');
  console.log(
    `failed results: ${failures}; rounds ordered by executor CPU, the median and the lowest shown.`,
  );
}
