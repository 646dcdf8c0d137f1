/**
 * The code a handler worker thread runs: loads the handler module once, then runs one trigger at
 * a time with the same context as an in-process handler, its `log` lines and result sent back to
 * the lane over postMessage and its AbortSignal fired by an `abort` message.
 */
import { format } from 'node:util';
import { parentPort, workerData } from 'node:worker_threads';
import { HandleCode, type TriggerParam } from '@tickwheel/protocol';
import { createHandlerRun, errorMessage, type JobHandler } from '../context.js';
import type { RunOutcome } from '../runner.js';
import type { FromWorker, ToWorker, WorkerData } from './worker-messages.js';

const port = parentPort;
if (!port) throw new Error('worker-entry.js runs only as a worker thread');
const { moduleUrl, exportName } = workerData as WorkerData;
let handlerPromise: Promise<JobHandler> | undefined;
let current: AbortController | undefined;

port.on('message', (message: ToWorker) => {
  if (message.type === 'abort') current?.abort(message.reason);
  else void runTrigger(message.trigger);
});

function send(message: FromWorker): void {
  port?.postMessage(message);
}

async function runTrigger(trigger: TriggerParam): Promise<void> {
  const controller = new AbortController();
  current = controller;
  send({ type: 'done', outcome: await outcomeOf(trigger, controller.signal) });
  if (current === controller) current = undefined;
}

async function outcomeOf(trigger: TriggerParam, signal: AbortSignal): Promise<RunOutcome> {
  let handler: JobHandler;
  try {
    handlerPromise ??= loadHandler();
    handler = await handlerPromise;
  } catch (err) {
    return { code: HandleCode.FAIL, msg: errorMessage(err) };
  }
  const run = createHandlerRun(trigger, (...args) => send({ type: 'log', text: format(...args) }), signal);
  try {
    return run.outcomeOfReturn(await handler(run.context));
  } catch (err) {
    if (err instanceof Error && err.stack) send({ type: 'log', text: err.stack });
    return run.outcomeOfError(err);
  }
}

async function loadHandler(): Promise<JobHandler> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(moduleUrl)) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`job handler [${exportName}] module ${moduleUrl} failed to load: ${errorMessage(err)}`);
  }
  const named = mod[exportName];
  if (typeof named === 'function') return named as JobHandler;
  if (typeof mod.default === 'function') return mod.default as JobHandler;
  throw new Error(
    `job handler [${exportName}] module ${moduleUrl} exports no function named ${exportName} and no default function`,
  );
}
