import {
  CLAIMED_JOB_COLUMNS,
  type ClaimedFire,
  type ClaimedJob,
  type PlanOutcome,
} from '../store/hot/claim.js';
import type { FireRepository, FireRow, JobRepository, JobRow, OwnedShard } from '../store/index.js';
import type { TimerHandle } from './clock.js';
import type { InFlightFires } from './in-flight.js';
import type { ShardLeases } from './leases.js';
import { decideFire, type FireDecision, nextFixDelayFireAt, scheduleOf } from './misfire.js';
import type { ResolvedSchedulingOptions } from './options.js';
import { type DueFire, Wheel } from './wheel.js';

/**
 * Where due fires go: the dispatch side. `onDue` takes the ids of fire records (status
 * `pending`) whose time has come and returns at once; loading the records, routing, sending
 * `run` and marking the records happen on the pipeline's side, on its own time.
 */
export interface FirePipeline {
  /**
   * `claimed[i]`, when given, is what the claim read for `fireIds[i]` (its job, the record as
   * inserted), for the pipeline to send without loading it; recovered fires come without.
   */
  onDue(fireIds: number[], claimed?: readonly (ClaimedFire | undefined)[]): void;
  /** Whether it sends fires as their claim read them: only then does the planner keep the claims. */
  readonly sendsAsClaimed?: boolean;
  /**
   * Due fires handed over and not dispatched yet. While it is at `maxBacklog` or more the
   * pipeline is behind and the planner claims nothing new: the due jobs wait as rows, and are
   * claimed by the misfire rule (times inside the window fire, older ones follow the policy) once
   * it has caught up. Without it the pipeline is never behind.
   */
  readonly backlog?: number;
}

export type PlannerOptions = Pick<
  ResolvedSchedulingOptions,
  | 'nodeId'
  | 'shardCount'
  | 'lookAheadMs'
  | 'recordAheadMs'
  | 'tickIntervalMs'
  | 'misfireWindowMs'
  | 'prepareAheadMs'
  | 'wheelResolutionMs'
  | 'claimBatchSize'
  | 'recoveryPageSize'
  | 'maxBacklog'
  | 'clock'
  | 'logger'
> & {
  fires: Pick<
    FireRepository,
    'claimDueFires' | 'findPendingFires' | 'skipPendingFires' | 'setPendingTriggerType'
  >;
  jobs: Pick<JobRepository, 'findJobsByIds' | 'recordRunEnd'>;
  leases: Pick<ShardLeases, 'ownedShards' | 'epochOf' | 'shardOf' | 'use'>;
  pipeline: FirePipeline;
  /** The records this process is dispatching (in-flight.ts): hand-overs are added, recovery leaves them. */
  inFlight: InFlightFires;
  /** Called for each claim cut short or skipped because the pipeline is `maxBacklog` behind. */
  onHeldBack?: (backlog: number) => void;
};

/** The lease term a fire in the wheel was claimed or recovered under. */
interface ArmedFire {
  shard: number;
  epoch: number;
  /** What the claim read for it; none for a recovered fire. */
  claimed?: ClaimedFire;
}

const RECOVERY_SKIPPED =
  'misfire: skipped (DO_NOTHING), the server stopped before dispatching it and it is now more than the misfire window late';
const JOB_GONE = 'skipped: the job was stopped or deleted before the fire was dispatched';

/**
 * Longest pause between two ticks after failed ones. While the database is away each failed tick
 * doubles the pause (from the tick interval), so an outage costs a log line every 2 s rather than
 * one per tick, and the first tick after it still comes within 2 s.
 */
export const FAILED_TICK_MAX_PAUSE_MS = 2_000;

/**
 * How often the planner looks for orphans in the shards it holds: `pending` records due more than
 * ORPHAN_AGE_MS ago that are neither in its wheel nor being dispatched by this process — a
 * dispatch whose marks could not be written, a fire the send fence kept back while the shard was
 * away and that came back under the same epoch. They are recovered as after a takeover.
 */
export const ORPHAN_SWEEP_INTERVAL_MS = 10_000;
const ORPHAN_AGE_MS = 10_000;
/**
 * Jobs kept as claimed, one object each, for the armed fires to share (`sharedJob`); past this
 * many the kept ones are let go and kept afresh.
 */
