/**
 * Every server option, its default and its validation, in one place. `resolveServerOptions()`
 * runs once in `createServer()`; the parts it builds (store, scheduler, dispatcher, monitors,
 * HTTP) get resolved values and never re-default them.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  DEAD_TIMEOUT_MS,
  DEFAULT_CALL_TIMEOUT_MS,
  PULL_PING_INTERVAL_MS,
  TickwheelError,
  weakTokenProblem,
} from '@tickwheel/protocol';
import type { Logger } from 'pino';
import { type TBoolean, type TInteger, Type } from 'typebox';
import type { AlarmSink } from './alarms/alarm-sink.js';
import {
  type AlarmQueueLimits,
  type ResolvedAlarmQueueLimits,
  resolveAlarmQueueLimits,
} from './alarms/options.js';
import type { LostRunMonitorOptions } from './monitors/lost-runs.js';
import type { OwedAlarmMonitorOptions } from './monitors/owed-alarms.js';
import type { OwedChildrenMonitorOptions } from './monitors/owed-children.js';
import type { RegistryMonitorOptions } from './monitors/registry.js';
import type { ReportsMonitorOptions } from './monitors/reports.js';
import type { RetentionMonitorOptions } from './monitors/retention.js';
import type { RetryMonitorOptions } from './monitors/retries.js';
import {
  booleanOption,
  boundedInteger,
  clockOption,
  integerOption,
  invalid,
  nonEmptyString,
} from './option-checks.js';
import { RETENTION_BATCH_DEFAULTS } from './retention/delete-pacing.js';
import { type Clock, systemClock } from './scheduling/clock.js';
import { DEFAULT_MISFIRE_WINDOW_MS } from './scheduling/misfire.js';
import { defaultLeaseRenewalIntervalMs, SCHEDULING_DEFAULTS } from './scheduling/options.js';
import { INITIAL_SECRETS_FILE_NAME } from './security/initial-secrets-file.js';
import { parseNetworks } from './security/network-rules.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Environment variables the server reads when the matching option is not given. */
export const SERVER_ENV = {
  adminPassword: 'TICKWHEEL_ADMIN_PASSWORD',
  apiToken: 'TICKWHEEL_API_TOKEN',
  accessToken: 'TICKWHEEL_ACCESS_TOKEN',
} as const;

