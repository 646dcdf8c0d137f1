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

export interface FixDelayOptions {
  jobs: Pick<JobRepository, 'findJobsByIds' | 'recordRunEnd'>;
  clock: Pick<Clock, 'now'>;
  logger: Pick<Logger, 'error'>;
}

export class FixDelayFollowUps {
  private readonly options: FixDelayOptions;

  constructor(options: FixDelayOptions) {
    this.options = options;
  }

  /**
   * The finalise hook (callbacks, kills, lost runs): a FIX_DELAY job fires next one delay after
   * its run ended. Only the planner's own record counts (a manual run does not move the schedule).
   */
  async onFiresFinished(finished: readonly FinishedFire[]): Promise<void> {
    const scheduled = finished.filter(
      (f) => f.fixDelay && f.parentFireId === null && SCHEDULED_TRIGGERS.has(f.triggerType),
    );
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
