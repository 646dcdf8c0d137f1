/**
 * bench/workflow — how long a workflow takes to move on: the time from a node's result reaching
 * the server to its successor's run leaving for the executor (a handoff), under K runs in flight.
 *
 *   npm run bench:workflow -- [--stores sqlite,postgres] [--concurrency 20] [--duration 30]
 *     [--warmup 5] [--drain-seconds 30] [--postgres-url postgres://…/test] [--hog 0]
 *     [--poll-ms 5] [--log-dir /dev/shm] [--keep] [--json]
 *
 * Each store gets a fresh database (bench/fire's `database.ts`: a SQLite file in a temporary
 * folder, or a PostgreSQL schema `tw_bench_<random>` dropped afterwards), a server child
 * (bench/fire's `server-process.ts`) and one Tickwheel executor child (bench/fire's
 * `executor-process.ts`, app `bench`, a no-op handler `noop`). The harness writes an app and
 * one job per node straight through the store, creates the workflow through the REST API
 *
 *   A → B, A → C, B → D, C → D (an AND-join), D → E      (concurrency PARALLEL)
 *
 * and triggers runs through the API, keeping `--concurrency` runs in flight (a new one as soon
 * as one ends, which the harness sees by reading the run table every `--poll-ms`). Runs
 * triggered in the `--duration` seconds after `--warmup` are measured; the load goes on until
 * each of them has ended (or `--drain-seconds` passed). Then, from the records (`handoffs.ts`),
 * every handoff of every measured run: successor `trigger_at` − the latest `handle_at` of its
 * predecessors; the runs completed a second in the window (their `finished_at`), the server's
 * CPU per run completed, and the 1-minute load average when the window opens and when it ends.
 * `--hog N` keeps N cores busy (bench/fire's `hog-process.ts`) from before the server starts.
 * With `--json` the table goes to stderr and the figures, as JSON, to stdout.
 * `TW_BENCH_PROFILE=<folder>` profiles the server's main thread into that folder (as bench/fire).
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { openStore, type Store } from '@tickwheel/server/internal';
import { ask, forkChild, nextMessage, stopChild } from '../fire/children.js';
import { type BenchDatabase, createDatabase, type StoreName } from '../fire/database.js';
import type { HogMessage, ServerMessage, Usage, Window } from '../fire/messages.js';
import { type Handoffs, readHandoffs } from './handoffs.js';
import { keepRunsInFlight } from './runs-in-flight.js';

const { values } = parseArgs({
  options: {
    stores: { type: 'string', default: 'sqlite' },
    concurrency: { type: 'string', default: '20' },
    duration: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '5' },
    'drain-seconds': { type: 'string', default: '30' },
    'postgres-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    hog: { type: 'string', default: '0' },
    'poll-ms': { type: 'string', default: '5' },
    'log-dir': { type: 'string', default: existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir() },
    keep: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});

const stores = values.stores.split(',').map((store) => {
  if (store !== 'sqlite' && store !== 'postgres')
    throw new Error(`--stores: '${store}' is not one of sqlite, postgres`);
  return store as StoreName;
});
const concurrency = positiveInteger(values.concurrency, '--concurrency');
const duration = positiveInteger(values.duration, '--duration');
const warmup = positiveInteger(values.warmup, '--warmup');
const drainMs = positiveInteger(values['drain-seconds'], '--drain-seconds') * 1000;
const hogCount = nonNegativeInteger(values.hog, '--hog');
const pollMs = positiveInteger(values['poll-ms'], '--poll-ms');

const APP_NAME = 'bench';
const HANDLER = 'noop';
const ACCESS_TOKEN = 'bench-workflow-access-token-0123456789abcdef';
/** The REST API's token: the server child reads it from its environment (TICKWHEEL_API_TOKEN). */
const API_TOKEN = 'bench-workflow-api-token-0123456789abcdef';
/** A chain with a diamond in it: D waits for both B and C. */
const NODES = ['A', 'B', 'C', 'D', 'E'] as const;
const EDGES = [
  { from: 'A', to: 'B' },
  { from: 'A', to: 'C' },
  { from: 'B', to: 'D' },
  { from: 'C', to: 'D' },
  { from: 'D', to: 'E' },
];

