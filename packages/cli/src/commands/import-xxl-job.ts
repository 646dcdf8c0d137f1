/**
 * `tickwheel import-xxl-job --from mysql://...`: reads an XXL-JOB database of any generation
 * (2.x, 3.0–3.4, 3.5: told from its columns) — executor groups, jobs (Groovy ones too), script
 * versions and users — and creates or updates the apps, jobs, script history and users through
 * the REST API, with a report of what it mapped, what it did and what it could not.
 *
 * Each app and job records where it came from (`origin`: the source database and the XXL-JOB
 * id), and a job is found again by that before its name, so running it again changes nothing,
 * a job renamed in XXL-JOB is renamed here, and an import from another database with the same
 * names takes the jobs over instead of making them twice. Jobs are created stopped;
 * `--keep-status` then starts those that were running in XXL-JOB. `--dry-run` reads the server
 * and says what would be created, updated or left, writing nothing.
 */
import type { Command } from 'commander';
import { call, type Job } from '../api-client.js';
import { EXIT_CODES } from '../exit-codes.js';
import { printJson } from '../output.js';
import { action, clientOf, restFlags, withServerOptions } from '../rest-command.js';
import { jobKey } from '../transfer/document.js';
import { type ImportReport, importDocument } from '../transfer/import-document.js';
import { createProgress } from '../transfer/progress.js';
import { printImportReport } from '../transfer/report-output.js';
import { importUsers, type UserImportReport } from '../xxl-job/import-users.js';
import { mapXxlDatabase, type XxlMapping } from '../xxl-job/map-to-document.js';
import { readXxlDatabase, type XxlDatabase } from '../xxl-job/read-database.js';

interface Flags {
  from: string;
  timeZone?: string;
  dryRun?: boolean;
  appTokens?: boolean;
  keepStatus?: boolean;
  users: boolean;
  source?: string;
}

export function registerImportXxlJobCommand(program: Command): void {
  withServerOptions(
    program
      .command('import-xxl-job')
      .description(
        'import the executor groups, jobs, script history and users of an XXL-JOB database (jobs stopped unless --keep-status)',
      )
      .requiredOption('--from <url>', 'the XXL-JOB database: mysql://user:password@host:3306/xxl_job')
      .option(
        '--time-zone <zone>',
        'IANA zone of the crons (XXL-JOB evaluates them in its admin’s zone; default this machine’s zone)',
      )
      .option('--dry-run', 'print the mapping and what would be created, updated or left; write nothing')
      .option(
        '--keep-status',
        'start the jobs that were running in XXL-JOB once imported (stop them there first: a cut-over in one step)',
      )
      .option('--no-users', 'leave XXL-JOB’s users out')
      .option(
        '--source <name>',
        'name the source database (default: the host, port and database its server reports); give the same name after moving the XXL-JOB database',
      )
      .option(
        '--app-tokens',
        'give each new app an executor token of its own (printed once) instead of the installation-wide one',
      ),
  ).action(
    action(async (flags: Flags, command: Command) => {
      const timeZone = flags.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
      const db = await readXxlDatabase(
        flags.from,
        flags.source === undefined ? {} : { source: flags.source },
      );
      const mapping = mapXxlDatabase(db, { timeZone });
      const client = clientOf(command);
      const json = restFlags(command).json === true;
      const dryRun = flags.dryRun === true;
      const progress = createProgress(dryRun ? 'comparing with the server' : 'importing from XXL-JOB');
      let report: ImportReport;
      let users: UserImportReport | undefined;
      let started: string[] = [];
      try {
        let jobs: ReadonlyMap<string, Job> = new Map();
        // XXL-JOB's executors all hold the one xxl.job.accessToken: unless told otherwise, new apps
        // take the installation-wide token (set it to that value) so they register unchanged.
        report = await importDocument(client, mapping.document, {
          onProgress: progress.update,
          appCredential: flags.appTokens ? 'app' : 'installation',
          dryRun,
          onJobs: (byKey) => {
            jobs = byKey;
          },
        });
        if (!flags.appTokens && report.apps.created.length > 0) {
          report.notes.push(
            `${report.apps.created.length} new app(s) use the installation-wide executor token (compatibility mode), as XXL-JOB's executors share one accessToken: start the server with that token (--token-file), then move each app to a token of its own with tickwheel app rotate-token <app> when its executors can be reconfigured`,
          );
        }
        if (flags.users && db.hasUsers) users = await importUsers(client, mapping.users, { dryRun });
        if (flags.keepStatus) started = await startRunning(client, mapping, jobs, report, dryRun);
      } finally {
        progress.stop();
      }
      if (json) {
        printJson({
          ...mappingSummary(db, mapping, timeZone),
          dryRun,
          import: report,
          users: users ?? null,
          started,
        });
      } else {
        printMapping(db, mapping, timeZone, flags);
        printImportReport(report, console.log, { dryRun });
        if (users !== undefined) printUsers(users, dryRun);
        if (flags.keepStatus) {
          console.log(
            `${dryRun ? 'would start' : 'started'} ${started.length} job(s) that were running in XXL-JOB`,
          );
          for (const label of started) console.log(`  > job ${label}`);
        }
      }
      if (report.failed.length > 0 || (users?.failed.length ?? 0) > 0) process.exitCode = EXIT_CODES.failed;
    }),
  );
}

