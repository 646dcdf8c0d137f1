/**
 * bench/fire — the scheduler under cron load: how late fires reach the executor, how many a
 * second the server sustains with every fire and its result stored, whether any is skipped,
 * lost or doubled, and what the server spends in CPU and memory doing it.
 *
 *   npm run bench:fire -- [--stores sqlite,postgres] [--shapes spread,aligned,idle]
 *     [--sizes 1000,5000,10000] [--seconds 10] [--warmup 3] [--executors 2]
 *     [--idle-jobs 100000] [--idle-due 1000] [--postgres-url postgres://…/test]
 *     [--log-dir /dev/shm] [--drain-seconds 30] [--nodes 1] [--keep] [--json] [--per-second]
 *     [--hog 0] [--stages] [--transport http|http-pull|redis] [--redis redis://127.0.0.1:6379]
    [--log-layout file-per-run|file-per-day]
 *
 * Each case (store × shape × size) gets a fresh database, seeded straight through the store; the
 * server runs in a child process (`server-process.ts`, `createServer`) and the executors in
 * `--executors` more (`executor-process.ts`, a no-op handler recording lateness = run start −
 * scheduled time). After `--warmup` seconds of firing, the fires scheduled in the next
 * `--seconds` are measured; once their results are stored (or `--drain-seconds` passed) the
 * children are stopped and the database is counted against the schedules.
 * `TW_BENCH_PROFILE=<folder>` runs the server and executor children with `--cpu-prof`, each into
 * a folder of its own under that one, and the server's main thread through the inspector into
 * `server-main-<pid>.cpuprofile` there (`profile-summary.ts` sums them per function and file). `--keep`
 * leaves each case's database (SQLite folder or PostgreSQL schema) and child log for inspection.
 * With `--json` the table rows go to stderr and the figures, as JSON, to stdout. `--nodes N`
 * (PostgreSQL only) runs N server nodes on the one database, each in its own process; the
 * executors register with all of them, and the window starts once the shards are spread
 * (each node holds ⌊64/N⌋ or more); the server figures are then the nodes' sum (CPU, RSS) and
 * worst (loop delay).
 * The window is also measured second by second (`perSecond` in the JSON): the executors keep a
 * lateness histogram per scheduled second, the server's RSS and CPU come from the usage sample
 * that closes each second; `steady` and the last two columns compare the window's first 10 s with
 * its last 10 (thirds below 20 s), to show whether lateness or memory creep up over a long window.
 * `--per-second` prints that series to stderr, one line a second, after each case. The server's
 * and the executors' CPU are also given per run started in the window (`server µs/fire`,
 * `executors µs/run`), a cost that compares across rates; for PostgreSQL and MySQL, the database
 * server's processes too (`database CPU`, `database µs/fire`, database-cpu.ts), and for PostgreSQL
 * the write-ahead log written in the window per run (`WAL bytes/fire`). `--hog N` forks N CPU hogs
 * (`hog-process.ts`, a busy loop keeping one core busy each) before each case's server and
 * executors and stops them at its end: the scheduler on a machine short of CPU. `--stages` also
 * reads, once the children are stopped, the window's fire records second by second (`stages.ts`):
 * claim (record written − scheduled), send (sent − scheduled) and result (stored − sent), in
 * `perSecond` and on the `--per-second` lines — which stage falls behind when lateness grows.
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { JOB_LOG_LAYOUTS, type JobLogLayout } from '@tickwheel/executor';
import { openStore, type Store } from '@tickwheel/server/internal';
import { ask, forkChild, nextMessage, stopChild } from './children.js';
import { countFinal, countFires, expectedFires, type FireCounts } from './count.js';
import { type BenchDatabase, createDatabase, type StoreName } from './database.js';
import { databaseCpuByProcess, databaseCpuSecondsSince, walPosition } from './database-cpu.js';
import { Histogram } from './histogram.js';
import type { ExecutorMessage, HogMessage, ServerMessage, Usage, Window } from './messages.js';
import { APP_NAME, type Shape, seedCase } from './seed.js';
import { readStages, type SecondStages } from './stages.js';

const USAGE = `bench/fire — the scheduler under cron load (the comment at the top of bench/fire/run.ts says more)

  node bench/dist/fire/run.js [--stores sqlite,postgres] [--shapes spread,aligned,idle]
    [--sizes 1000,5000,10000] [--seconds 10] [--warmup 3] [--executors 2]
    [--idle-jobs 100000] [--idle-due 1000] [--postgres-url postgres://…/test]
    [--log-dir /dev/shm] [--drain-seconds 30] [--nodes 1] [--keep] [--json] [--per-second]
    [--hog 0] [--stages] [--transport http|http-pull|redis] [--redis redis://127.0.0.1:6379]
    [--log-layout file-per-run|file-per-day]

  TW_BENCH_PROFILE=<folder> profiles the children; TW_BENCH_HEAP_PROFILE=<folder> samples the
  server's allocations (TW_BENCH_EXECUTOR_HEAP_PROFILE=<folder> the executors'; with
  TW_BENCH_HEAP_PROFILE_PROMOTED=1 only what they promote; heap-summary.js sums them);
  TW_BENCH_SERVER_OPTIONS='{…}' sets server options (e.g. databasePoolSize) and
  TW_BENCH_SERVER_INTERNAL='{…}' its internal ones;
  TW_BENCH_SERVER_NODE_FLAGS='--trace-gc …' gives the server processes Node flags (their output
  goes to the child log, which --keep keeps).`;

const { values } = parseArgs({
  options: {
    stores: { type: 'string', default: 'sqlite,postgres' },
    shapes: { type: 'string', default: 'spread,aligned,idle' },
    sizes: { type: 'string', default: '1000,5000,10000' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    executors: { type: 'string', default: '2' },
    'idle-jobs': { type: 'string', default: '100000' },
    'idle-due': { type: 'string', default: '1000' },
    'postgres-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    'log-dir': { type: 'string', default: existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir() },
    'drain-seconds': { type: 'string', default: '30' },
    nodes: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'per-second': { type: 'boolean', default: false },
    hog: { type: 'string', default: '0' },
    stages: { type: 'boolean', default: false },
    transport: { type: 'string', default: 'http' },
    redis: { type: 'string', default: 'redis://127.0.0.1:6379' },
    'log-layout': { type: 'string', default: 'file-per-run' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const stores = listOf(values.stores, ['sqlite', 'postgres'] as const, '--stores');
const shapes = listOf(values.shapes, ['spread', 'aligned', 'idle'] as const, '--shapes');
const sizes = values.sizes.split(',').map((size) => positiveInteger(size, '--sizes'));
const seconds = positiveInteger(values.seconds, '--seconds');
const warmup = positiveInteger(values.warmup, '--warmup');
const executorCount = positiveInteger(values.executors, '--executors');
const idleJobs = positiveInteger(values['idle-jobs'], '--idle-jobs');
const idleDue = positiveInteger(values['idle-due'], '--idle-due');
const drainMs = positiveInteger(values['drain-seconds'], '--drain-seconds') * 1000;
const nodeCount = positiveInteger(values.nodes, '--nodes');
const hogCount = nonNegativeInteger(values.hog, '--hog');
const [transport] = listOf(values.transport, ['http', 'http-pull', 'redis'] as const, '--transport');
if (values.transport.includes(',')) throw new Error('--transport: one of http, http-pull, redis');
const [logLayout] = listOf(values['log-layout'], JOB_LOG_LAYOUTS, '--log-layout');
if (values['log-layout'].includes(',')) throw new Error(`--log-layout: one of ${JOB_LOG_LAYOUTS.join(', ')}`);
/** The Redis of `--transport redis`, which server and executors share. */
const redisUrl = transport === 'redis' ? values.redis : undefined;
if (nodeCount > 1 && stores.includes('sqlite'))
  throw new Error('--nodes: SQLite is one node; use --stores postgres');
