/**
 * Dispatch marks in batches: the outcomes of many dispatches become one multi-row statement per
 * status and one transaction per batch (DESIGN.md: no per-fire transaction). Marks gather while a
 * write is in flight and go out together with the next one, so the write rate adapts to the load
 * instead of one write per fire. Writes are also spaced at least `writeSpacingMs` apart: a
 * commit costs about the same for 50 marks as for 500 (SQLite writes each touched page once per
 * transaction), so under load a few larger batches are much cheaper than many small ones, while
 * a lone mark after a quiet spell is written at once.
 *
 * Held marks: the mark of a run accepted by an executor that refuses a logId twice (a Tickwheel
 * executor, which announces its instance and keeps its accepted logIds on disk) may wait up to
 * `holdMs` for the run's result, which then writes it in its own statement (`take`/`settle`, by
 * the result recorder): a short run's record is written twice (fence, result) instead of three
 * times. A record whose mark is held stays `pending` with its `sent_to` until then; a node that
 * dies meanwhile leaves it to recovery, which sends it to that executor again, and the executor
 * refuses the repeat — the run happens once. Marks of other executors (XXL-JOB's, which may run a
 * repeat) are never held.
 */
import { performance } from 'node:perf_hooks';
import type { DispatchMark, FireRepository } from '../store/index.js';
import { type GiveWay, giveWayToSends } from './give-way.js';

export type MarkKind = 'dispatched' | 'dispatch_failed';

export const DEFAULT_WRITE_SPACING_MS = 10;

export interface MarkBatcherOptions {
  fires: Pick<FireRepository, 'markDispatched' | 'markDispatchFailed'>;
  /** Marks per statement at most. */
  batchSize: number;
  /** Attempts per batch before its marks are given up (their records stay `pending`). */
  attempts?: number;
  /** Wait between two attempts, in ms. */
  retryDelayMs?: number;
  /** Least time from the end of one write to the start of the next, in ms; default 10. */
  writeSpacingMs?: number;
  onError(err: unknown, marks: readonly DispatchMark[], givenUp: boolean): void;
  /**
   * Told the records of each statement once it is written (not of one given up); `withResults`
   * when their marks went with their runs' results (`settle`).
   */
  onWritten?(fireIds: readonly number[], withResults: boolean): void;
  /** While a burst of due fires waits to be sent, writes wait (give-way.ts). */
  giveWay?: GiveWay;
  /** Longest a held mark waits for its run's result, in ms; 0 (the default) holds none. */
  holdMs?: number;
  /** Marks held at once at most; past it a mark is queued at once. Default 20,000. */
  maxHeld?: number;
}

/** Options of one mark (`MarkBatcher.add`). */
export interface AddOptions {
  /** The run's executor refuses a logId twice: its mark may be held (above). */
  holdable?: boolean;
}

/** Marks taken for results (`MarkBatcher.take`), by fire id, to give back to `settle`. */
export type TakenMarks = ReadonlyMap<number, DispatchMark>;

export const DEFAULT_MAX_HELD = 20_000;

/** The `written` of a mark nobody waits for. */
const nothing = (): void => {};

interface QueuedMark {
  kind: MarkKind;
  mark: DispatchMark;
  written: () => void;
  /** `performance.now()` when it was queued, or held while it is held. */
  at: number;
}

export class MarkBatcher {
  private readonly options: MarkBatcherOptions;
  private queue: QueuedMark[] = [];
  private flushing: Promise<void> | undefined;
  private writing = 0;
  /** `performance.now()` at the end of the last write. */
  private lastWriteEnd = Number.NEGATIVE_INFINITY;
  /** Held marks by fire id, oldest first (Map order). */
  private readonly held = new Map<number, QueuedMark>();
  /** Taken by `take` and not settled yet. */
  private readonly taken = new Map<number, QueuedMark>();
  /** `idle` calls waiting for the taken marks to be settled. */
  private readonly settled: (() => void)[] = [];
  private holdTimer: NodeJS.Timeout | undefined;
  private readonly holdMs: number;
  private readonly maxHeld: number;

  constructor(options: MarkBatcherOptions) {
    this.options = options;
    this.holdMs = Math.max(0, options.holdMs ?? 0);
    this.maxHeld = options.maxHeld ?? DEFAULT_MAX_HELD;
  }

  /**
   * Queues a mark, or holds it (`holdable`, an accepted dispatch, a hold configured and room for
   * it); resolves once it is written (or given up, which is logged).
   */
  add(kind: MarkKind, mark: DispatchMark, options: AddOptions = {}): Promise<void> {
    return new Promise((written) => this.place({ kind, mark, written, at: 0 }, options.holdable === true));
  }

  /**
   * Queues or holds a mark as `add` does, for a caller that does not wait for it to be written:
   * no promise a mark (the due fires' path, ten thousand a second).
   */
  put(kind: MarkKind, mark: DispatchMark, holdable = false): void {
    this.place({ kind, mark, written: nothing, at: 0 }, holdable);
  }

  private place(queued: QueuedMark, holdable: boolean): void {
    queued.at = performance.now();
    if (holdable && queued.kind === 'dispatched' && this.holdMs > 0 && this.held.size < this.maxHeld) {
      this.hold(queued);
    } else {
      this.enqueue(queued);
    }
  }

  /** Marks queued and not written yet (the batch being written included; held ones are not). */
  get queued(): number {
    return this.queue.length + this.writing;
  }