/** Options of {@link createServer}; every one has a default. */
export interface ServerOptions {
  /** TCP port of the HTTP API (REST, executor-facing, metrics). 0 picks a free one. Default 8080. */
  port?: number;
  /**
   * Interface to listen on. Default `127.0.0.1` (safe by default: executors on other hosts
   * need `0.0.0.0` or the host's address).
   */
  host?: string;
  /**
   * Reverse proxies whose `X-Forwarded-For` names the client: `true` trusts every hop (only when
   * the proxy is the one way in), or the proxies' addresses/CIDRs. The client address is what
   * the sign-in rate limit counts per address. Default false (the connection's peer).
   */
  trustProxy?: boolean | string[];
  /**
   * This node's base URL as the other nodes of a cluster reach it (stored in `cluster_node`): a
   * node relays the calls to a pull executor connected elsewhere to the node holding it
   * (`api/pull-relay`). Default `http://<host>:<port>`, with a wildcard host (0.0.0.0, ::) as
   * 127.0.0.1 — set it whenever the nodes run on different hosts.
   */
  advertiseUrl?: string;
  /**
   * A Redis server (`redis://[user:password@]host:port[/db]`, or `rediss://` for TLS) for the
   * `redis` transport: runs to executors at `stream://<instance>/` addresses go into their Redis
   * streams (dispatch/redis-streams.ts). Redis down at start does not stop the server; while it
   * is unreachable those runs stay pending. Default none: calls to stream executors fail.
   */
  redis?: string;
  /**
   * Networks (CIDRs such as `169.254.10.0/24`, or single addresses) the server connects to although
   * they are in a range it denies: executor addresses and alarm channels (webhooks, robots, SMTP)
   * never reach link-local addresses (169.254.0.0/16, fe80::/10, where cloud metadata services
   * answer), the metadata addresses, 0.0.0.0/8, multicast, broadcast or reserved ranges
   * (security/network-rules.ts). Loopback and private ranges are allowed without it. Default none.
   */
  allowedNetworks?: string[];
  /** Directory of the embedded SQLite database (and a relative SQLite path). Default `./data`. */
  dataDir?: string;
  /**
   * The store: `sqlite:<file>` (relative to `dataDir`), `postgres://…[?schema=name]`,
   * `mysql://…` or `mariadb://…`. Default `sqlite:tickwheel.db` in `dataDir`.
   */
  database?: string;
  /** Connections per database pool (PostgreSQL, MySQL). Default 10. */
  databasePoolSize?: number;
  /**
   * How long a start waits for an unreachable PostgreSQL/MySQL database, trying again with a
   * warning per attempt, before it fails. 0 fails at once. Default 60000 ms.
   */
  databaseWaitMs?: number;
  /**
   * The executor access token (`XXL-JOB-ACCESS-TOKEN`) to use from now on: at least 32
   * characters and not a published default such as `default_token` (`openssl rand -base64 32`
   * makes one). Default: the one stored at first start (generated then, printed once), or
   * `TICKWHEEL_ACCESS_TOKEN`.
   */
  accessToken?: string;
  /** Seeds an admin API token at first start (automation). Default `TICKWHEEL_API_TOKEN`, else none. */
  apiToken?: string;
  /** The first admin password. Default `TICKWHEEL_ADMIN_PASSWORD`, else generated at first start and printed once. */
  adminPassword?: string;
  /**
   * Generate an admin API token at first start when none is seeded, and report it in
   * `firstStartSecrets` (`tickwheel start` prints it once). Default false.
   */
  generateApiToken?: boolean;
  /**
   * Folder of the built web console (`@tickwheel/console`'s `dist`), served at `/`. Default none:
   * the server then serves only the APIs (`tickwheel start` passes the console's folder).
   */
  consoleDir?: string;
  /**
   * Open HTTP (executors register, the APIs answer) but start scheduling (the scheduler, the
   * retries and the owed child jobs) only when `server.startScheduling()` is called: for an
   * embedder that starts executors of its own in the process and wants them registered before
   * the first fire. Default false.
   */
  deferScheduling?: boolean;
  /**
   * Where the secrets generated at the first start are kept, owner-only (0600), until the
   * admin's password is changed (security/initial-secrets-file.ts); false keeps no file.
   * Default `<dataDir>/initial-secrets.txt`.
   */
  initialSecretsFile?: string | false;
  /**
   * This node's name in the shard lease rows. Keep it stable across restarts of one node: a
   * restart under the same name takes its shards back at once. Default `<hostname>:<port>`.
   */
  nodeId?: string;
  /** Jobs due within this much of now are claimed into the wheel. Default 5,000 ms. */
  lookAheadMs?: number;
  /** A fire claimed later than this after its time follows the job's misfire policy. Default 5,000 ms. */
  misfireWindowMs?: number;
  /** Time one call to one executor may take. Default 3,000 ms. */
  executorCallTimeoutMs?: number;
  /** An executor whose last heartbeat is older than this is offline. Default 90,000 ms. */
  executorDeadAfterMs?: number;
  /** A run still `dispatched` after this long whose executor is offline is failed as lost. Default 60,000 ms. */
  lostRunAfterMs?: number;
  /**
   * A run on an executor that sends no instance id (XXL-JOB's) still `dispatched` this long after
   * its dispatch is checked with `idleBeat`; answered idle in two sweeps in a row, it is failed as
   * lost. 0: never checked. Default 30,000 ms.
   */
  lostRunIdleGraceMs?: number;
  /** Longest time `stop()` waits for dispatches in flight. Default 10,000 ms. */
  stopTimeoutMs?: number;
  /** Level of the server's pino logs. Default `info`. */
  logLevel?: LogLevel;
  /** A pino logger to write to instead of a new one on stdout (`logLevel` is then ignored). */
  logger?: Logger;
  /** Values read when `adminPassword`, `apiToken` or `accessToken` are absent. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /**
   * Timings of the engine and the monitors. Internal: meant for tests, which cannot wait 30 s or
   * 10 minutes; not part of the stable API.
   */
  internal?: ServerInternalOptions;
}

