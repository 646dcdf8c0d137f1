/**
 * Every executor option, its default and its validation, in one place. `resolveOptions()` runs
 * once in `createExecutor()`; nothing deeper re-checks or re-defaults an option.
 */
import path from 'node:path';
import {
  BEAT_INTERVAL_MS,
  PROTOCOL_GENERATIONS,
  type ProtocolGeneration,
  PULL_PING_INTERVAL_MS,
  TickwheelError,
  TRANSPORTS,
  type Transport,
  weakTokenProblem,
} from '@tickwheel/protocol';
import { type Logger, pino } from 'pino';
import { type Clock, systemClock } from './clock.js';
import { JOB_LOG_LAYOUTS, type JobLogLayout } from './log-file-layout.js';
import { SECRET_ENVIRONMENT } from './runners/script-environment.js';
import { readTokenFile } from './token-file.js';

/** Options of {@link createExecutor}. Only `appName` is required (and a token, see `accessToken`). */
export interface ExecutorOptions {
  /** The app name the executor registers under (`registryKey`); non-blank, no whitespace. */
  appName: string;
  /**
   * Base addresses of the scheduling servers (`http://host:8080/` or with a context path), tried
   * in order for callbacks and all beaten for registration. Default: none — the executor then
   * registers nowhere and only writes results into the run logs (useful when the endpoint is
   * driven directly, e.g. in tests); a warning says so at start.
   */
  serverAddresses?: string[];
  /**
   * The token both sides send in `XXL-JOB-ACCESS-TOKEN`: at least 32 characters and not a
   * published default such as `default_token`. Required (or `accessTokenFile`) unless
   * `insecure: true`: Tickwheel never reads a blank token as "no authentication".
   */
  accessToken?: string;
  /**
   * A file holding the access token (surrounding whitespace and the trailing newline are
   * dropped), read once by `createExecutor`. Prefer it to `accessToken` from an environment
   * variable: a process's environment and command line can be read by every process of the
   * same user, scripts included, through `/proc/<pid>/environ` and `/proc/<pid>/cmdline`.
   * Keep it owner-only (0600); a wider mode is logged as a warning. Give one of `accessToken`
   * and `accessTokenFile`.
   */
  accessTokenFile?: string;
  /** Run without an access token; the endpoint then accepts any caller and a warning is logged. Default false. */
  insecure?: boolean;
  /**
   * How the servers reach the executor. `http` (default, push): the executor listens on
   * `host:port` and the servers call it there, as XXL-JOB does. `http-pull`: the executor opens
   * no port at all; it connects a WebSocket out to one of its servers (`<server>/api/pull`) and
   * takes the same calls over it, for executors the servers cannot reach (behind NAT, in a
   * cluster without a Service). It then needs `serverAddresses`, registers as
   * `pull://<instanceId>/`, and refuses `host`, `port`, `advertisedAddress` and mounting, which
   * only mean something for a listening endpoint.
   *
   * `redis`: the executor opens no port either; the servers write its runs and calls to Redis
   * streams of its own (`tickwheel:run:<instanceId>`, `tickwheel:call:<instanceId>`) and it reads
   * them from the Redis at `redis`, answering calls on the channel each names. It registers as
   * `stream://<instanceId>/`, needs `serverAddresses` (registration and results stay on HTTP)
   * and refuses what http-pull refuses.
   *
   * @example
   * createExecutor({ appName: 'etl', transport: 'http-pull',
   *   serverAddresses: ['https://scheduler.example.com/'], accessTokenFile: '/etc/tickwheel/token' });
   * createExecutor({ appName: 'etl', transport: 'redis', redis: 'redis://redis.internal:6379',
   *   serverAddresses: ['https://scheduler.example.com/'], accessTokenFile: '/etc/tickwheel/token' });
   */
  transport?: Transport;
  /**
   * With `transport: 'redis'` (required then, refused otherwise): the URL of the Redis the servers
   * write runs to, `redis://[[user]:password@]host[:port][/db]` or `rediss://` for TLS, as
   * ioredis reads it. The password is never logged.
   */
  redis?: string;
  /**
   * Interface the endpoint listens on, also used in the registered address. Default
   * `127.0.0.1` (safe by default: set it, or `advertisedAddress`, to be reachable from other hosts).
   */
  host?: string;
  /**
   * Port of the endpoint; 0 picks a free one (read `executor.address` after start). Default 9999.
   * Not with `transport: 'http-pull'`, nor are `host` and `advertisedAddress`.
   */
  port?: number;
  /**
   * The base URL registered with the servers when it differs from `http://<host>:<port>/`
   * (containers, NAT, a reverse proxy, a mount prefix).
   */
  advertisedAddress?: string;
  /** Directory of run logs (`<logDir>/<yyyy-MM-dd>/<logId>.log`), script files and the callback spill file. Default `./tickwheel-logs`. */
  logDir?: string;
  /**
   * Run logs older than this many days are deleted daily; 0 keeps them. 1 and 2 count as 3, so
   * a run fired late yesterday keeps its log while the server may still page it. Default 30.
   */
  logRetentionDays?: number;
  /**
   * How run logs are kept in `logDir`: `file-per-run` (default), a file a run at
   * `<logDir>/<yyyy-MM-dd>/<logId>.log` as PROTOCOL.md names it; or `file-per-day`, the day's runs
   * appended to `<logDir>/<yyyy-MM-dd>/runs.log` with an index (`runs.idx`), for executors that run
   * many short jobs a second: no file is created a run. Either way the console (the `log` call)
   * reads a run's log by its id and the retention deletes whole days.
   */
  logLayout?: JobLogLayout;
  /** Generation spoken to the servers: G2 (XXL-JOB 2.3–3.2, default), G3 (3.3–3.4), G4 (3.5). */
  protocol?: ProtocolGeneration;
  /** Run GLUE script jobs (shell, python, node, php, powershell) as child processes. Default false. */
  enableScripts?: boolean;
  /**
   * Extra environment variables for scripts. Scripts get a minimal environment (PATH, HOME,
   * LANG, LC_*, TZ, TMPDIR, USER, LOGNAME, SHELL), not the executor's: pass here what the
   * operator means scripts to see, e.g. `{ HTTP_PROXY: 'http://proxy:3128' }`. Tickwheel's own
   * secrets (`TICKWHEEL_ACCESS_TOKEN`, ...) are refused. Default none.
   *
   * @example
   * createExecutor({ appName: 'etl', accessTokenFile: '/etc/tickwheel/token', enableScripts: true,
   *   scriptEnv: { PGHOST: 'db.internal' } });
   */
  scriptEnv?: Record<string, string>;
  /**
   * Numeric user id scripts run as (with `gid`, which it requires), e.g. 65534 for `nobody`, so
   * a script cannot read the executor's token file, data files or `/proc/<pid>/environ`. Needs
   * an executor running as root (`start()` refuses otherwise); scripts then get that user's
   * HOME, USER and LOGNAME from `/etc/passwd`. The log directory is made traversable (not
   * listable) by others so the user can read its script files. Default: the executor's user.
   */
  uid?: number;
  /** Numeric group id scripts run as; required with `uid`. Default: the executor's group. */
  gid?: number;
  /** Default time `stop()` waits for accepted runs before stopping them. Default 10,000 ms. */
  stopTimeoutMs?: number;
  /** Time one call to one server may take. Default 3,000 ms. */
  serverCallTimeoutMs?: number;
  /** A pino (or pino-compatible) logger for the executor's own logs. Default: pino to stdout. */
  logger?: Logger;
  /**
   * Timings of the background loops. Internal: meant for tests, which cannot wait 30 or 90 s;
   * not part of the stable API.
   */
  internal?: InternalOptions;
}

