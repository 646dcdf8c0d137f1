/**
 * bench/executor — how many no-op runs per second one executor takes through its HTTP endpoint
 * on loopback, and the executor's CPU time per run (claim of the request, lane, handler, job log
 * file, batched callback). The executor runs in a child process; this process is the load
 * generator and the callback receiver.
 *
 *   npm run bench:executor -- [--runs 20000] [--jobs 100] [--concurrency 64]
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseCallbackBody } from '@tickwheel/protocol';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20000' },
    jobs: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '64' },
  },
});
const runs = Number(values.runs);
const jobs = Number(values.jobs);
const concurrency = Number(values.concurrency);
const token = 'bench-token';

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

const logDir = mkdtempSync(path.join(os.tmpdir(), 'tickwheel-bench-'));
const child = fork(new URL('./executor-process.js', import.meta.url), [serverAddress, logDir, token], {
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
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
await drive(1_000_000, warmup);
await new Promise<void>((resolve) => {
  const check = setInterval(() => {
    if (callbacks >= 0) {
      clearInterval(check);
      resolve();
    }
  }, 10);
});

const allCallbacks = new Promise<void>((resolve) => {
  onAllCallbacks = resolve;
});
const cpuBefore = await childCpu();
const started = process.hrtime.bigint();
await drive(1, runs);
const accepted = Number(process.hrtime.bigint() - started) / 1e9;
await allCallbacks;
const finished = Number(process.hrtime.bigint() - started) / 1e9;
const cpuAfter = await childCpu();
const cpuMicros = cpuAfter.user - cpuBefore.user + (cpuAfter.system - cpuBefore.system);

child.send({ type: 'stop' });
await once(child, 'exit');
agent.destroy();
receiver.close();
rmSync(logDir, { recursive: true, force: true });

const row = (k: string, v: string) => console.log(`| ${k.padEnd(38)} | ${v.padStart(14)} |`);
console.log(`| ${'measure'.padEnd(38)} | ${'value'.padStart(14)} |`);
console.log(`| ${'-'.repeat(38)} | ${'-'.repeat(14)} |`);
row('runs (no-op handler)', String(runs));
row('jobs (lanes) / client concurrency', `${jobs} / ${concurrency}`);
row('runs/s accepted (run answered)', (runs / accepted).toFixed(0));
row('runs/s completed (callback received)', (runs / finished).toFixed(0));
row('executor CPU µs per run', (cpuMicros / runs).toFixed(1));
row('failed results', String(failures));
