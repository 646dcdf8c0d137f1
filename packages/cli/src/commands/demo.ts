/**
 * `tickwheel demo`: starts the example executor app of `examples/demo-executor` on its own, to
 * register with a server given by `--server` or to run its handlers by hand (it prints how).
 *
 * The example is the single source of the demo: it is the app users copy from, so the CLI runs it
 * as a program (configured through its environment variables) rather than importing it. The CLI's
 * build compiles that example into the package itself (`tsconfig.demo.json` →
 * `dist/demo-executor/`), so the command works the same from a checkout and from an installed
 * `tickwheel` package, which must not reach outside itself.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type Command, Option } from 'commander';
import { collectUrls, parseWholeNumber } from '../flag-parsers.js';
import { ACCESS_TOKEN_ENV } from './executor.js';

/** The example app as the CLI's build compiled it, relative to this file in `dist/commands/`. */
const DEMO_ENTRY = new URL('../demo-executor/main.js', import.meta.url);
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

interface DemoFlags {
  port?: number;
  logDir?: string;
  server?: string[];
  token?: string;
}

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('start the demo executor app (examples/demo-executor) and show how to run its jobs')
    .option('--port <port>', 'port of the demo executor, 0 for any free one (default 9999)', parseWholeNumber)
    .option('--log-dir <dir>', 'directory of the demo run logs (default: a folder in the temp directory)')
    .option(
      '--server <url[,url]>',
      'also register with these servers (an XXL-JOB admin works today)',
      collectUrls,
    )
    .addOption(
      new Option('--token <token>', 'access token (default: a new random one)').env(ACCESS_TOKEN_ENV),
    )
    .action(async (flags: DemoFlags) => {
      const entry = fileURLToPath(DEMO_ENTRY);
      if (!existsSync(entry)) {
        console.error(`error: ${missingDemoMessage()}`);
        process.exitCode = 1;
        return;
      }
      console.log(
        'Tickwheel demo executor: the example app of examples/demo-executor on its own. Point it at a\n' +
          'server with --server (or run `tickwheel start --demo` for a server with a demo executor of its own);\n' +
          'or run its jobs by hand with the curl lines below.\n',
      );
      await runDemo(entry, flags);
    });
}

/** Runs the example app as a child and passes it each signal once; exits as the child does. */
async function runDemo(entry: string, flags: DemoFlags): Promise<void> {
  // Its own process group, so a Ctrl+C reaches the child once (forwarded here), not twice.
  const child = spawn(process.execPath, [entry], {
    stdio: 'inherit',
    detached: true,
    env: { ...process.env, ...demoEnvironment(flags) },
  });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  const exitCode = await childExitCode(child);
  for (const signal of FORWARDED_SIGNALS) process.off(signal, forward);
  process.exitCode = exitCode;
}

function demoEnvironment(flags: DemoFlags): Record<string, string> {
  const env: Record<string, string> = {};
  if (flags.port !== undefined) env.TICKWHEEL_PORT = String(flags.port);
  if (flags.logDir !== undefined) env.TICKWHEEL_LOG_DIR = flags.logDir;
  if (flags.server !== undefined) env.TICKWHEEL_SERVER = flags.server.join(',');
  if (flags.token !== undefined) env[ACCESS_TOKEN_ENV] = flags.token;
  return env;
}

function childExitCode(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('error', (err) => {
      console.error(`error: cannot start the demo executor: ${err.message}`);
      resolve(1);
    });
    // A child ended by a signal exits like a shell reports it: 128 + the signal's number.
    child.once('exit', (code, signal) =>
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal])),
    );
  });
}

/** Only a checkout whose CLI was built without the demo project lacks it; a package always has it. */
function missingDemoMessage(): string {
  return `the demo executor is not built (${fileURLToPath(DEMO_ENTRY)} is missing): run \`npx tsc -b\` at the repository root`;
}
