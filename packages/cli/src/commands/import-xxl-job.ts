/**
 * `tickwheel import-xxl-job --from mysql://...`: reads an XXL-JOB 2.x–3.x database (executor
 * groups, jobs, script versions) and creates the apps, jobs and script history through the REST
 * API, every job stopped, with a report of what it mapped and what it could not. Like
 * `tickwheel import` it matches by name, so running it again changes nothing.
 */
import type { Command } from 'commander';
import { EXIT_CODES } from '../exit-codes.js';
import { printJson } from '../output.js';
import { action, clientOf, restFlags, withServerOptions } from '../rest-command.js';
import { importDocument } from '../transfer/import-document.js';
import { createProgress } from '../transfer/progress.js';
import { printImportReport } from '../transfer/report-output.js';
import { mapXxlDatabase, type XxlMapping } from '../xxl-job/map-to-document.js';
import { readXxlDatabase } from '../xxl-job/read-database.js';

interface Flags {
  from: string;
  timeZone?: string;
  dryRun?: boolean;
  appTokens?: boolean;
}

export function registerImportXxlJobCommand(program: Command): void {
  withServerOptions(
    program
      .command('import-xxl-job')
      .description(
        'import the executor groups, jobs and script history of an XXL-JOB database (jobs stopped)',
      )
      .requiredOption('--from <url>', 'the XXL-JOB database: mysql://user:password@host:3306/xxl_job')
      .option(
        '--time-zone <zone>',
        'IANA zone of the crons (XXL-JOB evaluates them in its admin’s zone; default this machine’s zone)',
      )
      .option('--dry-run', 'print the mapping and what would be left out; write nothing')
      .option(
        '--app-tokens',
        'give each new app an executor token of its own (printed once) instead of the installation-wide one',
      ),
  ).action(
    action(async (flags: Flags, command: Command) => {
      const timeZone = flags.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
      const mapping = mapXxlDatabase(await readXxlDatabase(flags.from), { timeZone });
      const json = restFlags(command).json === true;
      if (flags.dryRun) {
        if (json) return printJson(mappingSummary(mapping, timeZone));
        printMapping(mapping, timeZone);
        return;
      }
      const progress = createProgress('importing from XXL-JOB');
      let report: Awaited<ReturnType<typeof importDocument>>;
      try {
        // XXL-JOB's executors all hold the one xxl.job.accessToken: unless told otherwise, new apps
        // take the installation-wide token (set it to that value) so they register unchanged.
        report = await importDocument(clientOf(command), mapping.document, {
          onProgress: progress.update,
          appCredential: flags.appTokens ? 'app' : 'installation',
        });
        if (!flags.appTokens && report.apps.created.length > 0) {
          report.notes.push(
            `${report.apps.created.length} new app(s) use the installation-wide executor token (compatibility mode), as XXL-JOB's executors share one accessToken: start the server with that token (--token-file), then move each app to a token of its own with tickwheel app rotate-token <app> when its executors can be reconfigured`,
          );
        }
      } finally {
        progress.stop();
      }
      if (json) {
        printJson({ ...mappingSummary(mapping, timeZone), import: report });
      } else {
        printMapping(mapping, timeZone);
        printImportReport(report);
      }
      if (report.failed.length > 0) process.exitCode = EXIT_CODES.failed;
    }),
  );
}

function mappingSummary(mapping: XxlMapping, timeZone: string) {
  return {
    timeZone,
    apps: mapping.document.apps.length,
    jobs: mapping.document.jobs.length,
    scriptVersions: mapping.scriptVersions,
    skipped: mapping.skipped,
    notes: mapping.notes,
    runningInXxlJob: mapping.runningInXxlJob,
  };
}

function printMapping(mapping: XxlMapping, timeZone: string): void {
  const { document } = mapping;
  console.log(
    `XXL-JOB: ${document.apps.length} executor groups and ${document.jobs.length} jobs mapped, ` +
      `${mapping.scriptVersions} script versions; crons in ${timeZone}`,
  );
  if (mapping.skipped.length > 0) {
    console.log(`left out (${mapping.skipped.length}):`);
    for (const skipped of mapping.skipped)
      console.log(`  - ${skipped.kind} ${skipped.name}: ${skipped.reason}`);
  }
  for (const note of mapping.notes) console.log(`note: ${note}`);
  if (mapping.runningInXxlJob.length > 0) {
    console.log(
      `${mapping.runningInXxlJob.length} job(s) were running in XXL-JOB and are created stopped: ` +
        'stop them there, then `tickwheel job start <id>` here',
    );
  }
}