const SHARED_JOBS_MAX = 200_000;
/** What a kept job must agree on with a newer claim's read of it to stand for it: all but the schedule's position. */
const SHARED_JOB_COLUMNS = CLAIMED_JOB_COLUMNS.filter((column) => column !== 'next_fire_at');

/**
 * The planner: every tick it claims, for the shards this node owns, the jobs due within the
 * look-ahead window, and waits their fires in the wheel; when the wheel hands them back, it
 * passes them to the pipeline.
 *
 * - A claim is one short transaction per batch of at most `claimBatchSize` jobs (the store's
 *   `claimDueFires`): the fire record goes in with the same transaction that advances
 *   `next_fire_at`, by compare-and-set on `next_fire_at` and the shard lease's epoch, under the
 *   unique (job, scheduled time) key. A full batch is followed at once by the next one, so an
 *   aligned burst of thousands of jobs is claimed seconds ahead of its time.
 * - The claim plans each due job inside its transaction (plan-due-job.ts; misfire.ts says how a
 *   late claim continues) and returns what it planned with the fires it recorded.
 *   FIX_DELAY leaves `next_fire_at` null while its run is in flight; the finalise path sets it
 *   from the run's end (`nextFixDelayFireAt`). ONCE leaves it null once fired (the job stays
 *   started); NONE is never claimed.
 * - Recovery: whenever this node starts holding a shard under a new epoch (at start, after a
 *   takeover, after its own lease lapsed), the shard's root records still `pending` — claimed
 *   fires and trigger-once (MANUAL, API) records alike — are re-armed, or follow the job's misfire
 *   policy when they are more than the window late: DO_NOTHING skips them, FIRE_ONCE_NOW fires
 *   them now (a claimed one then says MISFIRE; a trigger-once record keeps its type, so a manual
 *   run never moves the schedule). Broadcast children are sent again through their parent. None
 *   is lost, and none is handed over twice by this node (in-flight.ts: what it handed over and
 *   the trigger-once records this process is dispatching); another node's re-dispatch of the
 *   same record carries the same logId, which the executor refuses.
 * - A fire is handed over only while its shard is still held under the epoch it was armed with;
 *   otherwise it stays `pending` for whoever holds the shard now.
 *
 * Nothing here holds a transaction across a network call or a timer: the store's statements
 * are the only transactions, and the pipeline is called after they committed.
 */
export class Planner {
  private readonly options: PlannerOptions;
  private readonly wheel: Wheel;
  private readonly armed = new Map<number, ArmedFire>();
  /** The jobs as last claimed, by id, for the armed fires to share (`sharedJob`). */
  private readonly sharedJobs = new Map<number, ClaimedJob>();
  /** The epoch each shard was last recovered under; a shard held under another epoch needs recovery. */
  private readonly recoveredEpoch = new Map<number, number>();
  /**
   * Jobs given a FIRE_ONCE_NOW fire in the current tick: any further misfire of theirs in the
   * same tick is skipped, so a stalled node recovering several missed fires of one job (and
   * claiming its next one, missed too) fires it once, not in a burst.
   */
  private readonly firedNow = new Set<number>();
  private timer: TimerHandle | undefined;
  private ticking: Promise<void> | undefined;
  /** Ticks failed in a row; the next one waits longer (FAILED_TICK_MAX_PAUSE_MS). */
  private failedTicks = 0;
  /** When the last orphan sweep ran (ORPHAN_SWEEP_INTERVAL_MS). */
  private lastOrphanSweepAt: number;
  private running = false;
  private behind = false;

  constructor(options: PlannerOptions) {
    this.options = options;
    this.lastOrphanSweepAt = options.clock.now();
    this.wheel = new Wheel({
      clock: options.clock,
      onDue: (fires) => this.handOver(fires),
      resolutionMs: options.wheelResolutionMs,
    });
  }

  /** How far ahead of now a claim records fires: the look-ahead and the record-ahead. */
  private get reachMs(): number {
    return this.options.lookAheadMs + this.options.recordAheadMs;
  }

  /** How many claimed fires are waiting in the wheel. */
  get waiting(): number {
    return this.wheel.size;
  }

