/**
 * The server and executor child processes: forked with IPC, asked questions one at a time, and
 * always ended — gracefully when they answer, with SIGKILL when they do not, and at the harness's
 * exit whatever happened.
 */
import { type ChildProcess, fork } from 'node:child_process';

const alive = new Set<ChildProcess>();

process.once('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

export interface ForkOptions {
  /** Script next to this file, e.g. `server-process.js`. */
  script: string;
  /** The child's configuration, sent as one JSON argument. */
  config: object;
  /** File descriptor that takes the child's stdout and stderr. */
  logFd: number;
  execArgv?: string[];
}

export function forkChild(options: ForkOptions): ChildProcess {
  const child = fork(new URL(options.script, import.meta.url), [JSON.stringify(options.config)], {
    stdio: ['ignore', options.logFd, options.logFd, 'ipc'],
    execArgv: options.execArgv ?? [],
  });
  alive.add(child);
  child.once('exit', () => alive.delete(child));
  return child;
}

/** Resolves with the child's next message of `type`; rejects when it exits first or after `timeoutMs`. */
export function nextMessage<T extends { type: string }>(
  child: ChildProcess,
  type: T['type'],
  timeoutMs: number,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (message: { type?: string }) => {
      if (message?.type !== type) return;
      cleanup();
      resolve(message as T);
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(new Error(`child ${child.pid} exited (${code ?? signal}) before sending '${type}'`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`child ${child.pid} sent no '${type}' within ${timeoutMs} ms`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Sends `{type}` and waits for the answer of the same type. */
export function ask<T extends { type: string }>(
  child: ChildProcess,
  type: T['type'],
  timeoutMs = 10_000,
): Promise<T> {
  const answer = nextMessage<T>(child, type, timeoutMs);
  child.send({ type });
  return answer;
}

/** Asks the child to stop and waits for it to exit; SIGKILL after `timeoutMs`. */
export async function stopChild(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.send({ type: 'stop' });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/** Ends every child still running, at once. */
export function killAll(): void {
  for (const child of alive) child.kill('SIGKILL');
}
