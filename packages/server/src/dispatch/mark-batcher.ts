/**
 * Dispatch marks in batches: the outcomes of many dispatches become one multi-row statement per
 * status and one transaction per batch (DESIGN.md: no per-fire transaction). Marks gather while a
 * write is in flight and go out together with the next one, so the write rate adapts to the load
 * instead of one write per fire. Writes are also spaced at least `writeSpacingMs` apart: a
 * commit costs about the same for 50 marks as for 500 (SQLite writes each touched page once per
 * transaction), so under load a few larger batches are much cheaper than many small ones, while
 * a lone mark after a quiet spell is written at once.
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
  /** Told the records of each statement once it is written (not of one given up). */
  onWritten?(fireIds: readonly number[]): void;
  /** While a burst of due fires waits to be sent, writes wait (give-way.ts). */
  giveWay?: GiveWay;
}

interface QueuedMark {
  kind: MarkKind;
  mark: DispatchMark;
  written: () => void;
  /** `performance.now()` when it was queued. */
  at: number;
}

export class MarkBatcher {
  private readonly options: MarkBatcherOptions;
  private queue: QueuedMark[] = [];
  private flushing: Promise<void> | undefined;
  private writing = 0;
  /** `performance.now()` at the end of the last write. */
  private lastWriteEnd = Number.NEGATIVE_INFINITY;

  constructor(options: MarkBatcherOptions) {
    this.options = options;
  }

  /** Queues a mark; resolves once its batch is written (or given up, which is logged). */
  add(kind: MarkKind, mark: DispatchMark): Promise<void> {
    return new Promise((written) => {
      this.queue.push({ kind, mark, written, at: performance.now() });
      this.flushing ??= this.flushAll().finally(() => {
        this.flushing = undefined;
      });
    });
  }

  /** Marks queued and not written yet (the batch being written included). */
  get queued(): number {
    return this.queue.length + this.writing;
  }

  /** Resolves when every queued mark is written. */
  async idle(): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
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
        this.options.onWritten?.(marks.map((m) => m.fireId));
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
