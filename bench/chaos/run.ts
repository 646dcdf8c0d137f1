/**
 * bench/chaos — a scheduling cluster under faults: several server nodes on one database, every
 * job due every second, while nodes are killed, the database connections reset or black-holed,
 * the nodes' sessions terminated, one node's clock shifted or an executor killed. Then it checks
 * what the promises are worth: one record and one run per (job, scheduled time), every run that
 * executed recorded as succeeded, nothing stuck; and how long the cluster took to take a dead
 * node's shards over and to schedule again after the database came back.
 *
 *   npm run bench:chaos -- --database postgres|mysql --scenario kill[,reset,blackhole,terminate,
 *     clock,executor-kill] [--nodes 3] [--jobs 200] [--executors 2] [--seconds 180] [--warmup 5]
 *     [--settle 15] [--kill-every 10-15] [--restart-after 3] [--no-restart] [--outage 20]
 *     [--terminate-every 15] [--clock-offset-ms 30000] [--slow-jobs 20] [--slow-ms 1500]
 *     [--executor-restart-after 2] [--stuck-after 60] [--seed N] [--json path] [--keep]
 *
 * The run is bounded: faults during `--seconds`, then `--settle` seconds without faults, then
 * every child is stopped (SIGKILL when it does not stop), the proxies closed and the run's
 * database (a PostgreSQL schema or a MariaDB database) dropped. Exit code 0 when the run
 * completed, whatever the figures say; non-zero only when the harness itself failed.
 * See docs/reliability.md, "Chaos harness".
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { openStore, type Store } from '@tickwheel/server/internal';
import { sql } from 'kysely';
import { forkChild, killAll, nextMessage, stopChild } from '../fire/children.js';
import { APP_NAME, seedCase } from '../fire/seed.js';
import { type ChaosDatabase, createChaosDatabase, type DatabaseKind } from './database.js';
import { type JournalLine, readJournals } from './journal.js';
import type { ChildMessage, ExecutorNodeConfig, NodeConfig } from './messages.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

const SCENARIOS = ['kill', 'reset', 'blackhole', 'terminate', 'clock', 'executor-kill'] as const;

const { values } = parseArgs({
  options: {
    database: { type: 'string', default: 'postgres' },
    'postgres-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    'mysql-url': { type: 'string', default: 'mysql://root@127.0.0.1:3306/test' },
    scenario: { type: 'string', default: 'kill' },
    nodes: { type: 'string', default: '3' },
    jobs: { type: 'string', default: '200' },
    executors: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '180' },
    warmup: { type: 'string', default: '5' },
    settle: { type: 'string', default: '15' },
    'kill-every': { type: 'string', default: '10-15' },
    'restart-after': { type: 'string', default: '3' },
    'no-restart': { type: 'boolean', default: false },
    outage: { type: 'string', default: '20' },
    'terminate-every': { type: 'string', default: '15' },
    'clock-offset-ms': { type: 'string', default: '30000' },
    'slow-jobs': { type: 'string', default: '20' },
    'slow-ms': { type: 'string', default: '1500' },
    'executor-restart-after': { type: 'string', default: '2' },
    'stuck-after': { type: 'string', default: '60' },
    seed: { type: 'string' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

const databaseKind = oneOf(values.database, ['postgres', 'mysql'] as const, '--database');
const scenarios = new Set(listOf(values.scenario, SCENARIOS, '--scenario'));
const nodeCount = integer(values.nodes, '--nodes', 1);
const jobCount = integer(values.jobs, '--jobs', 1);
const executorCount = integer(values.executors, '--executors', 1);
const seconds = integer(values.seconds, '--seconds', 1);
const warmup = integer(values.warmup, '--warmup', 0);
if (warmup >= seconds) fail('--warmup', `must be less than --seconds (${seconds}), got ${warmup}`);
const settleMs = integer(values.settle, '--settle', 0) * 1000;
const killEvery = range(values['kill-every'], '--kill-every');
const restartAfterMs = seconds1000(values['restart-after'], '--restart-after');
const noRestart = values['no-restart'];
const outageMs = seconds1000(values.outage, '--outage');
const terminateEveryMs = seconds1000(values['terminate-every'], '--terminate-every');
const clockOffsetMs = integer(values['clock-offset-ms'], '--clock-offset-ms', -86_400_000);
const slowJobs = scenarios.has('executor-kill') ? integer(values['slow-jobs'], '--slow-jobs', 0) : 0;
if (slowJobs > jobCount) fail('--slow-jobs', `must be at most --jobs (${jobCount}), got ${slowJobs}`);
const slowMs = integer(values['slow-ms'], '--slow-ms', 0);
const executorRestartAfterMs = seconds1000(values['executor-restart-after'], '--executor-restart-after');
const stuckAfterMs = seconds1000(values['stuck-after'], '--stuck-after');
const seed =
  values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : integer(values.seed, '--seed', 0);
const random = mulberry32(seed);

const ACCESS_TOKEN = 'bench-chaos-access-token-0123456789abcdef';
/** Time from releasing the jobs to their first second: the planners' first claims come well before it. */
const LEAD_MS = 1_500;
const LEASE_POLL_MS = 100;

