/**
 * The server's Prometheus metrics. This module and its tallies (tally.ts: the series a fire
 * updates, counted in plain numbers until a scrape) are the only ones that know prom-client: the
 * engine reports events through the typed methods of `Metrics`, and `/metrics` renders the registry.
 * Each server has its own registry (not prom-client's global one), so two servers in one
 * process — as in tests — do not share series.
 *
 * Series:
 * - `tickwheel_fires_total{trigger_type}` — fires dispatched (CRON, MISFIRE, MANUAL, API, ...)
 * - `tickwheel_dispatch_failures_total{trigger_type}` — of those, the ones no executor accepted
 * - `tickwheel_fire_lateness_seconds` — histogram of dispatch time minus the time the fire was due
 * - `tickwheel_dispatch_latency_seconds{lane}` — histogram of the `run` call's duration
 * - `tickwheel_results_total{handle_code}` — run results recorded, by handle code (200, 500, 502, ...)
 * - `tickwheel_executor_auth_failures_total{path}` — executor API calls refused for a wrong access
 *   token, by path (`/api/registry`, `/api/registryRemove`, `/api/callback`, or `other`)
 * - `tickwheel_executors_online` — executor addresses with a live registry heartbeat
 * - `tickwheel_wheel_size` — claimed fires waiting in this node's wheel
 * - `tickwheel_shards_owned` — shard leases this node holds
 * - `tickwheel_stage_seconds{stage}` — histogram of one batch's statement or step on a fire's
 *   path: `claim`, `load`, `fence`, `mark`, `finish`; `tickwheel_stage_records_total{stage}` —
 *   the records those batches handled (so records ÷ batches and time per record follow)
 * - `tickwheel_dispatch_marks_total{written}` — dispatch marks written: `alone` (a statement of
 *   marks, the `mark` stage) or `with_result` (held for the run's result and written in its
 *   statement, the `finish` stage)
 * - `tickwheel_claim_lead_seconds` — histogram of how far ahead of its time each fire was claimed
 *   (the `le="0"` bucket counts claims that came late)
 * - `tickwheel_claim_behind` — 1 while the claim is behind its fires' times (its last batch full,
 *   and due less than half the look-ahead ahead), else 0; the send fence runs fewer statements
 *   at once meanwhile
 * - `tickwheel_pipeline_backlog` — due fires handed to the dispatch side and not sent yet
 * - `tickwheel_claims_held_back_total` — claims the planner cut short or skipped because the
 *   backlog was at its bound (the node is behind: fires wait as job rows and go out late)
 * - `tickwheel_sqlite_checkpoints_total{mode}` — WAL checkpoints of the SQLite store's checkpoint
 *   thread (`PASSIVE` every second, `RESTART` when the log is long); `tickwheel_sqlite_wal_frames`
 *   — frames in the log at the last one (0 after a restart)
 * - `tickwheel_process_*`, `tickwheel_nodejs_*` — prom-client's process metrics (CPU, RSS, event loop lag)
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { HotStage } from '../store/index.js';
import type { WalCheckpoint } from '../store/sqlite-checkpointer.js';
import { asMetric, TalliedCounter, TalliedHistogram } from './tally.js';

/** One fire handed to an executor (or given up on), as the dispatcher's outcome tells it. */
export interface DispatchedFire {
  triggerType: string;
  /** When the fire was due to be dispatched (its scheduled time; `now` for a FIRE_ONCE_NOW misfire). */
  dueAt: number;
  /** When `run` was sent (or the dispatch gave up). */
  triggerAt: number;
  /** Duration of the `run` call; 0 when none was made. */
  latencyMs: number;
  /** 200 when an executor accepted the run. */
  triggerCode: number;
  /** The dispatch lane. Default `fast`. */
  lane?: 'fast' | 'slow';
}

export interface MetricsOptions extends GaugeSources {
  /** Collect prom-client's process metrics (CPU, memory, event loop, GC). Default true. */
  processMetrics?: boolean;
}

/** Gauges read at each scrape from the parts that own the figure. */
export interface GaugeSources {
  /** Read at each scrape instead of being set: the wheel's size. */
  wheelSize?: () => number;
  /** Read at each scrape instead of being set: the shard leases held. */
  shardsOwned?: () => number;
  /** Read at each scrape: the database's clock minus this node's, in seconds. */
  databaseClockOffsetSeconds?: () => number;
  /** Read at each scrape: due fires handed to the dispatch side and not sent yet. */
  pipelineBacklog?: () => number;
  /** Read at each scrape: 1 while the claim is behind its fires' times (Planner.claimBehind), else 0. */
  claimBehind?: () => number;
  /** Read at each scrape (SQLite): hot statements waiting for their turn on the hot thread. */
  sqliteHotWaiting?: () => number;
}

