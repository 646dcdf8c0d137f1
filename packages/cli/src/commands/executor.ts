/**
 * `tickwheel executor`: the standalone script executor. It has no handlers of its own: it runs
 * the GLUE script jobs (shell, python, node, php, powershell) its servers send when
 * `--enable-scripts` is given, and registers under `--app` like any embedded executor.
 *
 * The token is best given with `--token-file`: scripts are typed in by console users, and a
 * token on the command line or in the environment is readable by them through `/proc`.
 *
 * `--transport http-pull` opens no port: the executor connects out to `--server` and takes its
 * calls over that connection, so `--host`, `--port` and `--advertised-address` are refused with
 * it (the executor's own option check, reported under the flag's name). `--transport redis`
 * opens none either: it reads its runs and calls from the Redis at `--redis`, and refuses the
 * same flags; `--redis` is refused with any other transport.
 */
import type { Executor, ExecutorOptions, JobLogLayout } from '@tickwheel/executor';
import type { ProtocolGeneration, Transport } from '@tickwheel/protocol';
import { PROTOCOL_GENERATIONS } from '@tickwheel/protocol/enums';
import { type Command, Option } from 'commander';
import { collectUrls, parseWholeNumber } from '../flag-parsers.js';
import { stopOnSignals } from '../graceful-shutdown.js';
import { type TokenFlags, type TokenSource, takeTokenFlags, tokenSetting } from '../token-flags.js';

/**
 * Environment variable read when neither `--token` nor `--token-file` is given. It keeps the
 * token out of `ps`, not out of `/proc/<pid>/environ`, so the executor warns about it.
 */
export const ACCESS_TOKEN_ENV = 'TICKWHEEL_ACCESS_TOKEN';

/**
 * The protocol's TRANSPORTS, spelled out so that `--help` does not load the protocol package
 * (its enums entry point has no transports); the type keeps the two lists the same.
 */
const TRANSPORT_CHOICES = ['http', 'http-pull', 'redis'] as const satisfies readonly Transport[];

/** The executor's JOB_LOG_LAYOUTS, spelled out for the same reason. */
const LOG_LAYOUT_CHOICES = ['file-per-run', 'file-per-day'] as const satisfies readonly JobLogLayout[];

interface ExecutorFlags extends TokenFlags {
  app: string;
  server?: string[];
  transport?: Transport;
  redis?: string;
  host?: string;
  port?: number;
  advertisedAddress?: string;
  logDir?: string;
  logRetentionDays?: number;
  logLayout?: JobLogLayout;
  protocol?: ProtocolGeneration;
  enableScripts?: boolean;
  insecure?: boolean;
  uid?: number;
  gid?: number;
}

/** The flag of each executor option, to name the flag in a validation error. */
const FLAG_OF_OPTION: Record<string, string> = {
  appName: '--app',
  serverAddresses: '--server',
  transport: '--transport',
  redis: '--redis',
  accessToken: '--token',
  accessTokenFile: '--token-file',
  host: '--host',
  port: '--port',
  advertisedAddress: '--advertised-address',
  logDir: '--log-dir',
  logRetentionDays: '--log-retention-days',
  logLayout: '--log-layout',
  protocol: '--protocol',
  insecure: '--insecure',
  enableScripts: '--enable-scripts',
  uid: '--uid',
  gid: '--gid',
};

export function registerExecutorCommand(program: Command): void {
  program
    .command('executor')
    .description('run a standalone executor for script (GLUE) jobs')
    .requiredOption('--app <name>', 'app name the executor registers under')
    .option('--server <url[,url]>', 'scheduling server base URL(s), comma-separated or repeated', collectUrls)
    .addOption(
      new Option(
        '--transport <transport>',
        'how the servers reach the executor: http (it listens on --port), http-pull (it opens no port and connects out to --server) or redis (it opens no port and reads its runs from --redis) (default http)',
      ).choices(TRANSPORT_CHOICES),
    )
    .option(
      '--redis <url>',
      'with --transport redis: the Redis the servers write runs to (redis://[user:password@]host:port[/db], rediss:// for TLS)',
    )
    .option(
      '--token-file <path>',
      'file holding the access token shared with the servers (owner-only, chmod 600)',
    )
    .addOption(
      new Option(
        '--token <token>',
        'access token shared with the servers (visible in ps and /proc: prefer --token-file)',
      ).env(ACCESS_TOKEN_ENV),
    )
    .option('--host <host>', 'interface to listen on (default 127.0.0.1)')
    .option('--port <port>', 'port to listen on, 0 for any free one (default 9999)', parseWholeNumber)
    .option('--advertised-address <url>', 'base URL to register when it differs from http://<host>:<port>/')
    .option(
      '--log-dir <dir>',
      'directory of run logs, script files and unsent results (default ./tickwheel-logs)',
    )
    .option(
      '--log-retention-days <days>',
      'delete run logs older than this, 0 keeps them (default 30)',
      parseWholeNumber,
    )
    .addOption(
      new Option(
        '--log-layout <layout>',
        'run logs as a file a run (<log-dir>/<date>/<logId>.log) or appended to one file a day with an index, for many short runs a second (default file-per-run)',
      ).choices(LOG_LAYOUT_CHOICES),
    )
    .addOption(
      new Option(
        '--protocol <generation>',
        'XXL-JOB protocol generation spoken to the servers (default G2)',
      ).choices(PROTOCOL_GENERATIONS),
    )
    .option('--enable-scripts', 'run GLUE script jobs (shell, python, node, php, powershell)')
    .option('--insecure', 'run without an access token: anyone who reaches the port can run jobs')
    .option(
      '--uid <uid>',
      'numeric user id scripts run as, e.g. 65534 for nobody (needs root and --gid)',
      parseWholeNumber,
    )
    .option('--gid <gid>', 'numeric group id scripts run as (with --uid)', parseWholeNumber)
    .action(async (flags: ExecutorFlags, command: Command) => {
      await runExecutor(flags, command);
    });
}

