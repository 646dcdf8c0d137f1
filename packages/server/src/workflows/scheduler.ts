/**
 * Workflows on their schedules. Every node polls for running workflows due within the next poll
 * (workflows are few: one indexed query a poll), sets a timer for each due time, and at that
 * time starts the run through the engine with a compare-and-set of the workflow's
 * `next_fire_at` (store/workflows.ts `startRun`): of the nodes that time the same fire, one makes
 * the run, the others change nothing.
 *
 * The schedule follows a job's rules (scheduling/misfire.ts): CRON and FIX_RATE times in the
 * workflow's time zone, ONCE once; a time found later than the misfire window is fired once now
 * (FIRE_ONCE_NOW, trigger type MISFIRE) or skipped (DO_NOTHING), and the next time is counted
 * from now, so a server that was down for a day does not replay the day.
 */
import { nextFireTimes, type Schedule } from '@tickwheel/protocol';
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../scheduling/clock.js';
import { decideFire } from '../scheduling/misfire.js';
import type { Store, WorkflowRow } from '../store/index.js';
import type { WorkflowEngine } from './engine.js';

export interface WorkflowSchedulerOptions {
  store: Pick<Store, 'workflows'>;
  engine: Pick<WorkflowEngine, 'trigger'>;
  clock: Clock;
  logger: Pick<Logger, 'error' | 'warn' | 'info'>;
  /** Time between two polls, and how far ahead each looks (the server's `internal.workflowPollIntervalMs`). */
  pollIntervalMs: number;
  /** A time found later than this is a misfire (the server's `misfireWindowMs`, as jobs). */
  misfireWindowMs: number;
}

/** Workflows read per poll. */
const POLL_LIMIT = 500;

export class WorkflowScheduler {
  private readonly options: WorkflowSchedulerOptions;
  private readonly pollIntervalMs: number;
  private readonly misfireWindowMs: number;
  private pollTimer: TimerHandle | undefined;
  /** Timers set for a workflow's due time, by `id@time`. */
  private readonly timers = new Map<string, TimerHandle>();
  private readonly underWay = new Set<Promise<unknown>>();
  private stopped = true;

  constructor(options: WorkflowSchedulerOptions) {
    this.options = options;
    this.pollIntervalMs = options.pollIntervalMs;
    this.misfireWindowMs = options.misfireWindowMs;
  }

  start(): void {
    this.stopped = false;
    this.schedulePoll(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer !== undefined) this.options.clock.clearTimer(this.pollTimer);
    for (const timer of this.timers.values()) this.options.clock.clearTimer(timer);
    this.timers.clear();
    while (this.underWay.size > 0) await Promise.allSettled([...this.underWay]);
  }

  /** One poll: timers for every workflow due before the next (exported for tests). */
  async poll(): Promise<void> {
    const { store, clock } = this.options;
    const now = clock.now();
    const due = await store.workflows.findDueWorkflows(now + this.pollIntervalMs, POLL_LIMIT);
    for (const workflow of due) {
      const at = workflow.next_fire_at!;
      const key = `${workflow.id}@${at}`;
      if (this.timers.has(key)) continue;
      const timer = clock.setTimer(
        () => {
          this.timers.delete(key);
          this.track(this.fire(workflow, at));
        },
        Math.max(0, at - clock.now()),
      );
      this.timers.set(key, timer);
    }
  }

  /** Fires `workflow`'s time `at` (or decides its misfire); another node may have taken it already. */
  private async fire(workflow: WorkflowRow, at: number): Promise<void> {
    const { engine, store, clock, logger } = this.options;
    const now = clock.now();
    const schedule: Schedule = {
      scheduleType: workflow.schedule_type as Schedule['scheduleType'],
      scheduleConf: workflow.schedule_conf,
      timeZone: workflow.time_zone,
    };
    try {
      const decision = decideFire(at, now, workflow.misfire_strategy, this.misfireWindowMs);
      // FIX_RATE keeps its rate from the scheduled time; a misfire counts from now.
      const from =
        decision.triggerType === 'MISFIRE' || workflow.schedule_type !== 'FIX_RATE' ? Math.max(at, now) : at;
      const next = workflow.schedule_type === 'ONCE' ? null : (nextFireTimes(schedule, from, 1)[0] ?? null);
      if (decision.action === 'skip') {
        if (await store.workflows.skipFireTime(workflow.id, at, next)) {
          logger.warn(
            { workflowId: workflow.id, scheduledAt: at },
            'workflow fire missed by more than the misfire window: skipped (DO_NOTHING)',
          );
        }
        return;
      }
      await engine.trigger(workflow, {
        triggerType:
          decision.triggerType === 'MISFIRE'
            ? 'MISFIRE'
            : workflow.schedule_type === 'CRON'
              ? 'CRON'
              : (workflow.schedule_type as 'FIX_RATE' | 'ONCE'),
        param: null,
        scheduledAt: at,
        schedule: { expected: at, next },
      });
    } catch (err) {
      logger.error(
        { err, workflowId: workflow.id, scheduledAt: at },
        'could not start a scheduled workflow run; the next poll tries again',
      );
    }
  }

  private schedulePoll(delayMs: number): void {
    if (this.stopped) return;
    this.pollTimer = this.options.clock.setTimer(() => {
      this.track(
        this.poll()
          .catch((err: unknown) => this.options.logger.error({ err }, 'workflow schedule poll failed'))
          .finally(() => this.schedulePoll(this.pollIntervalMs)),
      );
    }, delayMs);
  }

  private track(work: Promise<unknown>): void {
    this.underWay.add(work);
    void work.finally(() => this.underWay.delete(work));
  }
}
