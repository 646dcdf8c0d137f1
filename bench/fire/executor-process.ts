/**
 * One executor of the benchmark, in its own process: a no-op BEAN handler (`noop`) that records
 * each run's lateness, its start minus the fire's scheduled time. The server sends the scheduled
 * time as `logDateTime` (the dispatcher's `scheduledAt`), so the handler reads it from the context.
 * Talks to the harness over IPC: `{type: 'ready', address}` once listening; `window` sets the
 * measured window; `usage` and `stats` (the window's lateness histogram, and one per scheduled
 * second of it) are answered; `stop` stops gracefully. It exits when the harness goes away.
 *
 *   executor-process '{"serverUrls":["http://127.0.0.1:…/"],"accessToken":"…","logDir":"/dev/shm/…"}'
 */
import { createExecutor } from '@tickwheel/executor';
import { startHeapProfiler } from './heap-profiler.js';
import { Histogram } from './histogram.js';
import type { ExecutorConfig, ExecutorMessage, ExecutorStats, HarnessMessage, Window } from './messages.js';
import { createUsageReporter } from './usage.js';

const config = JSON.parse(process.argv[2] ?? '{}') as ExecutorConfig;
process.once('disconnect', () => process.exit(1));
const usage = createUsageReporter();

const lateness = new Histogram();
/** The window's lateness again, one histogram per scheduled second, to see it change along the window. */
const latenessPerSecond = new Map<number, Histogram>();
let window: Window = { start: Number.POSITIVE_INFINITY, end: Number.POSITIVE_INFINITY };
let startsInWindow = 0;
let early = 0;
let runs = 0;

const executor = createExecutor({
  appName: 'bench',
  serverAddresses: config.serverUrls,
  accessToken: config.accessToken,
  // A pull executor opens no port: it connects out to a server node.
  ...(config.transport === 'http-pull'
    ? { transport: 'http-pull' as const }
    : { host: '127.0.0.1', port: 0 }),
  logDir: config.logDir,
  logLayout: config.logLayout,
  logRetentionDays: 1,
});
executor.handle('noop', (ctx) => {
  const now = Date.now();
  runs++;
  if (now >= window.start && now < window.end) startsInWindow++;
  if (ctx.logDateTime >= window.start && ctx.logDateTime < window.end) {
    if (now < ctx.logDateTime) early++;
    lateness.record(now - ctx.logDateTime);
    const second = Math.floor(ctx.logDateTime / 1000) * 1000;
    let histogram = latenessPerSecond.get(second);
    if (histogram === undefined) {
      histogram = new Histogram();
      latenessPerSecond.set(second, histogram);
    }
    histogram.record(now - ctx.logDateTime);
  }
  return undefined;
});
await executor.start();
const heapProfiler = await startHeapProfiler(process.env.TW_BENCH_EXECUTOR_HEAP_PROFILE, 'executor');
send({ type: 'ready', address: executor.address ?? '' });

process.on('message', (message: HarnessMessage) => {
  if (message.type === 'window') window = message.window;
  else if (message.type === 'usage') send(usage());
  else if (message.type === 'stats') send({ type: 'stats', stats: stats() });
  else if (message.type === 'stop')
    Promise.resolve(heapProfiler?.())
      .then(() => executor.stop({ timeoutMs: 5_000 }))
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
});

function stats(): ExecutorStats {
  const perSecond = [...latenessPerSecond]
    .sort(([a], [b]) => a - b)
    .map(([second, histogram]): [number, Array<[number, number]>] => [second, histogram.toPairs()]);
  return { lateness: lateness.toPairs(), perSecond, startsInWindow, early, runs };
}

function send(message: ExecutorMessage): void {
  process.send?.(message);
}
