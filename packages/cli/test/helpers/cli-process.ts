/**
 * Runs the built `tickwheel` binary as a child process, as a user would, and watches its output.
 */
import { type ChildProcessByStdio, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const CLI_BIN = fileURLToPath(new URL('../../bin/tickwheel.js', import.meta.url));
const CLI_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** Fails early with a clear message when the CLI has not been built. */
export function assertCliBuilt(): void {
  if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: run \`npx tsc -b\` first`);
}

/** Runs the CLI to completion. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, [CLI_BIN, ...args], { encoding: 'utf8', env, timeout: 10_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A running child process whose output is collected as it comes. */
export class WatchedProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  protected readonly child: ChildProcessByStdio<null, Readable, Readable>;

  constructor(
    command: string,
    args: string[],
    options: { cwd?: string; env?: NodeJS.ProcessEnv; detached?: boolean; outputTimeoutMs?: number } = {},
  ) {
    this.outputTimeoutMs = options.outputTimeoutMs ?? 10_000;
    this.child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: options.detached ?? false,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
    });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
  }

  private readonly outputTimeoutMs: number;

  /** Resolves with the first match of `pattern` in stdout; rejects after `timeoutMs` or at exit. */
  async waitForOutput(pattern: RegExp, timeoutMs = this.outputTimeoutMs): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    void this.exited.then(() => {
      exited = true;
    });
    for (;;) {
      const match = this.stdout.match(pattern);
      if (match) return match;
      if (exited || Date.now() > deadline) {
        throw new Error(`no ${pattern} in the output.\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Ends the process if a test left it running. */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

/** The built `tickwheel` binary running as a child process. */
export class CliProcess extends WatchedProcess {
  constructor(args: string[], env: NodeJS.ProcessEnv = process.env) {
    super(process.execPath, [CLI_BIN, ...args], { env });
  }
}