  /**
   * Whether the claim is falling behind its fires' times: its last batch came back full and even
   * the latest-due job in it was due less than half the look-ahead ahead (or the batch armed
   * nothing). Claiming keeps its lead only with its share of the database; the send side reads
   * this to leave it that share (server.ts). False again once a batch comes back short (all due
   * within the look-ahead is claimed) or with its lead back.
   */
  get claimBehind(): boolean {
    return this.behind;
  }

  /** Starts ticking: one tick at once (which recovers the owned shards first), then every `tickIntervalMs`. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.scheduleTick(0);
  }

  /**
   * Stops ticking, waits for a tick in flight and empties the wheel. The fires it returns stay
   * `pending` in the store, for the next start or the next owner of their shard.
   */
  async stop(): Promise<DueFire[]> {
    this.running = false;
    if (this.timer !== undefined) this.options.clock.clearTimer(this.timer);
    this.timer = undefined;
    await this.ticking;
    this.behind = false;
    this.armed.clear();
    this.recoveredEpoch.clear();
    return this.wheel.stop();
  }

  /** Resolves when no tick is in flight. */
  async idle(): Promise<void> {
    while (this.ticking !== undefined) await this.ticking;
  }

  /**
   * Runs one tick now: recovers newly held shards, then claims what is due within the window.
   * Ticks never overlap; a call during a tick waits for that one. Never rejects: a failed tick
   * is logged and the next tick tries again.
   */
  tick(): Promise<void> {
    // A use of the leases: shards given up meanwhile are released once the tick is over.
    this.ticking ??= this.options.leases
      .use(() => this.claimAndRecover())
      .then(
        () => {
          if (this.failedTicks > 0) {
            this.options.logger.info(
              { failedTicks: this.failedTicks },
              'planner tick succeeded again after failed ones',
            );
          }
          this.failedTicks = 0;
        },
        (err: unknown) => {
          this.failedTicks++;
          this.options.logger.error(
            { err, failedTicks: this.failedTicks, retryInMs: this.nextTickDelay() },
            'planner tick failed; retrying at the next tick',
          );
        },
      )
      .finally(() => {
        this.ticking = undefined;
      });
    return this.ticking;
  }

  private scheduleTick(delayMs: number): void {
    if (!this.running) return;
    this.timer = this.options.clock.setTimer(() => {
      this.timer = undefined;
      void this.tick().finally(() => this.scheduleTick(this.nextTickDelay()));
    }, delayMs);
  }

  /** The tick interval, doubled per failed tick in a row up to FAILED_TICK_MAX_PAUSE_MS. */
  private nextTickDelay(): number {
    const interval = this.options.tickIntervalMs;
    if (this.failedTicks === 0) return interval;
    const backedOff = interval * 2 ** Math.min(this.failedTicks, 20);
    return Math.max(interval, Math.min(backedOff, FAILED_TICK_MAX_PAUSE_MS));
  }

  private async claimAndRecover(): Promise<void> {
    this.options.inFlight.expire();
    const owned = this.options.leases.ownedShards();
    const unrecovered = owned.filter((shard) => this.recoveredEpoch.get(shard.index) !== shard.epoch);
    try {
      if (unrecovered.length > 0) await this.recover(unrecovered);
      const now = this.options.clock.now();
      if (now - this.lastOrphanSweepAt >= ORPHAN_SWEEP_INTERVAL_MS) {
        this.lastOrphanSweepAt = now;
        const recovered = owned.filter((shard) => this.recoveredEpoch.get(shard.index) === shard.epoch);
        if (recovered.length > 0) await this.recover(recovered, now - ORPHAN_AGE_MS);
      }
      await this.claimDue();
    } finally {
      this.firedNow.clear();
    }
  }

  /** The misfire decision, with a second fire-now of one job in one tick turned into a skip. */
  private decide(jobId: number, scheduledAt: number, now: number, strategy: string): FireDecision {
    const decision = decideFire(scheduledAt, now, strategy, this.options.misfireWindowMs);
    if (decision.action === 'skip' || decision.triggerType === 'CRON') return decision;
    if (this.firedNow.has(jobId)) return { action: 'skip', triggerType: 'MISFIRE' };
    this.firedNow.add(jobId);
    return decision;
  }