const profileDir = process.env.TW_BENCH_PROFILE;
/** Node flags for the server processes (`--trace-gc`, heap sizes): flags NODE_OPTIONS refuses. */
const serverNodeFlags = (process.env.TW_BENCH_SERVER_NODE_FLAGS ?? '').split(/\s+/).filter((f) => f !== '');

const ACCESS_TOKEN = 'bench-fire-access-token-0123456789abcdef';
/** Time from releasing the jobs to their first second: the planner's first claim (every 500 ms) comes well before it. */
const LEAD_MS = 1_500;

interface CaseSpec {
  store: StoreName;
  shape: Shape;
  /** Jobs due every second. */
  due: number;
  /** Enabled jobs not due during the run. */
  idle: number;
}

/**
 * One second of the window: the runs of the fires scheduled in it, and the server at its end;
 * with `--stages`, the stages of its fires' records too.
 */
interface SecondResult extends Partial<SecondStages> {
  /** Offset from the window's start, 0-based. */
  second: number;
  /** Runs of the fires scheduled in this second, and their lateness (ms; NaN, in JSON null, when none ran). */
  runs: number;
  p50: number;
  p99: number;
  max: number;
  /** The server's RSS at the usage sample that closes this second, and its CPU (% of one core) in it. */
  serverRssMb: number;
  serverCpuPercent: number;
}

