/**
 * The logIds an executor has accepted, remembered so that a repeated `run` (the server re-sends
 * after a crash or a network retry) is refused: at-most-once execution per logId.
 *
 * Memory is bounded two ways: an id is forgotten after `ttlMs`, and at most `limit` ids are
 * kept (the oldest go first). Ids are remembered with a non-decreasing time, in an order kept
 * beside the Map, so both bounds are enforced by dropping from that order's front, on `add` (the
 * only call that grows the map), at a cost per id dropped; `has` checks an id's own time, so an
 * expired id still in the map does not count.
 */
export class AcceptedLogIds {
  private readonly acceptedAt = new Map<number, number>();
  /**
   * The ids in the order they were remembered, with their times (two parallel arrays, oldest at
   * `head`). The bounds drop from here rather than from the front of the Map: a Map whose front
   * entries are deleted keeps them as holes until it is rehashed, and every walk from its front
   * steps over all of them again — at thousands of runs a second that walk was a third of the
   * executor's CPU. An id remembered again, or forgotten, leaves a stale entry here, skipped when
   * reached (its time no longer matches the Map's).
   */
  private orderIds: number[] = [];
  private orderAts: number[] = [];
  private head = 0;

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
    this.acceptedAt.set(logId, at);
    this.orderIds.push(logId);
    this.orderAts.push(at);
    this.forgetExpired();
  }

  /** Forgets `logId`: its acceptance could not be made durable, so the run was refused after all. */
  forget(logId: number): void {
    this.acceptedAt.delete(logId);
  }

  /** The ids still remembered with their times, oldest first. */
  *entries(): IterableIterator<[logId: number, at: number]> {
    const oldest = this.now() - this.ttlMs;
    for (let i = this.head; i < this.orderIds.length; i++) {
      const logId = this.orderIds[i] as number;
      const at = this.orderAts[i] as number;
      if (at > oldest && this.acceptedAt.get(logId) === at && this.isLatest(i)) yield [logId, at];
    }
  }

  /** Whether entry `i` is its id's last in the order (an id remembered twice in one ms has two). */
  private isLatest(i: number): boolean {
    const logId = this.orderIds[i];
    for (let j = i + 1; j < this.orderIds.length && this.orderAts[j] === this.orderAts[i]; j++) {
      if (this.orderIds[j] === logId) return false;
    }
    return true;
  }

  private forgetExpired(): void {
    const oldest = this.now() - this.ttlMs;
    while (this.head < this.orderIds.length) {
      const logId = this.orderIds[this.head] as number;
      const at = this.orderAts[this.head] as number;
      if (this.acceptedAt.get(logId) === at) {
        if (at > oldest && this.acceptedAt.size <= this.limit) break;
        this.acceptedAt.delete(logId);
      }
      this.head++;
    }
    // Let go of the dropped front once it is most of the arrays.
    if (this.head >= 1024 && this.head * 2 >= this.orderIds.length) {
      this.orderIds = this.orderIds.slice(this.head);
      this.orderAts = this.orderAts.slice(this.head);
      this.head = 0;
    }
  }
}