/** @internal See {@link ServerOptions.internal}. */
export interface ServerInternalOptions {
  /**
   * A clock of the test's (a manual clock). With it, leases use this clock's time instead of the
   * database's, and nothing is corrected.
   */
  clock?: Clock;
  /**
   * For tests and chaos runs only: shifts this node's local clock by this many ms (positive:
   * ahead), to show that a node with a wrong clock still schedules on the database's time.
   * Default 0.
   */
  clockOffsetMs?: number;
  /**
   * SQLite: run the hot statements (claim, load, fence, marks, results) on a thread of their own
   * (store/sqlite-hot-thread.ts). Default true; false keeps them on the server's thread (the
   * benchmark's comparison).
   */
  sqliteHotThread?: boolean;
  /**
   * Send a fire the planner claimed as its claim read it, without loading it again; the send fence
   * then checks its job's and app's `updated_at` (dispatch/fire-pipeline.ts). Default false: with
   * it, PostgreSQL spread 5,000 costs the server and the database 15 µs a fire less each and its
   * lateness p99 is 35 ms against 45, but beside a CPU hog the sends, no longer paced by the loads,
   * keep four fence statements at a time on the database and the claim falls behind
   * (docs/benchmarks.md, an eighteenth session).
   */
  sendAsClaimed?: boolean;
  /**
   * Dispatch the due fires loaded together as a batch: the common fires (one executor picked by a
   * route that asks none, no address list, no re-send, no broadcast, fast lane) routed, fenced and
   * sent together (dispatch/dispatcher.ts, `dispatchMany`). Default true; false sends each fire
   * through its own chain, as before.
   */
  batchSends?: boolean;
  /** Shards of the job space (every node of a cluster must agree). Default 64. */
  shardCount?: number;
  /** Time between two planner ticks. Default 500 ms. */
  tickIntervalMs?: number;
  /** Longest wait for a new PostgreSQL/MySQL connection. Default 10,000 ms. */
  databaseConnectTimeoutMs?: number;
  /**
   * Longest wait for the answer to one PostgreSQL/MySQL statement; past it the statement fails
   * and its connection is closed (a stalled database cannot wedge the node). 0 = no limit.
   * Default 10,000 ms.
   */
  databaseStatementTimeoutMs?: number;
  /**
   * Jobs claimed per claim transaction. Default by database (scheduling/options.ts): 100 on SQLite,
   * 500 on PostgreSQL and MySQL.
   */
  claimBatchSize?: number;
  /** How much further than the look-ahead a claim records a recurring job's times (scheduling/options.ts). */
  recordAheadMs?: number;
  /** How long before its time a fire is loaded and fenced, to be sent at its time (scheduling/options.ts). */
  prepareAheadMs?: number;
  /** The grid the wheel hands fires over on (scheduling/options.ts). */
  wheelResolutionMs?: number;
  /** Shard lease lifetime (scheduling/options.ts has the default and what it trades). */
  leaseTtlMs?: number;
  /** Time between two shard lease renewal rounds. Default a fifth of `leaseTtlMs`. */
  leaseRenewalIntervalMs?: number;
  /** How often the registry monitor drops dead entries and writes app address lists. Default 30,000 ms. */
  registryMonitorIntervalMs?: number;
  /** How often each pull connection is pinged (two missed pongs close it). Default PULL_PING_INTERVAL_MS (15,000 ms). */
  pullPingIntervalMs?: number;
  /** How often this node re-reads the online executors (registrations sent to other nodes). Default 5,000 ms. */
  directoryRefreshIntervalMs?: number;
  /** How often the lost-run monitor looks for lost runs. Default 10,000 ms. */
  lostRunMonitorIntervalMs?: number;
  /** Fires loaded and dispatch marks written per statement. Default 500. */
  pipelineBatchSize?: number;
  /**
   * Longest the dispatch mark of a scheduled run accepted by a Tickwheel executor waits for the
   * run's result, to be written in the result's statement (dispatch/mark-batcher.ts); 0 writes
   * every mark on its own. Default 500 ms.
   */
  dispatchMarkHoldMs?: number;
  /** How often the retry monitor sends due retries (a retry goes out at most this late). Default 500 ms. */
  retryMonitorIntervalMs?: number;
  /** Where failures are alarmed instead of the configured alarm channels (tests, embedding). */
  alarmSink?: AlarmSink;
  /** The alarm queue's timeouts, retries and limits (alarms/options.ts has the defaults). */
  alarms?: AlarmQueueLimits;
  /** How often the reports monitor recomputes the daily figures. Default 60,000 ms. */
  reportsMonitorIntervalMs?: number;
  /** How often the retention monitor deletes old fire records. Default 3,600,000 ms. */
  retentionMonitorIntervalMs?: number;
  /**
   * Fire records the retention monitor deletes per statement. Default by database
   * (retention/delete-pacing.ts `RETENTION_BATCH_DEFAULTS`): 100 on SQLite, 1,000 on PostgreSQL
   * and MySQL.
   */
  retentionBatchSize?: number;
  /** Shortest pause between two retention batches. Default 5 ms on SQLite, 50 ms on PostgreSQL and MySQL. */
  retentionBatchPauseMs?: number;
  /**
   * The time one retention batch should take; the batch size follows it, up to
   * `retentionBatchSize` (retention/delete-pacing.ts). Default 0: every batch is
   * `retentionBatchSize`. An experiment of bench/retention (`--budget-ms`).
   */
  retentionBatchBudgetMs?: number;
  /** How often the owed-children sweep fires child jobs a stopped node left owed. Default 60,000 ms. */
  owedChildrenMonitorIntervalMs?: number;
  /** How often the owed-alarm sweep sends alarms a stopped node left owed. Default 60,000 ms. */
  owedAlarmMonitorIntervalMs?: number;
  /** How often each node looks for workflows due within the next poll. Default 1,000 ms. */
  workflowPollIntervalMs?: number;
  /** How often the workflow sweep moves on runs a stopped node left. Default 10,000 ms. */
  workflowSweepIntervalMs?: number;
  /** A run changed less than this long ago is left to the node moving it. Default 10,000 ms. */
  workflowSweepGraceMs?: number;
}

