/**
 * `tickwheel start`: the scheduling server, by default on port 8080 with the embedded SQLite
 * store in `./data`. The secrets generated at the first start are printed once, and kept in
 * `<data-dir>/initial-secrets.txt` (owner only) until the admin password is changed; every start
 * while that file exists says where it is. `--demo` adds an executor in the same process and a
 * few jobs for it.
 *
 * The executor access token is best given with `--token-file`: `--token` and
 * `TICKWHEEL_ACCESS_TOKEN` work but are warned about, as `/proc` shows them to other processes.
 *
 * A SIGINT or SIGTERM stops gracefully: the demo executor first (its results still reach the
 * server), then the server, which stops claiming, lets the dispatches in flight finish (bounded)
 * and leaves every fire not dispatched `pending` for the next start.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Executor } from '@tickwheel/executor';
import { isTickwheelError } from '@tickwheel/protocol';
import type { TickwheelServer } from '@tickwheel/server';
// Only the options module at load time: the server package itself (~1 s to load) is imported
// when `start` runs, so every other command of the CLI starts quickly.
import {
  LOG_LEVELS,
  type LogLevel,
  resolveServerOptions,
  SERVER_DEFAULTS,
  SERVER_ENV,
  type ServerOptions,
} from '@tickwheel/server/options';
import { type Command, Option } from 'commander';
import { parseTrustProxy, parseWholeNumber } from '../flag-parsers.js';
import { stopOnSignals } from '../graceful-shutdown.js';
import { portUnavailable } from '../port-check.js';
import { type TokenFlags, type TokenSource, takeTokenFlags, tokenSetting } from '../token-flags.js';
import { createDemoJobs, DEMO_APP, startDemoExecutor } from './start-demo.js';

interface StartFlags extends TokenFlags {
  port?: number;
  host?: string;
  dataDir?: string;
  database?: string;
  databaseWaitMs?: number;
  apiToken?: string;
  logLevel?: LogLevel;
  trustProxy?: boolean | string[];
  advertiseUrl?: string;
  redis?: string;
  demo?: boolean;
}

/** The flag of each server option (and seed), to name the flag in a validation error. */
const FLAG_OF_OPTION: Record<string, string> = {
  port: '--port',
  host: '--host',
  dataDir: '--data-dir',
  database: '--database',
  databaseWaitMs: '--database-wait-ms',
  accessToken: '--token',
  token: '--token',
  apiToken: '--api-token',
  logLevel: '--log-level',
  trustProxy: '--trust-proxy',
  advertiseUrl: '--advertise-url',
  redis: '--redis',
  adminPassword: SERVER_ENV.adminPassword,
};

export function registerStartCommand(program: Command): void {
  program
    .command('start')
    .description(
      'start the scheduling server: REST API, executor API and metrics, on SQLite in --data-dir or on --database',
    )
    .option(
      '--port <port>',
      `port to listen on, 0 for any free one (default ${SERVER_DEFAULTS.port})`,
      parseWholeNumber,
    )
    .option(
      '--host <host>',
      `interface to listen on; 0.0.0.0 for every one (default ${SERVER_DEFAULTS.host})`,
    )
    .option('--data-dir <dir>', `directory of the embedded SQLite store (default ${SERVER_DEFAULTS.dataDir})`)
    .option(
      '--database <url>',
      'sqlite:<file>, postgres://… or mysql://… (default sqlite:tickwheel.db in the data dir)',
    )
    .option(
      '--database-wait-ms <ms>',
      `how long a start waits for an unreachable PostgreSQL/MySQL database, 0 for not at all (default ${SERVER_DEFAULTS.databaseWaitMs})`,
      parseWholeNumber,
    )
    .option(
      '--token-file <path>',
      'file holding the executor access token (owner-only, chmod 600; default: generated at first start)',
    )
    .addOption(
      new Option(
        '--token <token>',
        'executor access token (visible in ps and /proc: prefer --token-file; default: generated at first start)',
      ).env(SERVER_ENV.accessToken),
    )
    .addOption(
      new Option('--api-token <token>', 'seed an admin API token, at least 24 characters').env(
        SERVER_ENV.apiToken,
      ),
    )
    .addOption(
      new Option('--log-level <level>', `server log level (default ${SERVER_DEFAULTS.logLevel})`).choices(
        LOG_LEVELS,
      ),
    )
    .option(
      '--trust-proxy <true|false|list>',
      'behind a reverse proxy: whose X-Forwarded-For names the client (the sign-in limit counts by it): ' +
        'true for any hop (only when the proxy is the one way in), or the proxies as comma-separated ' +
        'addresses, CIDRs or loopback/linklocal/uniquelocal (default false: the connection’s peer)',
      parseTrustProxy,
    )
    .option(
      '--advertise-url <url>',
      'this node’s base URL as the other nodes of a cluster reach it, to relay calls to pull executors ' +
        'connected here (default http://<host>:<port>, a 0.0.0.0 or :: host as 127.0.0.1)',
    )
    .option(
      '--redis <url>',
      'a Redis server (redis://[user:password@]host:port[/db], rediss:// for TLS) for executors of the redis ' +
        'transport (stream://<instance>/ addresses): their runs go into Redis streams; while Redis is ' +
        'unreachable their fires stay pending (default none: such executors cannot be called)',
    )
    .option('--demo', `also run a demo executor (app "${DEMO_APP}") and create a few demo jobs`)
    .action(async (flags: StartFlags, command: Command) => {
      await runServer(flags, command);
    });
}