// ---------------------------------------------------------------------------------------------
// The cluster: server nodes behind their proxies, executors, and what happened to them.

interface NodeSlot {
  id: string;
  port: number;
  proxy: TcpProxy;
  dataDir: string;
  logFile: string;
  child: ChildProcess | undefined;
  /** When the current process said it was ready; 0 while it is not. */
  readyAt: number;
  clockOffsetMs: number;
}

interface ExecutorSlot {
  name: string;
  port: number;
  logDir: string;
  logFile: string;
  journal: string;
  child: ChildProcess | undefined;
}

interface FaultEvent {
  at: number;
  kind: string;
  target: string;
  detail?: string;
}

interface Crash {
  at: number;
  target: string;
  exit: string;
}

/** A node kill and the shards it held then, until every one has a live owner again. */
interface Takeover {
  node: string;
  killedAt: number;
  shards: Map<string, LeaseRow>;
  doneAt: number | undefined;
}

interface LeaseRow {
  name: string;
  owner_node: string;
  epoch: number;
  expires_at: number;
}

/** An outage of the database and when scheduling came back after it. */
interface Outage {
  kind: 'reset' | 'blackhole';
  start: number;
  end: number;
  /** First trigger_at at or after the end, once seen. */
  firstDispatchAfter: number | undefined;
}

const killedByUs = new WeakSet<ChildProcess>();
const faults: FaultEvent[] = [];
const crashes: Crash[] = [];
const takeovers: Takeover[] = [];
const outages: Outage[] = [];
const timers = new Set<NodeJS.Timeout>();
let faultsOn = false;
let stopping = false;
let harnessProblems = 0;

function later(ms: number, fn: () => void | Promise<void>): void {
  const timer = setTimeout(
    () => {
      timers.delete(timer);
      Promise.resolve()
        .then(fn)
        .catch((err: unknown) => {
          harnessProblems++;
          progress(`  harness: ${String(err)}`);
        });
    },
    Math.max(0, ms),
  );
  timers.add(timer);
}