export interface ResolvedServerOptions {
  port: number;
  host: string;
  trustProxy: boolean | string[];
  /** Undefined: `http://<host>:<port>` once the port is known. */
  advertiseUrl: string | undefined;
  redis: string | undefined;
  allowedNetworks: string[];
  dataDir: string;
  database: string;
  databasePoolSize: number;
  databaseWaitMs: number;
  databaseConnectTimeoutMs: number;
  databaseStatementTimeoutMs: number;
  accessToken: string | undefined;
  apiToken: string | undefined;
  adminPassword: string | undefined;
  generateApiToken: boolean;
  consoleDir: string | undefined;
  deferScheduling: boolean;
  /** Absent when no file is kept. */
  initialSecretsFile: string | undefined;
  nodeId: string;
  lookAheadMs: number;
  misfireWindowMs: number;
  executorCallTimeoutMs: number;
  executorDeadAfterMs: number;
  lostRunAfterMs: number;
  lostRunIdleGraceMs: number;
  stopTimeoutMs: number;
  logLevel: LogLevel;
  logger: Logger | undefined;
  clock: Clock;
  /** Whether leases use the database's clock and `clock` is corrected to it (no `internal.clock`). */
  databaseClock: boolean;
  clockOffsetMs: number;
  sqliteHotThread: boolean;
  sendAsClaimed: boolean;
  batchSends: boolean;
  shardCount: number;
  tickIntervalMs: number;
  claimBatchSize: number;
  recordAheadMs: number | undefined;
  prepareAheadMs: number | undefined;
  wheelResolutionMs: number | undefined;
  leaseTtlMs: number;
  leaseRenewalIntervalMs: number;
  registryMonitorIntervalMs: number;
  pullPingIntervalMs: number;
  directoryRefreshIntervalMs: number;
  lostRunMonitorIntervalMs: number;
  pipelineBatchSize: number;
  dispatchMarkHoldMs: number;
  retryMonitorIntervalMs: number;
  alarmSink: AlarmSink | undefined;
  alarmLimits: ResolvedAlarmQueueLimits;
  reportsMonitorIntervalMs: number;
  retentionMonitorIntervalMs: number;
  /** Given, or the database's default (retention/delete-pacing.ts). */
  retentionBatchSize: number;
  /** Given, or the database's default (retention/delete-pacing.ts). */
  retentionBatchPauseMs: number;
  retentionBatchBudgetMs: number;
  owedChildrenMonitorIntervalMs: number;
  owedAlarmMonitorIntervalMs: number;
  workflowPollIntervalMs: number;
  workflowSweepIntervalMs: number;
  workflowSweepGraceMs: number;
  /** Every timing of each monitor, from the options above and {@link MONITOR_TUNINGS}. */
  monitors: MonitorTimings;
}

/** The timings each monitor is built with: all of them, resolved here. */
export interface MonitorTimings {
  registry: Pick<RegistryMonitorOptions, 'sweepIntervalMs' | 'refreshIntervalMs' | 'deadTimeoutMs'>;
  lostRuns: Pick<
    LostRunMonitorOptions,
    'lostAfterMs' | 'idleGraceMs' | 'intervalMs' | 'deadTimeoutMs' | 'batchSize' | 'idleBeatConcurrency'
  >;
  retries: Pick<
    RetryMonitorOptions,
    'intervalMs' | 'sweepIntervalMs' | 'sweepWindowMs' | 'reclaimAfterMs' | 'batchSize'
  >;
  reports: Pick<ReportsMonitorOptions, 'intervalMs'>;
  retention: Pick<RetentionMonitorOptions, 'intervalMs' | 'batchSize' | 'batchPauseMs' | 'batchBudgetMs'>;
  owedChildren: Pick<OwedChildrenMonitorOptions, 'intervalMs' | 'graceMs' | 'lookBackMs' | 'batchSize'>;
  owedAlarms: Pick<OwedAlarmMonitorOptions, 'intervalMs' | 'batchSize'>;
}

export const SERVER_DEFAULTS = {
  port: 8080,
  host: '127.0.0.1',
  dataDir: './data',
  sqliteFile: 'tickwheel.db',
  databasePoolSize: 10,
  databaseWaitMs: 60_000,
  databaseConnectTimeoutMs: 10_000,
  databaseStatementTimeoutMs: 10_000,
  lookAheadMs: 5_000,
  misfireWindowMs: DEFAULT_MISFIRE_WINDOW_MS,
  executorCallTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
  executorDeadAfterMs: DEAD_TIMEOUT_MS,
  lostRunAfterMs: 60_000,
  lostRunIdleGraceMs: 30_000,
  stopTimeoutMs: 10_000,
  logLevel: 'info',
  registryMonitorIntervalMs: 30_000,
  directoryRefreshIntervalMs: 5_000,
  lostRunMonitorIntervalMs: 10_000,
  pipelineBatchSize: 500,
  dispatchMarkHoldMs: 500,
  retryMonitorIntervalMs: 500,
  reportsMonitorIntervalMs: 60_000,
  retentionMonitorIntervalMs: 3_600_000,
  retentionBatchBudgetMs: 0,
  owedChildrenMonitorIntervalMs: 60_000,
  owedAlarmMonitorIntervalMs: 60_000,
  workflowPollIntervalMs: 1_000,
  workflowSweepIntervalMs: 10_000,
  workflowSweepGraceMs: 10_000,
} as const;

/**
 * The monitors' tunings that are no option (fixed here, passed down with the resolved options):
 * statement sizes, how far back the sweeps look, how many idle checks run at once.
 */
