/**
 * The fire pipeline: the hop between the wheel and the executors. Due fire ids come in; the
 * records, their jobs and apps are loaded in batches; each fire goes to the dispatcher with the
 * app's executors; the outcomes are written back as dispatch marks in batches (mark-batcher.ts).
 *
 * A fire the planner's claim recorded comes with what the claim read (`ClaimedFire`: its job's
 * columns, the record as inserted). With `sendAsClaimed` (an internal option, off by default) it
 * is not loaded: it is sent as read, with the app as last loaded, and the send fence admits it
 * only while the job's and app's `updated_at` are still those (`readAt`). An edit since then makes
 * the fence answer `stale`, and the fire is loaded and routed again like any other. The load is
 * three statements a batch on the database, on the way between a fire's due time and its `run`.
 * Fires of a FIX_DELAY job (its next time is set from the run) and of a broadcast (shard records
 * made from the loaded record), fires recovered after a restart or takeover, and fires of an app
 * not loaded yet are loaded either way.
 *
 *   planner/wheel ──onDue(ids)──▶ load (batch) ──▶ Dispatcher.dispatch ──▶ marks (batch)
 *   trigger-once ──dispatchCreated(fire)──┘              │ route, send fence, run
 *
 * One concept per file around it: what a fire's dispatch is asked to do (send-request.ts), the
 * send fence (send-fence.ts), the marks its outcomes leave (outcome-marks.ts, written by
 * mark-batcher.ts), a broadcast's shard records (broadcast-records.ts, created here before the
 * dispatcher is called),
 * FIX_DELAY's next time from the run's end or the failed dispatch (fix-delay.ts), and the runs
 * the fence kept back (kept-back.ts; due records left pending are taken out of the in-flight
 * registry, scheduling/in-flight.ts, so the planner's recovery takes them up again).
 *
 * Nothing here holds a transaction across a call to an executor: loads and marks are short
 * statements before and after the network.
 */
import { performance } from 'node:perf_hooks';
import type { ProtocolGeneration } from '@tickwheel/protocol';
import type { Logger } from 'pino';
import type { Clock } from '../scheduling/clock.js';
import type { InFlightFires } from '../scheduling/in-flight.js';
import type { FirePipeline as DueFireSink } from '../scheduling/planner.js';
import type { ClaimedFire } from '../store/hot/claim.js';
import { type DueFire, type DueJob, loadDueFires } from '../store/hot/due-load.js';
import type { SendFenceRequest } from '../store/hot/send-fence.js';
import type { AppGroupRow, DispatchMark, FinishedFire, FireRow, Store } from '../store/index.js';
import { broadcastShardRecords } from './broadcast-records.js';
import {
  broadcastTargets,
  type Dispatcher,
  type DispatchOutcome,
  type FireToDispatch,
} from './dispatcher.js';
import type { ExecutorAddress } from './executor-client.js';
import { FixDelayFollowUps, SCHEDULED_TRIGGERS } from './fix-delay.js';
import type { GiveWay } from './give-way.js';
import { KeptBackReport } from './kept-back.js';
import { MarkBatcher, type MarkKind } from './mark-batcher.js';
import { marksOf } from './outcome-marks.js';
import { overrideTargets, toDispatch, withStoredOverride } from './send-request.js';

/** Where a fire of an app may go. */
export interface AppExecutors {
  /** The app's executors: its online registry entries (AUTO) or its typed address list (MANUAL). */
  addressesOf(app: AppGroupRow): readonly ExecutorAddress[] | Promise<readonly ExecutorAddress[]>;
  /**
   * The protocol generation an address of the app is known to speak (from its registration),
   * or undefined when none is known. An override address is spoken to in it; without this, or
   * for an unknown address, in G2.
   */
  generationOf?(app: AppGroupRow, address: string): ProtocolGeneration | undefined;
}

