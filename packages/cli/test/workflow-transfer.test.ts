import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt } from './helpers/cli-process.js';
import { cli, cliJson, type RestServer, startRestServer } from './helpers/rest-server.js';

interface Job {
  id: number;
  name: string;
}
interface Workflow {
  id: number;
  name: string;
  nodes: Array<{ key: string; type?: string; jobId?: number; workflowId?: number }>;
}
interface ExportedWorkflow {
  appName: string;
  name: string;
  nodes: Array<Record<string, unknown>>;
  [field: string]: unknown;
}
interface Doc {
  jobs: Array<Record<string, unknown>>;
  workflows?: ExportedWorkflow[];
  [field: string]: unknown;
}
interface Outcomes {
  created: string[];
  updated: string[];
  unchanged: string[];
}
interface Report {
  workflows: Outcomes;
  failed: Array<{ kind: string; name: string; message: string }>;
}

let source: RestServer;
let target: RestServer;
let dir: string;

beforeAll(async () => {
  assertCliBuilt();
  [source, target] = await Promise.all([startRestServer(), startRestServer()]);
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-cli-workflow-transfer-'));
  await seed(source);
  // The target has one of the source's two alarm channels.
  await addChannel(target, 'ops-hook');
}, 60_000);

afterAll(async () => {
  await Promise.all([source?.close(), target?.close()]);
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/**
 * Two apps; `orders/a-month-end` runs the job `extract`, then the workflow `billing/b-invoicing`
 * (a job of another app). The nesting workflow sorts first, so the import must order them.
 */
async function seed(server: RestServer): Promise<void> {
  const run = async (...args: string[]) => {
    const result = await cli(args, server.env);
    if (result.code !== 0) throw new Error(`${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };
  await run('app', 'add', 'orders');
  await run('app', 'add', 'billing');
  const channels = [await addChannel(server, 'ops-hook'), await addChannel(server, 'pager')];
  const extract = await cliJson<Job>(
    ['job', 'add', '--app', 'orders', '--name', 'extract', '--handler', 'extract'],
    server.env,
  );
  const invoice = await cliJson<Job>(
    ['job', 'add', '--app', 'billing', '--name', 'invoice', '--handler', 'invoice'],
    server.env,
  );
  const invoicing = await createWorkflow(server, 'billing', {
    name: 'b-invoicing',
    description: 'one invoice run',
    scheduleType: 'NONE',
    concurrency: 'DISCARD',
    nodes: [{ key: 'invoice', jobId: invoice.id, param: '${run.param}', retryCount: 2 }],
    edges: [],
  });
  const monthEnd = await createWorkflow(server, 'orders', {
    name: 'a-month-end',
    scheduleType: 'CRON',
    scheduleConf: '0 0 1 1 * ?',
    timeZone: 'Europe/Paris',
    alarmChannelIds: channels,
    nodes: [
      { key: 'extract', jobId: extract.id, position: { x: 10, y: 20 } },
      { key: 'check', type: 'DECISION', expression: "upstream.extract.status == 'succeeded'" },
      { key: 'bill', type: 'WORKFLOW', workflowId: invoicing.id },
    ],
    edges: [
      { from: 'extract', to: 'check', condition: 'ALWAYS' },
      { from: 'check', to: 'bill', value: 'true' },
    ],
  });
  await run('workflow', 'start', String(monthEnd.id));
}

/** A WEBHOOK alarm channel (never sent to here); its id. */
async function addChannel(server: RestServer, name: string): Promise<number> {
  const channel = await cliJson<{ id: number }>(
    ['channel', 'add', name, '--type', 'WEBHOOK', '--set', 'url=http://127.0.0.1:9/hook'],
    server.env,
  );
  return channel.id;
}

async function createWorkflow(
  server: RestServer,
  app: string,
  definition: Record<string, unknown>,
): Promise<Workflow> {
  const file = path.join(dir, `${String(definition.name)}-${server.server.url.replace(/\W/g, '')}.json`);
  await writeFile(file, JSON.stringify(definition));
  return cliJson<Workflow>(['workflow', 'create', '--app', app, '--file', file], server.env);
}

async function exportFrom(server: RestServer): Promise<Doc> {
  const result = await cli(['export'], server.env);
  expect(result.code).toBe(0);
  const { exportedAt: _exportedAt, ...doc } = JSON.parse(result.stdout) as Doc & { exportedAt: string };
  return doc;
}

async function workflowNamed(server: RestServer, name: string): Promise<Workflow> {
  const page = await cliJson<{ items: Workflow[] }>(['workflow', 'list', '--name', name], server.env);
  return page.items.find((workflow) => workflow.name === name)!;
}

// Each step spawns the CLI, which takes a second or more on a loaded machine.
describe('tickwheel export and import of workflows', { timeout: 90_000 }, () => {
  it('exports workflows with their nodes naming jobs and workflows by app and name, never by id', async () => {
    const doc = await exportFrom(source);

    expect(doc.workflows?.map((workflow) => `${workflow.appName}/${workflow.name}`)).toEqual([
      'billing/b-invoicing',
      'orders/a-month-end',
    ]);
    const monthEnd = doc.workflows![1]!;
    expect(monthEnd).toMatchObject({
      triggerStatus: 1,
      scheduleType: 'CRON',
      scheduleConf: '0 0 1 1 * ?',
      timeZone: 'Europe/Paris',
      alarmChannels: ['ops-hook', 'pager'],
      edges: [
        { from: 'extract', to: 'check', condition: 'ALWAYS' },
        { from: 'check', to: 'bill', value: 'true' },
      ],
    });
    expect(monthEnd.nodes).toEqual([
      expect.objectContaining({
        key: 'extract',
        job: { appName: 'orders', name: 'extract' },
        position: { x: 10, y: 20 },
      }),
      expect.objectContaining({
        key: 'check',
        type: 'DECISION',
        expression: "upstream.extract.status == 'succeeded'",
      }),
      expect.objectContaining({
        key: 'bill',
        type: 'WORKFLOW',
        workflow: { appName: 'billing', name: 'b-invoicing' },
      }),
    ]);
    expect(doc.workflows![0]).toMatchObject({
      description: 'one invoice run',
      concurrency: 'DISCARD',
      alarmChannels: [],
    });
    expect(JSON.stringify(doc.workflows)).not.toMatch(/"(id|appId|jobId|workflowId|alarmChannelIds)":/);
  });

  it('imports into a fresh server, nested workflow first, refs on the target’s ids; a second import changes nothing', async () => {
    const file = path.join(dir, 'everything.json');
    expect((await cli(['export', '--output', file], source.env)).code).toBe(0);

    const dryRun = await cli(['import', file, '--dry-run'], target.env);
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout).toMatch(/workflows: 2 to create, 0 to update, 0 unchanged/);
    expect((await cliJson<{ items: Workflow[] }>(['workflow', 'list'], target.env)).items).toEqual([]);

    const first = await cli(['import', file], target.env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/jobs: 2 created, 0 updated, 0 unchanged/);
    expect(first.stdout).toMatch(/workflows: 2 created, 0 updated, 0 unchanged/);
    expect(first.stdout).toMatch(/^ {2}\+ workflow orders\/a-month-end$/m);
    expect(first.stdout).toMatch(
      /^note: workflow orders\/a-month-end: alarm channel "pager" does not exist here; left out$/m,
    );

    const second = await cli(['import', file], target.env);
    expect(second.stdout).toMatch(/workflows: 0 created, 0 updated, 2 unchanged/);
    expect(second.stdout).toMatch(/nothing changed/);

    // The same document out of the target, but every schedule stopped and one channel missing.
    const { workflows: sourceWorkflows, jobs: _sourceJobs, ...sourceRest } = await exportFrom(source);
    const { workflows: targetWorkflows, jobs: _targetJobs, ...targetRest } = await exportFrom(target);
    expect(targetRest).toEqual(sourceRest);
    expect(targetWorkflows).toEqual(
      sourceWorkflows!.map((workflow) => ({
        ...workflow,
        triggerStatus: 0,
        ...(workflow.name === 'a-month-end' ? { alarmChannels: ['ops-hook'] } : {}),
      })),
    );
    const monthEnd = await workflowNamed(target, 'a-month-end');
    const invoicing = await workflowNamed(target, 'b-invoicing');
    const extract = (await cliJson<{ items: Job[] }>(['job', 'list', '--name', 'extract'], target.env))
      .items[0]!;
    expect(monthEnd.nodes.find((node) => node.key === 'bill')?.workflowId).toBe(invoicing.id);
    expect(monthEnd.nodes.find((node) => node.key === 'extract')?.jobId).toBe(extract.id);
  });

  it('updates a workflow whose nodes changed in the file, and only that one', async () => {
    const file = path.join(dir, 'edited.json');
    await cli(['export', '--output', file], source.env);
    await cli(['import', file], target.env);
    const doc = JSON.parse(await readFile(file, 'utf8')) as Doc;
    const monthEnd = doc.workflows!.find((workflow) => workflow.name === 'a-month-end')!;
    monthEnd.nodes = monthEnd.nodes.filter((node) => node.key !== 'bill');
    monthEnd.edges = [{ from: 'extract', to: 'check' }];
    await writeFile(file, JSON.stringify(doc));

    const report = await cliJson<Report>(['import', file], target.env);

    expect(report.workflows).toEqual({
      created: [],
      updated: ['orders/a-month-end'],
      unchanged: ['billing/b-invoicing'],
    });
    expect((await workflowNamed(target, 'a-month-end')).nodes.map((node) => node.key)).toEqual([
      'extract',
      'check',
    ]);
  });

  it('refuses a workflow whose node names a job that is nowhere, naming the workflow and the node', async () => {
    const file = path.join(dir, 'unresolved.json');
    const doc = await exportFrom(source);
    doc.workflows!.find((workflow) => workflow.name === 'a-month-end')!.nodes[0]!.job = {
      appName: 'orders',
      name: 'no such job',
    };
    await writeFile(file, JSON.stringify({ ...doc, exportedAt: new Date().toISOString() }));

    const result = await cli(['import', file], target.env);

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^ {2}! workflow orders\/a-month-end: node "extract": job orders\/no such job is neither in the file nor on the server$/m,
    );
    expect(result.stdout).toMatch(/workflows: 0 created, \d updated, \d unchanged/);
  });

  it('imports a document written before workflows as before', async () => {
    const file = path.join(dir, 'no-workflows.json');
    const { workflows: _workflows, ...doc } = await exportFrom(source);
    await writeFile(file, JSON.stringify({ ...doc, exportedAt: new Date().toISOString() }));

    const result = await cli(['import', file], target.env);

    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/workflow/);
  });
});
