/**
 * Worker threads with a SQLite connection of their own (the reports' reader thread, the WAL
 * checkpoint thread, the hot statements' thread): where each one's code is, how one is started
 * and how its answers are awaited.
 *
 * Each thread's code is a module of the built package, `<parent>-entry.ts` compiled beside its
 * parent (sqlite-reader-thread-entry.ts, ...), so tsc and biome check it as the rest. It opens the
 * database with what the caller passes as `workerData` and posts `{ type: 'ready' }`, or
 * `{ type: 'failed', message }` when it cannot.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/** What a worker answers when it could not do what it was asked (or died). */
export interface WorkerFailure {
  type: 'failed';
  message: string;
}

/** A started worker, with a promise of its exit; or why it did not start. */
export type SqliteWorkerStart = { worker: Worker; exited: Promise<void> } | { failure: string };

/**
 * The built entry `file` of a thread (`sqlite-reader-thread-entry.js`, ...): beside this module
 * in the built package. When the server runs from its sources (a test runner) there is no `.js`
 * beside it and the one in dist/ is used: `npm run build` first.
 */
export function sqliteWorkerEntry(file: string): URL {
  const beside = new URL(`./${file}`, import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  return new URL(`../../dist/store/${file}`, import.meta.url);
}

/**
 * Starts the module at `entry` on a worker thread and waits for its first answer: `ready` gives
 * the worker, anything else (a failure, an error, an exit) ends it. Once ready the thread no
 * longer keeps the process alive; while starting and closing it does (see `closeSqliteWorker`).
 */
export async function startSqliteWorker(
  entry: URL,
  workerData: Record<string, unknown>,
): Promise<SqliteWorkerStart> {
  const worker = new Worker(entry, { workerData });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const answer = await nextAnswer<{ type: string }>(worker);
  if (answer.type === 'ready') {
    worker.unref();
    return { worker, exited };
  }
  await worker.terminate();
  return { failure: isFailure(answer) ? answer.message : answer.type };
}

/**
 * Asks a started worker to close (`message`) and waits for its exit. The thread keeps the process
 * alive meanwhile: were it unref'd, a process with nothing else left to do (a server whose start
 * failed before it listened) would end in the middle of the close, with exit code 0 and the
 * error never reported.
 */
export async function closeSqliteWorker(
  worker: Worker,
  message: unknown,
  exited: Promise<void>,
): Promise<void> {
  worker.ref();
  worker.postMessage(message);
  await exited;
}

/** The worker's next message; an error or its exit reads as a failure. */
export function nextAnswer<A>(worker: Worker): Promise<A | WorkerFailure> {
  return new Promise((resolve) => {
    const settle = (answer: A | WorkerFailure) => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      resolve(answer);
    };
    const onMessage = (answer: A) => settle(answer);
    const onError = (err: Error) => settle({ type: 'failed', message: err.message });
    const onExit = (code: number) => settle({ type: 'failed', message: `the thread exited (${code})` });
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}

function isFailure(answer: { type: string }): answer is WorkerFailure {
  return answer.type === 'failed' && typeof (answer as { message?: unknown }).message === 'string';
}