interface ChildCpu {
  /** CPU over the window, % of one core. */
  cpuPercent: number;
  /** CPU per run completed in the window, µs. */
  usPerRun: number;
}

interface CaseResult {
  store: StoreName;
  concurrency: number;
  seconds: number;
  window: Window;
  hogs: number;
  /** Handoffs of the runs triggered in the window. */
  handoffs: Handoffs;
  /** Runs (top-level) whose `finished_at` falls in the window, per second. */
  runsPerSecond: number;
  /** Runs triggered in the window, and those of them not ended by the drain's end. */
  windowRuns: number;
  unfinishedInWindow: number;
  server: ChildCpu;
  executor: ChildCpu;
  /** The whole machine's CPU time over the window, percent of all its cores. */
  machineBusyPercent: number;
  /** os.loadavg() (1, 5, 15 minutes) when the window opened and when it ended. */
  load: { start: number[]; end: number[] };
}

async function main(): Promise<void> {
  const table = values.json ? progress : (line: string) => console.log(line);
  table(
    `bench/workflow: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}, ` +
      `${concurrency} runs in flight of A → (B, C) → D → E, window ${duration} s after ${warmup} s warm-up` +
      (hogCount > 0 ? `, ${hogCount} CPU hog${hogCount === 1 ? '' : 's'}` : ''),
  );
  table(`load average at start: ${loadText(os.loadavg())}\n`);
  const results: CaseResult[] = [];
  for (const store of stores) {
    progress(`${store}…`);
    const result = await runCase(store);
    results.push(result);
    table(caseTable(result));
  }
  table(`load average at end: ${loadText(os.loadavg())}`);
  if (values.json) console.log(JSON.stringify({ machine: machine(), results }, null, 2));
}