export interface FirePipelineOptions {
  store: Pick<Store, 'fires' | 'jobs' | 'apps' | 'connection'>;
  /** With `dispatchMany`, the due fires loaded together are dispatched together (`batchSends`). */
  dispatcher: Pick<Dispatcher, 'dispatch'> & Partial<Pick<Dispatcher, 'dispatchMany'>>;
  executors: AppExecutors;
  clock: Pick<Clock, 'now'>;
  logger: Logger;
  /** Records loaded and marks written per statement. */
  batchSize: number;
  /**
   * Dispatches handed to the dispatcher at once: a little more than its lanes run
   * (`Dispatcher.capacity`), so they never idle, while the rest waits here as ids or loaded
   * records — not in the lanes, where a stop would find them mid-send and a call timeout would
   * start ticking.
   */
  dispatchesInFlight: number;
  /** Called after each load of due records with its duration and size (metrics). */
  onLoaded?: (ms: number, records: number) => void;
  /**
   * Called for every dispatch outcome, with the record it was for (metrics). A failed one is also
   * kept for the retry monitor (`takeDispatchFailures`) once its mark is written.
   */
  onDispatched?: (fire: DueFire, outcome: DispatchOutcome) => void;
  /**
   * The records this process is dispatching (scheduling/in-flight.ts). The pipeline takes out the
   * due records it left `pending` without a mark (the send fence kept them back for another holder
   * of their shard, or their marks could not be written), so the planner recovers them again, and
   * keeps in those it goes on trying to send (their executors' transport is down), so they are not
   * recovered beside it.
   */
  inFlight?: Pick<InFlightFires, 'add' | 'delete'>;
  /**
   * Longest the dispatch mark of a scheduled run accepted by a Tickwheel executor waits for the
   * run's result, to be written with it (mark-batcher.ts, `heldMarks`); 0 writes every mark on
   * its own. Default 0.
   */
  markHoldMs?: number;
  /**
   * Send a fire the claim recorded as the claim read it (`onDue`'s `claimed`), without loading it;
   * the send fence checks what it was read with. Default false: every due fire is loaded.
   */
  sendAsClaimed?: boolean;
  /**
   * Hand the due fires waiting to the dispatcher's `dispatchMany` together (a batch's common fires
   * routed, fenced and sent together), not one `dispatch` each. Default true when the dispatcher
   * has `dispatchMany`.
   */
  batchSends?: boolean;
  /** Called with the number of dispatch marks written, alone or with their runs' results (metrics). */
  onMarksWritten?: (count: number, withResults: boolean) => void;
}

/** What a trigger-once (or a retry) adds to its fire's dispatch. */
export interface DispatchRequest {
  /** Executors to choose from instead of the online ones; already checked against the app's addresses. */
  addressOverride?: string[];
  /** Send this one shard of a broadcast (a retry of a failed shard) instead of broadcasting. */
  shard?: { index: number; total: number };
  /** A fire of the planner: sent only while this node holds its shard (the send fence checks). */
  leased?: boolean;
}

/** A due record with the job and app it is sent for. */
interface SendableFire {
  fire: DueFire;
  job: DueJob;
  app: AppGroupRow;
  /** Sent as the claim read it: what the fence must still find. */
  readAt?: SendFenceRequest['readAt'];
}

/** What the due-fire path asks of each dispatch: a fire of the planner, sent under its shard's lease. */
const LEASED: DispatchRequest = { leased: true };
const JOB_GONE = 'skipped: the job was stopped or deleted before the fire was dispatched';
const APP_GONE = 'skipped: the job’s app was deleted before the fire was dispatched';
/** Loads of due fires running at once. */
const LOADS_IN_FLIGHT = 2;
/**
 * Past this many unwritten marks, a dispatch waits for its marks before freeing its slot. Above
 * a burst's size, so the marks of a burst can wait for its sends (give-way.ts).
 */
const MARKS_BEHIND = 20_000;
/** Marks queued past which they are written even while a burst waits: half of MARKS_BEHIND, so sends never wait on them. */
const MARKS_GIVE_WAY_CAP = MARKS_BEHIND / 2;
/** Due fires waiting to be sent (not loaded, loading, loaded) from which writes give way to sends. */
export const BURST_WAITING = 500;
/**
 * Longest a write gives way to a burst: under the dispatch marks' default hold (500 ms), so a
 * result that gave way still finds its run's mark held and takes it along. At 1 s, a node whose
 * sends ran a little behind (PostgreSQL spread 10,000 in its first seconds) kept re-forming
 * bursts, its results waited past the hold, their marks were written alone, and the extra writes
 * kept it behind for 10–20 s (docs/benchmarks.md, a fourteenth session).
 */
