/**
 * Child jobs: when a run of a job succeeds, each job of its `childJobIds` fires once, now, with
 * trigger type PARENT. The child's record is a root record of its own job (it is dispatched and
 * recovered like a manual trigger); the parent's record it was triggered by is kept in its
 * `triggered_by_fire_id` (`parent_fire_id` means "hangs off" — shards and retries — and stays
 * null).
 *
 * Which success counts: an ordinary run or a retry that succeeded; for a SHARDING_BROADCAST job,
 * the broadcast's own record, which succeeds once every shard did (after their retries) — so the
 * children fire once per broadcast, not once per shard (XXL-JOB issue #1116). A shard's own
 * success triggers nothing.
 *
 * Exactly once, crash or not: the statement that finishes a success of a job with child jobs
 * marks the record as owing them (store/child-fires.ts), and the child records are created in
 * one transaction with a compare-and-set of that mark. The result hook pays the debt at once
 * (`afterSuccess`); when its node died first, the owed-children sweep pays it (`fireOwed`,
 * monitors/owed-children.ts); when both try, one creates the children and the other nothing.
 */
import type { Logger } from 'pino';
import type { FirePipeline } from '../dispatch/fire-pipeline.js';
import { isShardAttempt } from '../retries/fire-chain.js';
import type { InFlightFires } from '../scheduling/in-flight.js';
import type { FinishedFire, FireRow, JobRow, Store } from '../store/index.js';
import { parseChildJobIds } from './child-job-ids.js';

export interface ChildTriggerOptions {
  store: Pick<Store, 'fires' | 'jobs' | 'childFires'>;
  pipeline: Pick<FirePipeline, 'dispatchCreated'>;
  /** Each child record goes in as soon as it exists (see trigger.ts): recovery leaves it to this dispatch. */
  inFlight: Pick<InFlightFires, 'add'>;
  clock: { now(): number };
  logger: Pick<Logger, 'error' | 'warn'>;
}

/** A record that owes its children: the parent's id, its job, and whether it hangs off another. */
interface OwingRecord {
  fireId: number;
  jobId: number;
  parentFireId: number | null;
  /** The record as read, when the caller has it (the sweep does). */
  row?: FireRow;
}

export class ChildTrigger {
  private readonly options: ChildTriggerOptions;

  constructor(options: ChildTriggerOptions) {
    this.options = options;
  }

  /**
   * Fires the child jobs the records among `finished` owe (successes of jobs with child jobs);
   * resolves once the child records exist (their dispatch goes on). Returns the child records
   * made. Never rejects: what it could not pay stays owed for the sweep.
   */
  async afterSuccess(finished: readonly FinishedFire[]): Promise<number[]> {
    const owing = finished.filter((fire) => fire.childrenOwed);
    if (owing.length === 0) return [];
    try {
      return await this.pay(owing);
    } catch (err) {
      this.options.logger.error(
        { err, fireIds: owing.map((fire) => fire.fireId) },
        'could not fire child jobs; the owed-children sweep will',
      );
      return [];
    }
  }

  /**
   * Fires the child jobs the records `owing` (read back from the store by the sweep) still owe.
   * Returns the child records made; rejects when the store failed (the sweep tries again).
   */
  fireOwed(owing: readonly FireRow[]): Promise<number[]> {
    return this.pay(
      owing.map((row) => ({ fireId: row.id, jobId: row.job_id, parentFireId: row.parent_fire_id, row })),
    );
  }

  private async pay(owing: readonly OwingRecord[]): Promise<number[]> {
    const { store } = this.options;
    const jobs = new Map(
      (await store.jobs.findJobsByIds([...new Set(owing.map((fire) => fire.jobId))])).map((job) => [
        job.id,
        job,
      ]),
    );
    const made: number[] = [];
    const owingNothing: number[] = [];
    for (const fire of owing) {
      const job = jobs.get(fire.jobId);
      // The job was deleted, or its child jobs removed, since the run: nothing to fire.
      if (
        job === undefined ||
        parseChildJobIds(job.child_job_ids).length === 0 ||
        (await this.isShard(fire))
      ) {
        owingNothing.push(fire.fireId);
        continue;
      }
      made.push(...(await this.fireChildren(fire.fireId, job)));
    }
    await store.childFires.clearOwedChildren(owingNothing);
    return made;
  }

  /** A shard (or a retry of one) that succeeded: its broadcast's record fires the children. */
  private async isShard(fire: OwingRecord): Promise<boolean> {
    // A root record (an ordinary fire, a broadcast's own) is no shard. The executor address
    // tells nothing here: a result may be written before its dispatch mark.
    if (fire.parentFireId === null) return false;
    const row = fire.row ?? (await this.options.store.fires.findFireById(fire.fireId));
    return row !== undefined && (await isShardAttempt(this.options.store.fires, row));
  }

  private async fireChildren(parentFireId: number, parent: JobRow): Promise<number[]> {
    const { store, pipeline, inFlight, clock, logger } = this.options;
    const childIds = parseChildJobIds(parent.child_job_ids);
    const children = await store.jobs.findJobsByIds(childIds);
    const missing = childIds.filter((id) => !children.some((child) => child.id === id));
    if (missing.length > 0) {
      logger.warn({ jobId: parent.id, missing }, 'child jobs no longer exist; the others fire');
    }
    const now = clock.now();
    const ordered = childIds.flatMap((id) => children.filter((child) => child.id === id));
    const ids = await store.childFires.createChildFires(
      parentFireId,
      ordered.map((child) => ({
        jobId: child.id,
        appId: child.app_id,
        scheduledAt: now,
        triggerType: 'PARENT' as const,
        executorHandler: child.executor_handler,
        executorParam: child.executor_param,
        retryCount: child.executor_fail_retry_count,
        triggeredByFireId: parentFireId,
      })),
      now,
    );
    // null: another node (the hook, or a sweep) created them first.
    if (ids === null || ids.length === 0) return [];
    inFlight.add(ids);
    const records = await store.fires.findFiresByIds(ids);
    for (const record of records) void pipeline.dispatchCreated(record);
    return ids;
  }
}
