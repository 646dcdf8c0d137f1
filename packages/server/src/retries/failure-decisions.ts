/**
 * What follows a failure: a retry, an alarm, both or neither. A record that failed (handle code
 * 500 or a lost run), timed out (502) or whose dispatch no executor took is decided once, by
 * whichever node sees it first — the one that wrote its result, the one whose dispatch failed,
 * or the retry monitor's sweep after a crash — through the store's compare-and-set
 * (`store.retries`).
 *
 * - Retry when the record has retries left (`retry_count`, set from the job's
 *   `executorFailRetryCount` when the fire was made): a new RETRY record pointing at it, one
 *   retry fewer left, due after the job's back-off. The retry monitor dispatches it then.
 * - Alarm through the AlarmSink: every failed attempt under EVERY_FAILURE (XXL-JOB's way), only
 *   the attempt after which no retry is left under FINAL_FAILURE.
 * - A broadcast is retried shard by shard (XXL-JOB retries the failed shard too): a failed shard
 *   gets a retry of that one shard; the broadcast's own record waits for the retries and is then
 *   finished from the last attempt of each shard. That summary record is neither retried nor
 *   alarmed itself (its shards were). A broadcast no executor took at all is retried as a whole.
 * - A killed run is the user's decision, not a failure: neither retried nor alarmed.
 *
 * With `alarmHoldMs`, an alarm of a job that names alarm targets is owed on the record in the
 * statement that takes the decision (store/owed-alarms.ts), so it is sent even when this node
 * dies before its alarm queue sent it.
 */
import type { Logger } from 'pino';
import type { AlarmSink } from '../alarms/alarm-sink.js';
import { namesAlarmTargets } from '../alarms/job-channels.js';
import type { FireRow, JobRow, OwedAlarm, Store } from '../store/index.js';
import { RETRYABLE_STATUSES } from '../store/index.js';
import { backoffOf, retryDelayMs } from './backoff.js';
import { attemptOf, isBroadcastSummary } from './fire-chain.js';

export interface FailureDecisionsOptions {
  store: Pick<Store, 'fires' | 'jobs' | 'retries'>;
  alarms: AlarmSink;
  clock: { now(): number };
  logger: Pick<Logger, 'error' | 'debug'>;
  /**
   * Record a decided alarm as owed, held by the alarm queue this long (the queue's `holdMs`).
   * Unset: alarms are only raised (a sink that keeps no record, such as a test's).
   */
  alarmHoldMs?: number;
}

/** What one decision did (for tests and logs). */
export interface FailureDecision {
  fireId: number;
  /** The RETRY record made, if any. */
  retryFireId: number | null;
  alarmed: boolean;
  /** The record above a broadcast's shard (null for a fire that is no shard). */
  parentFireId: number | null;
}

/**
 * The broadcasts to settle after `decisions`: a shard with no retry to come may have been the last
 * one its broadcast waited for. The caller settles them (the result recorder's
 * `settleBroadcasts`, which announces them like any finished record).
 */
export function broadcastsToSettle(decisions: readonly FailureDecision[]): number[] {
  return decisions.flatMap((d) =>
    d.retryFireId === null && d.parentFireId !== null ? [d.parentFireId] : [],
  );
}

const RETRYABLE: ReadonlySet<string> = new Set(RETRYABLE_STATUSES);

export class FailureDecisions {
  private readonly options: FailureDecisionsOptions;

  constructor(options: FailureDecisionsOptions) {
    this.options = options;
  }

  /**
   * Decides the records of `fireIds` that failed and are not decided yet; the others are left
   * alone. Never rejects: a record that could not be decided is logged and stays undecided for
   * the sweep.
   */
  async decide(fireIds: readonly number[]): Promise<FailureDecision[]> {
    if (fireIds.length === 0) return [];
    const { store, logger } = this.options;
    let fires: FireRow[];
    let jobs: Map<number, JobRow>;
    try {
      fires = (await store.fires.findFiresByIds([...new Set(fireIds)])).filter(isUndecidedFailure);
      if (fires.length === 0) return [];
      const rows = await store.jobs.findJobsByIds([...new Set(fires.map((fire) => fire.job_id))]);
      jobs = new Map(rows.map((job) => [job.id, job]));
    } catch (err) {
      logger.error(
        { err, fireIds },
        'could not load failed fires to decide retries and alarms; the sweep will',
      );
      return [];
    }
    const decisions: FailureDecision[] = [];
    for (const fire of fires) {
      try {
        const decision = await this.decideOne(fire, jobs.get(fire.job_id));
        if (decision !== null) decisions.push(decision);
      } catch (err) {
        logger.error(
          { err, fireId: fire.id },
          'could not decide the retry and alarm of a failed fire; the sweep will',
        );
      }
    }
    return decisions;
  }

  /** One failed record: null when another node decided it first (or it is a broadcast's summary). */
  private async decideOne(fire: FireRow, job: JobRow | undefined): Promise<FailureDecision | null> {
    const { store, clock } = this.options;
    if (job === undefined || (await isBroadcastSummary(store.fires, fire))) {
      await store.retries.decideWithoutRetry(fire.id);
      return null;
    }
    const now = clock.now();
    const retries = fire.retry_count > 0;
    const alarmed = job.alarm_on !== 'FINAL_FAILURE' || !retries;
    const holdMs = this.options.alarmHoldMs;
    const owed: OwedAlarm | undefined =
      alarmed && holdMs !== undefined && namesAlarmTargets(job) ? { heldUntil: now + holdMs } : undefined;
    let retryFireId: number | null = null;
    let reason: string;
    if (retries) {
      const attempt = await attemptOf(store.fires, fire);
      const delayMs = retryDelayMs(backoffOf(job), attempt);
      retryFireId = await store.retries.createRetryFire(fire, now + delayMs, now, owed);
      if (retryFireId === null) return null;
      const left = fire.retry_count - 1;
      reason = `${describeFailure(fire)}; retry ${attempt} (fire ${retryFireId}) in ${seconds(delayMs)}, ${left} ${left === 1 ? 'retry' : 'retries'} left after it`;
    } else {
      if (!(await store.retries.decideWithoutRetry(fire.id, owed))) return null;
      reason = `${describeFailure(fire)}; no retry left`;
    }
    if (alarmed) this.options.alarms.raise({ job, fire, reason, owed: owed !== undefined });
    return { fireId: fire.id, retryFireId, alarmed, parentFireId: fire.parent_fire_id };
  }
}

function isUndecidedFailure(fire: FireRow): boolean {
  return RETRYABLE.has(fire.status) && (fire.retry_fire_id === null || fire.retry_fire_id === undefined);
}

/** `fire 42 (job 7) failed: <handle message>`, with the dispatch's message when no run happened. */
export function describeFailure(fire: FireRow): string {
  const what =
    fire.status === 'timeout'
      ? 'timed out'
      : fire.status === 'dispatch_failed'
        ? 'could not be dispatched'
        : `failed (code ${fire.handle_code ?? 500})`;
  const detail = fire.status === 'dispatch_failed' ? lastLine(fire.trigger_msg) : fire.handle_msg;
  const shard = fire.shard_total > 1 ? ` shard ${fire.shard_index}/${fire.shard_total}` : '';
  return `fire ${fire.id} (job ${fire.job_id}${shard}) ${what}${detail ? `: ${detail}` : ''}`;
}

function lastLine(text: string | null): string | null {
  if (text === null) return null;
  return text.trimEnd().split('\n').at(-1) ?? null;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
