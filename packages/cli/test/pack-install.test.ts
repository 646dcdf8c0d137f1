/**
 * The published packages work on their own: each workspace is packed with `npm pack`, the
 * tarballs are installed into an empty project outside the repository (third-party dependencies
 * from the npm registry), and that project runs Tickwheel as a user would: `npx tickwheel start`,
 * an executor of its own importing `@tickwheel/executor`, a job created and triggered through the
 * REST API, and `npx tickwheel demo`. Needs the build (`npm run build`, the console included) and
 * the registry.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outsideReferences } from './helpers/package-references.js';
import {
  type PackedPackage,
  ProjectProcess,
  PUBLISHED,
  packWorkspaces,
  REPO_ROOT,
  run,
  runOk,
} from './helpers/packed-project.js';

const ACCESS_TOKEN = 'pack-install-access-token-0123456789';
const API_TOKEN = 'pack-install-api-token-0123456789';
const ADMIN_PASSWORD = 'pack-install-admin-password';
const SECRETS = {
  TICKWHEEL_ACCESS_TOKEN: ACCESS_TOKEN,
  TICKWHEEL_API_TOKEN: API_TOKEN,
  TICKWHEEL_ADMIN_PASSWORD: ADMIN_PASSWORD,
};
const INSTALL_TIMEOUT_MS = 4 * 60_000;

/** The executor a user writes: one handler, registered with the server named in its environment. */
const EXECUTOR_SCRIPT = `import { createExecutor } from '@tickwheel/executor';

const executor = createExecutor({
  appName: 'pack-check',
  serverAddresses: [process.env.TICKWHEEL_SERVER],
  accessToken: process.env.TICKWHEEL_ACCESS_TOKEN,
  port: 0,
  logDir: './tickwheel-logs',
});
executor.handle('say-hello', (ctx) => {
  ctx.log(\`hello, \${ctx.param}\`);
  return \`hello, \${ctx.param}\`;
});
await executor.start();
console.log(\`executor listening on \${executor.address}\`);
process.once('SIGTERM', () => void executor.stop().then(() => process.exit(0)));
`;

/** The same in TypeScript, compiled against the installed packages' own declarations. */
const TYPED_SCRIPT = `import { createExecutor, type JobContext } from '@tickwheel/executor';
import { nextFireTimes } from '@tickwheel/protocol';
import { SCHEDULE_TYPES, type ScheduleType } from '@tickwheel/protocol/enums';
import { consoleDir } from '@tickwheel/console';
import type { ServerOptions } from '@tickwheel/server/options';
import type { TickwheelServer } from '@tickwheel/server';
import { main } from 'tickwheel';

const executor = createExecutor({ appName: 'typed', accessToken: 'x', serverAddresses: [] });
executor.handle('typed', (ctx: JobContext) => ctx.param.length);
const next: number[] = nextFireTimes({ scheduleType: 'CRON', scheduleConf: '0 * * * * ?', timeZone: 'UTC' }, 0, 2);
const type: ScheduleType = SCHEDULE_TYPES[0];
const dir: string = consoleDir;
const options: ServerOptions = { port: 0 };
const run: (argv: string[]) => Promise<void> = main;
export type { TickwheelServer };
export { next, type, dir, options, run };
`;

/** Prints what the installed protocol package computes, as JSON. */
const PROTOCOL_SCRIPT = `import { nextFireTimes, isTickwheelError } from '@tickwheel/protocol';
import { SCHEDULE_TYPES } from '@tickwheel/protocol/enums';

const next = nextFireTimes({ scheduleType: 'CRON', scheduleConf: '0 0 * * * ?', timeZone: 'UTC' }, 0, 2);
console.log(JSON.stringify({ next, scheduleTypes: SCHEDULE_TYPES, isTickwheelError: typeof isTickwheelError }));
`;

let tempDir: string;
let project: string;
let packed: PackedPackage[];
const started: ProjectProcess[] = [];
let installMs = 0;

