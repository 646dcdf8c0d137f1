/**
 * `tickwheel import jobs.json`: applies an export document, idempotently (an app by appName, a
 * job by its origin when the file gives one, else by appName and name, a workflow by appName and
 * name after the jobs its nodes run), and reports what it created, updated and left unchanged.
 * New jobs and workflows are created stopped; an import never starts or stops either. Exits 1
 * when anything could not be imported. `--dry-run` reports what it would do and writes nothing.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { EXIT_CODES } from '../exit-codes.js';
import { printJson } from '../output.js';
import { action, CliFailure, clientOf, restFlags, withServerOptions } from '../rest-command.js';
import { parseDocument } from '../transfer/document.js';
import { importDocument } from '../transfer/import-document.js';
import { createProgress } from '../transfer/progress.js';
import { printImportReport } from '../transfer/report-output.js';

export function registerImportCommand(program: Command): void {
  withServerOptions(
    program
      .command('import')
      .description(
        'create or update apps, jobs and workflows from a tickwheel export file (by name; new ones stopped)',
      )
      .argument('<file>', 'the export document (- for stdin)')
      .option('--dry-run', 'report what would be created, updated or left; write nothing')
      .option(
        '--installation-token',
        'new apps use the installation-wide executor token (compatibility mode), not one of their own each',
      ),
  ).action(
    action(
      async (file: string, flags: { installationToken?: boolean; dryRun?: boolean }, command: Command) => {
        const doc = parseDocument(await readSource(file), file);
        const dryRun = flags.dryRun === true;
        const progress = createProgress(dryRun ? 'comparing with the server' : 'importing');
        let report: Awaited<ReturnType<typeof importDocument>>;
        try {
          report = await importDocument(clientOf(command), doc, {
            onProgress: progress.update,
            appCredential: flags.installationToken ? 'installation' : 'app',
            dryRun,
          });
        } finally {
          progress.stop();
        }
        if (restFlags(command).json) printJson(report);
        else printImportReport(report, console.log, { dryRun });
        if (report.failed.length > 0) process.exitCode = EXIT_CODES.failed;
      },
    ),
  );
}

async function readSource(file: string): Promise<string> {
  try {
    return file === '-' ? readFileSync(0, 'utf8') : await readFile(file, 'utf8');
  } catch (err) {
    throw new CliFailure('TW_ERR_INVALID_OPTION', `cannot read ${file}: ${(err as Error).message}`);
  }
}