/** @internal Timings of the background loops; see {@link ExecutorOptions.internal}. */
export interface InternalOptions {
  /** A lane with nothing to run is released after this long. Default 90,000 ms (XXL-JOB's 30 × 3 s poll). */
  laneIdleMs?: number;
  /** Registration heartbeat interval. Default 30,000 ms. */
  heartbeatIntervalMs?: number;
  /** Interval at which spilled callbacks are re-sent. Default 30,000 ms. */
  callbackRetryIntervalMs?: number;
  /** How long an accepted logId is remembered to refuse a repeat. Default 1 hour. */
  acceptedLogIdTtlMs?: number;
  /** How many accepted logIds are remembered at most (the oldest are forgotten first). Default 100,000. */
  acceptedLogIdLimit?: number;
  /** Time a worker gets to finish after its run was aborted before it is terminated. Default 200 ms. */
  workerStopGraceMs?: number;
  /** http-pull: a connection that hears no ping or frame this long is replaced. Default 45,000 ms. */
  pullSilenceMs?: number;
  /**
   * The clock of the heartbeat, the callback re-send, the lane idle release, the accepted logIds'
   * time to be remembered and the job log retention sweep. Default the system clock.
   */
  clock?: Clock;
}

/** The numeric user and group a script runs as. */
export interface ScriptUserIds {
  uid: number;
  gid: number;
}

