/**
 * Route state kept per job id (ROUND counters, LFU counts, LRU order), bounded as XXL-JOB bounds
 * it: everything is dropped when the UTC day changes, so counts never grow without end and a
 * changed executor set settles within a day; and at most `maxJobs` jobs are tracked, the one
 * tracked longest being forgotten first (it starts over, which only costs its balance).
 */
const DAY_MS = 86_400_000;

export class PerJobState<T> {
  private readonly entries = new Map<number, T>();
  private day = Number.NaN;

  constructor(
    private readonly now: () => number,
    private readonly maxJobs: number,
  ) {}

  /** The job's state; `create` makes it when the job is new today. */
  stateOf(jobId: number, create: () => T): T {
    const day = Math.floor(this.now() / DAY_MS);
    if (day !== this.day) {
      this.day = day;
      this.entries.clear();
    }
    let state = this.entries.get(jobId);
    if (state === undefined) {
      if (this.entries.size >= this.maxJobs) this.forgetOldest();
      state = create();
      this.entries.set(jobId, state);
    }
    return state;
  }

  /** Jobs tracked now. */
  get size(): number {
    return this.entries.size;
  }

  private forgetOldest(): void {
    const oldest = this.entries.keys().next();
    if (!oldest.done) this.entries.delete(oldest.value);
  }
}
