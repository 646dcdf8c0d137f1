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
import type { AlarmSink } from './alarms/alarm-sink.js';
import {
  type AlarmQueueLimits,
  type ResolvedAlarmQueueLimits,
  resolveAlarmQueueLimits,
} from './alarms/options.js';
import { type Clock, systemClock } from './scheduling/clock.js';
import { DEFAULT_MISFIRE_WINDOW_MS } from './scheduling/misfire.js';
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
  /** Jobs claimed per claim transaction (scheduling/options.ts has the default). */
  claimBatchSize?: number;
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
  shardCount: number | undefined;
  tickIntervalMs: number | undefined;
  claimBatchSize: number | undefined;
  leaseTtlMs: number | undefined;
  leaseRenewalIntervalMs: number | undefined;
  registryMonitorIntervalMs: number;
  pullPingIntervalMs: number;
  directoryRefreshIntervalMs: number;
  lostRunMonitorIntervalMs: number;
  pipelineBatchSize: number;
  retryMonitorIntervalMs: number;
  alarmSink: AlarmSink | undefined;
  alarmLimits: ResolvedAlarmQueueLimits;
  reportsMonitorIntervalMs: number;
  retentionMonitorIntervalMs: number;
  /** Undefined: the database's default (retention/delete-pacing.ts). */
  retentionBatchSize: number | undefined;
  /** Undefined: the database's default (retention/delete-pacing.ts). */
  retentionBatchPauseMs: number | undefined;
  retentionBatchBudgetMs: number;
  owedChildrenMonitorIntervalMs: number;
  owedAlarmMonitorIntervalMs: number;
  workflowPollIntervalMs: number;
  workflowSweepIntervalMs: number;
  workflowSweepGraceMs: number;
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

const MAX_NODE_ID_LENGTH = 64;