/** Starts the jobs that were running in XXL-JOB and are stopped here; their labels. */
async function startRunning(
  client: ReturnType<typeof clientOf>,
  mapping: XxlMapping,
  jobs: ReadonlyMap<string, Job>,
  report: ImportReport,
  dryRun: boolean,
): Promise<string[]> {
  const started: string[] = [];
  for (const ref of mapping.running) {
    const job = jobs.get(jobKey(ref));
    const label = `${ref.appName}/${ref.name}`;
    if (job === undefined || job.triggerStatus === 1) continue;
    if (dryRun) {
      started.push(label);
      continue;
    }
    try {
      await call(client.POST('/api/v1/jobs/{id}/start', { params: { path: { id: job.id } } }));
      started.push(label);
    } catch (err) {
      report.failed.push({
        kind: 'job',
        name: label,
        message: `could not start it: ${(err as Error).message}`,
      });
    }
  }
  return started;
}

function mappingSummary(db: XxlDatabase, mapping: XxlMapping, timeZone: string) {
  return {
    source: db.source,
    generation: db.generation,
    timeZone,
    apps: mapping.document.apps.length,
    jobs: mapping.document.jobs.length,
    scriptVersions: mapping.scriptVersions,
    groovyJobs: mapping.groovyJobs,
    usersMapped: mapping.users.length,
    skipped: mapping.skipped,
    notes: mapping.notes,
    runningInXxlJob: mapping.runningInXxlJob,
  };
}

function printMapping(db: XxlDatabase, mapping: XxlMapping, timeZone: string, flags: Flags): void {
  const { document } = mapping;
  console.log(`XXL-JOB ${db.generation} schema at ${db.source}`);
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
  if (mapping.groovyJobs.length > 0) {
    console.log(
      `${mapping.groovyJobs.length} GLUE_GROOVY job(s) imported: only Java (XXL-JOB) executors run Groovy; keep their apps on those executors, Tickwheel executors refuse such runs`,
    );
  }
  if (!db.hasUsers) console.log('no users: this XXL-JOB keeps its login outside the database (before 2.1)');
  if (mapping.runningInXxlJob.length > 0 && !flags.keepStatus) {
    console.log(
      `${mapping.runningInXxlJob.length} job(s) were running in XXL-JOB and are created stopped: ` +
        'stop them there, then `tickwheel job start <id>` here (or import with --keep-status)',
    );
  }
}

function printUsers(users: UserImportReport, dryRun: boolean): void {
  console.log(
    `users: ${users.created.length} ${dryRun ? 'to create' : 'created'}, ${users.unchanged.length} already here (left as they are)`,
  );
  for (const username of users.created) console.log(`  + user ${username}`);
  for (const failure of users.failed) console.log(`  ! user ${failure.name}: ${failure.message}`);
  for (const note of users.notes) console.log(`note: ${note}`);
  if (users.passwords.length > 0) {
    console.log(
      'one-time passwords of the new users (shown this once; XXL-JOB keeps only hashes, so none could come over; each user must choose their own at first sign-in):',
    );
    for (const { username, password } of users.passwords) console.log(`  ${username}: ${password}`);
  }
}