/** Options with every default filled in and every value checked. */
export interface ResolvedOptions {
  appName: string;
  serverAddresses: string[];
  accessToken: string | undefined;
  insecure: boolean;
  transport: Transport;
  /** The Redis URL with `transport: 'redis'`, else undefined. */
  redis: string | undefined;
  host: string;
  port: number;
  advertisedAddress: string | undefined;
  logDir: string;
  logRetentionDays: number;
  logLayout: JobLogLayout;
  protocol: ProtocolGeneration;
  enableScripts: boolean;
  scriptEnv: Readonly<Record<string, string>>;
  /** The user scripts run as, when it is not the executor's own. */
  scriptUser: ScriptUserIds | undefined;
  stopTimeoutMs: number;
  serverCallTimeoutMs: number;
  logger: Logger;
  laneIdleMs: number;
  heartbeatIntervalMs: number;
  callbackRetryIntervalMs: number;
  acceptedLogIdTtlMs: number;
  acceptedLogIdLimit: number;
  workerStopGraceMs: number;
  pullSilenceMs: number;
  clock: Clock;
}

/** Longest a Node.js timer waits. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A numeric option's schema (JSON Schema's words): its range and its default. */
interface IntegerSchema {
  readonly type: 'integer';
  readonly minimum: number;
  readonly maximum: number;
  readonly default: number;
}

const integer = (minimum: number, maximum: number, fallback: number): IntegerSchema => ({
  type: 'integer',
  minimum,
  maximum,
  default: fallback,
});

/**
 * The schema of the executor's options: each default and each numeric range, written once here;
 * `resolveOptions()` checks every option against it. An option of another kind (URLs, the token,
 * the script user) has a check of its own below.
 */
export const EXECUTOR_OPTIONS_SCHEMA = {
  host: { type: 'string', default: '127.0.0.1' },
  port: integer(0, 65_535, 9999),
  /** Relative to the working directory. */
  logDir: { type: 'string', default: 'tickwheel-logs' },
  logRetentionDays: integer(0, 36_500, 30),
  logLayout: { type: 'string', enum: JOB_LOG_LAYOUTS, default: 'file-per-run' },
  protocol: { type: 'string', enum: PROTOCOL_GENERATIONS, default: 'G2' },
  insecure: { type: 'boolean', default: false },
  enableScripts: { type: 'boolean', default: false },
  stopTimeoutMs: integer(0, 24 * 3_600_000, 10_000),
  serverCallTimeoutMs: integer(1, 600_000, 3_000),
  internal: {
    /** XXL-JOB's 30 polls of 3 s. */
    laneIdleMs: integer(1, MAX_TIMER_MS, 90_000),
    heartbeatIntervalMs: integer(1, MAX_TIMER_MS, BEAT_INTERVAL_MS),
    /** 30 s, as XXL-JOB re-sends its failed callbacks. */
    callbackRetryIntervalMs: integer(1, MAX_TIMER_MS, 30_000),
    /**
     * A server re-sends `run` only around its own crash or a network retry, minutes at most, so an
     * hour of memory covers the at-most-once guarantee while 100k ids (a few MB) bounds the memory
     * of an executor that runs many jobs a second.
     */
    acceptedLogIdTtlMs: integer(1, MAX_TIMER_MS, 60 * 60 * 1000),
    acceptedLogIdLimit: integer(1, 10_000_000, 100_000),
    workerStopGraceMs: integer(0, 60_000, 200),
    /**
     * The server pings a pull connection every 15 s: three pings missed in a row mean the
     * connection is gone (a half-open TCP connection, a NAT that forgot it) even though no close came.
     */
    pullSilenceMs: integer(1, MAX_TIMER_MS, 3 * PULL_PING_INTERVAL_MS),
  },
} as const;