  /**
   * Claims batch after batch until a batch comes back short, no shard is held, or the pipeline
   * is `maxBacklog` behind. Between two batches the event loop gets a turn, so a long claim
   * (an aligned burst, a synchronous SQLite store) never holds up dispatches and callbacks.
   */
  private async claimDue(): Promise<void> {
    const { fires, clock, nodeId, lookAheadMs, shardCount, claimBatchSize, maxBacklog, pipeline } =
      this.options;
    for (let batch = 0; ; batch++) {
      if (batch > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const shards = this.options.leases.ownedShards();
      const backlog = pipeline.backlog ?? 0;
      const limit = Math.min(claimBatchSize, maxBacklog - backlog);
      if (limit < claimBatchSize && backlog > 0) this.options.onHeldBack?.(backlog);
      if (shards.length === 0 || limit <= 0) {
        // Nothing to claim, or the send side is what is behind: the claim needs no room.
        this.behind = false;
        return;
      }
      const now = clock.now();
      const dueAts: DueTimes = new Map();
      const result = await fires.claimDueFires({
        nodeId,
        nowMs: now,
        horizonMs: now + lookAheadMs,
        recordUntilMs: now + this.reachMs,
        shardTotal: shardCount,
        shards,
        limit,
        misfireWindowMs: this.options.misfireWindowMs,
        firedNow: [...this.firedNow],
      });
      const latestFirstDueAt = this.applyPlans(result.planned, dueAts);
      this.behind = result.scanned >= limit && latestFirstDueAt - clock.now() < lookAheadMs / 2;
      const epochs = new Map(shards.map((shard) => [shard.index, shard.epoch]));
      for (const fire of result.fires) {
        const dueAt = dueAtOf(dueAts, fire.job.id, fire.scheduledAt);
        if (dueAt === undefined) continue;
        if (pipeline.sendsAsClaimed !== true) {
          this.arm(fire.fireId, dueAt, fire.job.id, epochs);
          continue;
        }
        fire.job = this.sharedJob(fire.job);
        this.arm(fire.fireId, dueAt, fire.job.id, epochs, fire);
      }
      if (result.skipped.length > 0) {
        this.options.logger.warn(
          { fireIds: result.skipped.map((fire) => fire.fireId) },
          'misfire: fires skipped (DO_NOTHING)',
        );
      }
      if (result.scanned < limit) return;
    }
  }

  /**
   * Remembers what planning due jobs decided: their due times, their fire-now misfires, a
   * schedule that no longer reads. Returns the latest of the jobs' first due times (-Infinity
   * when no job has one).
   */
  private applyPlans(outcomes: readonly PlanOutcome[], dueAts: DueTimes): number {
    let latestFirst = Number.NEGATIVE_INFINITY;
    for (const { jobId, dueAts: times, firedNow, error } of outcomes) {
      if (error !== undefined) {
        this.options.logger.error({ err: error, jobId }, 'job stopped: its schedule cannot be read');
      }
      if (firedNow) this.firedNow.add(jobId);
      let first = Number.POSITIVE_INFINITY;
      const before = dueAts.get(jobId);
      dueAts.set(jobId, before === undefined ? times : [...before, ...times]);
      for (const [, dueAt] of times) {
        if (dueAt < first) first = dueAt;
      }
      if (first !== Number.POSITIVE_INFINITY && first > latestFirst) latestFirst = first;
    }
    return latestFirst;
  }

  /**
   * Re-arms the root records (claimed and trigger-once) of `shards` left `pending`, or applies
   * the misfire policy to those more than the window late. Pages through all of them,
   * `recoveryPageSize` at a time, by a keyset cursor on (scheduled_at, id): records the wheel
   * hands over (and the pipeline marks) meanwhile drop out of later pages without shifting them.
   */
  private async recover(shards: readonly OwnedShard[], orphansBefore?: number): Promise<void> {
    const { fires, clock, shardCount, recoveryPageSize, logger } = this.options;
    const epochs = new Map(shards.map((shard) => [shard.index, shard.epoch]));
    // Every record a claim may have made.
    const scheduledBefore = orphansBefore ?? clock.now() + this.reachMs;
    const counts = { rearmed: 0, skipped: 0 };
    let after: { scheduledAt: number; id: number } | undefined;
    for (;;) {
      const page = await fires.findPendingFires({
        shardTotal: shardCount,
        shardIndexes: shards.map((shard) => shard.index),
        scheduledBefore,
        limit: recoveryPageSize,
        rootOnly: true,
        ...(after === undefined ? {} : { after }),
      });
      const last = page.at(-1);
      if (last === undefined) break;
      const recovered = await this.recoverFires(page, epochs, clock.now());
      counts.rearmed += recovered.rearmed;
      counts.skipped += recovered.skipped;
      if (page.length < recoveryPageSize) break;
      after = { scheduledAt: last.scheduled_at, id: last.id };
    }
    for (const shard of shards) this.recoveredEpoch.set(shard.index, shard.epoch);
    if (counts.rearmed + counts.skipped > 0) {
      logger.info(
        { shards: shards.map((shard) => shard.index), ...counts, orphans: orphansBefore !== undefined },
        orphansBefore === undefined ? 'recovered pending fires' : 'recovered orphaned pending fires',
      );
    }
  }

  /**
   * Recovers one page. Records this process is still dispatching are left out only after the
   * jobs are loaded, so a trigger-once record whose insert a page already saw has been
   * remembered by then. Every status or type change is one statement for the page.
   */
  private async recoverFires(
    page: readonly FireRow[],
    epochs: Map<number, number>,
    now: number,
  ): Promise<{ rearmed: number; skipped: number }> {
    if (page.length === 0) return { rearmed: 0, skipped: 0 };
    const { jobs, fires } = this.options;
    const jobsById = new Map(
      (await jobs.findJobsByIds([...new Set(page.map((fire) => fire.job_id))])).map((job) => [job.id, job]),
    );
    // In the wheel under the shard's current epoch: it fires from there. Under an older one, it
    // would be dropped at its time, so it is armed again.
    const pending = page.filter((fire) => {
      if (this.options.inFlight.has(fire.id)) return false;
      const armed = this.armed.get(fire.id);
      return armed === undefined || armed.epoch !== epochs.get(armed.shard);
    });
    const gone: number[] = [];
    const misfired: FireRow[] = [];
    const firedLate: number[] = [];
    const rearm: { fire: FireRow; dueAt: number }[] = [];
    for (const fire of pending) {
      const job = jobsById.get(fire.job_id);
      const claimed = fire.claim_job_id !== null;
      // A stopped job still runs what someone triggered by hand (as the pipeline does).
      if (job === undefined || (claimed && job.trigger_status !== 1)) {
        gone.push(fire.id);
        continue;
      }
      if ((fire.sent_to ?? null) !== null) {
        // Sent before, its outcome unknown (its sender died or lost the shard between the send
        // fence and the mark): it may be running. It goes back to that executor now, however
        // late, whose logId check refuses it if it had arrived; skipping it would throw its
        // result away.
        rearm.push({ fire, dueAt: now });
        continue;
      }
      const decision = claimed
        ? this.decide(job.id, fire.scheduled_at, now, job.misfire_strategy)
        : decideFire(fire.scheduled_at, now, job.misfire_strategy, this.options.misfireWindowMs);
      if (decision.action === 'skip') misfired.push(fire);
      else {
        if (claimed && decision.triggerType === 'MISFIRE') firedLate.push(fire.id);
        rearm.push({ fire, dueAt: decision.dueAt });
      }
    }
    if (gone.length > 0) await fires.skipPendingFires(gone, JOB_GONE, now);
    if (misfired.length > 0) await this.skipMisfired(misfired, jobsById, now);
    // The record says MISFIRE before the pipeline loads it to send.
    if (firedLate.length > 0) await fires.setPendingTriggerType(firedLate, 'MISFIRE');
    for (const { fire, dueAt } of rearm) this.arm(fire.id, dueAt, fire.job_id, epochs);
    return { rearmed: rearm.length, skipped: gone.length + misfired.length };
  }

  /** Skips recovered records more than the window late under DO_NOTHING; a claimed one says MISFIRE. */
  private async skipMisfired(
    misfired: readonly FireRow[],
    jobsById: Map<number, JobRow>,
    now: number,
  ): Promise<void> {
    const claimed = misfired.filter((fire) => fire.claim_job_id !== null);
    const triggered = misfired.filter((fire) => fire.claim_job_id === null);
    const { fires } = this.options;
    if (claimed.length > 0) {
      await fires.skipPendingFires(
        claimed.map((fire) => fire.id),
        RECOVERY_SKIPPED,
        now,
        'MISFIRE',
      );
      await this.continueFixDelayJobs(claimed, jobsById, now);
    }
    if (triggered.length > 0) {
      await fires.skipPendingFires(
        triggered.map((fire) => fire.id),
        RECOVERY_SKIPPED,
        now,
      );
    }
  }

  /** A skipped FIX_DELAY fire has no run whose end would set the next time: set it from now. */
  private async continueFixDelayJobs(
    skipped: readonly FireRow[],
    jobsById: Map<number, JobRow>,
    now: number,
  ): Promise<void> {
    for (const jobId of new Set(skipped.map((fire) => fire.job_id))) {
      const job = jobsById.get(jobId);
      if (job?.schedule_type !== 'FIX_DELAY' || job.next_fire_at !== null) continue;
      await this.options.jobs.recordRunEnd(jobId, now, nextFixDelayFireAt(scheduleOf(job), now));
    }
  }

  /**
   * The job object the armed fires of `job` share: a claim reads each due job afresh, and a job
   * that fires every second has five or so fires armed at once, each of another claim. Kept
   * apiece, the copies were most of what the armed fires held (48,000 job rows, 7 strings
   * each, at 10,000 fires a second), all of it promoted to the old generation and collected there.
   * A kept job stands for a newer read only when every column but `next_fire_at` is the same.
   */
  private sharedJob(job: ClaimedJob): ClaimedJob {
    const kept = this.sharedJobs.get(job.id);
    if (kept !== undefined && SHARED_JOB_COLUMNS.every((column) => kept[column] === job[column])) return kept;
    if (this.sharedJobs.size >= SHARED_JOBS_MAX) this.sharedJobs.clear();
    this.sharedJobs.set(job.id, job);
    return job;
  }

  private arm(
    fireId: number,
    dueAt: number,
    jobId: number,
    epochs: Map<number, number>,
    claimed?: ClaimedFire,
  ): void {
    const shard = this.options.leases.shardOf(jobId);
    const epoch = epochs.get(shard);
    if (epoch === undefined) return;
    this.armed.set(fireId, claimed === undefined ? { shard, epoch } : { shard, epoch, claimed });
    // Handed over ahead of its time (prepareAheadMs): loaded and fenced then, sent at its time.
    this.wheel.add(fireId, dueAt - this.options.prepareAheadMs);
  }

  /**
   * The wheel's hand-over: passes on the fires whose shard is still held under the epoch they
   * were armed with. The others stay `pending` for the shard's current holder.
   */
  private handOver(due: DueFire[]): void {
    const { leases, logger, pipeline, inFlight } = this.options;
    const ids: number[] = [];
    const claimed: (ClaimedFire | undefined)[] = [];
    const shards = new Set<number>();
    let dropped = 0;
    for (const { fireId } of due) {
      const armed = this.armed.get(fireId);
      this.armed.delete(fireId);
      if (armed === undefined || leases.epochOf(armed.shard) !== armed.epoch) {
        dropped++;
        continue;
      }
      ids.push(fireId);
      claimed.push(armed.claimed);
      shards.add(armed.shard);
    }
    if (dropped > 0)
      logger.warn({ dropped }, 'due fires of shards no longer held were left to their new holder');
    if (ids.length === 0) return;
    inFlight.add(ids);
    try {
      pipeline.onDue(ids, claimed);
    } catch (err) {
      // The records are still pending: forget the hand-over and recover their shards next tick.
      logger.error(
        { err, fireIds: ids },
        'the fire pipeline refused due fires; recovering them at the next tick',
      );
      inFlight.delete(ids);
      for (const shard of shards) this.recoveredEpoch.delete(shard);
    }
  }
}

/**
 * The [scheduled time, time to send] pairs of a claim's plans, by job: the plan's own array (one to
 * three pairs), not a key a fire — a text of the job and the time made for each fire twice cost
 * the printing of an epoch millisecond each time.
 */
type DueTimes = Map<number, readonly [number, number][]>;

/** The time to send the job's fire scheduled at `scheduledAt`, when the claim's plans arm it. */
function dueAtOf(dueAts: DueTimes, jobId: number, scheduledAt: number): number | undefined {
  const times = dueAts.get(jobId);
  if (times === undefined) return undefined;
  for (const [at, dueAt] of times) if (at === scheduledAt) return dueAt;
  return undefined;
}
