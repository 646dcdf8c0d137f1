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
 * The parent's record is finished exactly once (the store returns only records it changed), so
 * the children fire once however often the result was sent.
 */
import type { Logger } from 'pino';
import type { FirePipeline } from '../dispatch/fire-pipeline.js';
import { isShardAttempt } from '../retries/fire-chain.js';
import type { Planner } from '../scheduling/planner.js';
import type { FinishedFire, FireRow, JobRow, Store } from '../store/index.js';
import { parseChildJobIds } from './child-job-ids.js';

export interface ChildTriggerOptions {
  store: Pick<Store, 'fires' | 'jobs'>;
  pipeline: Pick<FirePipeline, 'dispatchCreated'>;
  /** Told of each child record as soon as it exists (see trigger.ts): recovery leaves it to this dispatch. */
  planner: Pick<Planner, 'rememberDispatching'>;
  clock: { now(): number };
  logger: Pick<Logger, 'error' | 'warn'>;
}

export class ChildTrigger {
  private readonly options: ChildTriggerOptions;

  constructor(options: ChildTriggerOptions) {
    this.options = options;
  }

  /**
   * Fires the child jobs of the successful records among `finished`; resolves once the child
   * records exist (their dispatch goes on). Returns the child records made. Never rejects.
   */
  async afterSuccess(finished: readonly FinishedFire[]): Promise<number[]> {
    const succeeded = finished.filter((fire) => fire.status === 'succeeded');
    if (succeeded.length === 0) return [];
    const { store, logger } = this.options;
    try {
      const parents = await store.jobs.findJobsByIds([...new Set(succeeded.map((fire) => fire.jobId))]);
      const withChildren = new Map(
        parents.filter((job) => parseChildJobIds(job.child_job_ids).length > 0).map((job) => [job.id, job]),
      );
      const triggering = succeeded.filter((fire) => withChildren.has(fire.jobId));
      if (triggering.length === 0) return [];
      const made: number[] = [];
      for (const fire of triggering) {
        if (await this.isShardSuccess(fire)) continue;
        made.push(...(await this.fireChildren(fire.fireId, withChildren.get(fire.jobId)!)));
      }
      return made;
    } catch (err) {
      logger.error({ err, fireIds: succeeded.map((f) => f.fireId) }, 'could not fire child jobs');
      return [];
    }
  }

  /** A shard (or a retry of one) that succeeded: its broadcast's record fires the children. */
  private async isShardSuccess(fire: FinishedFire): Promise<boolean> {
    // A root record (an ordinary fire, a broadcast's own) is no shard. The executor address
    // tells nothing here: a result may be written before its dispatch mark.
    if (fire.parentFireId === null) return false;
    const row = await this.options.store.fires.findFireById(fire.fireId);
    return row !== undefined && (await isShardAttempt(this.options.store.fires, row));
  }

  private async fireChildren(parentFireId: number, parent: JobRow): Promise<number[]> {
    const { store, pipeline, planner, clock, logger } = this.options;
    const childIds = parseChildJobIds(parent.child_job_ids);
    const children = await store.jobs.findJobsByIds(childIds);
    const missing = childIds.filter((id) => !children.some((child) => child.id === id));
    if (missing.length > 0) {
      logger.warn({ jobId: parent.id, missing }, 'child jobs no longer exist; the others fire');
    }
    if (children.length === 0) return [];
    const now = clock.now();
    const ordered = childIds.flatMap((id) => children.filter((child) => child.id === id));
    const ids = await store.fires.createFires(
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
    planner.rememberDispatching(ids);
    const records = await store.fires.findFiresByIds(ids);
    for (const record of records) void pipeline.dispatchCreated(record as FireRow);
    return ids;
  }
}
