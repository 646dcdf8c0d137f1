/**
 * The logIds an executor has accepted, remembered so that a repeated `run` (the server re-sends
 * after a crash or a network retry) is refused: at-most-once execution per logId.
 *
 * Memory is bounded two ways: an id is forgotten after `ttlMs`, and at most `limit` ids are
 * kept (the oldest go first). A Map iterates in insertion order and ids are inserted with a
 * non-decreasing time, so both bounds are enforced by dropping from the front, on `add` (the
 * only call that grows the map); `has` checks an id's own time, so an expired id still in the
 * map does not count.
 */
export class AcceptedLogIds {
  private readonly acceptedAt = new Map<number, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  has(logId: number): boolean {
    const at = this.acceptedAt.get(logId);
    return at !== undefined && at > this.now() - this.ttlMs;
  }

  /** Remembers `logId` as accepted now; returns the time it was accepted at. */
  add(logId: number): number {
    const at = this.now();
    this.restore(logId, at);
    return at;
  }

  /** Remembers `logId` as accepted at `at` (an earlier process's acceptance, read back at start). */
  restore(logId: number, at: number): void {
    this.acceptedAt.delete(logId);
    this.acceptedAt.set(logId, at);
    this.forgetExpired();
  }

  /** Forgets `logId`: its acceptance could not be made durable, so the run was refused after all. */
  forget(logId: number): void {
    this.acceptedAt.delete(logId);
  }

  /** The ids still remembered with their times, oldest first. */
  *entries(): IterableIterator<[logId: number, at: number]> {
    const oldest = this.now() - this.ttlMs;
    for (const entry of this.acceptedAt) if (entry[1] > oldest) yield entry;
  }

  private forgetExpired(): void {
    const oldest = this.now() - this.ttlMs;
    for (const [logId, at] of this.acceptedAt) {
      if (at > oldest && this.acceptedAt.size <= this.limit) break;
      this.acceptedAt.delete(logId);
    }
  }
}