const GIVE_WAY_MAX_HOLD_MS = 300;
/** Longest writes give way to one burst: 10,000 fires due at once go out in about half of it. */
const BURST_MS = 1_000;
/**
 * Failed dispatches kept for the retry monitor at most; past it the oldest are left to its sweep
 * of undecided failures (a monitor that stopped taking them must not grow this without bound).
 */
const DISPATCH_FAILURES_KEPT = 100_000;
/** Wait before a batch that failed on the store is tried again (its records are still `pending`). */
const LOAD_RETRY_MS = 1_000;

export class FirePipeline implements DueFireSink {
  private readonly options: FirePipelineOptions;
  private readonly marks: MarkBatcher;
  /** `performance.now()` since when a burst has been waiting to be sent (inBurst). */
  private burstSince: number | undefined;
  /** Due ids not loaded yet. */
  private queue: number[] = [];
  private loads = 0;
  /** Ids being loaded now. */
  private loading = 0;
  /** Loaded records waiting for a dispatch slot. */
  private ready: SendableFire[] = [];
  private readyHead = 0;
  /** Dispatches handed to the dispatcher and not finished. */
  private dispatches = 0;
  /** A pump is queued for the slots freed in this turn (freeSlot). */
  private pumpQueued = false;
  /** Set when a stop ran out of time: what has not been sent stays `pending` for the next start. */
  private abandoned = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Records whose dispatch no executor took, their marks written, not yet taken. */
  private dispatchFailures: number[] = [];
  private accepting = true;
  private readonly fixDelay: FixDelayFollowUps;
  private readonly keptBack: KeptBackReport;
  private readonly dispatchesInFlight: number;
  /** The apps as last loaded, for the fires sent as their claim read them. */
  private readonly apps = new Map<number, AppGroupRow>();

  constructor(options: FirePipelineOptions) {
    this.options = options;
    this.dispatchesInFlight = options.dispatchesInFlight;
    this.fixDelay = new FixDelayFollowUps({
      jobs: options.store.jobs,
      clock: options.clock,
      logger: options.logger,
    });
    this.keptBack = new KeptBackReport(options.logger, options.clock);
    this.marks = new MarkBatcher({
      fires: options.store.fires,
      batchSize: options.batchSize,
      giveWay: this.giveWay(MARKS_GIVE_WAY_CAP),
      onError: (err, marks, givenUp) => {
        options.logger.error(
          { err, fireIds: marks.map((m) => m.fireId) },
          givenUp
            ? 'dispatch marks could not be written; the records stay pending and are re-sent to their executors (which refuse a logId twice)'
            : 'dispatch marks could not be written; retrying',
        );
        if (givenUp) options.inFlight?.delete(marks.map((m) => m.fireId));
      },
      // A marked record is no longer pending, so no recovery takes it up: the registry need not
      // hold it (at 10,000 fires a second it held 600,000 for its whole minute).
      onWritten: (fireIds, withResults) => {
        options.inFlight?.delete(fireIds);
        options.onMarksWritten?.(fireIds.length, withResults);
      },
      holdMs: options.markHoldMs ?? 0,
    });
  }

  /** The dispatch marks held for their runs' results, for the result recorder to write with them. */
  get heldMarks(): Pick<MarkBatcher, 'take' | 'settle'> {
    return this.marks;
  }

  /** Whether due fires go to the dispatcher together (`batchSends`). */
  private get batchSends(): boolean {
    return this.options.batchSends !== false && this.options.dispatcher.dispatchMany !== undefined;
  }

  /** Whether claimed fires are sent as read (`sendAsClaimed`): the planner keeps their claims only then. */
  get sendsAsClaimed(): boolean {
    return this.options.sendAsClaimed === true;
  }

  /**
   * The planner's hand-over: due fire ids, dispatched on the pipeline's own time; `claimed[i]`,
   * when given, is what the claim read for `fireIds[i]`, and spares its load.
   */
  onDue(fireIds: number[], claimed?: readonly (ClaimedFire | undefined)[]): void {
    if (!this.accepting) return;
    for (const [i, id] of fireIds.entries()) {
      const c = this.sendsAsClaimed ? claimed?.[i] : undefined;
      const sendable = c === undefined ? undefined : this.asClaimed(c);
      if (sendable === undefined) this.queue.push(id);
      else this.ready.push(sendable);
    }
    this.pump();
  }