async function runServer(flags: StartFlags, command: Command): Promise<void> {
  const tokenSource = takeTokenFlags(flags, command, SERVER_ENV.accessToken);
  const accessToken = await accessTokenOf(flags, command);
  const options = { ...serverOptions(flags, accessToken), consoleDir: await builtConsoleDir() };
  let server: TickwheelServer;
  try {
    // The port is checked before anything is written (data directory, store, first-start
    // secrets): a start that cannot listen leaves no trace behind.
    const { host, port } = resolveServerOptions(options);
    const unavailable = await portUnavailable(host, port);
    if (unavailable !== undefined) {
      console.error(`error: ${unavailable}`);
      process.exitCode = 1;
      return;
    }
    const { createServer } = await import('@tickwheel/server');
    server = await createServer(options);
  } catch (err) {
    if (isTickwheelError(err, 'TW_ERR_INVALID_OPTION'))
      command.error(`error: ${flagMessage(err.message, err.field, tokenSource)}`);
    // Nothing runs: the database cannot be reached, the port was taken since the check.
    console.error(`error: cannot start the server: ${startFailure(err, options)}`);
    process.exitCode = 1;
    return;
  }
  let demo: { executor: Executor; jobsCreated: number } | undefined;
  try {
    if (flags.demo) {
      demo = await startDemo(server, options.dataDir ?? SERVER_DEFAULTS.dataDir);
      // The server was started with scheduling held: the demo's first fires (a restart's
      // included) find the demo executor online instead of failing with "no executor online".
      await server.startScheduling();
    }
  } catch (err) {
    console.error(`error: cannot start the demo: ${err instanceof Error ? err.message : String(err)}`);
    await server.stop();
    process.exitCode = 1;
    return;
  }
  // Before the banner says it listens: a signal sent on seeing that line finds its handler.
  stopOnSignals(async () => {
    await demo?.executor.stop();
    await server.stop();
  });
  await printBanner(server, options, demo);
}

/**
 * The executor access token from `--token-file` (read here, passed to the server like `--token`),
 * or `--token` / the environment.
 */
async function accessTokenOf(flags: StartFlags, command: Command): Promise<string | undefined> {
  if (flags.tokenFile === undefined) return flags.token;
  // Loaded only for --token-file: the CLI's other commands start without the executor package.
  const { readTokenFile } = await import('@tickwheel/executor');
  try {
    return readTokenFile(flags.tokenFile, '--token-file', (message) => console.error(`warning: ${message}`));
  } catch (err) {
    if (isTickwheelError(err, 'TW_ERR_INVALID_OPTION')) command.error(`error: ${err.message}`);
    throw err;
  }
}

function serverOptions(
  flags: StartFlags,
  accessToken: string | undefined,
): ServerOptions & { dataDir?: string } {
  return {
    port: flags.port,
    host: flags.host,
    dataDir: flags.dataDir,
    database: flags.database,
    databaseWaitMs: flags.databaseWaitMs,
    accessToken,
    apiToken: flags.apiToken,
    logLevel: flags.logLevel,
    trustProxy: flags.trustProxy,
    advertiseUrl: flags.advertiseUrl,
    redis: flags.redis,
    // `tickwheel start` is how people first meet the server: give them a token to script with.
    generateApiToken: true,
    // The demo executor registers before the first fire: runServer starts scheduling after it.
    deferScheduling: flags.demo === true,
  };
}

