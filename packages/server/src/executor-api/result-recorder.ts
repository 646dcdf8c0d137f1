/**
 * Finalising fire records with run results: the one way results reach the store, whether they
 * come from an executor's callback or from the lost-run monitor (and, next, from a kill).
 *
 * Results are written with group commit: while one batch is being written, results that arrive
 * meanwhile (callbacks from many executors) wait and go into the next batch together, so a burst
 * of callbacks costs a few transactions, not one per request. When a whole batch is waiting while
 * one is being written (the server is behind on results), a second write starts beside it, up to
 * `maxWritesInFlight`: a write is a round trip (to the database, or to SQLite's hot thread) whose
 * wait need not hold up the next batch. Writes in flight at once never share a fire id, so two
 * transactions never wait on each other's rows. `finishFires` is idempotent and returns only the
 * records it changed, which is what makes everything after it happen once per record however
 * often a result is re-sent.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { type GiveWay, giveWayToSends } from '../dispatch/give-way.js';
import type { MarkBatcher, TakenMarks } from '../dispatch/mark-batcher.js';
import { type ExecutorMetrics, NO_EXECUTOR_METRICS } from '../executors/metrics.js';
import type { DispatchMark, FinishedFire, FireRepository, FireResult } from '../store/index.js';
import { type BroadcastFires, settleBroadcastParents } from './broadcast-parents.js';

/**
 * Called once per written batch with the records it finalised: children of a broadcast, the
 * broadcast's claimed fire once its last shard settled, and ordinary fires alike. A duplicated
 * or late result never appears here twice (the store returns only records it changed).
 *
 * This is the seam for what follows a result: FIX_DELAY's next fire time (use the records with
 * `parentFireId === null`: a broadcast's own record finishes after its last shard), child jobs on
 * success, retries and alarms on failure. It runs after the results are stored and answered;
 * batches wait for it, so keep it short (queue slow work such as dispatching child jobs). An error
 * it throws is logged; the records stay finished.
 *
 * It may answer broadcast records to settle now (a failed shard that gets no retry may have been
 * the last its broadcast waited for): the recorder settles them (`settleBroadcasts`) and announces
 * those it finished to the hook in turn.
 */
export type FiresFinishedHook = (
  finished: readonly FinishedFire[],
) => undefined | readonly number[] | Promise<undefined | readonly number[]>;

export interface ResultRecorderOptions {
  fires: Pick<FireRepository, 'finishFires'> & BroadcastFires;
  clock: { now(): number };
  logger: Pick<Logger, 'error' | 'warn' | 'debug'>;
  metrics?: Pick<ExecutorMetrics, 'fireFinished'>;
  /** Results per `finishFires` call (one transaction). Default 500. */
  maxBatchSize?: number;
  /**
   * Least time from the end of one write to the start of the next, in ms. Default 10: under
   * load the results of several callbacks share a transaction (a commit costs about the same for
   * 50 results as for 500), while a lone result after a quiet spell is written at once.
   */
  writeSpacingMs?: number;
  /** While a burst of due fires waits to be sent, writes wait (dispatch/give-way.ts). */
  giveWay?: GiveWay;
  /**
   * Batches written at once, each with its hook, when whole batches wait. Default 2. The hook
   * (`announceTo`) of one batch may then run beside another's.
   */
  maxWritesInFlight?: number;
  /**
   * The dispatch marks held for their runs' results (dispatch/mark-batcher.ts): a result whose
   * mark is held writes it in the same statement, and a mark whose record takes no result is
   * given back to be written on its own. A result takes its mark when it comes in, not when its
   * batch is written: a result waiting its turn behind others (the server behind on results)
   * does not let its mark's hold run out, which would write the record once more.
   */
  heldMarks?: Pick<MarkBatcher, 'take' | 'settle'>;
}