/**
 * Whether the window was steady: the lateness p99 and the server's mean RSS over its first 10
 * seconds and over its last 10 (first and last third of windows shorter than 20 s).
 */
interface Steady {
  firstP99: number;
  lastP99: number;
  firstRssMb: number;
  lastRssMb: number;
}

interface CaseResult extends CaseSpec {
  seconds: number;
  window: Window;
  fires: FireCounts;
  /** Runs started during the window (wall clock) per second, over every executor. */
  runsPerSecond: number;
  /** Window fires with a result stored, per second of window. */
  storedPerSecond: number;
  /** `early`: runs started before their fire's scheduled time (counted as 0 ms late in the others). */
  lateness: { runs: number; p50: number; p99: number; max: number; early: number };
  /** Time from the end of the window until every window fire had a final status (or the cap). */
  drainMs: number;
  /** Server nodes (their CPU and RSS summed in `server`). */
  nodes: number;
  /** How the server reached the executors (`--transport`). */
  transport: 'http' | 'http-pull' | 'redis';
  /** How the executors kept their job logs (`--log-layout`). */
  logLayout: JobLogLayout;
  /** CPU hogs (`--hog`) busy beside the case, one core each. */
  hogs: number;
  server: ChildUsage;
  executors: ChildUsage;
  /**
   * CPU time per run started in the window, µs: the server's (every node's) and both executors'
   * (`cpuPercent` / 100 · 1e6 / `runsPerSecond`). What a fire costs, whatever the rate.
   */
  serverUsPerFire: number;
  executorsUsPerRun: number;
  /** The server's main thread: KB its heap took in a fire, and its collections' ms a second. */
  serverKbPerFire: number;
  /** The executors' main threads' allocation a run started in the window (KB), and their collections' pause a second (ms, summed). */
  executorsKbPerRun: number;
  executorsGcMsPerSecond: number;
  serverGcMsPerSecond: number;
  /**
   * The database server's processes over the window (PostgreSQL, MySQL; NaN, in JSON null, for
   * SQLite, which runs in the server), % of one core, and per run started, µs (database-cpu.ts).
   */
  databaseCpuPercent: number;
  databaseUsPerFire: number;
  /** PostgreSQL's write-ahead log over the window per run started, bytes (NaN, in JSON null, otherwise). */
  walBytesPerFire: number;
  /** The whole machine's CPU time over the window, percent of all its cores (other work included). */
  machineBusyPercent: number;
  /** 1-minute load average at the start and at the end of the case. */
  load: [number, number];
  /** The window second by second, and its first and last part compared. */
  perSecond: SecondResult[];
  steady: Steady;
  /** The server's usage samples over the window (every node's summed): the first opens it, one closes each second. */
  serverSamples: UsageSample[];
}

const cases: CaseSpec[] = [];
for (const store of stores) {
  for (const shape of shapes) {
    if (shape === 'idle') cases.push({ store, shape, due: idleDue, idle: idleJobs });
    else for (const due of sizes) cases.push({ store, shape, due, idle: 0 });
  }
}

async function main(): Promise<void> {
  const results: CaseResult[] = [];
  // The table goes to stdout, or to stderr when stdout carries the JSON.
  const table = values.json ? progress : (line: string) => console.log(line);
  table(
    `bench/fire: ${os.cpus().length} CPUs, Node ${process.version}, ${executorCount} executors, ` +
      (hogCount > 0 ? `${hogCount} CPU hog${hogCount === 1 ? '' : 's'}, ` : '') +
      `window ${seconds} s after ${warmup} s warm-up, executor logs in ${values['log-dir']} (${logLayout})\n`,
  );
  table(tableHeader());
  for (const spec of cases) {
    progress(`${spec.store} ${spec.shape} ${spec.due}${spec.idle ? ` + ${spec.idle} not due` : ''}…`);
    const result = await runCase(spec);
    results.push(result);
    if (values['per-second']) printPerSecond(result);
    table(tableRow(result));
  }
  if (values.json) console.log(JSON.stringify({ machine: machine(), results }, null, 2));
}

