/**
 * The scheduling server under measurement, in its own process so its CPU time and memory are its
 * own. Talks to the harness over IPC: sends `{type: 'ready', url}` once listening, answers
 * `{type: 'usage'}` with its CPU time, RSS and event-loop delay (usage.ts), and stops gracefully on
 * `{type: 'stop'}`. It exits when the harness goes away, so no server outlives a run.
 *
 *   server-process '{"database":"sqlite:/tmp/…/bench.db","dataDir":"/tmp/…","accessToken":"…"}'
 *
 * `TW_BENCH_METRICS=<file>`: at the stop, the server's /metrics text (the stage timings, the
 * claim lead, the backlog) is written to that file first, for a look at where a run's time went.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { createServer } from '@tickwheel/server';
import { startHeapProfiler } from './heap-profiler.js';
import type { HarnessMessage, ServerConfig, ServerMessage } from './messages.js';
import { createUsageReporter } from './usage.js';

/** The API token of a server whose metrics are kept (TW_BENCH_METRICS): loopback only, for this run. */
const METRICS_TOKEN = 'bench-fire-metrics-token-0123456789';
const config = JSON.parse(process.argv[2] ?? '{}') as ServerConfig;
process.once('disconnect', () => process.exit(1));
const usage = createUsageReporter();

const server = await createServer({
  port: 0,
  host: '127.0.0.1',
  database: config.database,
  dataDir: config.dataDir,
  accessToken: config.accessToken,
  nodeId: config.nodeId ?? 'bench-fire',
  ...(config.redis === undefined ? {} : { redis: config.redis }),
  logLevel: 'warn',
  ...(process.env.TW_BENCH_METRICS ? { apiToken: METRICS_TOKEN } : {}),
  // Experiments: public server options as JSON (e.g. '{"databasePoolSize":5}'), then the internal
  // ones (e.g. '{"claimBatchSize":100}').
  ...(process.env.TW_BENCH_SERVER_OPTIONS ? JSON.parse(process.env.TW_BENCH_SERVER_OPTIONS) : {}),
  ...(process.env.TW_BENCH_SERVER_INTERNAL
    ? { internal: JSON.parse(process.env.TW_BENCH_SERVER_INTERNAL) }
    : {}),
});
send({ type: 'ready', url: server.url });
const profiler = await startProfiler();
const heapProfiler = await startHeapProfiler(process.env.TW_BENCH_HEAP_PROFILE, 'server-main');

process.on('message', (message: HarnessMessage) => {
  if (message.type === 'usage') {
    send(usage());
  } else if (message.type === 'stop') {
    keepMetrics()
      .then(() => profiler?.())
      .then(() => heapProfiler?.())
      .then(() => server.stop())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          console.error(err);
          process.exit(1);
        },
      );
  }
});

/**
 * `TW_BENCH_PROFILE=<folder>`: the main thread is profiled through the inspector from the start
 * to the stop and written to `server-main-<pid>.cpuprofile` there (a `--cpu-prof` profile of the
 * main thread is written at exit, which a server stopping under load did not always reach).
 */
async function startProfiler(): Promise<(() => Promise<void>) | undefined> {
  const folder = process.env.TW_BENCH_PROFILE;
  if (!folder) return undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 1000 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, `server-main-${process.pid}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

/** Writes /metrics to TW_BENCH_METRICS, when set; a failure is reported, not fatal. */
async function keepMetrics(): Promise<void> {
  const file = process.env.TW_BENCH_METRICS;
  if (!file) return;
  try {
    const answer = await fetch(`${server.url}metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    writeFileSync(file, await answer.text());
  } catch (err) {
    console.error('could not keep the metrics', err);
  }
}

function send(message: ServerMessage): void {
  process.send?.(message);
}
