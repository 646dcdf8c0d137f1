/**
 * bench/retention — does deleting a million old fire records move the scheduler's lateness?
 *
 *   npm run bench:retention -- [--store sqlite|postgres] [--records 1000000] [--jobs 1000]
 *     [--warmup-seconds 10] [--baseline-seconds 20] [--batch N] [--pause-ms N] [--max-sweep-seconds 300] [--control-seconds 0]
 *     [--budget-ms 0]
 *     [--postgres-url postgres://…/test] [--log-dir /dev/shm] [--json]
 *
 * A fresh database gets `--jobs` every-second jobs (FIX_RATE 1 s, spread evenly over the second)
 * and `--records` finished fire records 40 to 60 days old, with the retention set to its maximum
 * (nothing old enough to delete). The server runs in a child process (`server-process.ts`), one
 * real executor with a no-op handler in this one. After `--warmup-seconds` the baseline window is
 * measured; then the retention is set to 30 days through the REST API (`updateRetentionSettings`)
 * and the server's retention monitor (swept every second here) deletes the million records in
 * batches of `--batch` with at least `--pause-ms` between them (unset: the server's defaults for
 * the store, 100 and 5 ms on SQLite, 1,000 and 50 ms on PostgreSQL). An experiment, off by default:
 * `--budget-ms n` sizes each batch to take about n ms (at most `--batch`). And
 * `--control-seconds n`: the control arm — the same run, but the retention is left alone and the
 * middle window lasts n seconds (give it a sweep's length), so what the windows do on their own
 * over a run of that length (a growing fire table, the machine) shows apart from the sweep.
 * The fires scheduled while it deletes are the second window, and a window as long as the
 * baseline after it the third (the two quiet windows bracket the sweep, so a change of the
 * machine's load shows). For each window: the fires scheduled in it (every one expected), their
 * dispatch lateness (the fire record's dispatch time − scheduled time, what the dashboard
 * reports) and their run-start lateness (the handler's start − scheduled time, at the executor).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createExecutor, type ExecutorOptions } from '@tickwheel/executor';
import { RETENTION_LIMITS, writeRetentionSettings } from '@tickwheel/server';
import { openStore, RETENTION_BATCH_DEFAULTS, type Store } from '@tickwheel/server/internal';
import { APP_NAME, HANDLER, seedJobs, seedOldFires } from './seed.js';
import type { RetentionServerConfig } from './server-process.js';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    records: { type: 'string', default: '1000000' },
    jobs: { type: 'string', default: '1000' },
    'baseline-seconds': { type: 'string', default: '20' },
    'warmup-seconds': { type: 'string', default: '10' },
    // Unset: the server's defaults for the store (RETENTION_BATCH_DEFAULTS).
    batch: { type: 'string' },
    'pause-ms': { type: 'string' },
    'max-sweep-seconds': { type: 'string', default: '300' },
    'control-seconds': { type: 'string', default: '0' },
    'budget-ms': { type: 'string', default: '0' },
    'postgres-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    'log-dir': { type: 'string', default: existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir() },
    json: { type: 'boolean', default: false },
  },
});

const storeName = values.store;
if (storeName !== 'sqlite' && storeName !== 'postgres') throw new Error('--store: sqlite or postgres');
const records = positiveInteger(values.records, '--records');
const jobCount = positiveInteger(values.jobs, '--jobs');
const baselineSeconds = positiveInteger(values['baseline-seconds'], '--baseline-seconds');
const warmupMs = positiveInteger(values['warmup-seconds'], '--warmup-seconds') * 1000;
const batchSize =
  values.batch === undefined
    ? RETENTION_BATCH_DEFAULTS[storeName].batchSize
    : positiveInteger(values.batch, '--batch');
const pauseMs =
  values['pause-ms'] === undefined
    ? RETENTION_BATCH_DEFAULTS[storeName].pauseMs
    : nonNegativeInteger(values['pause-ms'], '--pause-ms');
const maxSweepMs = positiveInteger(values['max-sweep-seconds'], '--max-sweep-seconds') * 1000;
const budgetMs = nonNegativeInteger(values['budget-ms'], '--budget-ms');
const controlSeconds = nonNegativeInteger(values['control-seconds'], '--control-seconds');

const ACCESS_TOKEN = 'bench-retention-access-token-0123456789';
const API_TOKEN = 'tw_bench-retention-api-token-0123456789abcdef';
const RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;

interface Window {
  name: string;
  /** Whole seconds: [from, to). */
  from: number;
  to: number;
}