export const DEFAULT_RESULT_BATCH_SIZE = 500;
export const DEFAULT_RESULT_WRITE_SPACING_MS = 10;
export const DEFAULT_RESULT_WRITES_IN_FLIGHT = 2;

interface Waiter {
  results: readonly FireResult[];
  /** The held dispatch marks of its results, taken when it came in (`heldMarks`). */
  marks: TakenMarks | undefined;
  /** `performance.now()` when it was handed in. */
  at: number;
  resolve(finished: FinishedFire[]): void;
  reject(err: unknown): void;
}

/**
 * @example
 * const recorder = new ResultRecorder({ fires: store.fires, clock, logger });
 * // What follows a result is made after the recorder (a workflow stop finishes fires through it):
 * recorder.announceTo(afterRuns({ decisions, children: childTrigger }));
 * const finished = await recorder.record([{ fireId: 42, handleCode: 200, handleMsg: null, handleAt: clock.now() }]);
 * // `finished` holds fire 42's record, or nothing when a result had finished it already.
 * await recorder.idle(); // before the store closes: every result written, every hook run
 */
export class ResultRecorder {
  private readonly options: ResultRecorderOptions;
  private readonly maxBatchSize: number;
  private readonly metrics: Pick<ExecutorMetrics, 'fireFinished'>;
  private queue: Waiter[] = [];
  private queuedResults = 0;
  private pumping: Promise<void> | undefined;
  private readonly writeSpacingMs: number;
  private readonly maxWritesInFlight: number;
  /** `performance.now()` at the end of the last write. */
  private lastWriteEnd = Number.NEGATIVE_INFINITY;
  /** Batches being written (and announced). */
  private readonly writes = new Set<Promise<void>>();
  /** The fire ids of the batches being written. */
  private readonly writing = new Set<number>();
  /** Wakes the pump when a whole batch has come in while it waits on a write. */
  private wake: (() => void) | undefined;
  private hook: FiresFinishedHook | undefined;

  constructor(options: ResultRecorderOptions) {
    this.options = options;
    this.maxBatchSize = options.maxBatchSize ?? DEFAULT_RESULT_BATCH_SIZE;
    this.metrics = options.metrics ?? NO_EXECUTOR_METRICS;
    this.writeSpacingMs = options.writeSpacingMs ?? DEFAULT_RESULT_WRITE_SPACING_MS;
    this.maxWritesInFlight = Math.max(1, options.maxWritesInFlight ?? DEFAULT_RESULT_WRITES_IN_FLIGHT);
  }

  /**
   * Sets what every finished record is announced to (once; before results come in). Records
   * finished before it is set are not announced.
   */
  announceTo(hook: FiresFinishedHook): void {
    if (this.hook !== undefined) throw new Error('the result recorder announces to one hook, set already');
    this.hook = hook;
  }

  /**
   * Stores results; resolves once they are committed with the records this call changed (those
   * of its results that were not finished already; a broadcast parent settled on the way is not
   * among them, it goes to the hook). Rejects when the store failed: nothing of it was promised.
   */
  record(results: readonly FireResult[]): Promise<FinishedFire[]> {
    if (results.length === 0) return Promise.resolve([]);
    return new Promise<FinishedFire[]>((resolve, reject) => {
      this.queue.push({ results, marks: this.takeMarks(results), resolve, reject, at: performance.now() });
      this.queuedResults += results.length;
      if (this.queuedResults >= this.maxBatchSize) this.wake?.();
      this.pumping ??= this.pump().finally(() => {
        this.pumping = undefined;
      });
    });
  }

  /**
   * Finishes the broadcast parents among `parentFireIds` whose shards have all settled (the
   * lost-run monitor's way to close a broadcast whose last shard will never call back) and
   * announces them like any finished record.
   */
  async settleBroadcasts(parentFireIds: readonly number[]): Promise<FinishedFire[]> {
    const settled = await settleBroadcastParents(this.options.fires, parentFireIds, this.options.clock.now());
    if (settled.length > 0) await this.announce(settled);
    return settled;
  }