  /** Marks held for their results now. */
  get holding(): number {
    return this.held.size;
  }

  /**
   * Takes the held marks of `fireIds` for a statement that writes them with the runs' results.
   * Give them back to `settle` once it is done, written or not.
   */
  take(fireIds: Iterable<number>): TakenMarks {
    const marks = new Map<number, DispatchMark>();
    if (this.held.size === 0) return marks;
    for (const fireId of fireIds) {
      const queued = this.held.get(fireId);
      if (queued === undefined) continue;
      this.held.delete(fireId);
      this.taken.set(fireId, queued);
      marks.set(fireId, queued.mark);
    }
    return marks;
  }

  /**
   * Settles marks from `take`: those of `writtenIds` were written with their results; the rest
   * (their records took no result: finished already, or the statement failed) are queued.
   */
  settle(marks: TakenMarks, writtenIds: ReadonlySet<number>): void {
    const written: number[] = [];
    for (const fireId of marks.keys()) {
      const queued = this.taken.get(fireId);
      if (queued === undefined) continue;
      this.taken.delete(fireId);
      if (writtenIds.has(fireId)) {
        written.push(fireId);
        queued.written();
      } else {
        this.enqueue(queued);
      }
    }
    if (written.length > 0) this.options.onWritten?.(written, true);
    if (this.taken.size === 0) for (const resolve of this.settled.splice(0)) resolve();
  }

  /**
   * Resolves when every mark is written: held ones are queued at once, and taken ones wait for
   * their `settle` (which queues those their results did not write).
   */
  async idle(): Promise<void> {
    for (;;) {
      this.release(Number.POSITIVE_INFINITY);
      if (this.flushing !== undefined) await this.flushing;
      else if (this.taken.size > 0) await new Promise<void>((resolve) => this.settled.push(resolve));
      else return;
    }
  }

  /** Queues a mark to be written, stamped with the time it joins the queue (a held one: now). */
  private enqueue(queued: QueuedMark): void {
    queued.at = performance.now();
    this.queue.push(queued);
    this.startFlush();
  }

  private startFlush(): void {
    this.flushing ??= this.flushAll().finally(() => {
      this.flushing = undefined;
      // A mark queued after the loop's last look (by a caller its batch's `written` woke) goes now.
      if (this.queue.length > 0) this.startFlush();
    });
  }

  private hold(queued: QueuedMark): void {
    // A second dispatch of the fire (a re-send) replaces the held one, whose mark is written now.
    const before = this.held.get(queued.mark.fireId);
    if (before !== undefined) {
      this.held.delete(queued.mark.fireId);
      this.enqueue(before);
    }
    this.held.set(queued.mark.fireId, queued);
    this.holdTimer ??= setTimeout(() => this.onHoldTimer(), this.holdMs);
  }

  private onHoldTimer(): void {
    this.holdTimer = undefined;
    this.release(performance.now() - this.holdMs);
    const oldest = this.held.values().next().value;
    if (oldest !== undefined) {
      this.holdTimer = setTimeout(
        () => this.onHoldTimer(),
        Math.max(1, oldest.at + this.holdMs - performance.now()),
      );
    }
  }

  /** Queues the held marks added at or before `before` (`performance.now()` time). */
  private release(before: number): void {
    for (const [fireId, queued] of this.held) {
      if (queued.at > before) break;
      this.held.delete(fireId);
      this.enqueue(queued);
    }
    if (this.held.size === 0 && this.holdTimer !== undefined) {
      clearTimeout(this.holdTimer);
      this.holdTimer = undefined;
    }
  }

  private async flushAll(): Promise<void> {
    // Let the dispatches that finish in the same turn of the event loop join this batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const wait =
        this.lastWriteEnd + (this.options.writeSpacingMs ?? DEFAULT_WRITE_SPACING_MS) - performance.now();
      if (wait > 0 && this.queue.length < this.options.batchSize) {
        await new Promise<void>((resolve) => setTimeout(resolve, wait));
      }
      await giveWayToSends(
        this.options.giveWay,
        () => this.queue.length,
        () => this.queue[0]?.at ?? performance.now(),
      );
      const batch = this.queue.splice(0, this.options.batchSize);
      this.writing = batch.length;
      await this.write(
        batch.filter((q) => q.kind === 'dispatched'),
        'dispatched',
      );
      await this.write(
        batch.filter((q) => q.kind === 'dispatch_failed'),
        'dispatch_failed',
      );
      this.writing = 0;
      this.lastWriteEnd = performance.now();
      for (const queued of batch) queued.written();
    }
  }

  private async write(batch: readonly QueuedMark[], kind: MarkKind): Promise<void> {
    if (batch.length === 0) return;
    const marks = batch.map((q) => q.mark);
    const attempts = this.options.attempts ?? 3;
    for (let attempt = 1; ; attempt++) {
      try {
        if (kind === 'dispatched') await this.options.fires.markDispatched(marks);
        else await this.options.fires.markDispatchFailed(marks);
        this.options.onWritten?.(
          marks.map((m) => m.fireId),
          false,
        );
        return;
      } catch (err) {
        const givenUp = attempt >= attempts;
        this.options.onError(err, marks, givenUp);
        if (givenUp) return;
        await new Promise((resolve) => setTimeout(resolve, this.options.retryDelayMs ?? 500));
      }
    }
  }
}