async function runCase(spec: CaseSpec): Promise<CaseResult> {
  const loadBefore = os.loadavg()[0] ?? 0;
  const database = await createDatabase(spec.store, values['postgres-url']);
  const childLog = path.join(database.dir, 'children.log');
  const logFd = openSync(childLog, 'a');
  const executorLogDir = mkdtempSync(path.join(values['log-dir'], 'tw-bench-fire-logs-'));
  const children: ChildProcess[] = [];
  let store: Store | undefined;
  try {
    store = await openStore({ database: database.url, dataDir: database.dir, poolSize: 2 });
    const seeded = await seedCase(store, spec.shape, spec.due, spec.idle);

    // Busy before the server and executors start, so they start and run on a machine that is.
    const hogs = Array.from({ length: hogCount }, () =>
      forkChild({ script: './hog-process.js', config: {}, logFd }),
    );
    children.push(...hogs);
    await Promise.all(hogs.map((hog) => nextMessage<HogMessage>(hog, 'ready', 10_000)));

    const servers = Array.from({ length: nodeCount }, (_, index) =>
      forkChild({
        script: './server-process.js',
        config: {
          database: database.url,
          dataDir: nodeCount === 1 ? database.dir : path.join(database.dir, `node-${index + 1}`),
          accessToken: ACCESS_TOKEN,
          ...(nodeCount === 1 ? {} : { nodeId: `bench-fire-${index + 1}` }),
          ...(redisUrl === undefined ? {} : { redis: redisUrl }),
        },
        logFd,
        execArgv: [
          ...serverNodeFlags,
          ...profileArgs(spec, nodeCount === 1 ? 'server' : `server${index + 1}`),
        ],
      }),
    );
    children.push(...servers);
    const urls = (
      await Promise.all(
        servers.map((server) =>
          nextMessage<Extract<ServerMessage, { type: 'ready' }>>(server, 'ready', 60_000),
        ),
      )
    ).map((ready) => ready.url);
    if (nodeCount > 1) await waitForShardsSpread(store, nodeCount);
    const executors = Array.from({ length: executorCount }, (_, index) =>
      forkChild({
        script: './executor-process.js',
        // A log dir each: an executor's accepted-logIds file is its own.
        config: {
          serverUrls: urls,
          accessToken: ACCESS_TOKEN,
          logDir: path.join(executorLogDir, `executor-${index + 1}`),
          logLayout: logLayout!,
          transport: transport!,
          ...(redisUrl === undefined ? {} : { redis: redisUrl }),
        },
        logFd,
        execArgv: profileArgs(spec, `executor${index + 1}`),
      }),
    );
    children.push(...executors);
    await Promise.all(executors.map((executor) => nextMessage(executor, 'ready', 30_000)));
    await waitForRegistrations(store, executorCount);

    const firstSecond = Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000;
    const window = { start: firstSecond + warmup * 1000, end: firstSecond + (warmup + seconds) * 1000 };
    for (const executor of executors) executor.send({ type: 'window', window });
    await seeded.release(firstSecond);
    const expected = expectedFires(seeded.phases, firstSecond, window);

    await sleep(window.start - Date.now());
    const machineBefore = machineCpuTimes();
    const databaseBefore = databaseCpuByProcess(spec.store);
    const walBefore = await walPosition(store);
    const serverUsage = servers.map((server) => new UsageMeter(server, window.start));
    const executorUsage = executors.map((executor) => new UsageMeter(executor, window.start));
    const meters = [...serverUsage, ...executorUsage];
    await Promise.all(meters.map((meter) => meter.sample()));
    // On each second of the window (not a second after the previous sample, which would drift by
    // the time the answers take), so sample k + 1 closes second k.
    for (let second = 1; second <= seconds; second++) {
      await sleep(Math.max(0, window.start + second * 1000 - Date.now()));
      await Promise.all(meters.map((meter) => meter.sample()));
    }

    const machineBusyPercent = busyPercentSince(machineBefore);
    const databaseUsed = databaseCpuSecondsSince(spec.store, databaseBefore);
    const walAfter = await walPosition(store);
    const databaseCpuPercent = databaseUsed === undefined ? Number.NaN : (databaseUsed / seconds) * 100;
    let final = 0;
    while (Date.now() < window.end + drainMs) {
      final = await countFinal(store, window);
      if (final >= expected) break;
      await sleep(250);
    }
    const drained = Date.now() - window.end;

    const lateness = new Histogram();
    const latenessPerSecond = new Map<number, Histogram>();
    let startsInWindow = 0;
    let early = 0;
    for (const executor of executors) {
      const { stats } = await ask<Extract<ExecutorMessage, { type: 'stats' }>>(executor, 'stats');
      lateness.add(stats.lateness);
      for (const [second, pairs] of stats.perSecond) {
        let histogram = latenessPerSecond.get(second);
        if (histogram === undefined) {
          histogram = new Histogram();
          latenessPerSecond.set(second, histogram);
        }
        histogram.add(pairs);
      }
      startsInWindow += stats.startsInWindow;
      early += stats.early;
    }
    if (early > 0) progress(`  ${early} runs started before their scheduled time`);
    // The server first: stopped executors would turn its backlog into "no executor online"
    // failures. Fires it has not dispatched by then stay pending and count as not stored.
    await Promise.all(servers.map((server) => stopChild(server, 40_000)));
    await Promise.all(executors.map((executor) => stopChild(executor, 10_000)));
    await Promise.all(hogs.map((hog) => stopChild(hog, 2_000)));
    const fires = await countFires(store, window, seeded.phases, firstSecond);
    // A read of every window record: only when asked for.
    const stages = values.stages ? await readStages(store, window) : [];
    const serverSamples = sumOfSamples(serverUsage.map((meter) => meter.samples()));
    const perSecond = perSecondOf(window, latenessPerSecond, serverSamples, stages);
    const runsPerSecond = startsInWindow / seconds;
    const server = sumOf(serverUsage.map((meter) => meter.summary()));
    const executorsUsage = sumOf(executorUsage.map((meter) => meter.summary()));
    const microsPerRun = (cpuPercent: number) =>
      runsPerSecond > 0 ? ((cpuPercent / 100) * 1e6) / runsPerSecond : Number.NaN;
    return {
      ...spec,
      seconds,
      window,
      fires,
      runsPerSecond,
      storedPerSecond: fires.resultsStored / seconds,
      lateness: {
        runs: lateness.count,
        p50: lateness.percentile(0.5),
        p99: lateness.percentile(0.99),
        max: lateness.max(),
        early,
      },
      drainMs: drained,
      nodes: nodeCount,
      transport: transport!,
      logLayout: logLayout!,
      hogs: hogCount,
      server,
      executors: executorsUsage,
      serverUsPerFire: microsPerRun(server.cpuPercent),
      executorsUsPerRun: microsPerRun(executorsUsage.cpuPercent),
      serverKbPerFire: startsInWindow > 0 ? server.allocatedBytes / 1024 / startsInWindow : Number.NaN,
      serverGcMsPerSecond: server.gcPauseMs / seconds,
      executorsKbPerRun:
        startsInWindow > 0 ? executorsUsage.allocatedBytes / 1024 / startsInWindow : Number.NaN,
      executorsGcMsPerSecond: executorsUsage.gcPauseMs / seconds,
      databaseCpuPercent,
      databaseUsPerFire: microsPerRun(databaseCpuPercent),
      walBytesPerFire:
        walBefore === undefined || walAfter === undefined || runsPerSecond === 0
          ? Number.NaN
          : Number(walAfter - walBefore) / (runsPerSecond * seconds),
      machineBusyPercent,
      load: [loadBefore, os.loadavg()[0] ?? 0],
      perSecond,
      steady: steadyOf(window, latenessPerSecond, perSecond),
      serverSamples,
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

/** What one child spent over the window; CPU in percent of one core. */
interface ChildUsage {
  cpuPercent: number;
  userPercent: number;
  systemPercent: number;
  /**
   * The main threads' part of `cpuPercent` (NaN where unknown); the rest is the other threads':
   * V8's garbage-collection helpers above all (usage.ts).
   */
  mainThreadPercent: number;
  /** Bytes the main threads' heaps took in over the window (usage.ts). */
  allocatedBytes: number;
  /** Time of the main threads' garbage collections over the window, ms. */
  gcPauseMs: number;
  rssMaxMb: number;
  /** The worst one-second p99 of the event loop's timer delay, and the worst single delay. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

/** One usage sample of a child: when, its RSS then, and its CPU since the previous sample. */
interface UsageSample {
  /** Time from the window's start, ms. */
  offsetMs: number;
  rssMb: number;
  /** User + system since the previous sample, % of one core (NaN, in JSON null, for the first). */
  cpuPercent: number;
}

/** A child's running totals at one sample: CPU (all threads, the main thread's µs), allocated bytes, GC µs. */
interface UsageReading {
  at: number;
  cpu: NodeJS.CpuUsage;
  mainUs: number;
  allocated: number;
  gcUs: number;
}

/**
 * CPU, peak RSS and event-loop delay of one child over the window, from the child's own
 * measures; and every sample, for the window second by second.
 */
class UsageMeter {
  private first: UsageReading | undefined;
  private last: UsageReading | undefined;
  private rssMax = 0;
  private loopP99 = 0;
  private loopMax = 0;
  private readonly series: UsageSample[] = [];

  /** `windowStart`: epoch ms, the origin of the samples' offsets. */
  constructor(
    private readonly child: ChildProcess,
    private readonly windowStart: number,
  ) {}

  async sample(): Promise<void> {
    const usage = await ask<Usage>(this.child, 'usage');
    const at = performance.now();
    const previous = this.last;
    // The first answer's loop delay covers the time before the window.
    if (this.first !== undefined) {
      this.loopP99 = Math.max(this.loopP99, usage.loopDelay.p99Ms);
      this.loopMax = Math.max(this.loopMax, usage.loopDelay.maxMs);
    }
    const mainUs = usage.mainThreadCpuUs ?? Number.NaN;
    const reading: UsageReading = {
      at,
      cpu: usage.cpu,
      mainUs,
      allocated: usage.allocatedBytes,
      gcUs: usage.gcPauseUs,
    };
    this.first ??= reading;
    this.last = reading;
    this.rssMax = Math.max(this.rssMax, usage.rss);
    const cpuMicros = previous
      ? usage.cpu.user - previous.cpu.user + usage.cpu.system - previous.cpu.system
      : Number.NaN;
    const wallMicros = previous ? (at - previous.at) * 1000 : Number.NaN;
    this.series.push({
      offsetMs: Date.now() - this.windowStart,
      rssMb: usage.rss / 2 ** 20,
      cpuPercent: wallMicros > 0 ? (cpuMicros / wallMicros) * 100 : Number.NaN,
    });
  }

  samples(): UsageSample[] {
    return this.series;
  }

  summary(): ChildUsage {
    const first = this.first;
    const last = this.last;
    const wallUs = first === undefined || last === undefined ? 0 : (last.at - first.at) * 1000;
    const percent = (micros: number) => (wallUs > 0 ? (micros / wallUs) * 100 : Number.NaN);
    const user = percent((last?.cpu.user ?? 0) - (first?.cpu.user ?? 0));
    const system = percent((last?.cpu.system ?? 0) - (first?.cpu.system ?? 0));
    return {
      cpuPercent: user + system,
      userPercent: user,
      systemPercent: system,
      mainThreadPercent: percent((last?.mainUs ?? Number.NaN) - (first?.mainUs ?? Number.NaN)),
      allocatedBytes: (last?.allocated ?? 0) - (first?.allocated ?? 0),
      gcPauseMs: ((last?.gcUs ?? 0) - (first?.gcUs ?? 0)) / 1000,
      rssMaxMb: this.rssMax / 2 ** 20,
      loopDelayP99Ms: this.loopP99,
      loopDelayMaxMs: this.loopMax,
    };
  }
}

/** The executors together: CPU and RSS add up, the loop delay is the worst of them. */
function sumOf(usages: readonly ChildUsage[]): ChildUsage {
  const total = (pick: (usage: ChildUsage) => number) => usages.reduce((sum, usage) => sum + pick(usage), 0);
  const worst = (pick: (usage: ChildUsage) => number) => Math.max(...usages.map(pick));
  return {
    cpuPercent: total((u) => u.cpuPercent),
    userPercent: total((u) => u.userPercent),
    systemPercent: total((u) => u.systemPercent),
    mainThreadPercent: total((u) => u.mainThreadPercent),
    allocatedBytes: total((u) => u.allocatedBytes),
    gcPauseMs: total((u) => u.gcPauseMs),
    rssMaxMb: total((u) => u.rssMaxMb),
    loopDelayP99Ms: worst((u) => u.loopDelayP99Ms),
    loopDelayMaxMs: worst((u) => u.loopDelayMaxMs),
  };
}

/** Several nodes' samples, taken together: RSS and CPU add up, the offset is the latest. */
function sumOfSamples(series: ReadonlyArray<readonly UsageSample[]>): UsageSample[] {
  const length = Math.min(...series.map((samples) => samples.length));
  return Array.from({ length }, (_, index) => {
    const samples = series.map((each) => each[index] as UsageSample);
    return {
      offsetMs: Math.max(...samples.map((sample) => sample.offsetMs)),
      rssMb: samples.reduce((sum, sample) => sum + sample.rssMb, 0),
      cpuPercent: samples.reduce((sum, sample) => sum + sample.cpuPercent, 0),
    };
  });
}

/**
 * Each second of the window: the lateness of the fires scheduled in it (the executors'
 * histograms merged), the server sample that closes it, and its stages when read (`--stages`).
 */
function perSecondOf(
  window: Window,
  histograms: ReadonlyMap<number, Histogram>,
  serverSamples: readonly UsageSample[],
  stages: readonly SecondStages[],
): SecondResult[] {
  return Array.from({ length: seconds }, (_, second) => {
    const histogram = histograms.get(window.start + second * 1000) ?? new Histogram();
    const sample = serverSamples[second + 1];
    return {
      second,
      runs: histogram.count,
      p50: histogram.percentile(0.5),
      p99: histogram.percentile(0.99),
      max: histogram.max(),
      serverRssMb: sample?.rssMb ?? Number.NaN,
      serverCpuPercent: sample?.cpuPercent ?? Number.NaN,
      ...stages[second],
    };
  });
}

/** The first and the last 10 s of the window (a third each below 20 s): p99 of their merged histograms, mean server RSS. */
function steadyOf(
  window: Window,
  histograms: ReadonlyMap<number, Histogram>,
  perSecond: readonly SecondResult[],
): Steady {
  const span = seconds >= 20 ? 10 : Math.max(1, Math.floor(seconds / 3));
  const part = (from: number) => {
    const merged = new Histogram();
    let rss = 0;
    for (let second = from; second < from + span; second++) {
      merged.add(histograms.get(window.start + second * 1000)?.toPairs() ?? []);
      rss += perSecond[second]?.serverRssMb ?? Number.NaN;
    }
    return { p99: merged.percentile(0.99), rssMb: rss / span };
  };
  const first = part(0);
  const last = part(seconds - span);
  return { firstP99: first.p99, lastP99: last.p99, firstRssMb: first.rssMb, lastRssMb: last.rssMb };
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

/** Waits until every node holds its share of the 64 shards (at least ⌊64/N⌋), at most 20 s. */
async function waitForShardsSpread(store: Store, nodes: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const leases = await store.leases.listLeases();
    const held = new Map<string, number>();
    for (const lease of leases) {
      // The database is on this machine: its clock is this one.
      if (lease.name.startsWith('shard:') && lease.owner_node !== '' && lease.expires_at > Date.now())
        held.set(lease.owner_node, (held.get(lease.owner_node) ?? 0) + 1);
    }
    if (held.size >= nodes && [...held.values()].every((count) => count >= Math.floor(64 / nodes))) {
      const shares = [...held]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([node, count]) => `${node} ${count}`);
      progress(`  shards per node: ${shares.join(', ')}`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`the shards did not spread over ${nodes} nodes within 20 s`);
    await sleep(200);
  }
}

/** The executors register asynchronously after `start()`: wait until the server has stored each. */
async function waitForRegistrations(store: Store, count: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await store.registry.listAlive(Date.now() - 60_000, APP_NAME)).length < count) {
    if (Date.now() > deadline) throw new Error(`only some of the ${count} executors registered within 15 s`);
    await sleep(100);
  }
}

/**
 * `--cpu-prof` into a folder of its own per child and case: every thread of the child (the
 * executor's job log writer is a worker thread) writes its own profile there, named by Node
 * (`CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`, thread 0 being the main one).
 */
function profileArgs(spec: CaseSpec, child: string): string[] {
  if (!profileDir) return [];
  const folder = path.join(profileDir, `${child}-${spec.store}-${spec.shape}-${spec.due}-${Date.now()}`);
  return ['--cpu-prof', '--cpu-prof-dir', folder];
}

/** The server's and executors' warnings and errors of the case, on stderr (their info lines are left out). */
function reportChildErrors(logFile: string): void {
  const lines = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\{"level":(10|20|30),/.test(line))
    // What TW_BENCH_SERVER_NODE_FLAGS asked V8 to print (`--trace-gc`: `[pid:0x…] … ms: Scavenge …`).
    .filter((line) => !/^\[\d+:0x[0-9a-f]+\]/.test(line))
    // The server stops before the executors, so their goodbye and the results of the runs still
    // in flight (fires after the window) cannot reach it.
    .filter((line) => !/registryRemove was not accepted|no server accepted the callback/.test(line));
  if (lines.length === 0) return;
  progress(`  ${lines.length} warnings or errors from the server and executors; the first ones:`);
  for (const line of lines.slice(0, 5)) progress(`    ${line.slice(0, 400)}`);
}

async function dropQuietly(database: BenchDatabase): Promise<void> {
  try {
    await database.drop();
  } catch (err) {
    progress(`  could not drop the case's database: ${String(err)}`);
  }
}

function tableHeader(): string {
  return [
    '| store | shape | jobs due/s | not due | runs/s started | results stored | lateness p50 / p99 / max ms | skipped | lost | dup | server CPU | server RSS | server loop delay p99 / max ms | executors CPU | machine busy | load 1m | server µs/fire | executors µs/run | hogs | p99 first/last 10 s ms | server RSS first/last MB | database CPU | database µs/fire | WAL bytes/fire | server main thread / other threads CPU | server KB allocated/fire, GC ms/s | executors KB allocated/run, GC ms/s |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ].join('\n');
}

function tableRow(r: CaseResult): string {
  const cells = [
    (r.nodes === 1 ? r.store : `${r.store} × ${r.nodes} nodes`) +
      (r.transport === 'http' ? '' : `, ${r.transport}`),
    r.shape,
    r.due.toLocaleString('en-US'),
    r.idle.toLocaleString('en-US'),
    Math.round(r.runsPerSecond).toLocaleString('en-US'),
    `${r.fires.resultsStored.toLocaleString('en-US')} / ${r.fires.expected.toLocaleString('en-US')}`,
    `${r.lateness.p50} / ${r.lateness.p99} / ${r.lateness.max}`,
    r.fires.skipped,
    r.fires.lost,
    r.fires.duplicates + r.fires.offSchedule,
    `${Math.round(r.server.cpuPercent)} %`,
    `${Math.round(r.server.rssMaxMb)} MB`,
    `${Math.round(r.server.loopDelayP99Ms)} / ${Math.round(r.server.loopDelayMaxMs)}`,
    `${Math.round(r.executors.cpuPercent)} %`,
    `${Math.round(r.machineBusyPercent)} %`,
    `${r.load[0].toFixed(1)}–${r.load[1].toFixed(1)}`,
    whole(r.serverUsPerFire),
    whole(r.executorsUsPerRun),
    r.hogs,
    `${whole(r.steady.firstP99)} / ${whole(r.steady.lastP99)}`,
    `${whole(r.steady.firstRssMb)} / ${whole(r.steady.lastRssMb)}`,
    Number.isNaN(r.databaseCpuPercent) ? '–' : `${Math.round(r.databaseCpuPercent)} %`,
    whole(r.databaseUsPerFire),
    whole(r.walBytesPerFire),
    Number.isNaN(r.server.mainThreadPercent)
      ? '–'
      : `${Math.round(r.server.mainThreadPercent)} / ${Math.round(r.server.cpuPercent - r.server.mainThreadPercent)} %`,
    `${Number.isFinite(r.serverKbPerFire) ? r.serverKbPerFire.toFixed(1) : '–'}, ${whole(r.serverGcMsPerSecond)}`,
    `${Number.isFinite(r.executorsKbPerRun) ? r.executorsKbPerRun.toFixed(1) : '–'}, ${whole(r.executorsGcMsPerSecond)}`,
  ];
  return `| ${cells.join(' | ')} |`;
}

/** `--per-second`: one line per second of the window, on stderr; with `--stages`, its stages at the end. */
function printPerSecond(r: CaseResult): void {
  for (const s of r.perSecond) {
    const stages =
      s.claimP50 === undefined
        ? ''
        : `  claim ${whole(s.claimP50)}/${whole(s.claimMax)}` +
          `  send ${whole(s.sendP50)}/${whole(s.sendP99)}/${whole(s.sendMax)}` +
          `  result ${whole(s.resultP50)}/${whole(s.resultP99)} ms`;
    progress(
      `  +${s.second} s  runs ${s.runs.toLocaleString('en-US')}  p50 ${whole(s.p50)}  p99 ${whole(s.p99)}  ` +
        `max ${whole(s.max)} ms  server ${whole(s.serverRssMb)} MB ${whole(s.serverCpuPercent)} %${stages}`,
    );
  }
}

/** A figure rounded to a whole number; '–' when there is none (NaN, or not read). */
function whole(value: number | undefined): string {
  return value !== undefined && Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–';
}

function machine() {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    node: process.version,
    executors: executorCount,
    nodes: nodeCount,
    hogs: hogCount,
  };
}

function progress(message: string): void {
  process.stderr.write(`${message}\n`);
}

function listOf<T extends string>(text: string, allowed: readonly T[], flag: string): T[] {
  const items = text.split(',').map((item) => item.trim());
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item))
      throw new Error(`${flag}: '${item}' is not one of ${allowed.join(', ')}`);
  }
  return items as T[];
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

// Last, so every class and constant above is initialised before the first case runs.
await main();
