/**
 * Stopping a run: `kill` goes to the executor the fire record says the run was sent to, never to
 * an address a user supplies. As in XXL-JOB, the executor stops the job's running run and drops
 * every run of that job queued behind it, not only this one.
 */
import type { ExecutorAddress, ExecutorClient } from './executor-client.js';

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
}

export async function killRun(client: ExecutorClient, run: RecordedRun): Promise<KillOutcome> {
  if (run.executor === null) {
    return { ok: false, msg: `fire ${run.fireId} was not delivered to any executor; nothing to kill` };
  }
  const answer = await client.kill(run.executor, run.jobId);
  return { ok: answer.ok, msg: answer.msg };
}