async function runCase(storeName: StoreName): Promise<CaseResult> {
  const database = await createDatabase(storeName, values['postgres-url']);
  const childLog = path.join(database.dir, 'children.log');
  const logFd = openSync(childLog, 'a');
  const executorLogDir = mkdtempSync(path.join(values['log-dir'], 'tw-bench-workflow-logs-'));
  const children: ChildProcess[] = [];
  let store: Store | undefined;
  try {
    store = await openStore({ database: database.url, dataDir: database.dir, poolSize: 2 });
    const jobIds = await seedJobs(store);

    const hogs = Array.from({ length: hogCount }, () =>
      forkChild({ script: './hog-process.js', config: {}, logFd }),
    );
    children.push(...hogs);
    await Promise.all(hogs.map((hog) => nextMessage<HogMessage>(hog, 'ready', 10_000)));

    // The child inherits the harness's environment when forked.
    process.env.TICKWHEEL_API_TOKEN = API_TOKEN;
    // Scripts are named from bench/fire's children.ts, which forks them.
    const server = forkChild({
      script: './server-process.js',
      config: {
        database: database.url,
        dataDir: database.dir,
        accessToken: ACCESS_TOKEN,
        nodeId: 'bench-workflow',
      },
      logFd,
    });
    children.push(server);
    const { url } = await nextMessage<Extract<ServerMessage, { type: 'ready' }>>(server, 'ready', 60_000);
    const executor = forkChild({
      script: './executor-process.js',
      config: { serverUrls: [url], accessToken: ACCESS_TOKEN, logDir: executorLogDir, transport: 'http' },
      logFd,
    });
    children.push(executor);
    await nextMessage(executor, 'ready', 30_000);
    await waitForRegistration(store);

    const api = restClient(url);
    const workflow = await api<{ id: number }>('POST', '/workflows', {
      appId: jobIds.appId,
      name: 'bench chain and diamond',
      scheduleType: 'NONE',
      concurrency: 'PARALLEL',
      nodes: NODES.map((key) => ({ key, type: 'JOB', jobId: jobIds.byNode.get(key) })),
      edges: EDGES,
    });

    const windowStart = Date.now() + warmup * 1000;
    const window = { start: windowStart, end: windowStart + duration * 1000 };
    const harnessStore = store;
    const load = keepRunsInFlight({
      concurrency,
      window,
      deadline: window.end + drainMs,
      pollMs,
      trigger: async () =>
        (await api<{ runId: number }>('POST', `/workflows/${workflow.id}/trigger`, {})).runId,
      ended: async (runIds) =>
        (
          await harnessStore.db
            .selectFrom('workflow_run')
            .select('id')
            .where('id', 'in', [...runIds])
            .where('finished_at', 'is not', null)
            .execute()
        ).map((row) => Number(row.id)),
    });
    // Whatever the load does, it is awaited below; a rejection here must not go unhandled meanwhile.
    load.catch(() => undefined);

    await sleep(Math.max(0, window.start - Date.now()));
    const loadStart = os.loadavg();
    const machineBefore = machineCpuTimes();
    const serverBefore = await ask<Usage>(server, 'usage');
    const executorBefore = await ask<Usage>(executor, 'usage');
    await sleep(Math.max(0, window.end - Date.now()));
    const serverAfter = await ask<Usage>(server, 'usage');
    const executorAfter = await ask<Usage>(executor, 'usage');
    const machineBusyPercent = busyPercentSince(machineBefore);
    const loadEnd = os.loadavg();

    const inFlight = await load;
    await Promise.all(children.map((child) => stopChild(child, 5_000)));

    const completed = await store.db
      .selectFrom('workflow_run')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('parent_run_id', 'is', null)
      .where('finished_at', '>=', window.start)
      .where('finished_at', '<', window.end)
      .executeTakeFirstOrThrow();
    const runsCompleted = Number(completed.count);
    const handoffs = await readHandoffs(store, inFlight.windowRuns);
    const cpuOf = (before: Usage, after: Usage): ChildCpu => {
      const micros = after.cpu.user - before.cpu.user + after.cpu.system - before.cpu.system;
      return {
        cpuPercent: (micros / (duration * 1e6)) * 100,
        usPerRun: runsCompleted > 0 ? micros / runsCompleted : Number.NaN,
      };
    };
    return {
      store: storeName,
      concurrency,
      seconds: duration,
      window,
      hogs: hogCount,
      handoffs,
      runsPerSecond: runsCompleted / duration,
      windowRuns: inFlight.windowRuns.length,
      unfinishedInWindow: inFlight.unfinishedInWindow,
      server: cpuOf(serverBefore, serverAfter),
      executor: cpuOf(executorBefore, executorAfter),
      machineBusyPercent,
      load: { start: loadStart, end: loadEnd },
    };
  } finally {
    await Promise.all(children.map((child) => stopChild(child, 5_000)));
    await store?.close();
    closeSync(logFd);
    reportChildErrors(childLog);
    rmSync(executorLogDir, { recursive: true, force: true });
    if (values.keep) progress(`  kept: ${database.url} (child log: ${childLog})`);
    else await dropQuietly(database);
  }
}

/** The app and one job per node (so B and C, two jobs, run side by side on the executor). */
async function seedJobs(store: Store): Promise<{ appId: number; byNode: Map<string, number> }> {
  const now = Date.now();
  const app = await store.apps.createApp(
    { appName: APP_NAME, title: 'bench/workflow', addressType: 'AUTO' },
    now,
  );
  const byNode = new Map<string, number>();
  for (const key of NODES) {
    const job = await store.jobs.createJob(
      { app_id: app.id, name: `node ${key}`, author: 'bench', executor_handler: HANDLER },
      now,
    );
    byNode.set(key, job.id);
  }
  return { appId: app.id, byNode };
}