/** Fills defaults and validates; throws `TW_ERR_INVALID_OPTION` naming the first bad option. */
export function resolveServerOptions(options: ServerOptions = {}): ResolvedServerOptions {
  if (options === null || typeof options !== 'object') throw invalid('options', 'must be an object');
  const d = SERVER_DEFAULTS;
  const env = options.env ?? process.env;
  const internal = options.internal ?? {};
  const port = integerIn('port', options.port, d.port, 0, 65_535);
  const dataDir = path.resolve(nonEmptyString('dataDir', options.dataDir) ?? d.dataDir);
  return {
    port,
    host: nonEmptyString('host', options.host) ?? d.host,
    trustProxy: trustProxyOption(options.trustProxy),
    advertiseUrl: advertiseUrlOption(options.advertiseUrl),
    redis: redisOption(options.redis),
    allowedNetworks: allowedNetworksOption(options.allowedNetworks),
    dataDir,
    database: nonEmptyString('database', options.database) ?? `sqlite:${path.join(dataDir, d.sqliteFile)}`,
    databasePoolSize: integerIn('databasePoolSize', options.databasePoolSize, d.databasePoolSize, 1, 1_000),
    databaseWaitMs: integerIn('databaseWaitMs', options.databaseWaitMs, d.databaseWaitMs, 0, 86_400_000),
    accessToken: accessTokenOption(options.accessToken, env),
    apiToken: secret('apiToken', options.apiToken ?? blankToUndefined(env[SERVER_ENV.apiToken])),
    adminPassword: secret(
      'adminPassword',
      options.adminPassword ?? blankToUndefined(env[SERVER_ENV.adminPassword]),
    ),
    generateApiToken: booleanOption('generateApiToken', options.generateApiToken, false),
    deferScheduling: booleanOption('deferScheduling', options.deferScheduling, false),
    consoleDir: consoleDirOption(options.consoleDir),
    initialSecretsFile:
      options.initialSecretsFile === false
        ? undefined
        : path.resolve(
            dataDir,
            nonEmptyString('initialSecretsFile', options.initialSecretsFile) ?? INITIAL_SECRETS_FILE_NAME,
          ),
    nodeId: nodeIdOption(options.nodeId, port),
    lookAheadMs: integerIn('lookAheadMs', options.lookAheadMs, d.lookAheadMs, 100, 600_000),
    misfireWindowMs: integerIn('misfireWindowMs', options.misfireWindowMs, d.misfireWindowMs, 0, 86_400_000),
    executorCallTimeoutMs: integerIn(
      'executorCallTimeoutMs',
      options.executorCallTimeoutMs,
      d.executorCallTimeoutMs,
      1,
      600_000,
    ),
    executorDeadAfterMs: integerIn(
      'executorDeadAfterMs',
      options.executorDeadAfterMs,
      d.executorDeadAfterMs,
      100,
      86_400_000,
    ),
    lostRunAfterMs: integerIn('lostRunAfterMs', options.lostRunAfterMs, d.lostRunAfterMs, 100, 604_800_000),
    lostRunIdleGraceMs: integerIn(
      'lostRunIdleGraceMs',
      options.lostRunIdleGraceMs,
      d.lostRunIdleGraceMs,
      0,
      604_800_000,
    ),
    stopTimeoutMs: integerIn('stopTimeoutMs', options.stopTimeoutMs, d.stopTimeoutMs, 0, 600_000),
    logLevel: logLevelOption(options.logLevel),
    logger: loggerOption(options.logger),
    clock: clockOption(internal.clock),
    databaseClock: internal.clock === undefined,
    clockOffsetMs: integerIn('internal.clockOffsetMs', internal.clockOffsetMs, 0, -86_400_000, 86_400_000),
    sqliteHotThread: internal.sqliteHotThread !== false,
    shardCount: internal.shardCount,
    tickIntervalMs: internal.tickIntervalMs,
    databaseConnectTimeoutMs: integerIn(
      'internal.databaseConnectTimeoutMs',
      internal.databaseConnectTimeoutMs,
      d.databaseConnectTimeoutMs,
      100,
      600_000,
    ),
    databaseStatementTimeoutMs: integerIn(
      'internal.databaseStatementTimeoutMs',
      internal.databaseStatementTimeoutMs,
      d.databaseStatementTimeoutMs,
      0,
      3_600_000,
    ),
    claimBatchSize: internal.claimBatchSize,
    leaseTtlMs: internal.leaseTtlMs,
    leaseRenewalIntervalMs: internal.leaseRenewalIntervalMs,
    registryMonitorIntervalMs: integerIn(
      'internal.registryMonitorIntervalMs',
      internal.registryMonitorIntervalMs,
      d.registryMonitorIntervalMs,
      10,
      3_600_000,
    ),
    pullPingIntervalMs: integerIn(
      'internal.pullPingIntervalMs',
      internal.pullPingIntervalMs,
      PULL_PING_INTERVAL_MS,
      10,
      3_600_000,
    ),
    directoryRefreshIntervalMs: integerIn(
      'internal.directoryRefreshIntervalMs',
      internal.directoryRefreshIntervalMs,
      d.directoryRefreshIntervalMs,
      10,
      3_600_000,
    ),
    lostRunMonitorIntervalMs: integerIn(
      'internal.lostRunMonitorIntervalMs',
      internal.lostRunMonitorIntervalMs,
      d.lostRunMonitorIntervalMs,
      10,
      3_600_000,
    ),
    pipelineBatchSize: integerIn(
      'internal.pipelineBatchSize',
      internal.pipelineBatchSize,
      d.pipelineBatchSize,
      1,
      10_000,
    ),
    retryMonitorIntervalMs: integerIn(
      'internal.retryMonitorIntervalMs',
      internal.retryMonitorIntervalMs,
      d.retryMonitorIntervalMs,
      10,
      60_000,
    ),
    alarmSink: internal.alarmSink,
    alarmLimits: resolveAlarmQueueLimits(internal.alarms),
    reportsMonitorIntervalMs: integerIn(
      'internal.reportsMonitorIntervalMs',
      internal.reportsMonitorIntervalMs,
      d.reportsMonitorIntervalMs,
      10,
      3_600_000,
    ),
    retentionMonitorIntervalMs: integerIn(
      'internal.retentionMonitorIntervalMs',
      internal.retentionMonitorIntervalMs,
      d.retentionMonitorIntervalMs,
      10,
      86_400_000,
    ),
    retentionBatchSize: optionalIntegerIn(
      'internal.retentionBatchSize',
      internal.retentionBatchSize,
      1,
      100_000,
    ),
    retentionBatchPauseMs: optionalIntegerIn(
      'internal.retentionBatchPauseMs',
      internal.retentionBatchPauseMs,
      0,
      60_000,
    ),
    retentionBatchBudgetMs: integerIn(
      'internal.retentionBatchBudgetMs',
      internal.retentionBatchBudgetMs,
      d.retentionBatchBudgetMs,
      0,
      60_000,
    ),
    workflowPollIntervalMs: integerIn(
      'internal.workflowPollIntervalMs',
      internal.workflowPollIntervalMs,
      d.workflowPollIntervalMs,
      10,
      60_000,
    ),
    workflowSweepIntervalMs: integerIn(
      'internal.workflowSweepIntervalMs',
      internal.workflowSweepIntervalMs,
      d.workflowSweepIntervalMs,
      10,
      3_600_000,
    ),
    workflowSweepGraceMs: integerIn(
      'internal.workflowSweepGraceMs',
      internal.workflowSweepGraceMs,
      d.workflowSweepGraceMs,
      0,
      3_600_000,
    ),
    owedChildrenMonitorIntervalMs: integerIn(
      'internal.owedChildrenMonitorIntervalMs',
      internal.owedChildrenMonitorIntervalMs,
      d.owedChildrenMonitorIntervalMs,
      10,
      3_600_000,
    ),
    owedAlarmMonitorIntervalMs: integerIn(
      'internal.owedAlarmMonitorIntervalMs',
      internal.owedAlarmMonitorIntervalMs,
      d.owedAlarmMonitorIntervalMs,
      10,
      3_600_000,
    ),
  };
}

function invalid(option: string, reason: string): TickwheelError {
  return new TickwheelError('TW_ERR_INVALID_OPTION', `${option}: ${reason}`, option);
}

function integerIn(option: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(option, `must be an integer from ${min} to ${max}`);
  }
  return value;
}

function optionalIntegerIn(option: string, value: unknown, min: number, max: number): number | undefined {
  return value === undefined ? undefined : integerIn(option, value, 0, min, max);
}

function nonEmptyString(option: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw invalid(option, 'must be a non-empty string');
  return value;
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

function booleanOption(option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalid(option, 'must be true or false');
  return value;
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

function clockOption(clock: Clock | undefined): Clock {
  if (clock === undefined) return systemClock;
  if (typeof clock?.now !== 'function' || typeof clock.setTimer !== 'function') {
    throw invalid('internal.clock', 'must have now(), setTimer() and clearTimer()');
  }
  return clock;
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
