/**
 * `tickwheel export > jobs.json`: every app, job and workflow the token's user may see, by name,
 * with the jobs' scripts, as a document `tickwheel import` applies to this or another server.
 */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { action, clientOf, withServerOptions } from '../rest-command.js';
import { exportDocument } from '../transfer/export-document.js';

export function registerExportCommand(program: Command): void {
  withServerOptions(
    program
      .command('export')
      .description('write every app, job (with its script) and workflow as JSON, for tickwheel import')
      .option('-o, --output <file>', 'write to the file instead of stdout'),
  ).action(
    action(async (flags: { output?: string }, command: Command) => {
      const doc = await exportDocument(clientOf(command));
      const text = `${JSON.stringify(doc, null, 2)}\n`;
      if (flags.output === undefined) {
        process.stdout.write(text);
        return;
      }
      await writeFile(flags.output, text);
      const workflows = doc.workflows === undefined ? '' : `, ${doc.workflows.length} workflows`;
      console.error(
        `exported ${doc.apps.length} apps, ${doc.jobs.length} jobs${workflows} to ${flags.output}`,
      );
    }),
  );
}