interface Lateness {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

interface WindowResult {
  name: string;
  seconds: number;
  expected: number;
  recorded: number;
  succeeded: number;
  dispatch: Lateness;
  runStart: Lateness;
}

interface Sweep {
  deleted: number;
  batches: number;
  /** When the first batch was seen to have deleted something, and when the monitor reported the end. */
  startedAt: number;
  endedAt: number;
  complete: boolean;
}

/** The executor's own logs: warnings and errors only. */
const quietLogger = {
  debug: () => {},
  info: () => {},
  warn: (...args: unknown[]) => console.error('executor:', ...args),
  error: (...args: unknown[]) => console.error('executor:', ...args),
} as unknown as NonNullable<ExecutorOptions['logger']>;

const log = (line: string) => (values.json ? console.error(line) : console.log(line));

async function main(): Promise<void> {
  log(
    `bench/retention: ${storeName}, ${records.toLocaleString('en')} old records, ${jobCount} every-second jobs, ` +
      `${batchText()} with pauses of at least ${pauseMs} ms` +
      '; ' +
      `${os.cpus().length} CPUs, Node ${process.version}`,
  );
  const database = await createDatabase();
  const logDir = mkdtempSync(path.join(values['log-dir'], 'tw-bench-retention-logs-'));
  let server: ChildProcess | undefined;
  let store: Store | undefined;
  let stopExecutor: (() => Promise<void>) | undefined;
  try {
    store = await openStore({ database: database.url, dataDir: database.dir, poolSize: 2 });
    const now = Date.now();
    await writeRetentionSettings(store.settings, { retentionDays: RETENTION_LIMITS.maxDays }, now);
    const jobs = await seedJobs(store, jobCount, now);
    const seedStart = Date.now();
    await seedOldFires(store, jobs.appId, records, now, (done) => {
      if (done % 200_000 === 0 || done === records) log(`  seeded ${done.toLocaleString('en')} records`);
    });
    const seedSeconds = (Date.now() - seedStart) / 1000;
    log(
      `  seeding took ${seedSeconds.toFixed(1)} s (${Math.round(records / seedSeconds).toLocaleString('en')} records/s)`,
    );

    const swept: Array<{ deleted: number; batches: number; at: number }> = [];
    server = startServer(database, swept);
    const url = await readyUrl(server);

    const runStarts: Array<[number, number]> = [];
    const executor = createExecutor({
      appName: APP_NAME,
      serverAddresses: [url],
      accessToken: ACCESS_TOKEN,
      host: '127.0.0.1',
      port: 0,
      logDir,
      logRetentionDays: 1,
      logger: quietLogger,
    });
    executor.handle(HANDLER, (ctx) => {
      runStarts.push([ctx.logDateTime, Date.now() - ctx.logDateTime]);
      return undefined;
    });
    await executor.start();
    stopExecutor = () => executor.stop({ timeoutMs: 5_000 });
    await waitForRegistration(store, executor.address ?? '');

    const firstSecond = Math.ceil(Date.now() / 1000) * 1000 + 2_000;
    await jobs.release(firstSecond);
    const baseline: Window = {
      name: 'baseline (no retention)',
      from: firstSecond + warmupMs,
      to: firstSecond + warmupMs + baselineSeconds * 1000,
    };
    await sleepUntil(baseline.to + 1_000);

    let sweep: Sweep;
    if (controlSeconds > 0) {
      // The control arm: the same run with the retention left alone for as long as a sweep takes.
      const startedAt = Date.now();
      await sleep(controlSeconds * 1000);
      sweep = { deleted: 0, batches: 0, startedAt, endedAt: Date.now(), complete: true };
    } else {
      const cutoffAfterChange = Date.now() - RETENTION_DAYS * DAY_MS;
      const oldest = await oldestOldRecord(store, cutoffAfterChange);
      await setRetentionDays(url, RETENTION_DAYS);
      sweep = await watchSweep(store, swept, cutoffAfterChange, oldest);
    }
    const during: Window = {
      name: controlSeconds > 0 ? 'control: no retention, as long as a sweep' : 'retention sweeping',
      from: Math.ceil(sweep.startedAt / 1000) * 1000,
      to: Math.floor(sweep.endedAt / 1000) * 1000,
    };
    // The same length as the baseline again, after the sweep: two quiet windows bracket it, so
    // a change of the machine's load during the run shows as a difference between them.
    const after: Window = {
      name: 'after the sweep',
      from: during.to + 1_000,
      to: during.to + 1_000 + baselineSeconds * 1000,
    };
    await sleepUntil(after.to + 1_000);
    await store.db
      .updateTable('job')
      .set({ trigger_status: 0, next_fire_at: null })
      .where('app_id', '=', jobs.appId)
      .execute();
    await sleep(2_000);

    const results: WindowResult[] = [];
    for (const window of [baseline, during, after]) {
      if (window.to > window.from) results.push(await measure(store, jobs.appId, window, runStarts));
    }
    report(results, sweep, seedSeconds);
  } finally {
    await stopExecutor?.();
    if (server !== undefined) await stopServer(server);
    await store?.close();
    await database.drop();
    rmSync(logDir, { recursive: true, force: true });
  }
}

function startServer(
  database: { url: string; dir: string },
  swept: Array<{ deleted: number; batches: number; at: number }>,
): ChildProcess {
  const config: RetentionServerConfig = {
    database: database.url,
    dataDir: database.dir,
    accessToken: ACCESS_TOKEN,
    apiToken: API_TOKEN,
    retentionIntervalMs: 1_000,
    batchSize,
    batchPauseMs: pauseMs,
    batchBudgetMs: budgetMs,
  };
  const child = fork(new URL('./server-process.js', import.meta.url), [JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  // The server logs JSON lines: the retention monitor's report is read from them, warnings shown.
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const entry = JSON.parse(line) as { level: number; msg?: string; deleted?: number; batches?: number };
    if (entry.msg === 'retention deleted old fire records') {
      swept.push({ deleted: entry.deleted ?? 0, batches: entry.batches ?? 0, at: Date.now() });
    } else if (entry.level >= 40) {
      console.error(line);
    }
  });
  return child;
}

function readyUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
    child.on('message', (message: { type?: string; url?: string }) => {
      if (message?.type === 'ready' && message.url !== undefined) resolve(message.url);
    });
  });
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.send({ type: 'stop' });
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function waitForRegistration(store: Store, address: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await store.registry.listAlive(0, APP_NAME)).some((row) => row.registry_value === address)) {
    if (Date.now() > deadline) throw new Error('the executor did not register within 30 s');
    await sleep(100);
  }
}