  /** Resolves once every result handed in so far is written and its hook has run (for shutdown and tests). */
  async idle(): Promise<void> {
    while (this.pumping !== undefined) await this.pumping;
  }

  private async pump(): Promise<void> {
    // Start on the next microtask, so results handed in during the same turn share the first batch.
    await Promise.resolve();
    while (this.queue.length > 0 || this.writes.size > 0) {
      // Beside a write in flight, another starts only for a whole batch: otherwise the results
      // wait for the write to end and go together into the next (group commit, as with one).
      if (
        this.queue.length === 0 ||
        this.writes.size >= this.maxWritesInFlight ||
        (this.writes.size > 0 && this.queuedResults < this.maxBatchSize)
      ) {
        await this.nextChange();
        continue;
      }
      if (this.writes.size === 0) {
        const wait = this.lastWriteEnd + this.writeSpacingMs - performance.now();
        if (wait > 0 && this.queuedResults < this.maxBatchSize) {
          await new Promise<void>((resolve) => setTimeout(resolve, wait));
        }
      }
      await giveWayToSends(
        this.options.giveWay,
        () => this.queuedResults,
        () => this.queue[0]?.at ?? performance.now(),
      );
      const batch = this.takeBatch();
      if (batch.length === 0) {
        // Every waiting result is of a fire being written now: after that write.
        await this.nextChange();
        continue;
      }
      const ids = batch.flatMap((waiter) => waiter.results.map((result) => result.fireId));
      for (const id of ids) this.writing.add(id);
      const write: Promise<void> = this.writeAndAnnounce(batch)
        .catch((err: unknown) => this.options.logger.error({ err }, 'a batch of results failed unexpectedly'))
        .finally(() => {
          for (const id of ids) this.writing.delete(id);
          this.writes.delete(write);
          this.lastWriteEnd = performance.now();
        });
      this.writes.add(write);
    }
  }

