/**
 * `tickwheel script versions|show|update|restore`: a script (GLUE) job's saved versions
 * (`listScriptVersions`), saving a new one from a file (`updateJobScript`) and making an older
 * one the job's script again (`restoreScriptVersion`). `show` prints a version's source as it
 * was saved, so `tickwheel script show 7 12 > job.sh` gets it back byte for byte.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { type ApiClient, type Body, call, notFound, type ScriptVersionItem } from '../api-client.js';
import { clip, formatTime, printJson, printTable } from '../output.js';
import { action, CliFailure, clientOf, parseId, restFlags, withServerOptions } from '../rest-command.js';

export function registerScriptCommand(program: Command): void {
  const script = withServerOptions(
    program
      .command('script')
      .description("list, show, save and restore the versions of a script job's script"),
  );

  script
    .command('versions')
    .description("list a job's saved script versions, newest first (the last 30 are kept)")
    .argument('<job>', 'job id', parseId)
    .action(
      action(async (jobId: number, _flags: unknown, command: Command) => {
        const list = await listVersions(clientOf(command), jobId);
        if (restFlags(command).json) return printJson(list);
        printTable(
          ['VERSION', 'TYPE', 'SAVED', 'LINES', 'REMARK'],
          list.items.map((item) => [
            item.id,
            item.glueType,
            formatTime(item.createdAt),
            lineCount(item.glueSource),
            clip(item.glueRemark, 60),
          ]),
        );
      }),
    );

  script
    .command('show')
    .description("print one saved version's source (--json: the version with its remark and time)")
    .argument('<job>', 'job id', parseId)
    .argument('<version>', 'version id (script versions lists them)', parseId)
    .action(
      action(async (jobId: number, versionId: number, _flags: unknown, command: Command) => {
        const version = await findVersion(clientOf(command), jobId, versionId);
        if (restFlags(command).json) return printJson(version);
        process.stdout.write(version.glueSource);
      }),
    );

  script
    .command('update')
    .description("save a file as the job's script and as its newest version (the next run runs it)")
    .argument('<job>', 'job id', parseId)
    .requiredOption('--file <file>', 'the script (- for stdin)')
    .requiredOption('--remark <text>', 'what changed, kept with the version (1 to 128 characters)')
    .option(
      '--type <glueType>',
      "the script's language (GLUE_SHELL, GLUE_PYTHON, GLUE_NODEJS, …); default the job's own",
      (value: string) => value.trim().toUpperCase(),
    )
    .action(
      action(
        async (jobId: number, flags: { file: string; remark: string; type?: string }, command: Command) => {
          const glueSource = await readSource(flags.file);
          const job = await call(
            clientOf(command).PUT('/api/v1/jobs/{id}/script', {
              params: { path: { id: jobId } },
              body: {
                glueSource,
                glueRemark: flags.remark,
                // The type as given: the server names the languages it takes when it refuses one.
                ...(flags.type === undefined
                  ? {}
                  : { glueType: flags.type as Body<'updateJobScript'>['glueType'] }),
              },
            }),
          );
          if (restFlags(command).json) return printJson(job);
          console.log(
            `saved the script of job ${job.id} (${job.name}) as its newest version, ${job.glueType}`,
          );
        },
      ),
    );

  script
    .command('restore')
    .description("make a saved version the job's script again (saved as its newest version)")
    .argument('<job>', 'job id', parseId)
    .argument('<version>', 'version id (script versions lists them)', parseId)
    .action(
      action(async (jobId: number, versionId: number, _flags: unknown, command: Command) => {
        const job = await call(
          clientOf(command).POST('/api/v1/jobs/{id}/script/versions/{versionId}/restore', {
            params: { path: { id: jobId, versionId } },
          }),
        );
        if (restFlags(command).json) return printJson(job);
        console.log(`restored version ${versionId} as the script of job ${job.id} (${job.name})`);
      }),
    );
}

/** Newest first. */
function listVersions(client: ApiClient, jobId: number) {
  return call(client.GET('/api/v1/jobs/{id}/script/versions', { params: { path: { id: jobId } } }));
}

/** @throws ApiError status 404 (exit code 5) when the job has no saved version `versionId`. */
async function findVersion(client: ApiClient, jobId: number, versionId: number): Promise<ScriptVersionItem> {
  const { items } = await listVersions(client, jobId);
  const found = items.find((item) => item.id === versionId);
  if (found === undefined) {
    throw notFound(
      `job ${jobId} has no script version ${versionId} (script versions ${jobId} lists the last 30)`,
    );
  }
  return found;
}

async function readSource(file: string): Promise<string> {
  try {
    return file === '-' ? readFileSync(0, 'utf8') : await readFile(file, 'utf8');
  } catch (err) {
    throw new CliFailure('TW_ERR_INVALID_OPTION', `--file: cannot read ${file}: ${(err as Error).message}`);
  }
}

function lineCount(source: string): number {
  if (source === '') return 0;
  return source.split('\n').length - (source.endsWith('\n') ? 1 : 0);
}
