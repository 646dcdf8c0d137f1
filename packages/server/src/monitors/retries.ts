/**
 * The retry monitor: sends RETRY records when they are due, and makes sure every failure gets
 * its decision (retries/failure-decisions.ts).
 *
 * Retries are rows, not timers: a failure's decision writes the RETRY record, due after the
 * job's back-off, and this monitor sends it once its time has come — so a retry survives a
 * restart of the node (or the node's death: another node sends it).
 *
 * Who sends a retry: the node that owns the job's shard (the planner's shard leases), as the
 * planner sends the job's scheduled fires. Retries of a cluster spread over its nodes as jobs
 * do, and a node that loses a shard stops sending its retries as it stops claiming its fires.
 * (The maintenance lease would put every retry of the cluster on one node, and would make a
 * node that stalls hold them all up.) Sending is exactly once across nodes and restarts: a node
 * first claims the record by compare-and-set on its `dispatch_claimed_at` as read, so of two
 * nodes (a shard hand-over in flight) only one wins; a claim whose dispatch never marked the
 * record (the node died in between) is taken again after `reclaimAfterMs`.
 *
 * Every `intervalMs` (default 500 ms, so a retry goes out at most about that late) a round:
 * 1. decides the dispatches that failed since the last round, taken from the pipeline once their
 *    marks are written (`takeDispatchFailures`: a dispatch failure finishes no record, so the
 *    result hook does not see it);
 * 2. claims and sends the due RETRY records of the shards this node owns;
 * 3. every `sweepIntervalMs`, decides failures of its shards left undecided (a node stopped
 *    between writing a result and deciding it), looking back `sweepWindowMs`.
 */
import type { Logger } from 'pino';
import type { DispatchRequest, FirePipeline } from '../dispatch/fire-pipeline.js';
import type { ResultRecorder } from '../executor-api/result-recorder.js';
import {
  broadcastsToSettle,
  type FailureDecision,
  type FailureDecisions,
} from '../retries/failure-decisions.js';
import { isShardAttempt } from '../retries/fire-chain.js';
import type { Clock } from '../scheduling/clock.js';
import type { ShardLeases } from '../scheduling/leases.js';
import type { FireRow, Store } from '../store/index.js';
import { Periodic } from './periodic.js';

export interface RetryMonitorOptions {
  store: Pick<Store, 'fires' | 'retries'>;
  pipeline: Pick<FirePipeline, 'dispatchCreated' | 'takeDispatchFailures'>;
  /** The planner's shard leases: only retries of owned shards are sent here. */
  leases: Pick<ShardLeases, 'shardOf' | 'epochOf'>;
  decisions: Pick<FailureDecisions, 'decide'>;
  /** Settles the broadcasts whose last shard's failure gets no retry (the result recorder). */
  recorder: Pick<ResultRecorder, 'settleBroadcasts'>;
  clock: Clock;
  logger: Pick<Logger, 'error' | 'warn' | 'info'>;
  /** Time between two rounds. */
  intervalMs: number;
  /** Time between two sweeps for undecided failures. */
  sweepIntervalMs: number;
  /** How far back a sweep looks (by scheduled time). */
  sweepWindowMs: number;
  /** A claimed retry still pending this long after its claim is claimed again. */
  reclaimAfterMs: number;
  /** Records read per statement. */
  batchSize: number;
}

/** What one round did. */
export interface RetryRound {
  /** RETRY records this round claimed and handed to the pipeline. */
  sent: number[];
  /** Failures this round decided. */
  decided: number;
}

/**
 * @example
 * const monitor = new RetryMonitor({ store, pipeline, leases, decisions, recorder, clock, logger });
 * monitor.start();
 */
export class RetryMonitor {
  private readonly options: RetryMonitorOptions;
  private readonly settings: Required<
    Pick<RetryMonitorOptions, 'sweepIntervalMs' | 'sweepWindowMs' | 'reclaimAfterMs' | 'batchSize'>
  >;
  private readonly loop: Periodic;
  private readonly sending = new Set<Promise<unknown>>();
  private lastSweepAt = Number.NEGATIVE_INFINITY;

