/**
 * `tickwheel admin`: operations on the server's database itself, run on the server's host
 * without a running server or a sign-in (like `tickwheel migrate`); access to the database is
 * the credential.
 *
 * `tickwheel admin reset-password [--user name]` sets a new password, generated and printed
 * unless `--password-stdin` gives it, and ends the user's console sessions.
 */
import { readFileSync } from 'node:fs';
import { isTickwheelError } from '@tickwheel/protocol';
import { SERVER_DEFAULTS } from '@tickwheel/server/options';
import type { Command } from 'commander';
import { EXIT_CODES } from '../exit-codes.js';

interface ResetPasswordFlags {
  user: string;
  passwordStdin?: boolean;
  database?: string;
  dataDir?: string;
}

const FLAG_OF_FIELD: Record<string, string> = {
  database: '--database',
  dataDir: '--data-dir',
  username: '--user',
  password: '--password-stdin',
};

export function registerAdminCommand(program: Command): void {
  const admin = program
    .command('admin')
    .description("operations on the server's database, without a running server (e.g. a lost password)");
  admin
    .command('reset-password')
    .description(
      "set a user's password directly in the database (generated and printed unless --password-stdin) " +
        "and end the user's console sessions",
    )
    .option('--user <name>', 'whose password', 'admin')
    .option('--password-stdin', 'read the new password (at least 8 characters) from stdin')
    .option(
      '--database <url>',
      'sqlite:<file>, postgres://… or mysql://… (default sqlite:tickwheel.db in the data dir)',
    )
    .option('--data-dir <dir>', `directory of the embedded SQLite store (default ${SERVER_DEFAULTS.dataDir})`)
    .action(async (flags: ResetPasswordFlags, command: Command) => {
      await runResetPassword(flags, command);
    });
}

async function runResetPassword(flags: ResetPasswordFlags, command: Command): Promise<void> {
  const password = flags.passwordStdin ? readFileSync(0, 'utf8').replace(/\r?\n$/, '') : undefined;
  try {
    const { resetPassword } = await import('@tickwheel/server');
    const reset = await resetPassword({
      database: flags.database,
      dataDir: flags.dataDir,
      username: flags.user,
      ...(password === undefined ? {} : { password }),
    });
    const lines = [`${reset.database}: the password of ${reset.username} was reset`];
    if (reset.generatedPassword !== undefined) {
      lines.push(`  new password:  ${reset.generatedPassword}  (shown once; change it after signing in)`);
    }
    lines.push(`  sessions ended: ${reset.sessionsEnded}`);
    if (reset.initialSecretsFileRemoved !== undefined) {
      lines.push(`  removed ${reset.initialSecretsFileRemoved} (it held the first password)`);
    }
    console.log(lines.join('\n'));
  } catch (err) {
    if (isTickwheelError(err, 'TW_ERR_INVALID_OPTION')) {
      const flag = err.field === undefined ? undefined : FLAG_OF_FIELD[err.field];
      command.error(
        `error: ${flag === undefined ? err.message : `${flag}: ${err.message.replace(/^\w+:? /, '')}`}`,
      );
    }
    if (isTickwheelError(err, 'TW_ERR_NOT_FOUND')) {
      console.error(`error: ${err.message}`);
      process.exitCode = EXIT_CODES.notFound;
      return;
    }
    console.error(`error: cannot reset the password: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