  /** A claimed fire ready to send as the claim read it; undefined when it must be loaded. */
  private asClaimed({
    fireId,
    scheduledAt,
    triggerType,
    job,
    claimedAt,
  }: ClaimedFire): SendableFire | undefined {
    if (job.schedule_type !== 'CRON' && job.schedule_type !== 'FIX_RATE') return undefined;
    if (job.executor_route_strategy === 'SHARDING_BROADCAST' || job.trigger_status !== 1) return undefined;
    const app = this.apps.get(job.app_id);
    if (app === undefined) return undefined;
    // The record as the claim inserted it (claim.ts).
    const fire: DueFire = {
      id: fireId,
      job_id: job.id,
      app_id: job.app_id,
      claim_job_id: job.id,
      scheduled_at: scheduledAt,
      trigger_type: triggerType,
      executor_handler: job.executor_handler,
      executor_param: job.executor_param,
      status: 'pending',
      retry_count: job.executor_fail_retry_count,
      retry_fire_id: null,
      created_at: claimedAt,
      address_override: null,
      sent_to: null,
      workflow_context: null,
    };
    const readAt = {
      jobId: job.id,
      jobUpdatedAt: job.updated_at,
      appId: app.id,
      appUpdatedAt: app.updated_at,
    };
    return { fire, job, app, readAt };
  }

  /**
   * Dispatches a record created outside the planner (trigger-once) right away, and resolves
   * with the outcomes once they are marked. Never rejects: a failure is logged and the record
   * stays `pending` (no outcomes) for the next recovery of its shard.
   */
  dispatchCreated(fire: FireRow, request: DispatchRequest = {}): Promise<DispatchOutcome[]> {
    return this.track(
      this.dispatchRecords([fire], request).catch((err: unknown) => {
        this.options.logger.error({ err, fireId: fire.id }, 'could not dispatch a triggered fire');
        return [];
      }),
    );
  }

  /**
   * The records whose dispatch no executor took since the last call, once their `dispatch_failed`
   * marks are written: the retry monitor decides their retries and alarms.
   */
  takeDispatchFailures(): number[] {
    const taken = this.dispatchFailures;
    this.dispatchFailures = [];
    return taken;
  }

  /** The finalise hook (callbacks, kills, lost runs): FIX_DELAY jobs continue from their run's end. */
  onFiresFinished(finished: readonly FinishedFire[]): Promise<void> {
    return this.fixDelay.onFiresFinished(finished);
  }

  /** Due fires waiting to be sent (not loaded yet, loading, loaded): a burst when many. */
  get waitingToSend(): number {
    return this.queue.length + this.loading + (this.ready.length - this.readyHead);
  }

  /**
   * Whether a burst is being sent: BURST_WAITING or more due fires wait, and have for less than
   * BURST_MS. A node that stays behind (its backlog never drains) is in no burst past that: its
   * writes must keep pace with its sends, or the results would pile up until the executors'
   * callbacks time out.
   */
  private inBurst(): boolean {
    if (this.waitingToSend < BURST_WAITING) {
      this.burstSince = undefined;
      return false;
    }
    const now = performance.now();
    this.burstSince ??= now;
    return now - this.burstSince < BURST_MS;
  }

  /**
   * What writes that can wait (marks, results) give way to: a burst of due fires waiting to be
   * sent (give-way.ts). `cap`: queued writes past which they go anyway.
   */
  giveWay(cap: number): GiveWay {
    return {
      sendsWaiting: () => this.inBurst(),
      cap,
      maxHoldMs: GIVE_WAY_MAX_HOLD_MS,
    };
  }

  /**
   * Due fires handed over and not dispatched yet (waiting, loading, loaded or being sent): the
   * planner claims less while this is high, so an overload waits as job rows, not in memory.
   */
  get backlog(): number {
    return this.waitingToSend + this.dispatches;
  }

  /** Stops taking due fires; what comes later stays `pending` for the next start. */
  stopAccepting(): void {
    this.accepting = false;
  }

  /**
   * Waits until the loads, dispatches and marks in flight are done, at most `timeoutMs`.
   * Resolves true when everything finished; fires not dispatched by then stay `pending`.
   */
  async drain(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const settled = (async () => {
      while (this.backlog > 0 || this.inFlight.size > 0) {
        this.pump();
        await Promise.allSettled([...this.inFlight]);
      }
      await this.marks.idle();
      return true;
    })();
    try {
      return await Promise.race([settled, timeout]);
    } finally {
      clearTimeout(timer);
      this.abandonUnsent();
    }
  }

