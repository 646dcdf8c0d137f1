/**
 * FIX_DELAY: a job's next fire is one delay after its run ended, so the planner leaves
 * `next_fire_at` null while the run is in flight and this sets it — from the run's result
 * (`onFiresFinished`), or from the dispatch when no run happened (`continueFrom`).
 */
import type { TriggerType } from '@tickwheel/protocol';
import type { Logger } from 'pino';
import type { Clock } from '../scheduling/clock.js';
import { nextFixDelayFireAt, scheduleOf } from '../scheduling/misfire.js';
import type { DueJob } from '../store/hot/due-load.js';
import type { FinishedFire, JobRepository } from '../store/index.js';

/** Trigger types of fires the planner claimed; only these follow the job's run state. */
export const SCHEDULED_TRIGGERS: ReadonlySet<string> = new Set<TriggerType>(['CRON', 'MISFIRE']);

/** Fires whose job's schedule type is remembered until their result comes, at most. */
const SCHEDULE_TYPES_REMEMBERED = 200_000;

export interface FixDelayOptions {
  jobs: Pick<JobRepository, 'findJobsByIds' | 'recordRunEnd'>;
  clock: Pick<Clock, 'now'>;
  logger: Pick<Logger, 'error'>;
}

export class FixDelayFollowUps {
  private readonly options: FixDelayOptions;
  /**
   * Whether the job of each scheduled fire this process sent is FIX_DELAY, until its result
   * comes: `onFiresFinished` then reads only the jobs that need their next time set, not the job
   * of every result. Bounded; a fire forgotten here is read as before.
   */
  private readonly fixDelayByFire = new Map<number, boolean>();

  constructor(options: FixDelayOptions) {
    this.options = options;
  }

  /** Notes the schedule type of a scheduled fire being sent. */
  remember(fireId: number, job: DueJob): void {
    if (this.fixDelayByFire.size >= SCHEDULE_TYPES_REMEMBERED) {
      // The oldest entries are the likeliest to have lost their result: drop them first.
      const oldest = this.fixDelayByFire.keys().next().value;
      if (oldest !== undefined) this.fixDelayByFire.delete(oldest);
    }
    this.fixDelayByFire.set(fireId, job.schedule_type === 'FIX_DELAY');
  }

  /**
   * The finalise hook (callbacks, kills, lost runs): a FIX_DELAY job fires next one delay after
   * its run ended. Only the planner's own record counts (a manual run does not move the schedule).
   */
  async onFiresFinished(finished: readonly FinishedFire[]): Promise<void> {
    const scheduled = finished.filter((f) => {
      if (f.parentFireId !== null || !SCHEDULED_TRIGGERS.has(f.triggerType)) return false;
      const fixDelay = this.fixDelayByFire.get(f.fireId);
      this.fixDelayByFire.delete(f.fireId);
      // Fires this process sent are known; another node's (or an earlier process's) are read.
      return fixDelay !== false;
    });
    if (scheduled.length === 0) return;
    const jobs = await this.options.jobs.findJobsByIds([...new Set(scheduled.map((f) => f.jobId))]);
    await this.continueFrom(jobs, this.options.clock.now());
  }

  /** Sets the next fire of FIX_DELAY jobs that are running and have none yet, one delay after `endedAt`. */
  async continueFrom(jobs: readonly DueJob[], endedAt: number): Promise<void> {
    for (const job of jobs) {
      if (job.schedule_type !== 'FIX_DELAY' || job.trigger_status !== 1 || job.next_fire_at !== null)
        continue;
      try {
        await this.options.jobs.recordRunEnd(job.id, endedAt, nextFixDelayFireAt(scheduleOf(job), endedAt));
      } catch (err) {
        this.options.logger.error({ err, jobId: job.id }, 'could not set the next fire of a FIX_DELAY job');
      }
    }
  }
}
