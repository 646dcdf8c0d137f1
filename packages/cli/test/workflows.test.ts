import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { storeOf } from '@tickwheel/server/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt } from './helpers/cli-process.js';
import {
  cli,
  cliJson,
  type RestServer,
  startRestServer,
  startTestExecutor,
  type TestExecutor,
  waitUntil,
} from './helpers/rest-server.js';

interface Job {
  id: number;
}
interface Workflow {
  id: number;
  name: string;
  triggerStatus: number;
  nodes: Array<{ key: string; jobId?: number }>;
}
interface Page<T> {
  items: T[];
  total: number;
}
interface RunNode {
  key: string;
  status: string;
  fireIds: number[];
  output?: unknown;
}
interface Run {
  id: number;
  workflowId: number;
  status: string;
  param: string | null;
  nodes: RunNode[];
}
interface Fire {
  id: number;
  executorParam: string;
  workflowRunId?: number | null;
  workflowNodeKey?: string | null;
}

let rest: RestServer;
let executor: TestExecutor;
let dir: string;
const jobs: Record<string, number> = {};

beforeAll(async () => {
  assertCliBuilt();
  rest = await startRestServer();
  dir = await mkdtemp(path.join(tmpdir(), 'tw-cli-workflows-'));
  await storeOf(rest.server).apps.createApp(
    { appName: 'wf-exec', title: 'Workflows', addressType: 'AUTO' },
    Date.now(),
  );
  executor = await startTestExecutor(rest.server, 'wf-exec', (ex) => {
    ex.handle('extract', async () => ({ batch: 7 }));
    ex.handle('load', async (ctx) => {
      ctx.log(`loading ${ctx.param}`);
      return `loaded ${ctx.param}`;
    });
    ex.handle('broken', async () => {
      throw new Error('the source is gone');
    });
    ex.handle('sleeper', async (ctx) => {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 20_000);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve(undefined);
        });
      });
    });
  });
  for (const handler of ['extract', 'load', 'broken', 'sleeper']) {
    const job = await cliJson<Job>(
      ['job', 'add', '--app', 'wf-exec', '--name', handler, '--handler', handler],
      rest.env,
    );
    jobs[handler] = job.id;
  }
}, 60_000);

