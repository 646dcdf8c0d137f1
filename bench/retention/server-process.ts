/**
 * The server of bench/retention, in its own process so the harness's own work (the executor,
 * the probes) does not delay it. Logs JSON lines to stdout at `info` (the harness reads the
 * retention monitor's report from them); sends `{type: 'ready', url}` once listening; stops
 * gracefully on `{type: 'stop'}`; exits when the harness goes away.
 *
 *   server-process '{"database":"sqlite:/tmp/…/bench.db","dataDir":"/tmp/…","accessToken":"…",…}'
 */
import { createServer } from '@tickwheel/server';

export interface RetentionServerConfig {
  database: string;
  dataDir: string;
  accessToken: string;
  apiToken: string;
  retentionIntervalMs: number;
  batchSize: number;
  batchPauseMs: number;
  /** The time one batch should take (`retentionBatchBudgetMs`); 0: whole batches. */
  batchBudgetMs: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as RetentionServerConfig;
process.once('disconnect', () => process.exit(1));

const server = await createServer({
  port: 0,
  host: '127.0.0.1',
  database: config.database,
  dataDir: config.dataDir,
  accessToken: config.accessToken,
  apiToken: config.apiToken,
  nodeId: 'bench-retention',
  logLevel: 'info',
  internal: {
    retentionMonitorIntervalMs: config.retentionIntervalMs,
    retentionBatchSize: config.batchSize,
    retentionBatchPauseMs: config.batchPauseMs,
    retentionBatchBudgetMs: config.batchBudgetMs,
    ...(process.env.TW_BENCH_REPORTS_MS
      ? { reportsMonitorIntervalMs: Number(process.env.TW_BENCH_REPORTS_MS) }
      : {}),
  },
});
process.send?.({ type: 'ready', url: server.url });

process.on('message', (message: { type?: string }) => {
  if (message?.type !== 'stop') return;
  server.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
});
