/**
 * `tickwheel migrate`: applies the pending schema migrations of the server's database and says
 * which. The server applies them at start too; this is for deployments that migrate first.
 */
import { isTickwheelError } from '@tickwheel/protocol';
import { SERVER_DEFAULTS } from '@tickwheel/server/options';
import type { Command } from 'commander';

interface MigrateFlags {
  database?: string;
  dataDir?: string;
}

const FLAG_OF_OPTION: Record<string, string> = { database: '--database', dataDir: '--data-dir' };

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description("apply the pending migrations of the server's database")
    .option(
      '--database <url>',
      'sqlite:<file>, postgres://… or mysql://… (default sqlite:tickwheel.db in the data dir)',
    )
    .option('--data-dir <dir>', `directory of the embedded SQLite store (default ${SERVER_DEFAULTS.dataDir})`)
    .action(async (flags: MigrateFlags, command: Command) => {
      await runMigrations(flags, command);
    });
}

async function runMigrations(flags: MigrateFlags, command: Command): Promise<void> {
  try {
    const { migrateDatabase } = await import('@tickwheel/server');
    const report = await migrateDatabase({ database: flags.database, dataDir: flags.dataDir });
    if (report.applied.length === 0) {
      console.log(`${report.database}: up to date (schema version ${report.version}); nothing applied`);
      return;
    }
    console.log(`${report.database}: applied ${report.applied.length} migration(s)`);
    for (const migration of report.applied) console.log(`  ${migration.version} ${migration.name}`);
    console.log(`schema version ${report.version}`);
  } catch (err) {
    if (isTickwheelError(err, 'TW_ERR_INVALID_OPTION')) {
      const flag = err.field === undefined ? undefined : FLAG_OF_OPTION[err.field];
      command.error(
        `error: ${flag === undefined ? err.message : `${flag}: ${err.message.replace(/^\w+: /, '')}`}`,
      );
    }
    console.error(`error: migration failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