  constructor(options: RetryMonitorOptions) {
    this.options = options;
    this.settings = {
      sweepIntervalMs: options.sweepIntervalMs,
      sweepWindowMs: options.sweepWindowMs,
      reclaimAfterMs: options.reclaimAfterMs,
      batchSize: options.batchSize,
    };
    this.loop = new Periodic({
      name: 'retry round',
      intervalMs: options.intervalMs,
      clock: options.clock,
      logger: options.logger,
      run: () => this.round(),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Stops the rounds and waits for the round in progress and the dispatches it started. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.sending]);
  }

  /** One round now (see the module comment). */
  async round(): Promise<RetryRound> {
    const decided = await this.decideDispatchFailures();
    const sent = await this.sendDue();
    let swept = 0;
    const now = this.options.clock.now();
    if (now - this.lastSweepAt >= this.settings.sweepIntervalMs) {
      this.lastSweepAt = now;
      swept = await this.sweep(now);
    }
    return { sent, decided: decided + swept };
  }

  /** Decides the dispatches that failed since the last round (their marks are written). */
  private async decideDispatchFailures(): Promise<number> {
    const failed = this.options.pipeline.takeDispatchFailures();
    if (failed.length === 0) return 0;
    return (await this.decideAndSettle(failed)).length;
  }

  private async decideAndSettle(fireIds: readonly number[]): Promise<FailureDecision[]> {
    const decided = await this.options.decisions.decide(fireIds);
    const settle = broadcastsToSettle(decided);
    if (settle.length > 0) {
      try {
        await this.options.recorder.settleBroadcasts(settle);
      } catch (err) {
        this.options.logger.error(
          { err, fireIds: settle },
          'could not settle broadcasts after their last shard failed',
        );
      }
    }
    return decided;
  }

  /** Claims and sends the due RETRY records of the shards this node owns. */
  private async sendDue(): Promise<number[]> {
    const { store, clock, leases } = this.options;
    const sent: number[] = [];
    for (;;) {
      const now = clock.now();
      const due = await store.retries.findDueRetries({
        nowMs: now,
        claimedBefore: now - this.settings.reclaimAfterMs,
        limit: this.settings.batchSize,
      });
      const owned = due.filter((fire) => leases.epochOf(leases.shardOf(fire.job_id)) !== undefined);
      for (const fire of owned) {
        if (!(await store.retries.claimRetryDispatch(fire, now))) continue;
        sent.push(fire.id);
        this.send(fire);
      }
      if (due.length < this.settings.batchSize || owned.length === 0) return sent;
    }
  }

  /** Hands a claimed retry to the pipeline: a shard's retry goes out as that one shard. */
  private send(fire: FireRow): void {
    const work = (async () => {
      const request: DispatchRequest = (await isShardAttempt(this.options.store.fires, fire))
        ? { shard: { index: fire.shard_index, total: fire.shard_total } }
        : {};
      await this.options.pipeline.dispatchCreated(fire, request);
    })().catch((err: unknown) =>
      this.options.logger.error(
        { err, fireId: fire.id },
        'could not send a retry; it is claimed again after the reclaim time',
      ),
    );
    this.sending.add(work);
    void work.finally(() => this.sending.delete(work));
  }

  /** Decides the undecided failures of the owned shards within the window. */
  private async sweep(now: number): Promise<number> {
    const { store, leases } = this.options;
    const undecided = await store.retries.findUndecidedFailures({
      scheduledFrom: now - this.settings.sweepWindowMs,
      limit: this.settings.batchSize,
    });
    const owned = undecided.filter((fire) => leases.epochOf(leases.shardOf(fire.job_id)) !== undefined);
    if (owned.length === 0) return 0;
    const decided = await this.decideAndSettle(owned.map((fire) => fire.id));
    if (decided.length > 0) {
      this.options.logger.info(
        { count: decided.length },
        'decided failures left undecided (retries and alarms)',
      );
    }
    return decided.length;
  }
}
