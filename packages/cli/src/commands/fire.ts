/**
 * `tickwheel fire list|get|log [--follow]|kill`: fire records (XXL-JOB's log) over the REST API.
 * The log is read from the executor the fire was sent to; `--follow` polls it until the fire is
 * final and no new lines arrive.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Command, Option } from 'commander';
import { type ApiClient, ApiError, call, type Fire, type Query } from '../api-client.js';
import { resolveApp } from '../app-ref.js';
import { parseWholeNumber } from '../flag-parsers.js';
import { clip, formatTime, printJson, printPageFooter, printRecord, printTable } from '../output.js';
import { action, clientOf, parseId, restFlags, withServerOptions } from '../rest-command.js';

/** How often `--follow` asks for new lines by default. */
const FOLLOW_INTERVAL_MS = 1_000;

/** A fire record's statuses, as the server's `store/fire-status.ts` names them. */
const FIRE_STATUSES = [
  'pending',
  'dispatched',
  'dispatch_failed',
  'succeeded',
  'failed',
  'timeout',
  'killed',
  'skipped',
];

/**
 * Statuses after which `--follow` stops once the log is read: the final ones, and a failed
 * dispatch (the run never started, so no line will come). Kept here rather than imported from
 * the server package, which takes a second to load.
 */
const DONE_STATUSES: ReadonlySet<string> = new Set([
  'succeeded',
  'failed',
  'timeout',
  'killed',
  'skipped',
  'dispatch_failed',
]);

interface ListFlags {
  job?: number;
  app?: string;
  /** One of FIRE_STATUSES each (the flag's choices). */
  status?: Query<'listFires'>['status'];
  limit?: number;
  offset?: number;
}

export function registerFireCommand(program: Command): void {
  const fire = withServerOptions(
    program.command('fire').description('list and show fire records, read and follow run logs, kill runs'),
  );

  fire
    .command('list')
    .description('list fire records, newest scheduled first')
    .option('--job <id>', 'only the fires of this job', parseId)
    .option('--app <app>', 'only the fires of this app (id or appName)')
    .addOption(new Option('--status <status...>', 'only fires in these statuses').choices(FIRE_STATUSES))
    .option('--limit <n>', 'at most this many (default 50, at most 200)', parseWholeNumber)
    .option('--offset <n>', 'skip this many', parseWholeNumber)
    .action(
      action(async (flags: ListFlags, command: Command) => {
        const client = clientOf(command);
        const appId = flags.app === undefined ? undefined : (await resolveApp(client, flags.app)).id;
        const page = await call(
          client.GET('/api/v1/fires', {
            params: {
              query: {
                appId,
                jobId: flags.job,
                status: flags.status,
                limit: flags.limit,
                offset: flags.offset,
              },
            },
          }),
        );
        if (restFlags(command).json) return printJson(page);
        printTable(
          ['ID', 'JOB', 'SCHEDULED', 'TYPE', 'EXECUTOR', 'STATUS', 'CODE', 'MESSAGE'],
          page.items.map((item) => [
            item.id,
            item.jobId,
            formatTime(item.scheduledAt),
            item.triggerType,
            item.executorAddress ?? '-',
            item.status,
            item.handleCode ?? '-',
            clip(item.handleMsg ?? item.triggerMsg, 50),
          ]),
        );
        printPageFooter(page);
      }),
    );

  fire
    .command('get')
    .description('show one fire record')
    .argument('<id>', 'fire id', parseId)
    .action(
      action(async (id: number, _flags: unknown, command: Command) => {
        const found = await readFire(clientOf(command), id);
        if (restFlags(command).json) return printJson(found);
        printFire(found);
      }),
    );

  fire
    .command('log')
    .description('print the run’s log, read from the executor it ran on')
    .argument('<id>', 'fire id', parseId)
    .option('-f, --follow', 'keep printing new lines until the run is over')
    .option('--from-line <n>', 'start at this line (default 1)', parseId)
    .option('--interval <ms>', `poll interval of --follow (default ${FOLLOW_INTERVAL_MS})`, parseWholeNumber)
    .action(
      action(
        async (
          id: number,
          flags: { follow?: boolean; fromLine?: number; interval?: number },
          command: Command,
        ) => {
          const client = clientOf(command);
          const json = restFlags(command).json === true;
          if (!flags.follow) {
            const log = await readLog(client, id, flags.fromLine ?? 1);
            if (json) return printJson(log);
            writeLines(log.logContent);
            return;
          }
          await followLog(client, id, {
            fromLine: flags.fromLine ?? 1,
            intervalMs: flags.interval ?? FOLLOW_INTERVAL_MS,
            json,
          });
        },
      ),
    );

  fire
    .command('kill')
    .description('stop a running fire on its executor and record it killed')
    .argument('<id>', 'fire id', parseId)
    .action(
      action(async (id: number, _flags: unknown, command: Command) => {
        const killed = await call(
          clientOf(command).POST('/api/v1/fires/{id}/kill', { params: { path: { id } } }),
        );
        if (restFlags(command).json) return printJson(killed);
        console.log(`killed fire ${killed.id} (${killed.status})`);
      }),
    );
}

