/** A job's `child_job_ids` column (comma-separated ids, as XXL-JOB stores them) as numbers. */
export function parseChildJobIds(stored: string): number[] {
  return stored
    .split(',')
    .map((part) => Number(part.trim()))
    .filter((id) => Number.isInteger(id) && id > 0);
}