/** A step of a fire's path, timed per batch: the store's hot statements and the pipeline's load. */
export type Stage = HotStage | 'load';

/** The metrics of one server node; the engine calls these methods, `/metrics` renders them. */
export interface Metrics {
  /** One dispatched fire (per executor for a broadcast). */
  fireDispatched(fire: DispatchedFire): void;
  /** One run result recorded, by its handle code. */
  resultRecorded(handleCode: number): void;
  /** One executor API call refused for a wrong access token, by path. */
  executorAuthFailed(path: string): void;
  /** The executor addresses online now (set by the registry monitor). */
  setExecutorsOnline(count: number): void;
  /** The fires waiting in the wheel (when no `wheelSize` source was given). */
  setWheelSize(size: number): void;
  /** The shard leases held (when no `shardsOwned` source was given). */
  setShardsOwned(count: number): void;
  /**
   * Where gauges read from, for parts made after the metrics (the scheduler's wheel and leases,
   * the pipeline): they are given the metrics, then say where their figures are read.
   */
  readFrom(sources: GaugeSources): void;
  /** One batch of `stage` took `ms` for `records` records. */
  stageDone(stage: Stage, ms: number, records: number): void;
  /** `count` dispatch marks were written, on their own or with their runs' results. */
  marksWritten(withResults: boolean, count: number): void;
  /** A fire claimed `leadMs` ahead of its time (≤ 0: late). */
  fireClaimed(leadMs: number): void;
  /** The planner claimed less or nothing: the backlog is at its bound. */
  claimsHeldBack(): void;
  /** The SQLite store's checkpoint thread ran a checkpoint. */
  walCheckpointed(checkpoint: WalCheckpoint): void;
  /** The exposition text and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

const LATENESS_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * @example
 * const metrics = createMetrics({ wheelSize: () => planner.wheelSize });
 * metrics.fireDispatched({ triggerType: 'CRON', dueAt: fire.scheduledAt, triggerAt: o.triggerAt,
 *   latencyMs: o.latencyMs, triggerCode: o.triggerCode, lane: o.lane });
 */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const { processMetrics: _, ...initialSources } = options;
  const sources: GaugeSources = initialSources;
  /** A gauge's collect: its source when one is given, else `otherwise`, else the value set last. */
  const sourced = (name: keyof GaugeSources, otherwise?: number) =>
    function collect(this: Gauge) {
      const source = sources[name];
      if (source !== undefined) this.set(source());
      else if (otherwise !== undefined) this.set(otherwise);
    };
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'tickwheel_' });

  // The series a fire updates are tallied (tally.ts): prom-client's own update costs a few µs.
  const fires = new TalliedCounter({
    name: 'tickwheel_fires_total',
    help: 'Fires dispatched, by trigger type',
    labelName: 'trigger_type',
  });
  registry.registerMetric(fires);
  const dispatchFailures = new TalliedCounter({
    name: 'tickwheel_dispatch_failures_total',
    help: 'Fires no executor accepted, by trigger type',
    labelName: 'trigger_type',
  });
  registry.registerMetric(dispatchFailures);
  const lateness = new TalliedHistogram({
    name: 'tickwheel_fire_lateness_seconds',
    help: 'Time from when a fire was due to when it was dispatched',
    buckets: LATENESS_BUCKETS,
  });
  registry.registerMetric(asMetric(lateness));
  const latency = new TalliedHistogram({
    name: 'tickwheel_dispatch_latency_seconds',
    help: "Duration of the executor's run call, by dispatch lane",
    labelName: 'lane',
    buckets: LATENCY_BUCKETS,
  });
  registry.registerMetric(asMetric(latency));
  const results = new TalliedCounter({
    name: 'tickwheel_results_total',
    help: 'Run results recorded, by handle code',
    labelName: 'handle_code',
  });
  registry.registerMetric(results);
  const executorAuthFailures = new Counter({
    name: 'tickwheel_executor_auth_failures_total',
    help: 'Executor API calls refused for a wrong access token, by path',
    labelNames: ['path'] as const,
    registers: [registry],
  });
  const executorsOnline = new Gauge({
    name: 'tickwheel_executors_online',
    help: 'Executor addresses with a live registry heartbeat',
    registers: [registry],
  });
  const wheelSize = new Gauge({
    name: 'tickwheel_wheel_size',
    help: "Claimed fires waiting in this node's wheel",
    registers: [registry],
    collect: sourced('wheelSize'),
  });
  const shardsOwned = new Gauge({
    name: 'tickwheel_shards_owned',
    help: 'Shard leases this node holds',
    registers: [registry],
    collect: sourced('shardsOwned'),
  });
  new Gauge({
    name: 'tickwheel_database_clock_offset_seconds',
    help: "The database's clock minus this node's, as last measured; the node schedules on the database's",
    registers: [registry],
    collect: sourced('databaseClockOffsetSeconds', 0),
  });

  const stageSeconds = new Histogram({
    name: 'tickwheel_stage_seconds',
    help: "Duration of one batch of a fire's path: claim, load, fence, mark, finish",
    labelNames: ['stage'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const stageRecords = new Counter({
    name: 'tickwheel_stage_records_total',
    help: 'Records handled by the batches of each stage',
    labelNames: ['stage'],
    registers: [registry],
  });
  const marksWritten = new Counter({
    name: 'tickwheel_dispatch_marks_total',
    help: "Dispatch marks written: alone, or held for the run's result and written with it",
    labelNames: ['written'] as const,
    registers: [registry],
  });
  const claimLead = new TalliedHistogram({
    name: 'tickwheel_claim_lead_seconds',
    help: 'How far ahead of its time each fire was claimed (le="0": claimed late)',
    buckets: [0, 0.1, 0.25, 0.5, 1, 2, 3, 4, 5, 10],
  });
  registry.registerMetric(asMetric(claimLead));
  new Gauge({
    name: 'tickwheel_claim_behind',
    help: "1 while the claim is behind its fires' times (the send fence then leaves it the database), else 0",
    registers: [registry],
    collect: sourced('claimBehind', 0),
  });
  new Gauge({
    name: 'tickwheel_pipeline_backlog',
    help: 'Due fires handed to the dispatch side and not sent yet',
    registers: [registry],
    collect: sourced('pipelineBacklog', 0),
  });
  new Gauge({
    name: 'tickwheel_sqlite_hot_waiting',
    help: 'SQLite: hot statements (claim, load, fence, marks, results) waiting for their turn on the hot thread',
    registers: [registry],
    collect: sourced('sqliteHotWaiting', 0),
  });
  const heldBack = new Counter({
    name: 'tickwheel_claims_held_back_total',
    help: 'Claims the planner cut short or skipped because the dispatch backlog was at its bound',
    registers: [registry],
  });

  const walCheckpoints = new Counter({
    name: 'tickwheel_sqlite_checkpoints_total',
    help: "WAL checkpoints of the SQLite store's checkpoint thread, by mode",
    labelNames: ['mode'] as const,
    registers: [registry],
  });
  const walFrames = new Gauge({
    name: 'tickwheel_sqlite_wal_frames',
    help: 'Frames (pages) in the SQLite WAL at the last checkpoint; 0 once a restart let it start over',
    registers: [registry],
  });

  return {
    stageDone(stage, ms, records) {
      stageSeconds.observe({ stage }, ms / 1000);
      stageRecords.inc({ stage }, records);
    },
    marksWritten(withResults, count) {
      marksWritten.inc({ written: withResults ? 'with_result' : 'alone' }, count);
    },
    fireClaimed(leadMs) {
      claimLead.add(leadMs / 1000);
    },
    claimsHeldBack() {
      heldBack.inc();
    },
    walCheckpointed(checkpoint) {
      walCheckpoints.inc({ mode: checkpoint.mode });
      walFrames.set(checkpoint.walFrames);
    },
    fireDispatched(fire) {
      fires.add(fire.triggerType);
      if (fire.triggerCode !== 200) dispatchFailures.add(fire.triggerType);
      lateness.add(Math.max(0, fire.triggerAt - fire.dueAt) / 1000);
      if (fire.latencyMs > 0) latency.add(fire.latencyMs / 1000, fire.lane ?? 'fast');
    },
    resultRecorded(handleCode) {
      results.add(handleCode);
    },
    executorAuthFailed(path) {
      executorAuthFailures.inc({ path });
    },
    setExecutorsOnline(count) {
      executorsOnline.set(count);
    },
    setWheelSize(size) {
      wheelSize.set(size);
    },
    setShardsOwned(count) {
      shardsOwned.set(count);
    },
    readFrom(more) {
      Object.assign(sources, more);
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