/**
 * Prints the log as it grows. A fire not yet delivered answers 409 until it is: waited for.
 * Stops when the fire is done and a read brought nothing new (or the executor says isEnd).
 * With `--json` each read that brought lines is printed as one JSON line.
 */
async function followLog(
  client: ApiClient,
  id: number,
  options: { fromLine: number; intervalMs: number; json: boolean },
): Promise<void> {
  let fromLine = options.fromLine;
  for (;;) {
    const fire = await readFire(client, id);
    const done = DONE_STATUSES.has(fire.status);
    let newLines = false;
    let isEnd = false;
    if (fire.executorAddress !== null) {
      try {
        const log = await readLog(client, id, fromLine);
        newLines = log.toLineNum >= fromLine && log.logContent !== '';
        isEnd = log.isEnd;
        if (newLines) {
          if (options.json) console.log(JSON.stringify(log));
          else writeLines(log.logContent);
          fromLine = log.toLineNum + 1;
        }
      } catch (err) {
        // The executor may be gone once the run is over: what was read is all there is.
        if (!(err instanceof ApiError) || err.status !== 502 || !done) throw err;
      }
    }
    if (done && (isEnd || !newLines)) {
      if (!options.json)
        console.error(
          `-- fire ${id} ${fire.status}${fire.handleMsg ? `: ${clip(fire.handleMsg, 200)}` : ''}`,
        );
      return;
    }
    if (!newLines) await sleep(options.intervalMs);
  }
}

function readFire(client: ApiClient, id: number): Promise<Fire> {
  return call(client.GET('/api/v1/fires/{id}', { params: { path: { id } } }));
}

function readLog(client: ApiClient, id: number, fromLineNum: number) {
  return call(client.GET('/api/v1/fires/{id}/log', { params: { path: { id }, query: { fromLineNum } } }));
}

function writeLines(content: string): void {
  if (content === '') return;
  process.stdout.write(content.endsWith('\n') ? content : `${content}\n`);
}

function printFire(fire: Fire): void {
  printRecord([
    ['id', fire.id],
    ['jobId', fire.jobId],
    ['appId', fire.appId],
    ['status', fire.status],
    ['triggerType', fire.triggerType],
    ['scheduledAt', formatTime(fire.scheduledAt)],
    ['triggerAt', formatTime(fire.triggerAt)],
    ['executor', fire.executorAddress ?? '-'],
    ['handler', fire.executorHandler || '-'],
    ['param', clip(String(fire.executorParam ?? ''), 80)],
    ['shard', `${String(fire.shardIndex)}/${String(fire.shardTotal)}`],
    ['triggerCode', fire.triggerCode === null ? '-' : String(fire.triggerCode)],
    ['triggerMsg', clip(fire.triggerMsg, 200)],
    ['handleAt', formatTime(fire.handleAt as number | null)],
    ['handleCode', fire.handleCode ?? '-'],
    ['handleMsg', clip(fire.handleMsg, 200)],
    ['retryCount', String(fire.retryCount)],
  ]);
}