  /** After a stop: nothing more is sent; the records not sent yet stay `pending`. */
  private abandonUnsent(): void {
    if (this.backlog === 0) return;
    this.abandoned = true;
    this.queue = [];
    this.ready = [];
    this.readyHead = 0;
  }

  /**
   * Keeps up to `dispatchesInFlight` dispatches going from the loaded records, and loads the
   * next batch while fewer than a batch are loaded and waiting. A dispatch frees its slot as soon
   * as its outcome is known: its marks go to the batcher and are written on their own time.
   */
  private pump(): void {
    if (this.abandoned) return;
    if (this.batchSends) this.dispatchReady();
    while (this.dispatches < this.dispatchesInFlight && this.readyHead < this.ready.length) {
      const { fire, job, app, readAt } = this.ready[this.readyHead]!;
      this.readyHead++;
      this.dispatches++;
      this.track(this.dispatchOne(fire, job, app, LEASED, false, readAt), () => {
        this.dispatches--;
        this.pump();
      });
    }
    if (this.readyHead === this.ready.length) {
      this.ready = [];
      this.readyHead = 0;
    }
    const batchSize = this.options.batchSize;
    while (
      this.queue.length > 0 &&
      this.loads < LOADS_IN_FLIGHT &&
      this.ready.length - this.readyHead + this.loading < batchSize
    ) {
      const ids = this.queue.splice(0, batchSize);
      this.loads++;
      this.loading += ids.length;
      this.track(this.load(ids), () => {
        this.loads--;
        this.loading -= ids.length;
        this.pump();
      });
    }
  }

  /**
   * Hands the loaded records that fit in the free dispatch slots to the dispatcher together
   * (`dispatchMany`), a batch (`batchSize`, the fence's statement too) at a time, so a burst's
   * first batch goes out as soon as its own fence statement answers. Each record frees its slot
   * once its outcome is handled, as a dispatch of its own would: the runs to a slow executor do
   * not hold the others' slots. A record alone is left to `pump`'s own dispatch.
   */
  private dispatchReady(): void {
    for (;;) {
      const count = Math.min(
        this.dispatchesInFlight - this.dispatches,
        this.ready.length - this.readyHead,
        this.options.batchSize,
      );
      if (count <= 1) return;
      const group = this.ready.slice(this.readyHead, this.readyHead + count);
      this.readyHead += count;
      this.dispatches += count;
      this.track(this.dispatchGroup(group));
    }
  }

  /** Frees one dispatch slot; the pump runs once for the slots freed in the same turn. */
  private readonly freeSlot = (): void => {
    this.dispatches--;
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    queueMicrotask(this.pumpAgain);
  };

  private readonly pumpAgain = (): void => {
    this.pumpQueued = false;
    this.pump();
  };

  /**
   * Dispatches loaded due records together; through `dispatchOne` each with an address list, a
   * record sent before, a broadcast, or executors not known at once. Resolves once every one's
   * outcome is handled (its marks waited for where `dispatchOne` would wait).
   */
  private async dispatchGroup(group: readonly SendableFire[]): Promise<void> {
    const { executors, logger } = this.options;
    const failed = (err: unknown, fireId: number) =>
      logger.error({ err, fireId }, 'dispatch of a fire failed before reaching an executor');
    const waits: Promise<unknown>[] = [];
    const together: SendableFire[] = [];
    const items: { fire: FireToDispatch; addresses: readonly ExecutorAddress[] }[] = [];
    for (const entry of group) {
      const { fire, job, app, readAt } = entry;
      const online =
        (fire.address_override === null || fire.address_override === undefined) &&
        (fire.sent_to === null || fire.sent_to === undefined) &&
        job.executor_route_strategy !== 'SHARDING_BROADCAST'
          ? executors.addressesOf(app)
          : undefined;
      if (online === undefined || online instanceof Promise) {
        const alone = this.dispatchOne(fire, job, app, LEASED, false, readAt);
        alone.then(this.freeSlot, this.freeSlot);
        waits.push(alone);
        continue;
      }
      try {
        const toSend = toDispatch(fire, job, app, LEASED, undefined);
        if (readAt !== undefined) toSend.readAt = readAt;
        items.push({ fire: toSend, addresses: online });
        together.push(entry);
      } catch (err) {
        failed(err, fire.id);
        this.freeSlot();
      }
    }
    if (items.length > 0) {
      await this.options.dispatcher.dispatchMany!(items, (i, outcomes) => {
        const { fire, job } = together[i]!;
        let after: Promise<unknown> | undefined;
        try {
          after = this.afterDispatch(fire, job, outcomes, LEASED, false);
        } catch (err) {
          failed(err, fire.id);
        }
        if (after === undefined) {
          this.freeSlot();
          return;
        }
        // Many marks behind, or a FIX_DELAY job's next time: its slot waits for them, as in dispatchOne.
        const handled = after.catch((err: unknown) => failed(err, fire.id));
        handled.then(this.freeSlot, this.freeSlot);
        waits.push(handled);
      });
    }
    if (waits.length > 0) await Promise.all(waits);
  }

