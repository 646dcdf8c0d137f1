/**
 * `tickwheel job list|get|add|update|start|stop|trigger|rm|next` over the REST API. `next`
 * previews a job's next fire times with `previewSchedule`, the same computation the planner uses.
 */
import { type Command, Option } from 'commander';
import { type ApiClient, type Body, call, type Job, type Query } from '../api-client.js';
import { resolveApp } from '../app-ref.js';
import { collectUrls, parseWholeNumber } from '../flag-parsers.js';
import { clip, formatTime, printJson, printPageFooter, printRecord, printTable } from '../output.js';
import { action, CliFailure, clientOf, parseId, restFlags, withServerOptions } from '../rest-command.js';
import { type JobFieldFlags, jobFieldsOf, withJobFieldFlags } from './job-fields.js';

interface ListFlags {
  app?: string;
  name?: string;
  handler?: string;
  status?: 'running' | 'stopped';
  limit?: number;
  offset?: number;
}

export function registerJobCommand(program: Command): void {
  const job = withServerOptions(
    program.command('job').description('list, show, create, change, start, stop, trigger and delete jobs'),
  );

  job
    .command('list')
    .description('list jobs, newest first')
    .option('--app <app>', 'only the jobs of this app (id or appName)')
    .option('--name <text>', 'only jobs whose name contains the text')
    .option('--handler <text>', 'only jobs whose handler contains the text')
    .addOption(
      new Option('--status <status>', 'only running or only stopped jobs').choices(['running', 'stopped']),
    )
    .option('--limit <n>', 'at most this many (default 50, at most 200)', parseWholeNumber)
    .option('--offset <n>', 'skip this many', parseWholeNumber)
    .action(
      action(async (flags: ListFlags, command: Command) => {
        const client = clientOf(command);
        const appId = flags.app === undefined ? undefined : (await resolveApp(client, flags.app)).id;
        const page = await call(
          client.GET('/api/v1/jobs', {
            params: {
              query: {
                appId,
                name: flags.name,
                executorHandler: flags.handler,
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
          ['ID', 'APP', 'NAME', 'SCHEDULE', 'HANDLER', 'STATUS', 'NEXT FIRE'],
          page.items.map((item) => [
            item.id,
            appNames.get(item.appId) ?? item.appId,
            clip(item.name, 40),
            scheduleText(item),
            item.glueType === 'BEAN' ? item.executorHandler : item.glueType,
            statusText(item),
            formatTime(item.nextFireAt),
          ]),
        );
        printPageFooter(page);
      }),
    );

  job
    .command('get')
    .description('show one job')
    .argument('<id>', 'job id', parseId)
    .action(
      action(async (id: number, _flags: unknown, command: Command) => {
        const found = await readJob(clientOf(command), id);
        if (restFlags(command).json) return printJson(found);
        printJob(found);
      }),
    );

  withJobFieldFlags(
    job
      .command('add')
      .description('create a job (stopped unless --start)')
      .requiredOption('--app <app>', 'the app whose executors run it (id or appName)'),
  )
    .option('--start', 'start scheduling it at once')
    .action(
      action(async (flags: JobFieldFlags & { app: string; start?: boolean }, command: Command) => {
        const client = clientOf(command);
        const fields = jobFieldsOf(flags);
        if (fields.name === undefined)
          throw new CliFailure('TW_ERR_INVALID_OPTION', '--name is required to add a job');
        const app = await resolveApp(client, flags.app);
        const body = { ...fields, appId: app.id, ...(flags.start ? { triggerStatus: 1 } : {}) };
        // --data may carry any field of the server's job body: the server checks it, not these types.
        const created = await call(client.POST('/api/v1/jobs', { body: body as Body<'createJob'> }));
        if (restFlags(command).json) return printJson(created);
        console.log(`created job ${created.id} (${created.name}), ${statusText(created)}`);
      }),
    );

  withJobFieldFlags(
    job
      .command('update')
      .description('change a job; what no flag names keeps its value')
      .argument('<id>', 'job id', parseId)
      .option('--app <app>', 'move the job to this app (id or appName)'),
  ).action(
    action(async (id: number, flags: JobFieldFlags & { app?: string }, command: Command) => {
      const client = clientOf(command);
      const fields = jobFieldsOf(flags);
      if (flags.app !== undefined) fields.appId = (await resolveApp(client, flags.app)).id;
      if (Object.keys(fields).length === 0)
        throw new CliFailure('TW_ERR_INVALID_OPTION', 'nothing to change: give at least one field flag');
      const updated = await call(
        client.PATCH('/api/v1/jobs/{id}', { params: { path: { id } }, body: fields as Body<'updateJob'> }),
      );
      if (restFlags(command).json) return printJson(updated);
      console.log(`updated job ${updated.id} (${updated.name})`);
    }),
  );

  job
    .command('start')
    .description('start scheduling a job')
    .argument('<id>', 'job id', parseId)
    .action(
      action(async (id: number, _flags: unknown, command: Command) => {
        const started = await call(
          clientOf(command).POST('/api/v1/jobs/{id}/start', { params: { path: { id } } }),
        );
        if (restFlags(command).json) return printJson(started);
        console.log(
          `started job ${started.id} (${started.name}); next fire at ${formatTime(started.nextFireAt)}`,
        );
      }),
    );

  job
    .command('stop')
    .description('stop scheduling a job (it can still be triggered)')
    .argument('<id>', 'job id', parseId)
    .action(
      action(async (id: number, _flags: unknown, command: Command) => {
        const stopped = await call(
          clientOf(command).POST('/api/v1/jobs/{id}/stop', { params: { path: { id } } }),
        );
        if (restFlags(command).json) return printJson(stopped);
        console.log(`stopped job ${stopped.id} (${stopped.name})`);
      }),
    );

  job
    .command('trigger')
    .description('fire a job once now')
    .argument('<id>', 'job id', parseId)
    .option('--param <param>', 'the param of this run instead of the job’s')
    .option(
      '--address <url>',
      'run on this executor of the app (repeat, or separate with commas)',
      collectUrls,
    )
    .action(
      action(async (id: number, flags: { param?: string; address?: string[] }, command: Command) => {
        const result = await call(
          clientOf(command).POST('/api/v1/jobs/{id}/trigger', {
            params: { path: { id } },
            body: {
              ...(flags.param === undefined ? {} : { executorParam: flags.param }),
              ...(flags.address === undefined ? {} : { addressList: flags.address }),
            },
          }),
        );
        if (restFlags(command).json) return printJson(result);
        console.log(`triggered job ${id}: fire ${result.fireIds.join(', ')}`);
      }),
    );

  job
    .command('rm')
    .description('delete a job and its script versions (its fire records stay)')
    .argument('<id>', 'job id', parseId)
    .action(
      action(async (id: number, _flags: unknown, command: Command) => {
        await call(clientOf(command).DELETE('/api/v1/jobs/{id}', { params: { path: { id } } }));
        if (restFlags(command).json) return printJson({ deleted: id });
        console.log(`deleted job ${id}`);
      }),
    );

  job
    .command('next')
    .description('preview the next fire times of a job’s schedule')
    .argument('<id>', 'job id', parseId)
    .option('-n, --count <n>', 'how many (default 5, at most 100)', parseWholeNumber)
    .action(
      action(async (id: number, flags: { count?: number }, command: Command) => {
        const client = clientOf(command);
        const found = await readJob(client, id);
        const preview = await call(
          client.GET('/api/v1/schedules/preview', {
            params: {
              query: {
                // The job's own, which the server took as one of the schedule types.
                scheduleType: found.scheduleType as Query<'previewSchedule'>['scheduleType'],
                scheduleConf: found.scheduleConf,
                timeZone: found.timeZone,
                count: flags.count ?? 5,
              },
            },
          }),
        );
        if (restFlags(command).json) return printJson(preview);
        if (preview.nextFireTimes.length === 0) {
          console.log(`job ${id} (${scheduleText(found)}) does not fire again on its own`);
          return;
        }
        printTable(
          ['#', 'LOCAL TIME', 'UTC'],
          preview.nextFireTimes.map((at, i) => [i + 1, formatTime(at), new Date(at).toISOString()]),
        );
      }),
    );
}

function readJob(client: ApiClient, id: number): Promise<Job> {
  return call(client.GET('/api/v1/jobs/{id}', { params: { path: { id } } }));
}

async function appNamesById(client: ApiClient): Promise<Map<number, string>> {
  const apps = await call(client.GET('/api/v1/apps', { params: { query: { limit: 200 } } }));
  return new Map(apps.items.map((app) => [app.id, app.appName]));
}

function printJob(job: Job): void {
  printRecord([
    ['id', job.id],
    ['appId', job.appId],
    ['name', job.name],
    ['status', statusText(job)],
    ['schedule', scheduleText(job)],
    ['timeZone', job.timeZone],
    ['nextFireAt', formatTime(job.nextFireAt)],
    ['misfireStrategy', String(job.misfireStrategy)],
    ['route', String(job.executorRouteStrategy)],
    ['handler', job.executorHandler || '-'],
    ['param', clip(String(job.executorParam ?? ''), 80)],
    ['block', String(job.executorBlockStrategy)],
    ['timeout', `${String(job.executorTimeout)} s`],
    ['retries', String(job.executorFailRetryCount)],
    ['glueType', job.glueType],
    ['glueRemark', job.glueRemark || '-'],
    ['childJobIds', job.childJobIds.join(',') || '-'],
    ['alarmEmail', String(job.alarmEmail ?? '') || '-'],
    ['author', String(job.author ?? '') || '-'],
  ]);
}

function scheduleText(job: Pick<Job, 'scheduleType' | 'scheduleConf'>): string {
  return job.scheduleType === 'NONE' ? 'NONE' : `${job.scheduleType} ${job.scheduleConf}`;
}

function statusText(job: Pick<Job, 'triggerStatus'>): string {
  return job.triggerStatus === 1 ? 'running' : 'stopped';
}