async function main(): Promise<void> {
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'tw-chaos-'));
  const database = await createChaosDatabase(
    databaseKind,
    databaseKind === 'postgres' ? values['postgres-url'] : values['mysql-url'],
  );
  const nodes: NodeSlot[] = [];
  const executors: ExecutorSlot[] = [];
  let store: Store | undefined;
  let completed = false;
  try {
    progress(
      `bench/chaos: ${databaseKind}, ${nodeCount} nodes, ${executorCount} executors, ${jobCount} jobs every second` +
        `${slowJobs ? ` (${slowJobs} slow, ${slowMs} ms)` : ''}, scenario ${[...scenarios].join(',')}, ` +
        `${seconds} s (+${settleMs / 1000} s settle), seed ${seed}; run folder ${runDir}`,
    );
    store = await openStore({ database: database.url, dataDir: runDir, poolSize: 3 });
    const seeded = await seedCase(store, 'aligned', jobCount, 0);
    const jobIds = [...seeded.phases.keys()].sort((a, b) => a - b);
    const slowIds = jobIds.slice(0, slowJobs);
    if (slowIds.length > 0)
      await store.db
        .updateTable('job')
        .set({ executor_handler: 'slow' })
        .where('id', 'in', slowIds)
        .execute();

    const nodePorts = await freePorts(nodeCount);
    for (let i = 0; i < nodeCount; i++) {
      const id = `chaos-${i + 1}`;
      const dataDir = path.join(runDir, id);
      mkdirSync(dataDir);
      nodes.push({
        id,
        port: nodePorts[i] as number,
        proxy: await startTcpProxy(database.port, database.host),
        dataDir,
        logFile: path.join(runDir, `${id}.log`),
        child: undefined,
        readyAt: 0,
        // The last node runs ahead (or behind) when the clock scenario is on.
        clockOffsetMs: scenarios.has('clock') && i === nodeCount - 1 ? clockOffsetMs : 0,
      });
    }
    await Promise.all(nodes.map((node) => startNode(node, database)));
    const serverAddresses = nodes.map((node) => `http://127.0.0.1:${node.port}/`);
    const executorPorts = await freePorts(executorCount);
    for (let i = 0; i < executorCount; i++) {
      const name = `executor-${i + 1}`;
      const logDir = path.join(runDir, `${name}-logs`);
      mkdirSync(logDir);
      executors.push({
        name,
        port: executorPorts[i] as number,
        logDir,
        logFile: path.join(runDir, `${name}.log`),
        journal: path.join(runDir, `${name}.journal`),
        child: undefined,
      });
    }
    await Promise.all(executors.map((executor) => startExecutor(executor, serverAddresses)));
    await waitForRegistrations(store, executorCount);

    const firstSecond = Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000;
    await seeded.release(firstSecond);
    if (slowIds.length > 0)
      await store.db
        .updateTable('job')
        .set({ next_fire_at: firstSecond })
        .where('id', 'in', slowIds)
        .execute();
    const window = { start: firstSecond + warmup * 1000, end: firstSecond + seconds * 1000 };
    if (nodes.some((node) => node.clockOffsetMs !== 0))
      recordFault('clock', nodes.at(-1)?.id ?? '', `${clockOffsetMs} ms`);

    poller = new LeasePoller(store, nodes);
    poller.start();
    await sleep(window.start - Date.now());
    faultsOn = true;
    scheduleFaults(window, nodes, executors, database, store, serverAddresses);

    const reporter = setInterval(() => {
      void reportProgress(store as Store, firstSecond, nodes);
    }, 10_000);
    await sleep(window.end - Date.now());
    faultsOn = false;
    for (const node of nodes) node.proxy.setMode('pass');
    progress(`faults off; settling ${settleMs / 1000} s`);
    await sleep(settleMs);
    clearInterval(reporter);
    poller.stop();
    stopping = true;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();

    // The nodes first (executors gone would turn their backlog into failures), then the executors.
    await Promise.all(nodes.map((node) => (node.child ? stopChild(node.child, 15_000) : undefined)));
    await Promise.all(
      executors.map((executor) => (executor.child ? stopChild(executor.child, 10_000) : undefined)),
    );
    const endedAt = Date.now();

    const result = await analyse(store, window, endedAt, executors, database);
    printTable(result);
    if (values.json) writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
    reportChildLogs([...nodes.map((node) => node.logFile), ...executors.map((executor) => executor.logFile)]);
    completed = true;
  } finally {
    stopping = true;
    for (const timer of timers) clearTimeout(timer);
    poller?.stop();
    killAll();
    await Promise.all(nodes.map((node) => node.proxy.close()));
    await store?.close();
    try {
      await database.drop();
    } catch (err) {
      progress(`could not drop the run's database: ${String(err)}`);
    }
    if (values.keep || !completed) progress(`run folder kept: ${runDir}`);
    else rmSync(runDir, { recursive: true, force: true });
  }
}

async function startNode(node: NodeSlot, database: ChaosDatabase): Promise<void> {
  const config: NodeConfig = {
    nodeId: node.id,
    port: node.port,
    database: database.urlVia(node.proxy.port),
    dataDir: node.dataDir,
    accessToken: ACCESS_TOKEN,
    clockOffsetMs: node.clockOffsetMs,
  };
  const logFd = openSync(node.logFile, 'a');
  const child = forkChild({ script: '../chaos/server-node.js', config, logFd });
  closeSync(logFd);
  node.child = child;
  node.readyAt = 0;
  child.once('exit', (code, signal) => {
    if (node.child === child) node.readyAt = 0;
    if (killedByUs.has(child) || stopping) return;
    // Exited by itself: a crash. Counted, and restarted like a killed node.
    const exit = `${code ?? signal}`;
    crashes.push({ at: Date.now(), target: node.id, exit });
    progress(`  ${node.id} exited by itself (${exit})`);
    if (!noRestart) later(restartAfterMs, () => startNodeQuietly(node, database));
  });
  await nextMessage<ChildMessage>(child, 'ready', 120_000);
  if (node.child === child) node.readyAt = Date.now();
}

/** A restart: a node that cannot start (the database is away) is counted as a crash by its exit. */
async function startNodeQuietly(node: NodeSlot, database: ChaosDatabase): Promise<void> {
  if (stopping) return;
  try {
    await startNode(node, database);
  } catch (err) {
    progress(`  ${node.id} did not start: ${String(err)}`);
  }
}