  /**
   * Keeps `work` in flight for `drain` until it settles, then calls `settled`: one reaction (a
   * promise and a closure) a call — `catch(…).finally(…)` and a `finally` of the caller's cost
   * three of each, once a fire on the send path.
   */
  private track<T>(work: Promise<T>, settled?: () => void): Promise<T> {
    this.inFlight.add(work);
    const forget = () => {
      this.inFlight.delete(work);
      settled?.();
    };
    work.then(forget, forget);
    return work;
  }

  /** Loads a batch of due records with their jobs and apps; on a store error, tries again later. */
  private async load(ids: number[]): Promise<void> {
    try {
      const started = performance.now();
      const { fires, jobs, apps } = await loadDueFires(this.options.store.connection, ids);
      this.options.onLoaded?.(performance.now() - started, ids.length);
      for (const app of apps) this.apps.set(app.id, app);
      const loaded = await this.sendable(fires, byId(jobs), byId(apps));
      for (const entry of loaded) this.ready.push(entry);
    } catch (err) {
      // Records already dispatched are no longer pending, so the retry skips them.
      this.options.logger.error({ err, fireIds: ids }, 'could not load due fires; retrying');
      await new Promise((resolve) => setTimeout(resolve, LOAD_RETRY_MS));
      if (this.accepting) this.onDue(ids);
    }
  }

  /**
   * The jobs and apps of `fires`. Records whose job was stopped or deleted (a scheduled fire) or
   * whose app is gone are skipped here and left out.
   */
  private async withJobsAndApps(fires: readonly FireRow[]): Promise<SendableFire[]> {
    if (fires.length === 0) return [];
    const jobs = byId(await this.options.store.jobs.findJobsByIds([...new Set(fires.map((f) => f.job_id))]));
    return this.sendable(fires, jobs, await this.appsById(fires.map((f) => f.app_id)));
  }

  /** The records with their job and app; the others (job stopped or gone, app gone) are skipped. */
  private async sendable(
    fires: readonly DueFire[],
    jobs: Map<number, DueJob>,
    apps: Map<number, AppGroupRow>,
  ): Promise<SendableFire[]> {
    const { store, clock } = this.options;
    const gone = new Map<number, string>();
    const loaded: SendableFire[] = [];
    for (const fire of fires) {
      const job = jobs.get(fire.job_id);
      const app = apps.get(fire.app_id);
      if (job === undefined || (SCHEDULED_TRIGGERS.has(fire.trigger_type) && job.trigger_status !== 1)) {
        gone.set(fire.id, JOB_GONE);
      } else if (app === undefined) {
        gone.set(fire.id, APP_GONE);
      } else {
        loaded.push({ fire, job, app });
      }
    }
    if (gone.size > 0) {
      for (const [message, ids] of groupByMessage(gone))
        await store.fires.skipPendingFires(ids, message, clock.now());
    }
    return loaded;
  }

  /** Loads the jobs and apps of `fires`, dispatches each and waits for the outcomes to be marked. */
  private async dispatchRecords(
    fires: readonly FireRow[],
    request: DispatchRequest,
  ): Promise<DispatchOutcome[]> {
    const loaded = await this.withJobsAndApps(fires);
    const sends = loaded.map(({ fire, job, app }) => this.dispatchOne(fire, job, app, request, true));
    return (await Promise.all(sends)).flat();
  }