const S = EXECUTOR_OPTIONS_SCHEMA;

/** Fills defaults and validates; throws `TW_ERR_INVALID_OPTION` naming the first bad option. */
export function resolveOptions(options: ExecutorOptions): ResolvedOptions {
  if (options === null || typeof options !== 'object') {
    throw invalid('options', 'must be an object');
  }
  const internal = options.internal ?? {};
  const int = (name: 'port' | 'logRetentionDays' | 'stopTimeoutMs' | 'serverCallTimeoutMs'): number =>
    integerOption(name, options[name], S[name]);
  const internalInt = (name: Exclude<keyof typeof S.internal, 'clock'>): number =>
    integerOption(`internal.${name}`, internal[name], S.internal[name]);
  const insecure = optionalBoolean('insecure', options.insecure, S.insecure.default);
  const logger = resolveLogger(options.logger);
  const accessToken = resolveAccessToken(options, insecure, logger);
  const serverAddresses = resolveServerAddresses(options.serverAddresses);
  const transport = resolveTransport(options, serverAddresses);
  return {
    appName: resolveAppName(options.appName),
    serverAddresses,
    accessToken,
    insecure,
    transport,
    redis: resolveRedis(options.redis, transport),
    host: resolveHost(options.host),
    port: int('port'),
    advertisedAddress:
      options.advertisedAddress === undefined
        ? undefined
        : httpUrl('advertisedAddress', options.advertisedAddress),
    logDir: resolveLogDir(options.logDir),
    logRetentionDays: int('logRetentionDays'),
    logLayout: resolveLogLayout(options.logLayout),
    protocol: resolveProtocol(options.protocol),
    enableScripts: optionalBoolean('enableScripts', options.enableScripts, S.enableScripts.default),
    scriptEnv: resolveScriptEnv(options.scriptEnv),
    scriptUser: resolveScriptUser(options.uid, options.gid),
    stopTimeoutMs: int('stopTimeoutMs'),
    serverCallTimeoutMs: int('serverCallTimeoutMs'),
    logger,
    laneIdleMs: internalInt('laneIdleMs'),
    heartbeatIntervalMs: internalInt('heartbeatIntervalMs'),
    callbackRetryIntervalMs: internalInt('callbackRetryIntervalMs'),
    acceptedLogIdTtlMs: internalInt('acceptedLogIdTtlMs'),
    acceptedLogIdLimit: internalInt('acceptedLogIdLimit'),
    workerStopGraceMs: internalInt('workerStopGraceMs'),
    pullSilenceMs: internalInt('pullSilenceMs'),
    clock: internal.clock ?? systemClock,
  };
}

function invalid(option: string, reason: string): TickwheelError {
  return new TickwheelError('TW_ERR_INVALID_OPTION', `${option}: ${reason}`, option);
}

/**
 * The transport, refusing with it the options of a listening endpoint: an executor that opens no
 * port (http-pull, redis) given a port would leave its operator believing something listens
 * there. It needs a server to register with, as no server could find it otherwise.
 */