  /** Resolves when a write in flight ends or a whole batch has come in. */
  private nextChange(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      for (const write of this.writes) void write.then(resolve);
    }).finally(() => {
      this.wake = undefined;
    });
  }

  private async writeAndAnnounce(batch: readonly Waiter[]): Promise<void> {
    const finished = await this.write(batch);
    if (finished.length > 0) await this.announce(finished);
  }

  /**
   * The waiting results, whole requests at a time, up to the batch size (at least one request),
   * leaving for later the requests that carry a fire of a batch being written.
   */
  private takeBatch(): Waiter[] {
    let size = 0;
    const taken: Waiter[] = [];
    const skipped: Waiter[] = [];
    let next = 0;
    for (; next < this.queue.length; next++) {
      const waiter = this.queue[next]!;
      if (taken.length > 0 && size + waiter.results.length > this.maxBatchSize) break;
      if (this.writing.size > 0 && waiter.results.some((result) => this.writing.has(result.fireId))) {
        skipped.push(waiter);
        continue;
      }
      taken.push(waiter);
      size += waiter.results.length;
    }
    this.queue = skipped.length === 0 ? this.queue.slice(next) : skipped.concat(this.queue.slice(next));
    this.queuedResults -= size;
    return taken;
  }

  /** Writes one batch and answers its waiters; returns everything it finalised, settled parents included. */
  private async write(batch: readonly Waiter[]): Promise<FinishedFire[]> {
    // The marks its results took when they came in; each goes to the first statement of its fire.
    const marks = new Map<number, DispatchMark>();
    for (const waiter of batch)
      if (waiter.marks !== undefined) for (const [id, mark] of waiter.marks) marks.set(id, mark);
    let finished: FinishedFire[];
    try {
      finished = [];
      const all = batch.flatMap((waiter) => waiter.results);
      for (let i = 0; i < all.length; i += this.maxBatchSize) {
        finished.push(...(await this.finish(all.slice(i, i + this.maxBatchSize), marks)));
      }
    } catch (err) {
      for (const waiter of batch) waiter.reject(err);
      return [];
    } finally {
      // Marks no statement took (a statement before theirs failed) are written on their own.
      if (marks.size > 0) this.options.heldMarks?.settle(marks, new Set());
    }
    const byId = new Map(finished.map((fire) => [fire.fireId, fire]));
    for (const waiter of batch) {
      const own = waiter.results.flatMap((result) => {
        const fire = byId.get(result.fireId);
        if (fire === undefined) return [];
        byId.delete(result.fireId); // a fire carried by two requests of one batch belongs to the first
        return [fire];
      });
      waiter.resolve(own);
    }
    return finished.concat(await this.settleParents(finished));
  }

  /** The held marks of `results` (none for a lost verdict: no run's result, and none is held for it). */
  private takeMarks(results: readonly FireResult[]): TakenMarks | undefined {
    const held = this.options.heldMarks;
    if (held === undefined) return undefined;
    const marks = held.take(results.flatMap((result) => (result.lost === true ? [] : [result.fireId])));
    return marks.size === 0 ? undefined : marks;
  }

  /**
   * One `finishFires` call, with its results' dispatch marks: those taken when they came in
   * (removed from `taken` as they go into the statement) and those held since.
   */
  private async finish(
    results: readonly FireResult[],
    taken: Map<number, DispatchMark>,
  ): Promise<FinishedFire[]> {
    const held = this.options.heldMarks;
    if (held === undefined) return this.options.fires.finishFires(results);
    const marks = new Map<number, DispatchMark>(this.takeMarks(results.filter((r) => !taken.has(r.fireId))));
    for (const result of results) {
      const mark = taken.get(result.fireId);
      if (mark === undefined || result.lost === true) continue;
      marks.set(result.fireId, mark);
      taken.delete(result.fireId);
    }
    if (marks.size === 0) return this.options.fires.finishFires(results);
    let finished: FinishedFire[] = [];
    try {
      finished = await this.options.fires.finishFires(
        results.map((result) => {
          const dispatch = result.lost === true ? undefined : marks.get(result.fireId);
          return dispatch === undefined ? result : { ...result, dispatch };
        }),
      );
      return finished;
    } finally {
      held.settle(marks, new Set(finished.map((fire) => fire.fireId)));
    }
  }

  private async settleParents(finished: readonly FinishedFire[]): Promise<FinishedFire[]> {
    // Every record with a parent: a shard, a retry of a shard (settled through the walk up to
    // its broadcast) or a retry of a plain fire (whose parent is final: nothing to settle).
    const parentIds = finished.flatMap((fire) => (fire.parentFireId !== null ? [fire.parentFireId] : []));
    if (parentIds.length === 0) return [];
    try {
      return await settleBroadcastParents(this.options.fires, parentIds, this.options.clock.now());
    } catch (err) {
      // The shards are stored; the lost-run monitor settles the parent on a later sweep.
      this.options.logger.error({ err, parentFireIds: parentIds }, 'could not settle broadcast parents');
      return [];
    }
  }

  private async announce(finished: FinishedFire[]): Promise<void> {
    for (const fire of finished) this.metrics.fireFinished(fire.status);
    const hook = this.hook;
    if (hook === undefined) return;
    let answer: unknown;
    try {
      answer = await hook(finished);
    } catch (err) {
      this.options.logger.error(
        { err, fireIds: finished.map((fire) => fire.fireId) },
        'what follows finished records failed; the records stay finished',
      );
      return;
    }
    const settle = Array.isArray(answer) ? (answer as readonly number[]) : [];
    if (settle.length === 0) return;
    try {
      await this.settleBroadcasts(settle);
    } catch (err) {
      // The shard's decision is stored; the lost-run monitor settles the broadcast on a later sweep.
      this.options.logger.error(
        { err, fireIds: settle },
        'could not settle broadcasts after their last shard failed',
      );
    }
  }
}