async function startExecutor(executor: ExecutorSlot, serverAddresses: string[]): Promise<void> {
  const config: ExecutorNodeConfig = {
    name: executor.name,
    appName: APP_NAME,
    port: executor.port,
    serverAddresses,
    accessToken: ACCESS_TOKEN,
    logDir: executor.logDir,
    journal: executor.journal,
    slowMs,
  };
  const logFd = openSync(executor.logFile, 'a');
  const child = forkChild({ script: '../chaos/executor-node.js', config, logFd });
  closeSync(logFd);
  executor.child = child;
  child.once('exit', (code, signal) => {
    if (killedByUs.has(child) || stopping) return;
    crashes.push({ at: Date.now(), target: executor.name, exit: `${code ?? signal}` });
    progress(`  ${executor.name} exited by itself (${code ?? signal})`);
  });
  await nextMessage<ChildMessage>(child, 'ready', 60_000);
}

function kill9(child: ChildProcess | undefined): boolean {
  if (!child || child.exitCode !== null || child.signalCode !== null) return false;
  killedByUs.add(child);
  child.kill('SIGKILL');
  return true;
}

// ---------------------------------------------------------------------------------------------
// The faults.

function scheduleFaults(
  window: { start: number; end: number },
  nodes: NodeSlot[],
  executors: ExecutorSlot[],
  database: ChaosDatabase,
  store: Store,
  serverAddresses: string[],
): void {
  const now = Date.now();
  const nextKillIn = () => (killEvery[0] + random() * (killEvery[1] - killEvery[0])) * 1000;

  if (scenarios.has('kill')) {
    const killOne = () => {
      if (!faultsOn) return;
      // Never the last node up: a cluster with none left measures nothing.
      const alive = nodes.filter((node) => node.readyAt > 0);
      const node = alive.length > 1 ? alive[Math.floor(random() * alive.length)] : undefined;
      if (node && kill9(node.child)) {
        node.readyAt = 0;
        recordFault('kill', node.id);
        poller?.watchTakeover(node.id);
        if (!noRestart) later(restartAfterMs, () => startNodeQuietly(node, database));
      }
      later(nextKillIn(), killOne);
    };
    later(nextKillIn(), killOne);
  }

  // Outages, each once: centred in the window, or spread over it when both are on.
  const outageKinds = (['reset', 'blackhole'] as const).filter((kind) => scenarios.has(kind));
  outageKinds.forEach((kind, index) => {
    const centre = window.start + ((index + 1) * (window.end - window.start)) / (outageKinds.length + 1);
    const start = Math.max(now, centre - outageMs / 2);
    const end = Math.min(window.end, start + outageMs);
    later(start - now, () => {
      for (const node of nodes) node.proxy.setMode(kind === 'reset' ? 'reset-all' : 'black-hole');
      recordFault(kind, 'all nodes', `${Math.round((end - start) / 1000)} s`);
      later(end - Date.now(), () => {
        for (const node of nodes) node.proxy.setMode('pass');
        const outage: Outage = { kind, start, end: Date.now(), firstDispatchAfter: undefined };
        outages.push(outage);
        progress(`  ${kind} over`);
        void watchDatabaseBack(store, outage);
      });
    });
  });

  if (scenarios.has('terminate')) {
    const terminate = async () => {
      if (!faultsOn) return;
      const sessions = await terminateSessions(store, database.kind, nodes);
      recordFault('terminate', 'all nodes', `${sessions} sessions`);
      later(terminateEveryMs, terminate);
    };
    later(terminateEveryMs, terminate);
  }

  if (scenarios.has('executor-kill')) {
    const killExecutor = () => {
      if (!faultsOn) return;
      const executor = executors[Math.floor(random() * executors.length)];
      if (executor && kill9(executor.child)) {
        recordFault('executor-kill', executor.name);
        later(executorRestartAfterMs, async () => {
          if (stopping) return;
          await startExecutor(executor, serverAddresses);
        });
      }
      later(nextKillIn(), killExecutor);
    };
    later(nextKillIn(), killExecutor);
  }
}

/**
 * Ends the nodes' database sessions from the database's side: PostgreSQL `pg_terminate_backend`
 * on the sessions named `tickwheel:chaos-*`, MariaDB `KILL` of the threads; both only on the
 * sessions coming from this run's proxies (other work may share the database service).
 */