function resolveTransport(options: ExecutorOptions, serverAddresses: readonly string[]): Transport {
  const { transport } = options;
  if (transport === undefined || transport === 'http') return 'http';
  if (transport !== 'http-pull' && transport !== 'redis') {
    throw invalid('transport', `must be one of ${TRANSPORTS.join(', ')}`);
  }
  const how =
    transport === 'http-pull'
      ? 'the executor connects out to its servers'
      : 'the executor reads its runs from Redis';
  for (const option of ['port', 'host', 'advertisedAddress'] as const) {
    if (options[option] !== undefined) {
      throw invalid(
        option,
        `must not be given with the ${transport} transport, which opens no port (${how})`,
      );
    }
  }
  if (serverAddresses.length === 0) {
    throw invalid(
      'serverAddresses',
      transport === 'http-pull'
        ? 'at least one is required with the http-pull transport (the executor is reached only through its connection to a server)'
        : 'at least one is required with the redis transport (the executor registers and reports results over HTTP)',
    );
  }
  return transport;
}

/** The Redis URL: required with the redis transport and meaningless, so refused, with the others. */
function resolveRedis(redis: unknown, transport: Transport): string | undefined {
  if (transport !== 'redis') {
    if (redis !== undefined) {
      throw invalid('redis', `is only for the redis transport (transport is ${transport})`);
    }
    return undefined;
  }
  if (redis === undefined) {
    throw invalid(
      'redis',
      'is required with the redis transport: the URL of the Redis the servers write runs to (redis://host:6379)',
    );
  }
  if (typeof redis !== 'string' || redis.trim() === '') {
    throw invalid('redis', 'must be a redis:// or rediss:// URL');
  }
  let url: URL;
  try {
    url = new URL(redis.trim());
  } catch {
    // Not echoed: the text may hold a password.
    throw invalid('redis', 'must be a redis:// or rediss:// URL (this one cannot be read)');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw invalid('redis', `must be a redis:// or rediss:// URL, not ${url.protocol}//`);
  }
  if (url.hostname === '') throw invalid('redis', 'must name a host (redis://host:6379)');
  if (url.pathname !== '' && url.pathname !== '/' && !/^\/\d+$/.test(url.pathname)) {
    throw invalid('redis', 'its path must be a database number (redis://host:6379/0) or nothing');
  }
  return redis.trim();
}

function resolveAppName(appName: unknown): string {
  if (typeof appName !== 'string' || appName.trim() === '')
    throw invalid('appName', 'is required (a non-blank string)');
  if (/\s/.test(appName)) throw invalid('appName', 'must not contain whitespace');
  if (appName.length > 64) throw invalid('appName', 'must be at most 64 characters');
  return appName;
}

/**
 * The token from `accessToken` or `accessTokenFile`, refused when weak: the token is all that
 * stands between the network and running code on this host.
 */
function resolveAccessToken(
  options: ExecutorOptions,
  insecure: boolean,
  logger: Pick<Logger, 'warn'>,
): string | undefined {
  const { accessToken, accessTokenFile } = options;
  if (accessToken !== undefined && typeof accessToken !== 'string') {
    throw invalid('accessToken', 'must be a string');
  }
  if (accessTokenFile !== undefined && accessToken !== undefined) {
    throw invalid('accessTokenFile', 'give either accessToken or accessTokenFile, not both');
  }
  if (accessTokenFile !== undefined) {
    if (typeof accessTokenFile !== 'string' || accessTokenFile.trim() === '') {
      throw invalid('accessTokenFile', 'must be a non-blank path');
    }
    return strongToken(readTokenFile(accessTokenFile, 'accessTokenFile', logger), 'accessTokenFile');
  }
  const present = typeof accessToken === 'string' && accessToken.trim() !== '';
  if (!present) {
    if (insecure) return undefined;
    throw invalid('accessToken', 'is required; set insecure: true to run an executor anyone can call');
  }
  return strongToken(accessToken, 'accessToken');
}