  /**
   * Sends one fire and hands its marks to the batcher. `awaitMarks`: resolve only once they are
   * written (a trigger-once caller reads the record next); the due-fire path does not wait, as the
   * record stays `pending` until marked and recovery covers a crash meanwhile.
   */
  private async dispatchOne(
    fire: DueFire,
    job: DueJob,
    app: AppGroupRow,
    request: DispatchRequest,
    awaitMarks: boolean,
    readAt?: SendFenceRequest['readAt'],
  ): Promise<DispatchOutcome[]> {
    const { dispatcher, executors, logger, store, clock } = this.options;
    // A trigger-once record sent by recovery (its server died before sending it) keeps its list.
    const sending = request.addressOverride?.length ? request : withStoredOverride(fire, request, logger);
    try {
      // The override list replaces the online ones, so the online list is not even read then;
      // each override address is spoken to in the generation known for it (a 3.5 executor
      // refuses the 2.x `run`).
      let addresses: readonly ExecutorAddress[];
      if (sending.addressOverride?.length) {
        addresses = overrideTargets(app, sending.addressOverride, executors);
      } else {
        const online = executors.addressesOf(app);
        addresses = online instanceof Promise ? await online : online;
      }
      // A record sent before without a recorded outcome goes back to the executor it went to.
      const resendTo =
        fire.sent_to === null || fire.sent_to === undefined
          ? undefined
          : overrideTargets(app, [fire.sent_to], executors)[0];
      const toSend = toDispatch(fire, job, app, sending, resendTo);
      if (readAt !== undefined) toSend.readAt = readAt;
      // A broadcast's shard records exist before its runs go out (one per executor; reused when
      // an earlier try left them).
      const shards = broadcastTargets(toSend, addresses);
      if (shards.length > 0) {
        toSend.shardFireIds = await broadcastShardRecords(store.fires, fire, shards, clock.now());
      }
      const outcomes = await dispatcher.dispatch(toSend, addresses);
      // A stop that ran out of time closed the connections under this send: it did not happen.
      if (this.abandoned && outcomes.every((o) => o.triggerCode !== 200)) return [];
      const after = this.afterDispatch(fire, job, outcomes, sending, awaitMarks);
      if (after !== undefined) await after;
      return outcomes;
    } catch (err) {
      // The dispatcher never rejects; this is a store or directory failure. The record stays
      // pending for the next recovery of its shard.
      logger.error({ err, fireId: fire.id }, 'dispatch of a fire failed before reaching an executor');
      return [];
    }
  }

  /**
   * What a fire's outcomes leave: its marks handed to the batcher (written on their own time
   * unless `awaitMarks`, many behind or a dispatch failed), the runs not sent tried again, a
   * FIX_DELAY job's next time after a failed dispatch. Returns what must be waited for, if anything.
   */
  private afterDispatch(
    fire: DueFire,
    job: DueJob,
    outcomes: readonly DispatchOutcome[],
    sending: DispatchRequest,
    awaitMarks: boolean,
  ): Promise<unknown> | undefined {
    const { onDispatched } = this.options;
    // A stop that ran out of time closed the connections under this send: it did not happen.
    if (this.abandoned && outcomes.every((o) => o.triggerCode !== 200)) return undefined;
    this.notSentAgain(fire, outcomes, sending);
    let sent = 0;
    let failed: number[] | undefined;
    for (const outcome of outcomes) {
      if (outcome.notSent !== undefined) continue;
      sent++;
      onDispatched?.(fire, outcome);
      if (outcome.triggerCode === 200) continue;
      failed ??= [];
      failed.push(outcome.fireId);
    }
    const marks = marksOf(fire, outcomes);
    const behind = this.marks.queued + marks.length > MARKS_BEHIND;
    let written: Promise<unknown> | undefined;
    if (!awaitMarks && !behind && failed === undefined) {
      // Nobody waits for these marks: no promise a mark. A scheduled run's mark may wait for its
      // result when its executor refuses a repeat.
      for (const mark of marks) this.marks.put(kindOf(mark), mark, refusesRepeats(mark));
    } else {
      const all = Promise.all(
        marks.map((mark) =>
          this.marks.add(kindOf(mark), mark, { holdable: !awaitMarks && refusesRepeats(mark) }),
        ),
      );
      if (failed !== undefined) {
        const failures = failed;
        void all.then(() => this.keepDispatchFailures(failures));
      }
      if (awaitMarks || behind) written = all;
    }
    if (
      fire.claim_job_id !== null &&
      job.schedule_type === 'FIX_DELAY' &&
      sent > 0 &&
      failed?.length === sent
    ) {
      // No run happened, so no run end will set the next time: continue from the failed dispatch.
      const next = () =>
        this.fixDelay.continueFrom([job], outcomes[0]?.triggerAt ?? this.options.clock.now());
      return written === undefined ? next() : written.then(next);
    }
    return written;
  }

