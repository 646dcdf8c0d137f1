/**
 * The `tickwheel` command: one sub-command a file under `commands/`. Usage errors (an unknown or
 * missing flag, a value the executor refuses) print `error: ...` naming the flag and exit 2.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';

/**
 * Each command's module by name, in the order the help lists them. Only the module of the
 * command being run is loaded (every one for the help or an unknown command): `tickwheel job
 * list` loads neither the server, nor the executor, nor the protocol's wire validation, and
 * answers in the time of one HTTP request rather than of loading the platform.
 */
const COMMANDS: Record<string, () => Promise<(program: Command) => void>> = {
  start: async () => (await import('./commands/start.js')).registerStartCommand,
  migrate: async () => (await import('./commands/migrate.js')).registerMigrateCommand,
  admin: async () => (await import('./commands/admin.js')).registerAdminCommand,
  executor: async () => (await import('./commands/executor.js')).registerExecutorCommand,
  demo: async () => (await import('./commands/demo.js')).registerDemoCommand,
  // Over the REST API: exit codes in exit-codes.ts.
  app: async () => (await import('./commands/app.js')).registerAppCommand,
  job: async () => (await import('./commands/job.js')).registerJobCommand,
  fire: async () => (await import('./commands/fire.js')).registerFireCommand,
  workflow: async () => (await import('./commands/workflow.js')).registerWorkflowCommand,
  script: async () => (await import('./commands/script.js')).registerScriptCommand,
  channel: async () => (await import('./commands/channel.js')).registerChannelCommand,
  user: async () => (await import('./commands/user.js')).registerUserCommand,
  token: async () => (await import('./commands/token.js')).registerTokenCommand,
  export: async () => (await import('./commands/export.js')).registerExportCommand,
  import: async () => (await import('./commands/import.js')).registerImportCommand,
  'import-xxl-job': async () => (await import('./commands/import-xxl-job.js')).registerImportXxlJobCommand,
};

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
  const program = await createProgram(argv[2]);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    // Every other CommanderError is a usage error: the commands report failures themselves.
    process.exitCode = INFORMATIONAL_CODES.has(err.code) ? err.exitCode : USAGE_ERROR_EXIT_CODE;
  }
}

/** The program with the command `name` (every command when `name` is none of them). */
async function createProgram(name: string | undefined): Promise<Command> {
  const program = new Command('tickwheel')
    .description(
      'Tickwheel, a distributed job scheduler that speaks the XXL-JOB executor protocol: the scheduling ' +
        'server (`start`, `migrate`, `admin reset-password`), a standalone script executor (`executor`) and the example executor ' +
        '(`demo`). Manage jobs, workflows, apps and fires through the REST API (/api/v1/openapi.json).',
    )
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  // Sub-commands created through `program.command()` inherit the settings above.
  const load = name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  const registers = await Promise.all(
    load === undefined ? Object.values(COMMANDS).map((l) => l()) : [load()],
  );
  for (const register of registers) register(program);
  return program;
}

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}