beforeAll(async () => {
  for (const built of ['packages/cli/dist/main.js', 'packages/console/dist/index.html']) {
    if (!existsSync(path.join(REPO_ROOT, built)))
      throw new Error(`${built} is missing: run \`npm run build\``);
  }
  tempDir = await mkdtemp(path.join(os.tmpdir(), 'tw-pack-install-'));
  project = path.join(tempDir, 'project');
  const tarballs = path.join(tempDir, 'tarballs');
  await mkdir(project);
  await mkdir(tarballs);
  packed = await packWorkspaces(tarballs);
  await writeFile(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'pack-check', private: true, type: 'module' }, null, 2)}\n`,
  );
  const started = Date.now();
  await runOk(
    'npm',
    ['install', '--no-audit', '--no-fund', ...packed.map((p) => path.join(tarballs, p.filename))],
    project,
    INSTALL_TIMEOUT_MS,
  );
  installMs = Date.now() - started;
}, INSTALL_TIMEOUT_MS + 120_000);

afterAll(async () => {
  for (const process of started) await process.stop();
  if (tempDir !== undefined) await rm(tempDir, { recursive: true, force: true });
  if (installMs > 0) console.log(`pack-install: npm install of the tarballs took ${installMs} ms`);
}, 60_000);

/** Starts `command` in the project and remembers it for the clean-up. */
function startInProject(command: string, args: string[], env: Record<string, string> = {}): ProjectProcess {
  const child = new ProjectProcess(command, args, project, env);
  started.push(child);
  return child;
}

describe('the packed packages', () => {
  it('are the six published packages, each with a README, a LICENSE and only its own files', () => {
    expect(packed.map((p) => p.name)).toEqual([...PUBLISHED]);
    for (const pack of packed) {
      const files = pack.files.map((f) => f.path);
      expect(files, pack.name).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE']));
      expect(
        files.filter((f) => f.includes('test/') || f.endsWith('.tsbuildinfo')),
        pack.name,
      ).toEqual([]);
    }
  });

  it('install the console without the browser libraries it bundles', async () => {
    expect(existsSync(path.join(project, 'node_modules/@tickwheel/console/dist/index.html'))).toBe(true);
    for (const library of ['react', 'react-dom', 'antd', 'echarts', '@codemirror/view']) {
      expect(existsSync(path.join(project, 'node_modules', library)), library).toBe(false);
    }
  });

  it('carry the Apache 2.0 licence and point at the repository', async () => {
    for (const name of PUBLISHED) {
      const dir = path.join(project, 'node_modules', name);
      const manifest = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
      expect(manifest.license, name).toBe('Apache-2.0');
      expect(manifest.private, name).toBeUndefined();
      expect(manifest.repository?.url, name).toMatch(/^git\+https:\/\//);
      expect(manifest.homepage, name).toMatch(/^https:\/\//);
      expect(manifest.types, name).toBeDefined();
      expect(manifest.exports?.['.'], name).toBeDefined();
      expect(await readFile(path.join(dir, 'LICENSE'), 'utf8'), name).toMatch(
        /Apache License\s+Version 2\.0, January 2004/,
      );
    }
  });

  it('reference nothing outside themselves once installed', () => {
    for (const name of PUBLISHED) {
      expect(outsideReferences(path.join(project, 'node_modules', name), REPO_ROOT), name).toEqual([]);
    }
  });
});

describe('the installed project', () => {
  it('imports @tickwheel/protocol and its enums entry', async () => {
    await writeFile(path.join(project, 'protocol-check.mjs'), PROTOCOL_SCRIPT);

    const output = JSON.parse(await runOk('node', ['protocol-check.mjs'], project, 30_000));

    expect(output).toEqual({
      next: [3_600_000, 7_200_000],
      scheduleTypes: expect.arrayContaining(['CRON', 'FIX_RATE']),
      isTickwheelError: 'function',
    });
  });

  it('compiles TypeScript against the declarations the packages ship', async () => {
    await writeFile(path.join(project, 'typed-check.ts'), TYPED_SCRIPT);
    const tsconfig = {
      compilerOptions: {
        target: 'ES2023',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        // Node's types from the checkout: the project itself installs nothing but the tarballs.
        typeRoots: [path.join(REPO_ROOT, 'node_modules/@types')],
        types: ['node'],
      },
      files: ['typed-check.ts'],
    };
    await writeFile(path.join(project, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');

    const result = await run('node', [tsc, '-p', 'tsconfig.json'], project, 60_000);

    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('runs `npx tickwheel --help`', async () => {
    const output = await runOk('npx', ['--no-install', 'tickwheel', '--help'], project, 30_000);

    expect(output).toMatch(/^Usage: tickwheel/m);
    expect(output).toMatch(/\bstart \[options\]/);
    expect(output).toMatch(/\bdemo \[options\]/);
  });

  it('starts the server, runs its own executor and a demo executor, and a triggered job succeeds', async () => {
    const server = startInProject(
      'npx',
      ['--no-install', 'tickwheel', 'start', '--port', '0', '--host', '127.0.0.1', '--data-dir', './data'],
      SECRETS,
    );
    const [, url] = await server.waitForOutput(/listening on (http:\/\/127\.0\.0\.1:\d+\/)/);
    expect(server.stdout).toMatch(/web console:\s+http:\/\/127\.0\.0\.1:\d+\/ {2}\(sign in as admin\)/);
    const api = restClient(url!);
    // The seeded secrets: the admin signs in with the password given, the API token is accepted.
    expect((await signIn(url!, ADMIN_PASSWORD)).status).toBe(200);
    expect(await (await fetch(url!)).text()).toMatch(/<!doctype html>/i);

    await writeFile(path.join(project, 'executor.mjs'), EXECUTOR_SCRIPT);
    // Each app created has an executor token of its own, answered once: its executors use it.
    const app = await api.post<{ id: number; accessToken: string }>('apps', {
      appName: 'pack-check',
      title: 'Pack check',
    });
    const executor = startInProject('node', ['executor.mjs'], {
      ...SECRETS,
      TICKWHEEL_ACCESS_TOKEN: app.accessToken,
      TICKWHEEL_SERVER: url!,
    });
    await executor.waitForOutput(/executor listening on http:/);
    await waitForExecutor(api, app.id);

    const fire = await triggerNewJob(
      api,
      { appId: app.id, name: 'hello', executorHandler: 'say-hello' },
      'npm',
    );
    expect(fire).toMatchObject({ status: 'succeeded', handleCode: 200, handleMsg: 'hello, npm' });

    // `tickwheel demo` runs the example app shipped inside the CLI package; its worker handler
    // (crunch-numbers, a module loaded by a worker thread) finds its file there too.
    const demoApp = await api.post<{ id: number; accessToken: string }>('apps', {
      appName: 'tickwheel-demo',
      title: 'Demo',
    });
    const demo = startInProject(
      'npx',
      ['--no-install', 'tickwheel', 'demo', '--port', '0', '--log-dir', './demo-logs', '--server', url!],
      { ...SECRETS, TICKWHEEL_ACCESS_TOKEN: demoApp.accessToken },
    );
    await demo.waitForOutput(/Demo executor listening on http:/);
    await waitForExecutor(api, demoApp.id);
    const crunched = await triggerNewJob(
      api,
      { appId: demoApp.id, name: 'crunch', executorHandler: 'crunch-numbers' },
      '10000',
    );
    expect(crunched).toMatchObject({
      status: 'succeeded',
      handleCode: 200,
      handleMsg: '1229 primes below 10000',
    });

    for (const child of [demo, executor, server]) await child.stop();
    expect(server.stdout).toMatch(/SIGTERM: stopping/);
  }, 120_000);
});

interface RestClient {
  get<T>(resource: string): Promise<T>;
  post<T>(resource: string, body: object): Promise<T>;
}

function restClient(url: string): RestClient {
  const call = async <T>(method: string, resource: string, body?: object): Promise<T> => {
    const response = await fetch(`${url}api/v1/${resource}`, {
      method,
      headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${resource}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  return { get: (resource) => call('GET', resource), post: (resource, body) => call('POST', resource, body) };
}

function signIn(url: string, password: string): Promise<Response> {
  return fetch(`${url}api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
}

async function waitForExecutor(api: RestClient, appId: number): Promise<void> {
  await until(async () => (await api.get<{ items: unknown[] }>(`apps/${appId}/executors`)).items.length > 0);
}

interface Fire {
  status: string;
  handleCode: number | null;
  handleMsg: string | null;
}

/** Creates a stopped job, triggers it once with `param` and returns its fire record once it ended. */
async function triggerNewJob(api: RestClient, job: object, param: string): Promise<Fire> {
  const { id } = await api.post<{ id: number }>('jobs', job);
  const { fireIds } = await api.post<{ fireIds: number[] }>(`jobs/${id}/trigger`, { executorParam: param });
  let fire: Fire | undefined;
  await until(async () => {
    fire = await api.get<Fire>(`fires/${fireIds[0]}`);
    return fire.status !== 'pending' && fire.status !== 'dispatched';
  });
  return fire!;
}

async function until(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
