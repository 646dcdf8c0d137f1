/**
 * The `tickwheel` command: one sub-command a file under `commands/`. Usage errors (an unknown or
 * missing flag, a value the executor refuses) print `error: ...` naming the flag and exit 2.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerAppCommand } from './commands/app.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerExecutorCommand } from './commands/executor.js';
import { registerExportCommand } from './commands/export.js';
import { registerFireCommand } from './commands/fire.js';
import { registerImportCommand } from './commands/import.js';
import { registerImportXxlJobCommand } from './commands/import-xxl-job.js';
import { registerJobCommand } from './commands/job.js';
import { registerMigrateCommand } from './commands/migrate.js';
import { registerStartCommand } from './commands/start.js';
import { registerTokenCommand } from './commands/token.js';
import { registerUserCommand } from './commands/user.js';

/** Exit code of a usage error, as most command-line tools use it. */
export const USAGE_ERROR_EXIT_CODE = 2;

/** Commander's codes for the help and version output, which are not errors. */
const INFORMATIONAL_CODES = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

/**
 * Runs the command line `argv` (as `process.argv`: node, script, then the arguments). Long-running
 * commands resolve once started and keep the process alive until a signal stops them.
 *
 * @example
 * await main(['node', 'tickwheel', 'executor', '--app', 'reports', '--token', token]);
 */
export async function main(argv: string[]): Promise<void> {
  const program = createProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    // Every other CommanderError is a usage error: the commands report failures themselves.
    process.exitCode = INFORMATIONAL_CODES.has(err.code) ? err.exitCode : USAGE_ERROR_EXIT_CODE;
  }
}

function createProgram(): Command {
  const program = new Command('tickwheel')
    .description(
      'Tickwheel, a distributed job scheduler that speaks the XXL-JOB executor protocol: the scheduling ' +
        'server (`start`, `migrate`), a standalone script executor (`executor`) and the example executor ' +
        '(`demo`). Manage jobs, apps and fires through the REST API (/api/v1/openapi.json).',
    )
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  // Sub-commands created through `program.command()` inherit the settings above.
  registerStartCommand(program);
  registerMigrateCommand(program);
  registerExecutorCommand(program);
  registerDemoCommand(program);
  // Over the REST API: exit codes in exit-codes.ts.
  registerAppCommand(program);
  registerJobCommand(program);
  registerFireCommand(program);
  registerUserCommand(program);
  registerTokenCommand(program);
  registerExportCommand(program);
  registerImportCommand(program);
  registerImportXxlJobCommand(program);
  return program;
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}