async function startDemo(
  server: TickwheelServer,
  dataDir: string,
): Promise<{ executor: Executor; jobsCreated: number }> {
  const jobsCreated = await createDemoJobs(server);
  return { executor: await startDemoExecutor(server, dataDir), jobsCreated };
}

async function printBanner(
  server: TickwheelServer,
  options: ServerOptions,
  demo: { executor: Executor; jobsCreated: number } | undefined,
): Promise<void> {
  const { maskDatabasePassword } = await import('@tickwheel/server/internal');
  const api = `${server.url}api/v1`;
  const lines = [
    '',
    `Tickwheel server listening on ${server.url}`,
    options.consoleDir === undefined
      ? '  web console:   not built (run npm run build to build packages/console)'
      : `  web console:   ${server.url}  (sign in as admin)`,
    `  database:      ${maskDatabasePassword(options.database ?? `sqlite (in ${options.dataDir ?? SERVER_DEFAULTS.dataDir})`)}`,
    `  REST API:      ${api}  (OpenAPI document: ${api}/openapi.json)`,
    `  executors:     register at ${server.url} with their app's executor token (tickwheel app add prints it)`,
    `  metrics:       ${server.url}metrics, health: ${server.url}healthz, ${server.url}readyz`,
  ];
  const secrets = server.firstStartSecrets;
  const generated = [
    secrets.adminPassword === undefined
      ? undefined
      : `  admin login:   ${secrets.adminUsername} / ${secrets.adminPassword}`,
    secrets.accessToken === undefined
      ? undefined
      : `  access token:  ${secrets.accessToken}  (installation-wide: for apps in compatibility mode only)`,
    secrets.apiToken === undefined
      ? undefined
      : `  API token:     ${secrets.apiToken}  (Authorization: Bearer …)`,
  ].filter((line) => line !== undefined);
  if (generated.length > 0) {
    lines.push(
      '',
      'First start: these secrets were generated and are shown ONCE. Store them now.',
      ...generated,
    );
    if (server.initialSecretsFile !== undefined) {
      lines.push(
        `  (also kept in ${server.initialSecretsFile}, readable by its owner only, until the admin password is changed)`,
      );
    }
    if (secrets.apiToken !== undefined) {
      lines.push('', 'Try it:', `  curl -H "Authorization: Bearer ${secrets.apiToken}" ${api}/jobs`);
    }
  } else if (server.initialSecretsFile !== undefined) {
    lines.push(
      '',
      `The first admin password is still in ${server.initialSecretsFile} (owner only): sign in and change it,`,
      'and the file goes. Lost it? tickwheel admin reset-password sets a new one.',
    );
  }
  if (demo !== undefined) {
    lines.push(
      '',
      demo.jobsCreated > 0
        ? `Demo: executor ${demo.executor.address} (app "${DEMO_APP}") with ${demo.jobsCreated} new demo jobs.`
        : `Demo: executor ${demo.executor.address} (app "${DEMO_APP}") running the demo jobs of an earlier start.`,
    );
  }
  lines.push('', 'Ctrl+C stops the server (pending fires are kept for the next start).', '');
  console.log(lines.join('\n'));
}

/** The reason a start failed, with the way out when the port was taken after all. */
function startFailure(err: unknown, options: ServerOptions): string {
  const message = err instanceof Error ? err.message : String(err);
  if ((err as NodeJS.ErrnoException | undefined)?.code !== 'EADDRINUSE') return message;
  const port = options.port ?? SERVER_DEFAULTS.port;
  return `${message}; choose another port with --port <port> (e.g. --port ${port + 1})`;
}

/** `port: must be ...` (field `port`) → `--port: must be ...`; `apiToken must be ...` → `--api-token: must be ...`. */
function flagMessage(message: string, field: string | undefined, tokenSource: TokenSource): string {
  const flag =
    field === 'accessToken'
      ? tokenSetting(tokenSource, SERVER_ENV.accessToken)
      : field === undefined
        ? undefined
        : FLAG_OF_OPTION[field];
  if (flag === undefined || field === undefined) return message;
  const reason = message.startsWith(field) ? message.slice(field.length).replace(/^:?\s*/, '') : message;
  return `${flag}: ${reason}`;
}

/** The web console's built folder, when the console package is installed and built; else none (APIs only). */
async function builtConsoleDir(): Promise<string | undefined> {
  try {
    const { consoleDir } = await import('@tickwheel/console');
    return existsSync(path.join(consoleDir, 'index.html')) ? consoleDir : undefined;
  } catch {
    return undefined;
  }
}
