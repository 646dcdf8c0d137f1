/**
 * The published packages as a user gets them: `npm pack` of each workspace, installed from the
 * tarballs into an empty project outside the repository, and processes started in that project.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WatchedProcess } from './cli-process.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The published packages, dependencies first. */
export const PUBLISHED = [
  '@tickwheel/protocol',
  '@tickwheel/api-client',
  '@tickwheel/executor',
  '@tickwheel/server',
  '@tickwheel/console',
  'tickwheel',
] as const;

/** Every child runs on this test's Node (its folder first on PATH, so `npx` and `npm` do too). */
export function childEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
    ...extra,
  };
  // A native addon that has to build uses this Node's headers, not those ~/.npmrc may name.
  const headers = runtimeHeaders();
  if (headers !== undefined) env.npm_config_nodedir = headers;
  return env;
}

/** The headers beside a Node installed from the registry's `node` package (tools/node/<major>). */
function runtimeHeaders(): string | undefined {
  const modules = path.resolve(path.dirname(process.execPath), '../node_modules');
  if (!existsSync(modules)) return undefined;
  return readdirSync(modules)
    .filter((name) => name.startsWith('node-'))
    .map((name) => path.join(modules, name))
    .find((dir) => existsSync(path.join(dir, 'include/node/node_api.h')));
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion in `cwd`; kills its process group after `timeoutMs`. */
export function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: childEnvironment(), detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      killGroup(child.pid, 'SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} took over ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs a command and fails with its output unless it exits 0. */
export async function runOk(
  command: string,
  args: string[],
  cwd: string,
  timeoutMs: number,
): Promise<string> {
  const result = await run(command, args, cwd, timeoutMs);
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

interface PackedFile {
  path: string;
}
export interface PackedPackage {
  name: string;
  filename: string;
  files: PackedFile[];
}

/** `npm pack` of every published workspace into `destination`; what each tarball holds. */
export async function packWorkspaces(destination: string): Promise<PackedPackage[]> {
  const workspaces = PUBLISHED.flatMap((name) => ['-w', name]);
  const stdout = await runOk(
    'npm',
    ['pack', '--json', '--no-audit', '--no-fund', ...workspaces, '--pack-destination', destination],
    REPO_ROOT,
    120_000,
  );
  return JSON.parse(stdout) as PackedPackage[];
}

/** A process started in the installed project, in a process group of its own (npx starts node). */
export class ProjectProcess extends WatchedProcess {
  constructor(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
    super(command, args, { cwd, env: childEnvironment(env), detached: true, outputTimeoutMs: 30_000 });
  }

  /**
   * SIGTERM to the whole group, then SIGKILL when some of it is still there after 10 s. The group,
   * not the process started: `npx` passes a SIGTERM to the shell it runs the bin in, which ends
   * without passing it on to the node process beneath.
   */
  async stop(): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined) return;
    killGroup(pid, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (groupAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    killGroup(pid, 'SIGKILL');
    await this.exited;
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}
