/**
 * `tickwheel workflow list|get|create|update|delete|start|stop|trigger` over the REST API, and
 * the runs of workflows: `runs|run|stop-run|retry-node|mark-node`. A definition is the JSON body
 * `createWorkflow` takes, read from a file or stdin (`--file -`): nodes and edges are edited as
 * a document, not flag by flag. The server checks the graph and names the field at fault.
 */
import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { type ApiClient, type Body, call, type Query, type Workflow } from '../api-client.js';
import { resolveApp } from '../app-ref.js';
import { parseWholeNumber } from '../flag-parsers.js';
import { clip, formatTime, printJson, printPageFooter, printRecord, printTable } from '../output.js';
import { action, CliFailure, clientOf, parseId, restFlags, withServerOptions } from '../rest-command.js';
import {
  printRun,
  printRunSummaries,
  RUN_STATUSES,
  readRun,
  runLine,
  WAIT_INTERVAL_MS,
  waitForRun,
} from './workflow-run.js';

interface ListFlags {
  app?: string;
  name?: string;
  status?: 'running' | 'stopped';
  limit?: number;
  offset?: number;
}

export function registerWorkflowCommand(program: Command): void {
  const workflow = withServerOptions(
    program
      .command('workflow')
      .description(
        'list, show, create, change, start, stop, trigger and delete workflows; follow and repair their runs',
      ),
  );
  registerDefinitionCommands(workflow);
  registerRunCommands(workflow);
}

function registerDefinitionCommands(workflow: Command): void {
  workflow
    .command('list')
    .description('list workflows')
    .option('--app <app>', 'only the workflows of this app (id or appName)')
    .option('--name <text>', 'only workflows whose name contains the text')
    .addOption(
      new Option('--status <status>', 'only running or only stopped schedules').choices([
        'running',
        'stopped',
      ]),
    )
    .option('--limit <n>', 'at most this many (default 50, at most 200)', parseWholeNumber)
    .option('--offset <n>', 'skip this many', parseWholeNumber)
    .action(
      action(async (flags: ListFlags, command: Command) => {
        const client = clientOf(command);
        const appId = flags.app === undefined ? undefined : (await resolveApp(client, flags.app)).id;
        const page = await call(
          client.GET('/api/v1/workflows', {
            params: {
              query: {
                appId,
                name: flags.name,
                triggerStatus: flags.status === undefined ? undefined : flags.status === 'running' ? 1 : 0,
                limit: flags.limit,
                offset: flags.offset,
              },
            },
          }),
        );
        if (restFlags(command).json) return printJson(page);
        const appNames = await appNamesById(client);
        printTable(
          ['ID', 'APP', 'NAME', 'SCHEDULE', 'NODES', 'CONCURRENCY', 'STATUS', 'NEXT FIRE'],
          page.items.map((item) => [
            item.id,
            appNames.get(item.appId) ?? item.appId,
            clip(item.name, 40),
            scheduleText(item),
            item.nodes.length,
            item.concurrency,
            statusText(item),
            formatTime(item.nextFireAt),
          ]),
        );
        printPageFooter(page);
      }),
    );

  workflow
    .command('get')
    .description('show one workflow with its nodes and edges')
    .argument('<id>', 'workflow id', parseId)
    .action(
      action(async (id: number, _flags: unknown, command: Command) => {
        const found = await call(
          clientOf(command).GET('/api/v1/workflows/{id}', { params: { path: { id } } }),
        );
        if (restFlags(command).json) return printJson(found);
        printWorkflow(found);
      }),
    );

  workflow
    .command('create')
    .description('create a workflow from a definition: the JSON body of the REST API’s createWorkflow')
    .requiredOption('--file <file>', 'the definition, a JSON file (- for stdin)')
    .option('--app <app>', 'the workflow’s app (id or appName), instead of the file’s appId')
    .action(
      action(async (flags: { file: string; app?: string }, command: Command) => {
        const client = clientOf(command);
        const body = readDefinition(flags.file);
        if (flags.app !== undefined) body.appId = (await resolveApp(client, flags.app)).id;
        const created = await call(
          client.POST('/api/v1/workflows', { body: body as Body<'createWorkflow'> }),
        );
        if (restFlags(command).json) return printJson(created);
        console.log(
          `created workflow ${created.id} (${created.name}) with ${created.nodes.length} nodes, ${statusText(created)}`,
        );
      }),
    );

  workflow
    .command('update')
    .description('change a workflow: the file’s fields replace the workflow’s (nodes and edges whole)')
    .argument('<id>', 'workflow id', parseId)
    .requiredOption('--file <file>', 'the fields to change, a JSON file (- for stdin)')
    .option('--app <app>', 'move the workflow to this app (id or appName)')
    .action(
      action(async (id: number, flags: { file: string; app?: string }, command: Command) => {
        const client = clientOf(command);
        const body = readDefinition(flags.file);
        if (flags.app !== undefined) body.appId = (await resolveApp(client, flags.app)).id;
        const updated = await call(
          client.PATCH('/api/v1/workflows/{id}', {
            params: { path: { id } },
            body: body as Body<'updateWorkflow'>,
          }),
        );
        if (restFlags(command).json) return printJson(updated);
        console.log(`updated workflow ${updated.id} (${updated.name})`);
      }),
    );

  workflow
    .command('delete')
    .alias('rm')
    .description('delete a workflow (its runs stay)')
    .argument('<id>', 'workflow id', parseId)
    .action(
      action(async (id: number, _flags: unknown, command: Command) => {
        await call(clientOf(command).DELETE('/api/v1/workflows/{id}', { params: { path: { id } } }));
        if (restFlags(command).json) return printJson({ deleted: id });
        console.log(`deleted workflow ${id}`);
      }),
    );

  workflow
    .command('start')
    .description('start a workflow’s schedule')
    .argument('<id>', 'workflow id', parseId)
    .action(
      action(async (id: number, _flags: unknown, command: Command) => {
        const started = await call(
          clientOf(command).POST('/api/v1/workflows/{id}/start', { params: { path: { id } } }),
        );
        if (restFlags(command).json) return printJson(started);
        console.log(
          `started workflow ${started.id} (${started.name}); next run at ${formatTime(started.nextFireAt)}`,
        );
      }),
    );

  workflow
    .command('stop')
    .description('stop a workflow’s schedule (it can still be triggered; running runs go on)')
    .argument('<id>', 'workflow id', parseId)
    .action(
      action(async (id: number, _flags: unknown, command: Command) => {
        const stopped = await call(
          clientOf(command).POST('/api/v1/workflows/{id}/stop', { params: { path: { id } } }),
        );
        if (restFlags(command).json) return printJson(stopped);
        console.log(`stopped workflow ${stopped.id} (${stopped.name})`);
      }),
    );

  workflow
    .command('trigger')
    .description('run a workflow once now; with --wait, follow the run until it ends')
    .argument('<id>', 'workflow id', parseId)
    .option('--param <text>', 'the run’s param, which the nodes’ params take as run.param')
    .option('--wait', 'wait for the run to end, showing its progress; exit 1 unless it succeeded')
    .option('--interval <ms>', `poll interval of --wait (default ${WAIT_INTERVAL_MS})`, parseWholeNumber)
    .action(
      action(
        async (
          id: number,
          flags: { param?: string; wait?: boolean; interval?: number },
          command: Command,
        ) => {
          const client = clientOf(command);
          const json = restFlags(command).json === true;
          const { runId } = await call(
            client.POST('/api/v1/workflows/{id}/trigger', {
              params: { path: { id } },
              body: flags.param === undefined ? {} : { param: flags.param },
            }),
          );
          if (!flags.wait) {
            if (json) return printJson({ runId });
            console.log(`triggered workflow ${id}: run ${runId}`);
            return;
          }
          if (!json) console.log(`triggered workflow ${id}: run ${runId}`);
          await waitForRun(client, runId, { intervalMs: flags.interval ?? WAIT_INTERVAL_MS, json });
        },
      ),
    );
}

