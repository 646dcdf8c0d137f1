/** Prints an import report: counts first, then what failed and why, then the notes. */
import type { ImportReport } from './import-document.js';

/** Created and updated items listed one a line; a large import lists the first ones. */
const ITEMIZED_MAX = 50;

export function printImportReport(
  report: ImportReport,
  out: (line: string) => void = console.log,
  options: { dryRun?: boolean } = {},
): void {
  const { apps, jobs, workflows } = report;
  const dryRun = options.dryRun === true;
  const changes =
    apps.created.length +
    apps.updated.length +
    jobs.created.length +
    jobs.updated.length +
    workflows.created.length +
    workflows.updated.length;
  const [created, updated] = dryRun ? ['to create', 'to update'] : ['created', 'updated'];
  if (dryRun) out('dry run: nothing was written; this is what the import would do');
  out(
    `apps: ${apps.created.length} ${created}, ${apps.updated.length} ${updated}, ${apps.unchanged.length} unchanged`,
  );
  out(
    `jobs: ${jobs.created.length} ${created}, ${jobs.updated.length} ${updated}, ${jobs.unchanged.length} unchanged`,
  );
  // A document without workflows (from before them, or from XXL-JOB) reports as it always did.
  const workflowCount =
    workflows.created.length +
    workflows.updated.length +
    workflows.unchanged.length +
    report.failed.filter((failure) => failure.kind === 'workflow').length;
  if (workflowCount > 0)
    out(
      `workflows: ${workflows.created.length} ${created}, ${workflows.updated.length} ${updated}, ${workflows.unchanged.length} unchanged`,
    );
  const itemized = [
    ...apps.created.map((name) => `  + app ${name}`),
    ...apps.updated.map((name) => `  ~ app ${name}`),
    ...jobs.created.map((name) => `  + job ${name}`),
    ...jobs.updated.map((name) => `  ~ job ${name}`),
    ...workflows.created.map((name) => `  + workflow ${name}`),
    ...workflows.updated.map((name) => `  ~ workflow ${name}`),
  ];
  for (const line of itemized.slice(0, ITEMIZED_MAX)) out(line);
  if (itemized.length > ITEMIZED_MAX)
    out(`  … and ${itemized.length - ITEMIZED_MAX} more (--json lists every one)`);
  if (report.failed.length > 0) {
    out(`not imported (${report.failed.length}):`);
    for (const failure of report.failed) out(`  ! ${failure.kind} ${failure.name}: ${failure.message}`);
  }
  for (const note of report.notes) out(`note: ${note}`);
  if (report.appTokens.length > 0) {
    out("executor tokens of the new apps (shown this once; configure each app's executors with its own):");
    for (const { appName, accessToken } of report.appTokens) out(`  ${appName}: ${accessToken}`);
  }
  if (changes === 0 && report.failed.length === 0)
    out(
      dryRun
        ? 'nothing would change: the server already holds everything'
        : 'nothing changed: the server already holds everything in the file',
    );
}
