/**
 * Workflow runs as `tickwheel workflow` prints them — a run's record with a table of its nodes,
 * a list of runs — and `trigger --wait`, which follows a run until it ends.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ApiClient,
  call,
  type WorkflowRun,
  type WorkflowRunNode,
  type WorkflowRunSummary,
} from '../api-client.js';
import { EXIT_CODES } from '../exit-codes.js';
import { clip, formatTime, printJson, printRecord, printTable } from '../output.js';

/** How often `trigger --wait` reads the run by default. */
export const WAIT_INTERVAL_MS = 1_000;

/**
 * A run's statuses, as the protocol's WORKFLOW_RUN_STATUSES names them. Kept here rather than
 * imported: the protocol's index loads its wire validation, most of a REST command's start-up.
 */
export const RUN_STATUSES = ['waiting', 'running', 'succeeded', 'failed', 'stopped', 'skipped'];

/** A run in one of these has ended; only `succeeded` is a success (`skipped`: DISCARDed, never ran). */
const ENDED_RUN_STATUSES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'stopped', 'skipped']);

/** A node in one of these will not change unless someone retries or marks it. */
const ENDED_NODE_STATUSES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'skipped', 'stopped']);

/**
 * Reads the run every `intervalMs` until it ends, printing its progress on stderr whenever it
 * changes (`run 17 running: 2/5 nodes done, 1 running`), then the run (its JSON with `json`) on
 * stdout. Sets exit code 1 unless the run succeeded.
 */
export async function waitForRun(
  client: ApiClient,
  runId: number,
  options: { intervalMs: number; json: boolean },
): Promise<WorkflowRun> {
  let last = '';
  for (;;) {
    const run = await readRun(client, runId);
    const line = runLine(run);
    if (line !== last && !ENDED_RUN_STATUSES.has(run.status)) console.error(line);
    last = line;
    if (ENDED_RUN_STATUSES.has(run.status)) {
      if (options.json) printJson(run);
      else printRun(run);
      if (run.status !== 'succeeded') process.exitCode = EXIT_CODES.failed;
      return run;
    }
    await sleep(options.intervalMs);
  }
}

export function readRun(client: ApiClient, runId: number): Promise<WorkflowRun> {
  return call(client.GET('/api/v1/workflow-runs/{id}', { params: { path: { id: runId } } }));
}

/** `run 17 running: 2/5 nodes done, 1 running` — the run's status and how far its nodes are. */
export function runLine(run: WorkflowRun): string {
  const done = run.nodes.filter((node) => ENDED_NODE_STATUSES.has(node.status)).length;
  const running = run.nodes.filter((node) => node.status === 'running').length;
  const failed = run.nodes.filter((node) => node.status === 'failed').length;
  const parts = [`${done}/${run.nodes.length} nodes done`];
  if (running > 0) parts.push(`${running} running`);
  if (failed > 0) parts.push(`${failed} failed`);
  return `run ${run.id} ${run.status}: ${parts.join(', ')}`;
}

export function printRun(run: WorkflowRun): void {
  printRecord([
    ['id', run.id],
    ['workflow', `${run.workflowId} (${run.workflowName})`],
    ['status', run.status],
    ['triggerType', run.triggerType],
    ['param', clip(run.param, 80)],
    ['scheduledAt', formatTime(run.scheduledAt)],
    ['startedAt', formatTime(run.startedAt)],
    ['finishedAt', formatTime(run.finishedAt)],
    ['duration', durationText(run.startedAt, run.finishedAt)],
    ['parent', run.parentRunId === null ? '-' : `run ${run.parentRunId}, node ${run.parentNodeKey ?? '-'}`],
  ]);
  console.log('');
  printTable(
    ['NODE', 'TYPE', 'STATUS', 'FIRES', 'STARTED', 'FINISHED', 'DETAIL'],
    run.nodes.map((node) => [
      node.key,
      node.type,
      node.status,
      node.fireIds.join(',') || '-',
      formatTime(node.startedAt),
      formatTime(node.finishedAt),
      clip(nodeDetail(node), 60),
    ]),
  );
}

/**
 * What else is known of a node, each thing once: a decision's value, the nested run, the
 * message (a job's handle message is often its output already, a mark's names who marked it).
 */
function nodeDetail(node: WorkflowRunNode): string {
  const message = node.message ?? '';
  const output =
    node.output === undefined || node.output === null
      ? ''
      : typeof node.output === 'string'
        ? node.output
        : JSON.stringify(node.output);
  return [
    node.decision === undefined ? '' : `decided ${node.decision}`,
    node.childRunId === undefined || node.childRunId === null ? '' : `child run ${node.childRunId}`,
    node.markedBy === undefined || node.markedBy === null || message.includes(node.markedBy)
      ? ''
      : `marked by ${node.markedBy}`,
    message,
    output === '' || node.decision !== undefined || message.includes(output) ? '' : `output ${output}`,
  ]
    .filter((part) => part !== '')
    .join('; ');
}

export function printRunSummaries(runs: WorkflowRunSummary[]): void {
  printTable(
    ['ID', 'WORKFLOW', 'STATUS', 'TYPE', 'SCHEDULED', 'STARTED', 'DURATION', 'PARENT'],
    runs.map((run) => [
      run.id,
      `${run.workflowId} ${clip(run.workflowName, 30)}`,
      run.status,
      run.triggerType,
      formatTime(run.scheduledAt),
      formatTime(run.startedAt),
      durationText(run.startedAt, run.finishedAt),
      run.parentRunId === null ? '-' : `run ${run.parentRunId}`,
    ]),
  );
}

/** `2.4 s`, `3 min 5 s`; `-` before the run started or while it runs. */
function durationText(startedAt: number | null, finishedAt: number | null): string {
  if (startedAt === null || finishedAt === null) return '-';
  const ms = Math.max(0, finishedAt - startedAt);
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