export const MONITOR_TUNINGS = {
  /** Lost-run records read per round trip; a sweep goes on until none is left. */
  lostRunBatchSize: 500,
  /** `idleBeat` calls of the lost-run monitor in flight at once. */
  lostRunIdleBeatConcurrency: 16,
  /** The retry monitor's sweep for undecided failures: how often, and how far back it looks. */
  retrySweepIntervalMs: 60_000,
  retrySweepWindowMs: 24 * 3_600_000,
  /** A claimed retry still pending this long after its claim is claimed again. */
  retryReclaimAfterMs: 60_000,
  retryBatchSize: 200,
  /** A success finished less than this long ago is left to its result hook. */
  owedChildrenGraceMs: 30_000,
  /** Child jobs owed longer than this (by scheduled time) are not fired any more. */
  owedChildrenLookBackMs: 24 * 3_600_000,
  owedChildrenBatchSize: 200,
  owedAlarmBatchSize: 200,
} as const;

const MAX_NODE_ID_LENGTH = 64;

/** Minutes and hours in ms, for the ranges below. */
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const booleanWithDefault = (fallback: boolean) =>
  Type.Boolean({ default: fallback }) as TBoolean & { default: boolean };
/** An integer the scheduling engine checks (its ranges depend on each other), with its default. */
const schedulingInteger = (fallback: number) =>
  Type.Integer({ default: fallback }) as TInteger & { default: number };

/**
 * The schema of the numeric and true/false options: each one's range and default, written once
 * (the defaults come from {@link SERVER_DEFAULTS} and, for the scheduling engine's, from
 * `SCHEDULING_DEFAULTS`). `resolveServerOptions()` checks every such option against it; an
 * option of another kind (a URL, a list, a logger) has a check of its own below. Options whose
 * default depends on another (`leaseRenewalIntervalMs`, the retention batches) are resolved there.
 */
export const SERVER_OPTIONS_SCHEMA = Type.Object({
  port: boundedInteger(0, 65_535, SERVER_DEFAULTS.port),
  databasePoolSize: boundedInteger(1, 1_000, SERVER_DEFAULTS.databasePoolSize),
  databaseWaitMs: boundedInteger(0, DAY, SERVER_DEFAULTS.databaseWaitMs),
  generateApiToken: booleanWithDefault(false),
  deferScheduling: booleanWithDefault(false),
  lookAheadMs: boundedInteger(100, 10 * MINUTE, SERVER_DEFAULTS.lookAheadMs),
  misfireWindowMs: boundedInteger(0, DAY, SERVER_DEFAULTS.misfireWindowMs),
  executorCallTimeoutMs: boundedInteger(1, 10 * MINUTE, SERVER_DEFAULTS.executorCallTimeoutMs),
  executorDeadAfterMs: boundedInteger(100, DAY, SERVER_DEFAULTS.executorDeadAfterMs),
  lostRunAfterMs: boundedInteger(100, 7 * DAY, SERVER_DEFAULTS.lostRunAfterMs),
  lostRunIdleGraceMs: boundedInteger(0, 7 * DAY, SERVER_DEFAULTS.lostRunIdleGraceMs),
  stopTimeoutMs: boundedInteger(0, 10 * MINUTE, SERVER_DEFAULTS.stopTimeoutMs),
  internal: Type.Object({
    clockOffsetMs: boundedInteger(-DAY, DAY, 0),
    sqliteHotThread: booleanWithDefault(true),
    sendAsClaimed: booleanWithDefault(false),
    batchSends: booleanWithDefault(true),
    // The scheduling engine checks these eight (scheduling/options.ts: its ranges depend on each other);
    // the claim batch's default on SQLite is SCHEDULING_DEFAULTS.sqliteClaimBatchSize.
    shardCount: schedulingInteger(SCHEDULING_DEFAULTS.shardCount),
    tickIntervalMs: schedulingInteger(SCHEDULING_DEFAULTS.tickIntervalMs),
    claimBatchSize: schedulingInteger(SCHEDULING_DEFAULTS.claimBatchSize),
    recordAheadMs: Type.Integer({ description: 'Default half of lookAheadMs' }),
    prepareAheadMs: Type.Integer({ description: 'Default 60, at most half of the lease safety margin' }),
    wheelResolutionMs: schedulingInteger(SCHEDULING_DEFAULTS.wheelResolutionMs),
    leaseTtlMs: schedulingInteger(SCHEDULING_DEFAULTS.leaseTtlMs),
    leaseRenewalIntervalMs: Type.Integer({ description: 'Default a fifth of leaseTtlMs' }),
    databaseConnectTimeoutMs: boundedInteger(100, 10 * MINUTE, SERVER_DEFAULTS.databaseConnectTimeoutMs),
    databaseStatementTimeoutMs: boundedInteger(0, HOUR, SERVER_DEFAULTS.databaseStatementTimeoutMs),
    registryMonitorIntervalMs: boundedInteger(10, HOUR, SERVER_DEFAULTS.registryMonitorIntervalMs),
    pullPingIntervalMs: boundedInteger(10, HOUR, PULL_PING_INTERVAL_MS),
    directoryRefreshIntervalMs: boundedInteger(10, HOUR, SERVER_DEFAULTS.directoryRefreshIntervalMs),
    lostRunMonitorIntervalMs: boundedInteger(10, HOUR, SERVER_DEFAULTS.lostRunMonitorIntervalMs),
    pipelineBatchSize: boundedInteger(1, 10_000, SERVER_DEFAULTS.pipelineBatchSize),
    dispatchMarkHoldMs: boundedInteger(0, MINUTE, SERVER_DEFAULTS.dispatchMarkHoldMs),
    retryMonitorIntervalMs: boundedInteger(10, MINUTE, SERVER_DEFAULTS.retryMonitorIntervalMs),
    reportsMonitorIntervalMs: boundedInteger(10, HOUR, SERVER_DEFAULTS.reportsMonitorIntervalMs),
    retentionMonitorIntervalMs: boundedInteger(10, DAY, SERVER_DEFAULTS.retentionMonitorIntervalMs),
    // Defaults by database: RETENTION_BATCH_DEFAULTS (retention/delete-pacing.ts).
    retentionBatchSize: boundedInteger(1, 100_000, RETENTION_BATCH_DEFAULTS.sqlite.batchSize),
    retentionBatchPauseMs: boundedInteger(0, MINUTE, RETENTION_BATCH_DEFAULTS.sqlite.pauseMs),
    retentionBatchBudgetMs: boundedInteger(0, MINUTE, SERVER_DEFAULTS.retentionBatchBudgetMs),
    workflowPollIntervalMs: boundedInteger(10, MINUTE, SERVER_DEFAULTS.workflowPollIntervalMs),
    workflowSweepIntervalMs: boundedInteger(10, HOUR, SERVER_DEFAULTS.workflowSweepIntervalMs),
    workflowSweepGraceMs: boundedInteger(0, HOUR, SERVER_DEFAULTS.workflowSweepGraceMs),
    owedChildrenMonitorIntervalMs: boundedInteger(10, HOUR, SERVER_DEFAULTS.owedChildrenMonitorIntervalMs),
    owedAlarmMonitorIntervalMs: boundedInteger(10, HOUR, SERVER_DEFAULTS.owedAlarmMonitorIntervalMs),
  }),
});