async function terminateSessions(store: Store, kind: DatabaseKind, nodes: NodeSlot[]): Promise<number> {
  const ports = nodes.flatMap((node) => node.proxy.upstreamPorts());
  if (ports.length === 0) return 0;
  if (kind === 'postgres') {
    const result = await sql<{ pid: number }>`
      SELECT pid, pg_terminate_backend(pid) AS terminated FROM pg_stat_activity
      WHERE application_name LIKE 'tickwheel:chaos-%' AND client_port IN (${sql.join(ports)})`.execute(
      store.db,
    );
    return result.rows.length;
  }
  const result = await sql<{ ID: number; HOST: string }>`
    SELECT ID, HOST FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID()`.execute(store.db);
  const wanted = new Set(ports.map(String));
  let killed = 0;
  for (const row of result.rows) {
    const port = row.HOST.split(':').at(-1) ?? '';
    if (!wanted.has(port)) continue;
    try {
      await sql.raw(`KILL ${Number(row.ID)}`).execute(store.db);
      killed++;
    } catch {
      // Gone meanwhile.
    }
  }
  return killed;
}

/** After an outage: the first record sent at or after its end. */
async function watchDatabaseBack(store: Store, outage: Outage): Promise<void> {
  while (!stopping) {
    const row = await store.db
      .selectFrom('fire')
      .select((eb) => eb.fn.min('trigger_at').as('first'))
      .where('trigger_at', '>=', outage.end)
      .executeTakeFirst();
    const first = row?.first === null || row?.first === undefined ? undefined : Number(row.first);
    if (first !== undefined) {
      outage.firstDispatchAfter = first;
      progress(`  scheduling back ${first - outage.end} ms after the ${outage.kind} ended`);
      return;
    }
    await sleep(200);
  }
}

function recordFault(kind: string, target: string, detail?: string): void {
  faults.push({ at: Date.now(), kind, target, ...(detail === undefined ? {} : { detail }) });
  progress(`  fault: ${kind} ${target}${detail ? ` (${detail})` : ''}`);
}

/**
 * Reads the shard leases every 100 ms. After a kill, a takeover is done when every shard the
 * dead node held has a live owner: another node, or a new epoch, or the node itself restarted
 * and renewing it.
 */
class LeasePoller {
  private latest = new Map<string, LeaseRow>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  errors = 0;

  constructor(
    private readonly store: Store,
    private readonly nodes: NodeSlot[],
  ) {}

  start(): void {
    this.running = true;
    const tick = async () => {
      if (!this.running) return;
      try {
        await this.poll();
      } catch {
        this.errors++;
      }
      if (this.running) this.timer = setTimeout(tick, LEASE_POLL_MS);
    };
    void tick();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
  }

  watchTakeover(node: string): void {
    const shards = new Map<string, LeaseRow>();
    for (const row of this.latest.values()) if (row.owner_node === node) shards.set(row.name, row);
    takeovers.push({ node, killedAt: Date.now(), shards, doneAt: undefined });
  }

  private async poll(): Promise<void> {
    const rows = await this.store.db
      .selectFrom('lease')
      .select(['name', 'owner_node', 'epoch', 'expires_at'])
      .where('name', 'like', 'shard:%')
      .execute();
    const now = Date.now();
    this.latest = new Map(
      rows.map((row) => [
        row.name,
        { ...row, epoch: Number(row.epoch), expires_at: Number(row.expires_at) } as LeaseRow,
      ]),
    );
    for (const takeover of takeovers) {
      if (takeover.doneAt !== undefined || takeover.shards.size === 0) continue;
      const restarted =
        (this.nodes.find((node) => node.id === takeover.node)?.readyAt ?? 0) > takeover.killedAt;
      const allOwned = [...takeover.shards.values()].every((before) => {
        const row = this.latest.get(before.name);
        if (row === undefined) return false;
        if (row.owner_node !== takeover.node || row.epoch !== before.epoch) return true;
        return restarted && row.expires_at > before.expires_at;
      });
      if (allOwned) {
        takeover.doneAt = now;
        progress(
          `  ${takeover.node}'s ${takeover.shards.size} shards owned again after ${now - takeover.killedAt} ms`,
        );
      }
    }
  }
}

let poller: LeasePoller | undefined;