async function setRetentionDays(url: string, retentionDays: number): Promise<void> {
  const response = await fetch(`${url}api/v1/settings/retention`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ retentionDays }),
  });
  if (response.status !== 200)
    throw new Error(`updateRetentionSettings: ${response.status} ${await response.text()}`);
}

/** The oldest record older than `cutoff` (the scheduled_at index's first entry), if any. */
async function oldestOldRecord(store: Store, cutoff: number): Promise<number | undefined> {
  const row = await store.db
    .selectFrom('fire')
    .select('id')
    .where('scheduled_at', '<', cutoff)
    .orderBy('scheduled_at')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** Follows the sweep: its start (the oldest record changes), its progress, its end (the monitor's report). */
async function watchSweep(
  store: Store,
  swept: Array<{ deleted: number; batches: number; at: number }>,
  cutoff: number,
  oldestBefore: number | undefined,
): Promise<Sweep> {
  const deadline = Date.now() + maxSweepMs;
  let startedAt: number | undefined;
  let lastProgress = Date.now();
  for (;;) {
    const oldest = await oldestOldRecord(store, cutoff);
    if (startedAt === undefined && oldest !== oldestBefore) startedAt = Date.now();
    const deleted = swept.reduce((n, s) => n + s.deleted, 0);
    // The monitor reports once its sweep is over (the last, short batch included).
    if (deleted >= records) {
      return {
        deleted,
        batches: swept.reduce((n, s) => n + s.batches, 0),
        startedAt: startedAt ?? swept[0]!.at,
        endedAt: swept.at(-1)!.at,
        complete: true,
      };
    }
    if (Date.now() > deadline) {
      return {
        deleted,
        batches: 0,
        startedAt: startedAt ?? Date.now(),
        endedAt: Date.now(),
        complete: false,
      };
    }
    if (
      startedAt !== undefined &&
      oldest !== undefined &&
      oldestBefore !== undefined &&
      Date.now() - lastProgress > 10_000
    ) {
      lastProgress = Date.now();
      log(`  sweeping: about ${(oldest - oldestBefore).toLocaleString('en')} records deleted so far`);
    }
    await sleep(100);
  }
}

async function measure(
  store: Store,
  appId: number,
  window: Window,
  runStarts: Array<[number, number]>,
): Promise<WindowResult> {
  const fires = await store.db
    .selectFrom('fire')
    .select(['scheduled_at', 'trigger_at', 'status'])
    .where('app_id', '=', appId)
    .where('scheduled_at', '>=', window.from)
    .where('scheduled_at', '<', window.to)
    .execute();
  const seconds = (window.to - window.from) / 1000;
  const dispatch = fires.flatMap((f) => (f.trigger_at === null ? [] : [f.trigger_at - f.scheduled_at]));
  const runStart = runStarts.flatMap(([scheduled, late]) =>
    scheduled >= window.from && scheduled < window.to ? [late] : [],
  );
  return {
    name: window.name,
    seconds,
    expected: seconds * jobCount,
    recorded: fires.length,
    succeeded: fires.filter((f) => f.status === 'succeeded').length,
    dispatch: lateness(dispatch),
    runStart: lateness(runStart),
  };
}

function lateness(values: number[]): Lateness {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN };
}

function report(results: WindowResult[], sweep: Sweep, seedSeconds: number): void {
  const sweepSeconds = (sweep.endedAt - sweep.startedAt) / 1000;
  log('');
  log(
    `sweep: ${sweep.deleted.toLocaleString('en')} records deleted in ${sweep.batches} batches over ${sweepSeconds.toFixed(1)} s ` +
      `(${Math.round(sweep.deleted / Math.max(sweepSeconds, 0.001)).toLocaleString('en')} records/s)${sweep.complete ? '' : ' — INCOMPLETE'}`,
  );
  log('');
  log(
    '| window | seconds | fires expected | recorded | succeeded | dispatch lateness p50 / p99 / max (ms) | run-start lateness p50 / p99 / max (ms) |',
  );
  log('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const l = (x: Lateness) => `${x.p50} / ${x.p99} / ${x.max}`;
    log(
      `| ${r.name} | ${r.seconds} | ${r.expected} | ${r.recorded} | ${r.succeeded} | ${l(r.dispatch)} | ${l(r.runStart)} |`,
    );
  }
  if (values.json) {
    console.log(
      JSON.stringify(
        {
          store: storeName,
          records,
          jobs: jobCount,
          batchSize,
          pauseMs,
          budgetMs,
          controlSeconds,
          seedSeconds,
          sweep,
          results,
          machine: { cpus: os.cpus().length, node: process.version, load: os.loadavg() },
        },
        null,
        2,
      ),
    );
  }
}

async function createDatabase(): Promise<{ url: string; dir: string; drop(): Promise<void> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tw-bench-retention-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  if (storeName === 'sqlite')
    return { url: `sqlite:${path.join(dir, 'bench.db')}`, dir, drop: async () => removeDir() };
  const base = values['postgres-url'];
  const schema = `tw_bench_${randomBytes(6).toString('hex')}`;
  const admin = await openStore({ database: base, migrate: false, poolSize: 1 });
  await admin.db.schema.createSchema(schema).execute();
  await admin.close();
  return {
    url: `${base}${base.includes('?') ? '&' : '?'}schema=${schema}`,
    dir,
    drop: async () => {
      const again = await openStore({ database: base, migrate: false, poolSize: 1 });
      await again.db.schema.dropSchema(schema).ifExists().cascade().execute();
      await again.close();
      removeDir();
    },
  };
}

/** `batches of 1000`, or with a budget `batches of at most 1000 sized to take about 5 ms`. */
function batchText(): string {
  if (budgetMs === 0) return `batches of ${batchSize}`;
  return `batches of at most ${batchSize} sized to take about ${budgetMs} ms`;
}

async function sleepUntil(epochMs: number): Promise<void> {
  const wait = epochMs - Date.now();
  if (wait > 0) await sleep(wait);
}

function positiveInteger(value: string, option: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${option}: must be a positive integer`);
  return n;
}

function nonNegativeInteger(value: string, option: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${option}: must be an integer >= 0`);
  return n;
}

await main();