const TOP = SERVER_OPTIONS_SCHEMA.properties;
const INTERNAL = SERVER_OPTIONS_SCHEMA.properties.internal.properties;
type TopInteger = {
  [K in keyof typeof TOP]: (typeof TOP)[K] extends { minimum: number } ? K : never;
}[keyof typeof TOP];
type InternalInteger = {
  [K in keyof typeof INTERNAL]: (typeof INTERNAL)[K] extends { minimum: number } ? K : never;
}[keyof typeof INTERNAL];

/** The database kind a `database` option names, for the defaults that depend on it. */
function dialectOf(database: string): keyof typeof RETENTION_BATCH_DEFAULTS {
  if (/^postgres(ql)?:/.test(database)) return 'postgres';
  if (/^(mysql|mariadb):/.test(database)) return 'mysql';
  return 'sqlite';
}

/** Fills defaults and validates; throws `TW_ERR_INVALID_OPTION` naming the first bad option. */
export function resolveServerOptions(options: ServerOptions = {}): ResolvedServerOptions {
  if (options === null || typeof options !== 'object') throw invalid('options', 'must be an object');
  const d = SERVER_DEFAULTS;
  const env = options.env ?? process.env;
  const internal = options.internal ?? {};
  const int = (name: TopInteger): number => integerOption(name, options[name], TOP[name]);
  const internalInt = (name: InternalInteger): number =>
    integerOption(`internal.${name}`, internal[name], INTERNAL[name]);
  const internalDefault = <K extends 'shardCount' | 'tickIntervalMs' | 'leaseTtlMs'>(name: K): number =>
    internal[name] ?? INTERNAL[name].default;
  const port = int('port');
  const dataDir = path.resolve(nonEmptyString('dataDir', options.dataDir) ?? d.dataDir);
  const database =
    nonEmptyString('database', options.database) ?? `sqlite:${path.join(dataDir, d.sqliteFile)}`;
  const dialect = dialectOf(database);
  const retentionBatch = RETENTION_BATCH_DEFAULTS[dialect];
  const leaseTtlMs = internalDefault('leaseTtlMs');
  const resolved: Omit<ResolvedServerOptions, 'monitors'> = {
    port,
    host: nonEmptyString('host', options.host) ?? d.host,
    trustProxy: trustProxyOption(options.trustProxy),
    advertiseUrl: advertiseUrlOption(options.advertiseUrl),
    redis: redisOption(options.redis),
    allowedNetworks: allowedNetworksOption(options.allowedNetworks),
    dataDir,
    database,
    databasePoolSize: int('databasePoolSize'),
    databaseWaitMs: int('databaseWaitMs'),
    accessToken: accessTokenOption(options.accessToken, env),
    apiToken: secret('apiToken', options.apiToken ?? blankToUndefined(env[SERVER_ENV.apiToken])),
    adminPassword: secret(
      'adminPassword',
      options.adminPassword ?? blankToUndefined(env[SERVER_ENV.adminPassword]),
    ),
    generateApiToken: booleanOption(
      'generateApiToken',
      options.generateApiToken,
      TOP.generateApiToken.default,
    ),
    deferScheduling: booleanOption('deferScheduling', options.deferScheduling, TOP.deferScheduling.default),
    consoleDir: consoleDirOption(options.consoleDir),
    initialSecretsFile:
      options.initialSecretsFile === false
        ? undefined
        : path.resolve(
            dataDir,
            nonEmptyString('initialSecretsFile', options.initialSecretsFile) ?? INITIAL_SECRETS_FILE_NAME,
          ),
    nodeId: nodeIdOption(options.nodeId, port),
    lookAheadMs: int('lookAheadMs'),
    misfireWindowMs: int('misfireWindowMs'),
    executorCallTimeoutMs: int('executorCallTimeoutMs'),
    executorDeadAfterMs: int('executorDeadAfterMs'),
    lostRunAfterMs: int('lostRunAfterMs'),
    lostRunIdleGraceMs: int('lostRunIdleGraceMs'),
    stopTimeoutMs: int('stopTimeoutMs'),
    logLevel: logLevelOption(options.logLevel),
    logger: loggerOption(options.logger),
    clock: clockOption('internal.clock', internal.clock, systemClock),
    databaseClock: internal.clock === undefined,
    clockOffsetMs: internalInt('clockOffsetMs'),
    sqliteHotThread: booleanOption(
      'internal.sqliteHotThread',
      internal.sqliteHotThread,
      INTERNAL.sqliteHotThread.default,
    ),
    sendAsClaimed: booleanOption(
      'internal.sendAsClaimed',
      internal.sendAsClaimed,
      INTERNAL.sendAsClaimed.default,
    ),
    batchSends: booleanOption('internal.batchSends', internal.batchSends, INTERNAL.batchSends.default),
    shardCount: internalDefault('shardCount'),
    tickIntervalMs: internalDefault('tickIntervalMs'),
    claimBatchSize:
      internal.claimBatchSize ??
      (dialect === 'sqlite' ? SCHEDULING_DEFAULTS.sqliteClaimBatchSize : INTERNAL.claimBatchSize.default),
    recordAheadMs: internal.recordAheadMs,
    prepareAheadMs: internal.prepareAheadMs,
    wheelResolutionMs: internal.wheelResolutionMs,
    leaseTtlMs,
    leaseRenewalIntervalMs: internal.leaseRenewalIntervalMs ?? defaultLeaseRenewalIntervalMs(leaseTtlMs),
    databaseConnectTimeoutMs: internalInt('databaseConnectTimeoutMs'),
    databaseStatementTimeoutMs: internalInt('databaseStatementTimeoutMs'),
    registryMonitorIntervalMs: internalInt('registryMonitorIntervalMs'),
    pullPingIntervalMs: internalInt('pullPingIntervalMs'),
    directoryRefreshIntervalMs: internalInt('directoryRefreshIntervalMs'),
    lostRunMonitorIntervalMs: internalInt('lostRunMonitorIntervalMs'),
    pipelineBatchSize: internalInt('pipelineBatchSize'),
    dispatchMarkHoldMs: internalInt('dispatchMarkHoldMs'),
    retryMonitorIntervalMs: internalInt('retryMonitorIntervalMs'),
    alarmSink: internal.alarmSink,
    alarmLimits: resolveAlarmQueueLimits(internal.alarms),
    reportsMonitorIntervalMs: internalInt('reportsMonitorIntervalMs'),
    retentionMonitorIntervalMs: internalInt('retentionMonitorIntervalMs'),
    retentionBatchSize: integerOption('internal.retentionBatchSize', internal.retentionBatchSize, {
      ...INTERNAL.retentionBatchSize,
      default: retentionBatch.batchSize,
    }),
    retentionBatchPauseMs: integerOption('internal.retentionBatchPauseMs', internal.retentionBatchPauseMs, {
      ...INTERNAL.retentionBatchPauseMs,
      default: retentionBatch.pauseMs,
    }),
    retentionBatchBudgetMs: internalInt('retentionBatchBudgetMs'),
    workflowPollIntervalMs: internalInt('workflowPollIntervalMs'),
    workflowSweepIntervalMs: internalInt('workflowSweepIntervalMs'),
    workflowSweepGraceMs: internalInt('workflowSweepGraceMs'),
    owedChildrenMonitorIntervalMs: internalInt('owedChildrenMonitorIntervalMs'),
    owedAlarmMonitorIntervalMs: internalInt('owedAlarmMonitorIntervalMs'),
  };
  return { ...resolved, monitors: monitorTimings(resolved) };
}

