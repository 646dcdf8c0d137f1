/**
 * Child-job cycles. A job whose success fires a job that (through its own children) fires the
 * first one again would run forever, so a save that closes such a loop is refused. Only loops
 * through the job being saved can be new: the graph was acyclic before the save.
 */
import type { JobRepository } from '../store/index.js';
import { parseChildJobIds } from './child-job-ids.js';

/**
 * The loop `jobId → childJobIds[i] → … → jobId` that saving `childJobIds` on job `jobId` would
 * close, as the list of job ids along it (starting and ending with `jobId`), or null when none.
 * A job not saved yet (`jobId` undefined) cannot close a loop: nothing names it.
 */
export async function findChildJobCycle(
  jobs: Pick<JobRepository, 'findJobsByIds'>,
  jobId: number | undefined,
  childJobIds: readonly number[],
): Promise<number[] | null> {
  if (jobId === undefined || childJobIds.length === 0) return null;
  // Breadth-first from the new children, one query per level; `via` remembers how each job was reached.
  const via = new Map<number, number>();
  let level: number[] = [];
  for (const child of childJobIds) {
    if (child === jobId) return [jobId, jobId];
    if (!via.has(child)) {
      via.set(child, jobId);
      level.push(child);
    }
  }
  while (level.length > 0) {
    const rows = await jobs.findJobsByIds(level);
    const next: number[] = [];
    for (const row of rows) {
      for (const child of parseChildJobIds(row.child_job_ids)) {
        if (child === jobId) return pathTo(via, row.id, jobId);
        if (via.has(child)) continue;
        via.set(child, row.id);
        next.push(child);
      }
    }
    level = next;
  }
  return null;
}

/** `jobId → … → last → jobId`, read back through `via`. */
function pathTo(via: Map<number, number>, last: number, jobId: number): number[] {
  const path = [last];
  let current = last;
  while (current !== jobId) {
    current = via.get(current)!;
    path.push(current);
  }
  return [...path.reverse(), jobId];
}