afterAll(async () => {
  await executor?.close();
  await rest?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Writes a definition file and returns its path. */
async function definitionFile(name: string, definition: Record<string, unknown>): Promise<string> {
  const file = path.join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(definition, null, 2));
  return file;
}

/** extract → load, the load node's param made of extract's output and the run's param. */
function pipeline(name: string): Record<string, unknown> {
  return {
    name,
    scheduleType: 'NONE',
    nodes: [
      { key: 'extract', jobId: jobs.extract },
      { key: 'load', jobId: jobs.load, param: 'batch ${extract.output.batch} of ${run.param}' },
    ],
    edges: [{ from: 'extract', to: 'load' }],
  };
}

// Each step spawns the CLI, which takes a second or more on a loaded machine.
describe('tickwheel workflow', { timeout: 90_000 }, () => {
  it('creates a workflow from a file, lists it, shows its nodes and edges, starts, stops and deletes it', async () => {
    const file = await definitionFile('nightly', {
      ...pipeline('nightly pipeline'),
      scheduleType: 'CRON',
      scheduleConf: '0 0 3 * * ?',
    });

    const created = await cli(['workflow', 'create', '--file', file, '--app', 'wf-exec'], rest.env);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const id = Number(
      created.stdout.match(/^created workflow (\d+) \(nightly pipeline\) with 2 nodes, stopped$/m)?.[1],
    );
    expect(id).toBeGreaterThan(0);

    const table = await cli(['workflow', 'list', '--app', 'wf-exec'], rest.env);
    expect(table.stdout.split('\n')[0]).toMatch(
      /^ID\s+APP\s+NAME\s+SCHEDULE\s+NODES\s+CONCURRENCY\s+STATUS\s+NEXT FIRE$/,
    );
    expect(table.stdout).toMatch(
      new RegExp(`${id}\\s+wf-exec\\s+nightly pipeline\\s+CRON 0 0 3 \\* \\* \\?\\s+2\\s+\\w+\\s+stopped`),
    );
    const byName = await cliJson<Page<Workflow>>(['workflow', 'list', '--name', 'nightly'], rest.env);
    expect(byName.items.map((workflow) => workflow.id)).toEqual([id]);

    const shown = await cli(['workflow', 'get', String(id)], rest.env);
    expect(shown.stdout).toMatch(/schedule\s+CRON 0 0 3 \* \* \?/);
    expect(shown.stdout).toMatch(new RegExp(`extract\\s+JOB\\s+job ${jobs.extract}`));
    expect(shown.stdout).toMatch(
      /load\s+JOB\s+job \d+\s+batch \$\{extract\.output\.batch\} of \$\{run\.param\}/,
    );
    expect(shown.stdout).toMatch(/extract\s+load\s+SUCCESS/);

    const started = await cli(['workflow', 'start', String(id)], rest.env);
    expect(started.stdout).toMatch(/started workflow \d+ \(nightly pipeline\); next run at \d{4}-\d\d-\d\d/);
    const running = await cliJson<Page<Workflow>>(['workflow', 'list', '--status', 'running'], rest.env);
    expect(running.items.map((workflow) => workflow.id)).toEqual([id]);
    expect((await cliJson<Workflow>(['workflow', 'stop', String(id)], rest.env)).triggerStatus).toBe(0);

    expect((await cli(['workflow', 'delete', String(id)], rest.env)).stdout).toBe(`deleted workflow ${id}\n`);
    expect((await cli(['workflow', 'get', String(id)], rest.env)).code).toBe(5);
  });

  it('reads the definition from stdin with --file -, and update replaces the fields the file names', async () => {
    const definition = JSON.stringify(pipeline('from stdin'));
    const created = JSON.parse(
      (
        await cli(
          ['workflow', 'create', '--file', '-', '--app', 'wf-exec', '--json'],
          rest.env,
          15_000,
          definition,
        )
      ).stdout,
    ) as Workflow;
    expect(created.nodes.map((node) => node.key)).toEqual(['extract', 'load']);

    const patch = JSON.stringify({
      description: 'one node',
      nodes: [{ key: 'only', jobId: jobs.extract }],
      edges: [],
    });
    const updated = await cli(
      ['workflow', 'update', String(created.id), '--file', '-'],
      rest.env,
      15_000,
      patch,
    );

    expect(updated.stdout).toBe(`updated workflow ${created.id} (from stdin)\n`);
    const shown = await cliJson<Workflow & { description: string }>(
      ['workflow', 'get', String(created.id)],
      rest.env,
    );
    expect(shown.description).toBe('one node');
    expect(shown.nodes.map((node) => node.key)).toEqual(['only']);
  });

  it('trigger --wait follows the run to its end, showing progress, and prints its nodes with their fires', async () => {
    const workflow = await cliJson<Workflow>(
      [
        'workflow',
        'create',
        '--app',
        'wf-exec',
        '--file',
        await definitionFile('waited', pipeline('waited')),
      ],
      rest.env,
    );

    const waited = await cli(
      ['workflow', 'trigger', String(workflow.id), '--param', 'april', '--wait', '--interval', '100'],
      rest.env,
      30_000,
    );

    expect(waited.code).toBe(0);
    const runId = Number(
      waited.stdout.match(new RegExp(`^triggered workflow ${workflow.id}: run (\\d+)$`, 'm'))?.[1],
    );
    expect(runId).toBeGreaterThan(0);
    expect(waited.stderr).toMatch(new RegExp(`^run ${runId} \\w+: \\d/2 nodes done`, 'm'));
    expect(waited.stdout).toMatch(/status\s+succeeded/);
    expect(waited.stdout).toMatch(/extract\s+JOB\s+succeeded\s+\d+/);
    expect(waited.stdout).toMatch(/load\s+JOB\s+succeeded\s+\d+/);

    const run = await cliJson<Run>(['workflow', 'run', String(runId)], rest.env);
    expect(run).toMatchObject({ workflowId: workflow.id, status: 'succeeded', param: 'april' });
    const load = run.nodes.find((node) => node.key === 'load')!;
    const fire = await cliJson<Fire>(['fire', 'get', String(load.fireIds[0])], rest.env);
    expect(fire).toMatchObject({
      executorParam: 'batch 7 of april',
      workflowRunId: runId,
      workflowNodeKey: 'load',
    });

    const shown = await cli(['workflow', 'run', String(runId)], rest.env);
    expect(shown.stdout).toMatch(new RegExp(`workflow\\s+${workflow.id} \\(waited\\)`));
    expect(shown.stdout.split('\n').find((line) => line.startsWith('NODE'))).toMatch(
      /^NODE\s+TYPE\s+STATUS\s+FIRES\s+STARTED\s+FINISHED\s+DETAIL$/,
    );
    const runs = await cliJson<Page<Run>>(['workflow', 'runs', '--workflow', String(workflow.id)], rest.env);
    expect(runs.items.map((item) => item.id)).toEqual([runId]);
    const table = await cli(['workflow', 'runs', '--status', 'succeeded'], rest.env);
    expect(table.stdout).toMatch(new RegExp(`^${runId}\\s+${workflow.id} waited\\s+succeeded\\s+\\w+`, 'm'));
  });

  it('trigger --wait exits 1 when the run fails; a failed node can be marked and the run goes on', async () => {
    const workflow = await cliJson<Workflow>(
      [
        'workflow',
        'create',
        '--app',
        'wf-exec',
        '--file',
        await definitionFile('failing', {
          name: 'failing',
          scheduleType: 'NONE',
          nodes: [
            { key: 'fetch', jobId: jobs.broken },
            { key: 'load', jobId: jobs.load, param: 'after fetch' },
          ],
          edges: [{ from: 'fetch', to: 'load' }],
        }),
      ],
      rest.env,
    );

    const waited = await cli(
      ['workflow', 'trigger', String(workflow.id), '--wait', '--interval', '100'],
      rest.env,
      30_000,
    );

    expect(waited.code).toBe(1);
    expect(waited.stdout).toMatch(/status\s+failed/);
    expect(waited.stdout).toMatch(/fetch\s+JOB\s+failed/);
    const runId = Number(waited.stdout.match(/run (\d+)/)?.[1]);

    const retrySucceeded = await cli(['workflow', 'retry-node', String(runId), 'load'], rest.env);
    expect(retrySucceeded.code).toBe(1);
    expect(retrySucceeded.stderr).toMatch(/^error: .+/);

    const marked = await cli(
      ['workflow', 'mark-node', String(runId), 'fetch', '--status', 'succeeded'],
      rest.env,
    );
    expect(marked.stderr).toBe('');
    expect(marked.stdout).toMatch(
      new RegExp(`^marked node fetch succeeded; run ${runId} \\w+: \\d/2 nodes done`),
    );
    await waitUntil(
      async () => (await cliJson<Run>(['workflow', 'run', String(runId)], rest.env)).status === 'succeeded',
    );
    const run = await cliJson<Run>(['workflow', 'run', String(runId)], rest.env);
    expect(run.nodes.map((node) => `${node.key} ${node.status}`)).toEqual([
      'fetch succeeded',
      'load succeeded',
    ]);
    const unknown = await cli(
      ['workflow', 'mark-node', String(runId), 'fetch', '--status', 'failed'],
      rest.env,
    );
    expect(unknown.code).toBe(2);
  });

  it('stop-run stops a running run', async () => {
    const workflow = await cliJson<Workflow>(
      [
        'workflow',
        'create',
        '--app',
        'wf-exec',
        '--file',
        await definitionFile('slow', {
          name: 'slow',
          scheduleType: 'NONE',
          nodes: [{ key: 'sleep', jobId: jobs.sleeper }],
          edges: [],
        }),
      ],
      rest.env,
    );
    const { runId } = await cliJson<{ runId: number }>(
      ['workflow', 'trigger', String(workflow.id)],
      rest.env,
    );

    const stopped = await cli(['workflow', 'stop-run', String(runId)], rest.env);

    expect(stopped.stderr).toBe('');
    expect(stopped.stdout).toMatch(new RegExp(`^run ${runId} stopped: `));
    expect((await cliJson<Run>(['workflow', 'run', String(runId)], rest.env)).status).toBe('stopped');
    const again = await cli(['workflow', 'stop-run', String(runId)], rest.env);
    expect(again.code).toBe(1);
  });

  it('refuses a graph with a cycle, naming the field, with exit code 1', async () => {
    const file = await definitionFile('cycle', {
      name: 'cycle',
      scheduleType: 'NONE',
      nodes: [
        { key: 'A', jobId: jobs.extract },
        { key: 'B', jobId: jobs.load },
      ],
      edges: [
        { from: 'A', to: 'B' },
        { from: 'B', to: 'A' },
      ],
    });

    const plain = await cli(['workflow', 'create', '--app', 'wf-exec', '--file', file], rest.env);
    const json = await cli(['workflow', 'create', '--app', 'wf-exec', '--file', file, '--json'], rest.env);

    expect(plain.code).toBe(1);
    expect(plain.stderr).toBe('error: edges: the graph has a cycle: A → B → A\n');
    expect(JSON.parse(json.stderr)).toMatchObject({
      error: { code: 'TW_ERR_INVALID_FIELD', field: 'edges' },
    });
  });

  it('refuses a definition file that is not JSON, and a missing one as a usage error', async () => {
    const file = path.join(dir, 'broken.json');
    await writeFile(file, '{ nodes: ');

    const notJson = await cli(['workflow', 'create', '--file', file], rest.env);
    const missing = await cli(['workflow', 'create', '--file', path.join(dir, 'nope.json')], rest.env);

    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(/^error: .*broken\.json is not JSON/);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: cannot read .*nope\.json/);
  });
});