function strongToken(token: string, option: string): string {
  const problem = weakTokenProblem(token, option);
  if (problem !== undefined) throw new TickwheelError('TW_ERR_INVALID_OPTION', problem, option);
  return token;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function resolveScriptEnv(scriptEnv: unknown): Readonly<Record<string, string>> {
  if (scriptEnv === undefined) return {};
  if (scriptEnv === null || typeof scriptEnv !== 'object' || Array.isArray(scriptEnv)) {
    throw invalid('scriptEnv', 'must be an object of variable names to string values');
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(scriptEnv)) {
    if (!ENV_NAME.test(name)) throw invalid('scriptEnv', `${JSON.stringify(name)} is not a variable name`);
    if (SECRET_ENVIRONMENT.includes(name)) {
      throw invalid('scriptEnv', `${name} is the executor's own secret and is never given to scripts`);
    }
    if (typeof value !== 'string' || value.includes('\0')) {
      throw invalid('scriptEnv', `${name} must be a string without NUL characters`);
    }
    env[name] = value;
  }
  return Object.freeze(env);
}

/**
 * Both ids or neither: a uid alone would leave the script in the executor's group (root's, when
 * the executor runs as root), which opens whatever that group may read.
 */
function resolveScriptUser(uid: unknown, gid: unknown): ScriptUserIds | undefined {
  if (uid === undefined && gid === undefined) return undefined;
  if (uid === undefined) throw invalid('uid', 'is required with gid');
  if (gid === undefined) throw invalid('gid', 'is required with uid (else scripts keep the executor group)');
  return {
    uid: integerIn('uid', uid, 0, 0, 2 ** 32 - 2),
    gid: integerIn('gid', gid, 0, 0, 2 ** 32 - 2),
  };
}

function resolveServerAddresses(addresses: unknown): string[] {
  if (addresses === undefined) return [];
  if (!Array.isArray(addresses)) throw invalid('serverAddresses', 'must be an array of http(s) URLs');
  return addresses.map((a, i) => httpUrl(`serverAddresses[${i}]`, a));
}

/** Checks an http(s) URL and returns it with a trailing slash, as call URLs are built on it. */
function httpUrl(option: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(option, 'must be an http(s) URL');
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw invalid(option, `must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid(option, `must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.search !== '' || url.hash !== '') throw invalid(option, 'must not have a query or a fragment');
  const text = value.trim();
  return text.endsWith('/') ? text : `${text}/`;
}

function resolveHost(host: unknown): string {
  if (host === undefined) return S.host.default;
  if (typeof host !== 'string' || host.trim() === '' || /[\s/]/.test(host)) {
    throw invalid('host', 'must be a host name or an IP address');
  }
  return host;
}

function resolveLogDir(logDir: unknown): string {
  if (logDir === undefined) return path.resolve(S.logDir.default);
  if (typeof logDir !== 'string' || logDir.trim() === '') throw invalid('logDir', 'must be a non-blank path');
  return path.resolve(logDir);
}

function resolveProtocol(protocol: unknown): ProtocolGeneration {
  if (protocol === undefined) return S.protocol.default;
  if (!(PROTOCOL_GENERATIONS as readonly unknown[]).includes(protocol)) {
    throw invalid('protocol', `must be one of ${PROTOCOL_GENERATIONS.join(', ')}`);
  }
  return protocol as ProtocolGeneration;
}

function resolveLogLayout(layout: unknown): JobLogLayout {
  if (layout === undefined) return S.logLayout.default;
  if (!(JOB_LOG_LAYOUTS as readonly unknown[]).includes(layout)) {
    throw invalid('logLayout', `must be one of ${JOB_LOG_LAYOUTS.join(', ')}`);
  }
  return layout as JobLogLayout;
}

function resolveLogger(logger: unknown): Logger {
  if (logger === undefined) return pino({ name: 'tickwheel-executor' });
  const methods = ['debug', 'info', 'warn', 'error'] as const;
  const l = logger as Record<string, unknown>;
  if (logger === null || typeof logger !== 'object' || methods.some((m) => typeof l[m] !== 'function')) {
    throw invalid('logger', 'must be a pino-compatible logger (debug, info, warn, error)');
  }
  return logger as Logger;
}

function optionalBoolean(option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalid(option, 'must be true or false');
  return value;
}

function integerOption(option: string, value: unknown, schema: IntegerSchema): number {
  return integerIn(option, value, schema.default, schema.minimum, schema.maximum);
}

function integerIn(option: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(option, `must be an integer from ${min} to ${max}`);
  }
  return value;
}