/** Calls the REST API with the bench's token; throws on any answer but 2xx. */
function restClient(serverUrl: string) {
  return async <T>(method: string, route: string, body?: unknown): Promise<T> => {
    const answer = await fetch(new URL(`api/v1${route}`, serverUrl), {
      method,
      headers: {
        authorization: `Bearer ${API_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await answer.text();
    if (!answer.ok) throw new Error(`${method} ${route}: ${answer.status} ${text.slice(0, 400)}`);
    return JSON.parse(text) as T;
  };
}

/** The executor registers asynchronously after `start()`: wait until the server has stored it. */
async function waitForRegistration(store: Store): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await store.registry.listAlive(Date.now() - 60_000, APP_NAME)).length < 1) {
    if (Date.now() > deadline) throw new Error('the executor did not register within 15 s');
    await sleep(100);
  }
}

/** Busy and total CPU time of every core, from the kernel's counters. */
function machineCpuTimes(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const { user, nice, sys, idle, irq } = cpu.times;
    busy += user + nice + sys + irq;
    total += user + nice + sys + idle + irq;
  }
  return { busy, total };
}

function busyPercentSince(before: { busy: number; total: number }): number {
  const after = machineCpuTimes();
  return ((after.busy - before.busy) / Math.max(1, after.total - before.total)) * 100;
}

/** The server's and executor's warnings and errors, on stderr (info lines left out). */
function reportChildErrors(logFile: string): void {
  const lines = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\{"level":(10|20|30),/.test(line))
    // The server stops before the executor, so the executor's goodbye cannot reach it.
    .filter((line) => !/registryRemove was not accepted|no server accepted the callback/.test(line));
  if (lines.length === 0) return;
  progress(`  ${lines.length} warnings or errors from the server and executor; the first ones:`);
  for (const line of lines.slice(0, 5)) progress(`    ${line.slice(0, 400)}`);
}

async function dropQuietly(database: BenchDatabase): Promise<void> {
  try {
    await database.drop();
  } catch (err) {
    progress(`  could not drop the case's database: ${String(err)}`);
  }
}

function caseTable(r: CaseResult): string {
  const h = r.handoffs;
  const row = (what: string, f: Handoffs['all']) =>
    `| ${r.store} | ${what} | ${f.count.toLocaleString('en-US')} | ${whole(f.p50)} | ${whole(f.p90)} | ${whole(f.p99)} | ${whole(f.max)} |`;
  const lines = [
    '| store | handoff (result stored → successor sent) | count | p50 ms | p90 ms | p99 ms | max ms |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    row('all', h.all),
    ...h.perNode.map((node) => row(node.edges, node.figures)),
    row('part: result stored → step computed', h.toStep),
    row('part: step computed → run sent', h.toSend),
    '',
    '| store | runs in flight | runs/s completed | window runs (not ended) | runs not succeeded | handoffs missing | server CPU | server µs/run | executor CPU | machine busy | load 1m start → end | hogs |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${r.store} | ${r.concurrency} | ${r.runsPerSecond.toFixed(1)} | ${r.windowRuns} (${r.unfinishedInWindow}) | ` +
      `${h.runsNotSucceeded} | ${h.missing} | ${Math.round(r.server.cpuPercent)} % | ${whole(r.server.usPerRun)} | ` +
      `${Math.round(r.executor.cpuPercent)} % | ${Math.round(r.machineBusyPercent)} % | ` +
      `${(r.load.start[0] ?? 0).toFixed(2)} → ${(r.load.end[0] ?? 0).toFixed(2)} | ${r.hogs} |`,
    '',
    `slowest handoffs: ${h.slowest
      .map((s) => `run ${s.runId} ${s.node} ${s.ms} ms (${s.toStepMs} + ${s.toSendMs})`)
      .join('; ')}`,
    '',
  ];
  return lines.join('\n');
}

function loadText(load: number[]): string {
  return load.map((value) => value.toFixed(2)).join(' / ') + ' (1 / 5 / 15 min)';
}

/** A figure rounded to a whole number; '–' when there is none. */
function whole(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–';
}

function machine() {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    node: process.version,
    hogs: hogCount,
  };
}

function progress(message: string): void {
  process.stderr.write(`${message}\n`);
}

function nonNegativeInteger(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`${flag}: must be an integer >= 0, got '${text}'`);
  return value;
}

function positiveInteger(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${flag}: must be an integer >= 1, got '${text}'`);
  return value;
}

await main();
