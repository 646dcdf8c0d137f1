import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt } from './helpers/cli-process.js';
import { cli, cliJson, type RestServer, startRestServer } from './helpers/rest-server.js';

interface Job {
  id: number;
  name: string;
  childJobIds: number[];
  glueSource: string;
  triggerStatus: number;
}

let source: RestServer;
let target: RestServer;
let dir: string;

beforeAll(async () => {
  assertCliBuilt();
  [source, target] = await Promise.all([startRestServer(), startRestServer()]);
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-cli-export-'));
  await seed(source);
}, 60_000);

afterAll(async () => {
  await Promise.all([source?.close(), target?.close()]);
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Two apps, a BEAN job started on a cron, a shell script job and a parent with two children. */
async function seed(server: RestServer): Promise<void> {
  const run = async (...args: string[]) => {
    const result = await cli(args, server.env);
    if (result.code !== 0) throw new Error(`${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };
  await run('app', 'add', 'orders', '--title', 'Orders');
  await run('app', 'add', 'legacy', '--address', 'http://127.0.0.1:9999/');
  const scriptFile = path.join(dir, 'cleanup.sh');
  await writeFile(scriptFile, 'echo cleaning\nexit 0\n');
  await run(
    'job',
    'add',
    '--app',
    'orders',
    '--name',
    'nightly',
    '--cron',
    '0 0 3 * * ?',
    '--handler',
    'nightly',
    '--start',
  );
  const cleanup = await cliJson<Job>(
    [
      'job',
      'add',
      '--app',
      'legacy',
      '--name',
      'cleanup',
      '--glue-type',
      'GLUE_SHELL',
      '--script',
      scriptFile,
      '--glue-remark',
      'v1',
    ],
    server.env,
  );
  await writeFile(scriptFile, 'echo cleaning everything\nexit 0\n');
  await run('job', 'update', String(cleanup.id), '--script', scriptFile, '--glue-remark', 'v2');
  const childA = await cliJson<Job>(
    ['job', 'add', '--app', 'orders', '--name', 'child a', '--handler', 'a'],
    server.env,
  );
  const childB = await cliJson<Job>(
    ['job', 'add', '--app', 'legacy', '--name', 'child b', '--handler', 'b'],
    server.env,
  );
  await run(
    'job',
    'add',
    '--app',
    'orders',
    '--name',
    'parent',
    '--handler',
    'p',
    '--child',
    `${childA.id},${childB.id}`,
  );
}

/** The remarks of a job's script versions, newest first, read through the REST API. */
async function scriptRemarks(server: RestServer, name: string): Promise<string[]> {
  const job = (await cliJson<{ items: Job[] }>(['job', 'list', '--name', name], server.env)).items[0]!;
  const response = await fetch(`${server.url}api/v1/jobs/${job.id}/script/versions`, {
    headers: { authorization: `Bearer ${server.env.TICKWHEEL_TOKEN}` },
  });
  const { items } = (await response.json()) as { items: Array<{ glueRemark: string }> };
  return items.map((version) => version.glueRemark);
}

async function exportFrom(server: RestServer): Promise<Record<string, unknown>> {
  const result = await cli(['export'], server.env);
  expect(result.code).toBe(0);
  const { exportedAt: _exportedAt, ...doc } = JSON.parse(result.stdout) as Record<string, unknown>;
  return doc;
}

// Each step spawns the CLI, which takes a second or more on a loaded machine.
describe('tickwheel export and import', { timeout: 90_000 }, () => {
  it('exports apps and jobs by name, with scripts and child jobs', async () => {
    const doc = (await exportFrom(source)) as {
      apps: Array<{ appName: string }>;
      jobs: Array<{ appName: string; name: string; childJobs: unknown[]; glueSource: string }>;
    };

    expect(doc.apps.map((app) => app.appName)).toEqual(['legacy', 'orders']);
    expect(doc.jobs.map((job) => `${job.appName}/${job.name}`)).toEqual([
      'legacy/child b',
      'legacy/cleanup',
      'orders/child a',
      'orders/nightly',
      'orders/parent',
    ]);
    const parent = doc.jobs.find((job) => job.name === 'parent');
    expect(parent?.childJobs).toEqual([
      { appName: 'orders', name: 'child a' },
      { appName: 'legacy', name: 'child b' },
    ]);
    const cleanup = doc.jobs.find((job) => job.name === 'cleanup');
    expect(cleanup).toMatchObject({
      glueType: 'GLUE_SHELL',
      glueSource: 'echo cleaning everything\nexit 0\n',
      glueRemark: 'v2',
      scriptHistory: [{ glueType: 'GLUE_SHELL', glueSource: 'echo cleaning\nexit 0\n', glueRemark: 'v1' }],
    });
    expect(JSON.stringify(doc)).not.toMatch(/"(id|appId|childJobIds)":/);
  });

  it('imports into another server, then a second import changes nothing and says so', async () => {
    const file = path.join(dir, 'jobs.json');
    const exported = await cli(['export', '--output', file], source.env);
    expect(exported.code).toBe(0);

    const first = await cli(['import', file], target.env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/apps: 2 created, 0 updated, 0 unchanged/);
    expect(first.stdout).toMatch(/jobs: 5 created, 0 updated, 0 unchanged/);
    // Each new app has a token of its own, printed once, which registers its executors.
    const tokens = [...first.stdout.matchAll(/^ {2}([\w.-]+): (\S{32,})$/gm)].map((m) => [m[1], m[2]]);
    expect(tokens).toHaveLength(2);
    for (const [appName, token] of tokens) {
      const answer = await fetch(new URL('api/registry', target.server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'XXL-JOB-ACCESS-TOKEN': token! },
        body: JSON.stringify({
          registryGroup: 'EXECUTOR',
          registryKey: appName,
          registryValue: 'http://127.0.0.1:9/',
        }),
      });
      expect(((await answer.json()) as { code: number }).code).toBe(200);
    }

    const second = await cli(['import', file], target.env);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/apps: 0 created, 0 updated, 2 unchanged/);
    expect(second.stdout).toMatch(/jobs: 0 created, 0 updated, 5 unchanged/);
    expect(second.stdout).toMatch(/nothing changed/);

    // Same apps and jobs, child jobs pointing at the target's own ids; every job stopped.
    const { jobs: sourceJobs, ...sourceRest } = (await exportFrom(source)) as {
      jobs: Array<Record<string, unknown>>;
    };
    const { jobs: targetJobs, ...targetRest } = (await exportFrom(target)) as {
      jobs: Array<Record<string, unknown>>;
    };
    expect(targetRest).toEqual(sourceRest);
    expect(targetJobs).toEqual(sourceJobs.map((job) => ({ ...job, triggerStatus: 0 })));
    const parent = (await cliJson<{ items: Job[] }>(['job', 'list', '--name', 'parent'], target.env))
      .items[0]!;
    const children = await Promise.all(
      parent.childJobIds.map((id) => cliJson<Job>(['job', 'get', String(id)], target.env)),
    );
    expect(children.map((job) => job.name)).toEqual(['child a', 'child b']);
    expect(await scriptRemarks(target, 'cleanup')).toEqual(await scriptRemarks(source, 'cleanup'));
    expect(await scriptRemarks(target, 'cleanup')).toEqual(['v2', 'v1']);
  });

  it('updates only what changed in the file, and reports it as JSON for scripts', async () => {
    const file = path.join(dir, 'edited.json');
    await cli(['export', '--output', file], source.env);
    await cli(['import', file], target.env);
    const doc = JSON.parse(await readFile(file, 'utf8')) as { jobs: Array<Record<string, unknown>> };
    const nightly = doc.jobs.find((job) => job.name === 'nightly')!;
    nightly.executorParam = 'full';
    doc.jobs.find((job) => job.name === 'parent')!.childJobs = [];
    await writeFile(file, JSON.stringify(doc));

    const report = await cliJson<{ jobs: { created: string[]; updated: string[]; unchanged: string[] } }>(
      ['import', file],
      target.env,
    );

    expect(report.jobs.updated.sort()).toEqual(['orders/nightly', 'orders/parent']);
    expect(report.jobs.created).toEqual([]);
    expect(report.jobs.unchanged).toHaveLength(3);
  });

  it('refuses a file that is not an export, with exit code 1', async () => {
    const file = path.join(dir, 'not-an-export.json');
    await writeFile(file, '{"apps": []}');

    const result = await cli(['import', file], target.env);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/is not a Tickwheel export/);
  });
});