function monitorTimings(o: Omit<ResolvedServerOptions, 'monitors'>): MonitorTimings {
  const t = MONITOR_TUNINGS;
  return {
    registry: {
      sweepIntervalMs: o.registryMonitorIntervalMs,
      refreshIntervalMs: o.directoryRefreshIntervalMs,
      deadTimeoutMs: o.executorDeadAfterMs,
    },
    lostRuns: {
      lostAfterMs: o.lostRunAfterMs,
      idleGraceMs: o.lostRunIdleGraceMs,
      intervalMs: o.lostRunMonitorIntervalMs,
      deadTimeoutMs: o.executorDeadAfterMs,
      batchSize: t.lostRunBatchSize,
      idleBeatConcurrency: t.lostRunIdleBeatConcurrency,
    },
    retries: {
      intervalMs: o.retryMonitorIntervalMs,
      sweepIntervalMs: t.retrySweepIntervalMs,
      sweepWindowMs: t.retrySweepWindowMs,
      reclaimAfterMs: t.retryReclaimAfterMs,
      batchSize: t.retryBatchSize,
    },
    reports: { intervalMs: o.reportsMonitorIntervalMs },
    retention: {
      intervalMs: o.retentionMonitorIntervalMs,
      batchSize: o.retentionBatchSize,
      batchPauseMs: o.retentionBatchPauseMs,
      // 0: every batch is `batchSize` (no budget).
      ...(o.retentionBatchBudgetMs > 0 ? { batchBudgetMs: o.retentionBatchBudgetMs } : {}),
    },
    owedChildren: {
      intervalMs: o.owedChildrenMonitorIntervalMs,
      graceMs: t.owedChildrenGraceMs,
      lookBackMs: t.owedChildrenLookBackMs,
      batchSize: t.owedChildrenBatchSize,
    },
    owedAlarms: { intervalMs: o.owedAlarmMonitorIntervalMs, batchSize: t.owedAlarmBatchSize },
  };
}