function registerRunCommands(workflow: Command): void {
  workflow
    .command('runs')
    .description('list workflow runs, newest first')
    .option('--workflow <id>', 'only the runs of this workflow', parseId)
    .option('--app <app>', 'only the runs of this app’s workflows (id or appName)')
    .addOption(new Option('--status <status>', 'only runs in this status').choices(RUN_STATUSES))
    .option('--limit <n>', 'at most this many (default 50, at most 200)', parseWholeNumber)
    .option('--offset <n>', 'skip this many', parseWholeNumber)
    .action(
      action(
        async (
          flags: { workflow?: number; app?: string; status?: string; limit?: number; offset?: number },
          command: Command,
        ) => {
          const client = clientOf(command);
          const appId = flags.app === undefined ? undefined : (await resolveApp(client, flags.app)).id;
          const page = await call(
            client.GET('/api/v1/workflow-runs', {
              params: {
                query: {
                  workflowId: flags.workflow,
                  appId,
                  status: flags.status as Query<'listWorkflowRuns'>['status'],
                  limit: flags.limit,
                  offset: flags.offset,
                },
              },
            }),
          );
          if (restFlags(command).json) return printJson(page);
          printRunSummaries(page.items);
          printPageFooter(page);
        },
      ),
    );

  workflow
    .command('run')
    .description('show one run with its nodes: status, fires, output, message')
    .argument('<runId>', 'run id', parseId)
    .action(
      action(async (runId: number, _flags: unknown, command: Command) => {
        const run = await readRun(clientOf(command), runId);
        if (restFlags(command).json) return printJson(run);
        printRun(run);
      }),
    );

  workflow
    .command('stop-run')
    .description('stop a run that has not ended')
    .argument('<runId>', 'run id', parseId)
    .action(
      action(async (runId: number, _flags: unknown, command: Command) => {
        const run = await call(
          clientOf(command).POST('/api/v1/workflow-runs/{id}/stop', { params: { path: { id: runId } } }),
        );
        if (restFlags(command).json) return printJson(run);
        console.log(runLine(run));
      }),
    );

  workflow
    .command('retry-node')
    .description('run a failed node of a run again; the run goes on from it')
    .argument('<runId>', 'run id', parseId)
    .argument('<key>', 'the node’s key')
    .action(
      action(async (runId: number, key: string, _flags: unknown, command: Command) => {
        const run = await call(
          clientOf(command).POST('/api/v1/workflow-runs/{id}/nodes/{key}/retry', {
            params: { path: { id: runId, key } },
          }),
        );
        if (restFlags(command).json) return printJson(run);
        console.log(`retrying node ${key}; ${runLine(run)}`);
      }),
    );

  workflow
    .command('mark-node')
    .description('mark a failed node of a run succeeded or skipped; the run goes on from it')
    .argument('<runId>', 'run id', parseId)
    .argument('<key>', 'the node’s key')
    .addOption(
      new Option('--status <status>', 'how the node counts from now on')
        .choices(['succeeded', 'skipped'])
        .makeOptionMandatory(),
    )
    .action(
      action(
        async (runId: number, key: string, flags: { status: 'succeeded' | 'skipped' }, command: Command) => {
          const run = await call(
            clientOf(command).POST('/api/v1/workflow-runs/{id}/nodes/{key}/mark', {
              params: { path: { id: runId, key } },
              body: { status: flags.status },
            }),
          );
          if (restFlags(command).json) return printJson(run);
          console.log(`marked node ${key} ${flags.status}; ${runLine(run)}`);
        },
      ),
    );
}

