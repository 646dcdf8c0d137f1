/**
 * Stopping a run: `kill` goes to the executor the fire record says the run was sent to, never to
 * an address a user supplies.
 *
 * What a kill stops depends on the executor. A Tickwheel executor announces that its `kill` takes
 * a `logId` (PROTOCOL.md, Tickwheel-Kill) and is asked to stop exactly the fire's run, running or
 * queued. An XXL-JOB executor knows only `{"jobId"}`: it stops the job's running run and drops
 * every run of that job queued behind it, and reports each as killed (`scheduling center kill
 * job. [...]`), which the callback records as `killed`.
 */
import type { CallOutcome, ExecutorAddress, ExecutorClient, KillScope } from './executor-client.js';

/** What a fire record holds about where its run went. */
export interface RecordedRun {
  fireId: number;
  jobId: number;
  /** The `logDateTime` the run was sent with (the fire's scheduled time). */
  logDateTime: number;
  /** The executor the run was sent to; null when the fire was never delivered. */
  executor: ExecutorAddress | null;
}

export interface KillOutcome {
  ok: boolean;
  /** The executor's message (`job thread already killed.` when nothing ran), or what went wrong. */
  msg: string | null;
  /** What the kill stopped: the fire's run only, or its job's running run and queue on that executor. */
  scope?: KillScope;
}

/** What a kill of the recorded run would stop, or why the executor could not say. */
export type KillScopeAnswer = { ok: true; scope: KillScope } | { ok: false; msg: string };

export async function killScopeOf(client: ExecutorClient, run: RecordedRun): Promise<KillScopeAnswer> {
  if (run.executor === null) {
    return { ok: false, msg: `fire ${run.fireId} was not delivered to any executor; nothing to kill` };
  }
  const scope = await client.killScope(run.executor);
  return typeof scope === 'string' ? { ok: true, scope } : { ok: false, msg: failureOf(scope) };
}

export async function killRun(client: ExecutorClient, run: RecordedRun): Promise<KillOutcome> {
  if (run.executor === null) {
    return { ok: false, msg: `fire ${run.fireId} was not delivered to any executor; nothing to kill` };
  }
  // Asked right before the kill: a job-wide kill is never sent where a run kill was meant, nor a
  // logId relied on where the executor would ignore it.
  const scope = await killScopeOf(client, run);
  if (!scope.ok) return { ok: false, msg: scope.msg };
  const answer = await client.kill(run.executor, run.jobId, scope.scope === 'run' ? run.fireId : undefined);
  return { ok: answer.ok, msg: answer.msg, scope: scope.scope };
}

function failureOf(beat: CallOutcome<null>): string {
  return beat.msg ?? `code ${beat.code}`;
}