function trustProxyOption(value: unknown): boolean | string[] {
  if (value === undefined) return false;
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string' && item.trim() !== '')) {
    return [...value];
  }
  throw invalid('trustProxy', 'must be true, false or a list of proxy addresses or CIDRs');
}

/** Each entry parses as a CIDR or an address (network-rules.ts says which does not). */
function allowedNetworksOption(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalid('allowedNetworks', 'must be a list of CIDRs (169.254.10.0/24)');
  parseNetworks(value, 'allowedNetworks');
  return value.map((entry: string) => entry.trim());
}

function blankToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * The executor token to store, judged here so a weak one is refused before anything is written:
 * it is all that keeps the network from running code on the executors.
 */
function accessTokenOption(value: unknown, env: Record<string, string | undefined>): string | undefined {
  const fromEnv = value === undefined;
  const token = secret('accessToken', value ?? blankToUndefined(env[SERVER_ENV.accessToken]));
  if (token === undefined) return undefined;
  const problem = weakTokenProblem(token, fromEnv ? SERVER_ENV.accessToken : 'accessToken');
  if (problem !== undefined) throw new TickwheelError('TW_ERR_INVALID_OPTION', problem, 'accessToken');
  return token;
}

/** Checked for type only: the secrets module judges the value (ensureSecrets names the seed it refuses). */
function secret(option: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw invalid(option, 'must be a non-empty string');
  return value;
}

function advertiseUrlOption(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (
    url === undefined ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username !== '' ||
    url.password !== '' ||
    url.search !== '' ||
    url.hash !== '' ||
    url.href.length > 255
  ) {
    throw invalid(
      'advertiseUrl',
      'must be an http(s) base URL such as http://10.0.0.5:8080/ (at most 255 characters)',
    );
  }
  return url.href;
}

function redisOption(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') {
    throw invalid('redis', 'must be a Redis URL such as redis://127.0.0.1:6379 (or rediss:// for TLS)');
  }
  return value as string;
}

function nodeIdOption(value: unknown, port: number): string {
  if (value === undefined) return `${os.hostname()}:${port}`.slice(-MAX_NODE_ID_LENGTH);
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_NODE_ID_LENGTH) {
    throw invalid('nodeId', `must be a string of 1 to ${MAX_NODE_ID_LENGTH} characters`);
  }
  return value;
}

function logLevelOption(value: unknown): LogLevel {
  if (value === undefined) return SERVER_DEFAULTS.logLevel;
  if (!(LOG_LEVELS as readonly unknown[]).includes(value)) {
    throw invalid('logLevel', `must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return value as LogLevel;
}

function loggerOption(logger: Logger | undefined): Logger | undefined {
  if (logger === undefined) return undefined;
  if (typeof logger?.child !== 'function' || typeof logger.info !== 'function') {
    throw invalid('logger', 'must be a pino logger');
  }
  return logger;
}

function consoleDirOption(value: unknown): string | undefined {
  const dir = nonEmptyString('consoleDir', value);
  if (dir === undefined) return undefined;
  const resolved = path.resolve(dir);
  if (!existsSync(path.join(resolved, 'index.html'))) {
    throw invalid('consoleDir', `must be a folder holding the built console (no index.html in ${resolved})`);
  }
  return resolved;
}