async function runExecutor(flags: ExecutorFlags, command: Command): Promise<void> {
  // Loaded when an executor runs, not when `demo` (which reads ACCESS_TOKEN_ENV) or `--help` does.
  const [{ createExecutor }, { isTickwheelError }] = await Promise.all([
    import('@tickwheel/executor'),
    import('@tickwheel/protocol'),
  ]);
  const tokenSource = takeTokenFlags(flags, command, ACCESS_TOKEN_ENV);
  if (flags.redis !== undefined && flags.transport !== 'redis') {
    // Said here in the flags' words: a --redis without --transport redis is a forgotten flag.
    command.error(
      `error: --redis is only for --transport redis (the transport is ${flags.transport ?? 'http'}); add --transport redis`,
    );
  }
  let executor: Executor;
  try {
    executor = createExecutor(executorOptions(flags));
  } catch (err) {
    if (isTickwheelError(err, 'TW_ERR_INVALID_OPTION'))
      command.error(`error: ${flagMessage(err.message, err.field, tokenSource)}`);
    throw err;
  }
  try {
    await executor.start();
  } catch (err) {
    if (isTickwheelError(err, 'TW_ERR_INVALID_OPTION')) {
      // Checked at start, against the running process: --uid/--gid without root.
      console.error(`error: ${flagMessage(err.message, err.field, tokenSource)}`);
      process.exitCode = 1;
      return;
    }
    // Nothing started: a port in use, an address that cannot be bound.
    console.error(`error: cannot start the executor: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
    return;
  }
  const address = executor.address ?? '';
  console.log(startedLine(flags, executor));
  const servers = flags.server ?? [];
  console.log(
    servers.length > 0
      ? `Registering ${address} with ${servers.join(', ')} (protocol ${flags.protocol ?? 'G2'})`
      : 'No --server given: registering nowhere; results are only written to the run logs',
  );
  console.log(
    flags.enableScripts
      ? 'Script (GLUE) jobs: enabled'
      : 'Script (GLUE) jobs: disabled (pass --enable-scripts)',
  );
  stopOnSignals(() => executor.stop());
}

function startedLine(flags: ExecutorFlags, executor: Executor): string {
  const address = executor.address ?? '';
  if (executor.transport === 'http-pull') {
    return `Tickwheel executor "${flags.app}" started as ${address}, opening no port (transport http-pull)`;
  }
  if (executor.transport === 'redis') {
    return `Tickwheel executor "${flags.app}" started as ${address}, opening no port (transport redis, reading ${redactedRedisUrl(flags.redis ?? '')})`;
  }
  return flags.advertisedAddress === undefined
    ? `Tickwheel executor "${flags.app}" listening on ${address}`
    : `Tickwheel executor "${flags.app}" started, advertised as ${address}`;
}

function executorOptions(flags: ExecutorFlags): ExecutorOptions {
  return {
    appName: flags.app,
    serverAddresses: flags.server,
    transport: flags.transport,
    redis: flags.redis,
    accessToken: flags.token,
    accessTokenFile: flags.tokenFile,
    host: flags.host,
    port: flags.port,
    advertisedAddress: flags.advertisedAddress,
    logDir: flags.logDir,
    logRetentionDays: flags.logRetentionDays,
    logLayout: flags.logLayout,
    protocol: flags.protocol,
    enableScripts: flags.enableScripts ?? false,
    insecure: flags.insecure ?? false,
    uid: flags.uid,
    gid: flags.gid,
  };
}

/** `port: must be ...` (field `port`) → `--port: must be ...`; `serverAddresses[1]` → `--server (address 2)`. */
function flagMessage(message: string, field: string | undefined, tokenSource: TokenSource): string {
  if (field === undefined) return message;
  const match = /^(\w+)(?:\[(\d+)\])?$/.exec(field);
  const option = match?.[1];
  let flag = option === undefined ? undefined : FLAG_OF_OPTION[option];
  if (flag === undefined) return message;
  if (field === 'accessToken' && tokenSource === undefined) {
    // The executor's own wording speaks of the API option `insecure: true`.
    return `--token-file is required (or --token, or ${ACCESS_TOKEN_ENV}); pass --insecure to run an executor anyone can call`;
  }
  if (field === 'accessToken') flag = tokenSetting(tokenSource, ACCESS_TOKEN_ENV);
  const reason = message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message;
  const which = match?.[2] === undefined ? '' : ` (address ${Number(match[2]) + 1})`;
  return `${flag}${which}: ${reason}`;
}

/** The Redis URL as printed: its password, if any, left out (the output may be collected in logs). */
function redactedRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.href;
  } catch {
    return 'Redis';
  }
}