  private keepDispatchFailures(fireIds: readonly number[]): void {
    for (const id of fireIds) this.dispatchFailures.push(id);
    const over = this.dispatchFailures.length - DISPATCH_FAILURES_KEPT;
    if (over > 0) this.dispatchFailures.splice(0, over);
  }

  /**
   * Runs not sent. A planner's fire whose fence could not be asked (the database away) goes back
   * into the queue after a pause; one whose shard this node lost is left to the shard's holder,
   * and one that was no longer pending needs nothing. A fire whose executor's transport was down
   * (Redis unreachable) is tried again after the same pause, a planner's through the queue and a
   * trigger-once (or retry) record as it was asked, until it is sent or the server stops: a run
   * fired by hand during an outage goes out once Redis is back.
   */
  private notSentAgain(fire: DueFire, outcomes: readonly DispatchOutcome[], request: DispatchRequest): void {
    const kept = outcomes.filter((o) => o.notSent !== undefined);
    if (kept.length === 0) return;
    if (kept.some((o) => o.notSent === 'stale')) {
      // Sent as its claim read it, and its job or app changed since: load it and send it as they are.
      if (this.accepting) this.onDue([fire.id]);
      return;
    }
    this.keptBack.add(kept);
    if (request.leased === true && kept.some((o) => o.notSent === 'not-owner')) {
      this.options.inFlight?.delete([fire.id]);
      return;
    }
    const transportDown = kept.some((o) => o.notSent === 'transport-down');
    if (transportDown) this.options.inFlight?.add([fire.id]);
    if (request.leased === true && (transportDown || kept.some((o) => o.notSent === 'fence-failed'))) {
      setTimeout(() => {
        if (this.accepting) this.onDue([fire.id]);
      }, LOAD_RETRY_MS).unref();
    } else if (transportDown) {
      setTimeout(() => {
        if (this.accepting) void this.track(this.sendAgain(fire.id, request));
      }, LOAD_RETRY_MS).unref();
    }
  }

  /** A trigger-once (or retry) record sent again as it was asked, while it is still pending. */
  private async sendAgain(fireId: number, request: DispatchRequest): Promise<void> {
    try {
      const fire = await this.options.store.fires.findFireById(fireId);
      if (fire === undefined || fire.status !== 'pending') return;
      await this.dispatchRecords([fire], request);
    } catch (err) {
      this.options.logger.error({ err, fireId }, 'could not send a fire again; its shard recovers it');
      this.options.inFlight?.delete([fireId]);
    }
  }

  private async appsById(ids: readonly number[]): Promise<Map<number, AppGroupRow>> {
    const rows = await this.options.store.apps.findAppsByIds(ids);
    return new Map(rows.map((app) => [app.id, app]));
  }
}

function byId<T extends { id: number }>(rows: readonly T[]): Map<number, T> {
  return new Map(rows.map((row) => [row.id, row]));
}

function groupByMessage(byId: Map<number, string>): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const [id, message] of byId) groups.set(message, [...(groups.get(message) ?? []), id]);
  return groups;
}

function kindOf(mark: DispatchMark): MarkKind {
  return mark.triggerCode === 200 ? 'dispatched' : 'dispatch_failed';
}

/**
 * Whether the executor that accepted a run refuses its logId a second time, even after a restart:
 * a Tickwheel executor announces its instance (`Tickwheel-Instance`) and keeps its accepted
 * logIds on disk; an XXL-JOB executor announces none.
 */
function refusesRepeats(mark: DispatchMark): boolean {
  return (
    mark.triggerCode === 200 && typeof mark.executorInstance === 'string' && mark.executorInstance !== ''
  );
}