async function reportProgress(store: Store, firstSecond: number, nodes: NodeSlot[]): Promise<void> {
  try {
    const row = await store.db
      .selectFrom('fire')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const alive = nodes.filter((node) => node.readyAt > 0).length;
    progress(
      `${Math.round((Date.now() - firstSecond) / 1000)} s: ${faults.length} faults, ${Number(row.n)} fires recorded, ` +
        `${alive}/${nodes.length} nodes up`,
    );
  } catch (err) {
    progress(`progress: ${String(err)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The result.

interface Result {
  config: Record<string, unknown>;
  window: { start: number; end: number };
  /** jobs × seconds of the window. */
  slotsExpected: number;
  /** Planner records (not retries) scheduled in the window. */
  records: number;
  /** Expected slots with no record. */
  slotsMissing: number;
  /** Second of the run (0 = the first fire) → slots of it without a record. */
  missingBySecond: Record<string, number>;
  /** Second of the run → its pending/dispatched records at the end. */
  unfinishedBySecond: Record<string, number>;
  /** Records beyond the first of one (job, scheduled time). */
  duplicateRecords: number;
  /** Records at a time that is not a whole second (no schedule has it). */
  offSchedule: number;
  byStatus: Record<string, number>;
  /** Runs (executor journal, scheduled in the window): started, and how many of them ended. */
  runsStarted: number;
  runsEnded: number;
  /** logIds started more than once (counted once each). */
  logIdsRunTwice: number;
  /** (job, scheduled time) started more than once, under one or several logIds. */
  slotsRunTwice: number;
  /** Runs that ended on the executor whose record is not `succeeded`. */
  endedNotSucceeded: number;
  /** Runs started but not ended (their executor was killed during them). */
  interrupted: number;
  /** `succeeded` records no executor journal has a run for. */
  succeededNotRun: number;
  /** Runs started more than 1 s before their scheduled time (a node's clock ahead), and the earliest, ms. */
  runsEarly: number;
  runsEarlyMaxMs: number;
  /** pending/dispatched records scheduled more than `--stuck-after` before the end. */
  stuck: number;
  /** pending/dispatched records of the window at the end, however old. */
  unfinished: number;
  skipped: number;
  dispatchFailed: number;
  takeover: {
    kills: number;
    measured: number;
    notDone: number;
    medianMs: number | null;
    maxMs: number | null;
  };
  databaseBack: Array<{ kind: string; outageMs: number; backMs: number | null }>;
  crashes: Crash[];
  faults: FaultEvent[];
  leasePollErrors: number;
  harnessProblems: number;
}

async function analyse(
  store: Store,
  window: { start: number; end: number },
  endedAt: number,
  executors: ExecutorSlot[],
  database: ChaosDatabase,
): Promise<Result> {
  const rows = await store.db
    .selectFrom('fire')
    .select(['id', 'job_id', 'scheduled_at', 'status'])
    .where('parent_fire_id', 'is', null)
    .where('scheduled_at', '>=', window.start)
    .where('scheduled_at', '<', window.end)
    .execute();
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  const bySlot = new Map<string, number>();
  const byStatus: Record<string, number> = {};
  let offSchedule = 0;
  let stuck = 0;
  let unfinished = 0;
  for (const row of rows) {
    byStatus[row.status] = (byStatus[row.status] ?? 0) + 1;
    const scheduledAt = Number(row.scheduled_at);
    if (scheduledAt % 1000 !== 0) offSchedule++;
    const key = `${row.job_id}:${scheduledAt}`;
    bySlot.set(key, (bySlot.get(key) ?? 0) + 1);
    if (row.status === 'pending' || row.status === 'dispatched') {
      unfinished++;
      if (scheduledAt < endedAt - stuckAfterMs) stuck++;
    }
  }
  const slotsExpected = jobCount * ((window.end - window.start) / 1000);
  const slotsRecorded = [...bySlot.keys()].length - offSchedule;
  // Per second of the run (0 = the first fire): slots without a record, records still unfinished.
  const firstSecond = window.start - warmup * 1000;
  const secondOf = (at: number) => String(Math.floor((at - firstSecond) / 1000));
  const missingBySecond: Record<string, number> = {};
  const distinctBySecond = countBy([...bySlot.keys()], (key) => secondOf(Number(key.split(':')[1])));
  for (let at = window.start; at < window.end; at += 1000) {
    const missing = jobCount - (distinctBySecond.get(secondOf(at)) ?? 0);
    if (missing > 0) missingBySecond[secondOf(at)] = missing;
  }
  const unfinishedBySecond = Object.fromEntries(
    countBy(
      rows.filter((row) => row.status === 'pending' || row.status === 'dispatched'),
      (row) => secondOf(Number(row.scheduled_at)),
    ),
  );

  const journal = readJournals(executors.map((executor) => executor.journal)).filter(
    (line) => line.scheduledAt >= window.start && line.scheduledAt < window.end,
  );
  const starts = journal.filter((line) => line.phase === 'start');
  const ends = journal.filter((line) => line.phase === 'end');
  const runKey = (line: JournalLine) => `${line.logId}@${line.executor}`;
  const startsByLogId = countBy(starts, (line) => String(line.logId));
  const startsBySlot = countBy(starts, (line) => `${line.jobId}:${line.scheduledAt}`);
  const endedRuns = new Set(ends.map(runKey));
  let endedNotSucceeded = 0;
  for (const line of ends) if (byId.get(line.logId)?.status !== 'succeeded') endedNotSucceeded++;
  const interrupted = starts.filter((line) => !endedRuns.has(runKey(line))).length;
  const ranLogIds = new Set(starts.map((line) => line.logId));
  const succeededNotRun = rows.filter(
    (row) => row.status === 'succeeded' && !ranLogIds.has(Number(row.id)),
  ).length;

  const early = starts.map((line) => line.scheduledAt - line.at).filter((ms) => ms > 1000);

  const measured = takeovers
    .filter((t) => t.doneAt !== undefined)
    .map((t) => (t.doneAt as number) - t.killedAt);
  measured.sort((a, b) => a - b);

  return {
    config: {
      database: database.kind,
      scenario: [...scenarios],
      nodes: nodeCount,
      jobs: jobCount,
      slowJobs,
      slowMs,
      executors: executorCount,
      seconds,
      warmup,
      settleSeconds: settleMs / 1000,
      killEvery,
      restartAfterMs: noRestart ? null : restartAfterMs,
      outageMs,
      terminateEveryMs,
      clockOffsetMs: scenarios.has('clock') ? clockOffsetMs : 0,
      stuckAfterMs,
      seed,
      cpus: os.cpus().length,
      node: process.version,
    },
    window,
    slotsExpected,
    records: rows.length,
    slotsMissing: slotsExpected - slotsRecorded,
    missingBySecond,
    unfinishedBySecond,
    duplicateRecords: [...bySlot.values()].reduce((sum, n) => sum + n - 1, 0),
    offSchedule,
    byStatus,
    runsStarted: starts.length,
    runsEnded: ends.length,
    logIdsRunTwice: [...startsByLogId.values()].filter((n) => n > 1).length,
    slotsRunTwice: [...startsBySlot.values()].filter((n) => n > 1).length,
    endedNotSucceeded,
    interrupted,
    succeededNotRun,
    runsEarly: early.length,
    runsEarlyMaxMs: early.length ? Math.max(...early) : 0,
    stuck,
    unfinished,
    skipped: byStatus.skipped ?? 0,
    dispatchFailed: byStatus.dispatch_failed ?? 0,
    takeover: {
      kills: takeovers.length,
      measured: measured.length,
      notDone: takeovers.filter((t) => t.doneAt === undefined && t.shards.size > 0).length,
      medianMs: measured.length ? (measured[Math.floor((measured.length - 1) / 2)] as number) : null,
      maxMs: measured.length ? (measured.at(-1) as number) : null,
    },
    databaseBack: outages.map((o) => ({
      kind: o.kind,
      outageMs: o.end - o.start,
      backMs: o.firstDispatchAfter === undefined ? null : o.firstDispatchAfter - o.end,
    })),
    crashes: crashes.map((crash) => ({ ...crash, second: (crash.at - firstSecond) / 1000 })),
    faults: faults.map((fault) => ({ ...fault, second: (fault.at - firstSecond) / 1000 })),
    leasePollErrors: poller?.errors ?? 0,
    harnessProblems,
  };
}

function printTable(r: Result): void {
  const ms = (value: number | null) => (value === null ? '–' : `${(value / 1000).toFixed(1)} s`);
  const rows: Array<[string, string | number]> = [
    ['database / scenario', `${r.config.database} / ${(r.config.scenario as string[]).join(',')}`],
    ['faults injected', summariseFaults(r.faults)],
    ['slots expected', r.slotsExpected],
    ['fire records in the window', r.records],
    ['slots without a record', r.slotsMissing],
    ['duplicate records', r.duplicateRecords],
    ['records off schedule', r.offSchedule],
    ['runs started / ended (journals)', `${r.runsStarted} / ${r.runsEnded}`],
    ['logIds executed twice', r.logIdsRunTwice],
    ['(job, time) executed twice', r.slotsRunTwice],
    ['runs ended, record not succeeded', r.endedNotSucceeded],
    ['runs interrupted (executor killed)', r.interrupted],
    ['succeeded, never run', r.succeededNotRun],
    [
      'runs started > 1 s before their time',
      r.runsEarly ? `${r.runsEarly} (up to ${ms(r.runsEarlyMaxMs)})` : 0,
    ],
    [`records stuck (pending/dispatched > ${stuckAfterMs / 1000} s)`, r.stuck],
    ['records unfinished at the end', r.unfinished],
    ['skipped', r.skipped],
    ['dispatch_failed', r.dispatchFailed],
    [
      'records by status',
      Object.entries(r.byStatus)
        .map(([status, n]) => `${status} ${n}`)
        .join(', '),
    ],
    [
      'takeover median / max',
      r.takeover.kills === 0
        ? '–'
        : `${ms(r.takeover.medianMs)} / ${ms(r.takeover.maxMs)} (${r.takeover.measured} of ${r.takeover.kills} kills` +
          `${r.takeover.notDone ? `, ${r.takeover.notDone} never taken over` : ''})`,
    ],
    [
      'scheduling back after the database',
      r.databaseBack.length === 0
        ? '–'
        : r.databaseBack.map((b) => `${b.kind} ${ms(b.outageMs)} → ${ms(b.backMs)}`).join(', '),
    ],
    [
      'node crashes',
      r.crashes.length === 0
        ? 0
        : `${r.crashes.length} (${r.crashes.map((c) => `${c.target}: ${c.exit}`).join(', ')})`,
    ],
  ];
  console.log('\n| figure | value |\n| --- | ---: |');
  for (const [name, value] of rows) console.log(`| ${name} | ${value} |`);
  if (r.leasePollErrors || r.harnessProblems)
    console.log(`\n(harness: ${r.leasePollErrors} lease polls failed, ${r.harnessProblems} other problems)`);
}

function summariseFaults(events: FaultEvent[]): string {
  const counts = countBy(events, (event) => event.kind);
  return [...counts].map(([kind, n]) => `${kind} ×${n}`).join(', ') || 'none';
}

/** The servers' and executors' warnings and errors, counted per log, with the first error lines. */
function reportChildLogs(files: string[]): void {
  for (const file of files) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const lines = text
      .split('\n')
      .filter((line) => line.trim() !== '' && !/^\{"level":(10|20|30),/.test(line));
    if (lines.length === 0) continue;
    const errors = lines.filter((line) => !/^\{"level":40,/.test(line));
    progress(`${path.basename(file)}: ${lines.length - errors.length} warnings, ${errors.length} errors`);
    for (const line of errors.slice(0, 2)) progress(`    ${line.slice(0, 300)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers.

async function waitForRegistrations(store: Store, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await store.registry.listAlive(Date.now() - 60_000, APP_NAME)).length < count) {
    if (Date.now() > deadline) throw new Error(`only some of the ${count} executors registered within 30 s`);
    await sleep(100);
  }
}

/** Ports free now, kept for the run so a restarted node or executor listens where it did. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/** A small seeded generator, so `--seed` repeats a run's choice of victims and times. */
function mulberry32(state: number): () => number {
  let a = state >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function progress(message: string): void {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);
}

function fail(flag: string, message: string): never {
  throw new Error(`${flag}: ${message}`);
}

function oneOf<T extends string>(text: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(text))
    fail(flag, `'${text}' is not one of ${allowed.join(', ')}`);
  return text as T;
}

function listOf<T extends string>(text: string, allowed: readonly T[], flag: string): T[] {
  return text.split(',').map((item) => oneOf(item.trim(), allowed, flag));
}

function integer(text: string, flag: string, min: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) fail(flag, `must be an integer >= ${min}, got '${text}'`);
  return value;
}

function seconds1000(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) fail(flag, `must be a number of seconds >= 0, got '${text}'`);
  return Math.round(value * 1000);
}

/** `10-15` (seconds, a random time in the range) or `12`. */
function range(text: string, flag: string): [number, number] {
  const parts = text.split('-').map((part) => Number(part));
  const low = parts[0] ?? Number.NaN;
  const high = parts[1] ?? low;
  if (parts.length > 2 || !Number.isFinite(low) || !Number.isFinite(high) || low <= 0 || high < low)
    fail(flag, `must be seconds or a range like 10-15, got '${text}'`);
  return [low, high];
}

try {
  await main();
  process.exit(0);
} catch (err) {
  progress(`bench/chaos failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  killAll();
  process.exit(1);
}