/** A definition file as a JSON object. @throws CliFailure when it does not read or is no object. */
function readDefinition(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new CliFailure('TW_ERR_INVALID_OPTION', `cannot read ${file}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CliFailure('TW_ERR_INVALID_JSON', `${file} is not JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new CliFailure('TW_ERR_INVALID_JSON', `${file} must hold a JSON object (a workflow definition)`);
  }
  return parsed as Record<string, unknown>;
}

async function appNamesById(client: ApiClient): Promise<Map<number, string>> {
  const apps = await call(client.GET('/api/v1/apps', { params: { query: { limit: 200 } } }));
  return new Map(apps.items.map((app) => [app.id, app.appName]));
}

function printWorkflow(workflow: Workflow): void {
  printRecord([
    ['id', workflow.id],
    ['appId', workflow.appId],
    ['name', workflow.name],
    ['description', clip(workflow.description, 80)],
    ['status', statusText(workflow)],
    ['schedule', scheduleText(workflow)],
    ['timeZone', workflow.timeZone],
    ['nextFireAt', formatTime(workflow.nextFireAt)],
    ['misfireStrategy', workflow.misfireStrategy],
    ['concurrency', workflow.concurrency],
    ['alarmEmail', workflow.alarmEmail || '-'],
    ['alarmChannelIds', workflow.alarmChannelIds.join(',') || '-'],
  ]);
  console.log('');
  printTable(
    ['NODE', 'TYPE', 'RUNS', 'PARAM', 'FLAGS'],
    workflow.nodes.map((node) => [
      node.key,
      node.type ?? 'JOB',
      nodeTarget(node),
      clip(typeof node.param === 'string' ? node.param : null, 60),
      [node.continueOnFailure ? 'continue-on-failure' : '', node.disabled ? 'disabled' : '']
        .filter((flag) => flag !== '')
        .join(',') || '-',
    ]),
  );
  console.log('');
  printTable(
    ['FROM', 'TO', 'CONDITION', 'VALUE'],
    workflow.edges.map((edge) => [edge.from, edge.to, edge.condition ?? 'SUCCESS', edge.value ?? '-']),
  );
}

/** What a node runs: `job 7`, `workflow 3`, or a decision's expression. */
function nodeTarget(node: Workflow['nodes'][number]): string {
  switch (node.type ?? 'JOB') {
    case 'JOB':
      return `job ${String(node.jobId)}`;
    case 'WORKFLOW':
      return `workflow ${String(node.workflowId)}`;
    default:
      return clip(typeof node.expression === 'string' ? node.expression : null, 40);
  }
}

function scheduleText(workflow: Pick<Workflow, 'scheduleType' | 'scheduleConf'>): string {
  return workflow.scheduleType === 'NONE' ? 'NONE' : `${workflow.scheduleType} ${workflow.scheduleConf}`;
}

function statusText(workflow: Pick<Workflow, 'triggerStatus'>): string {
  return workflow.triggerStatus === 1 ? 'running' : 'stopped';
}
