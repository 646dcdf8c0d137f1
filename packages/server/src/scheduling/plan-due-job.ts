/**
 * What one due job records and where its schedule continues: the planner's decision for a job
 * the claim read, as a pure function of the job, the time and the jobs already given a fire-now
 * misfire this tick. The claim runs it inside its transaction (store/hot/claim.ts), on whichever
 * thread runs the claim (the server's, or SQLite's hot statements thread), and returns the
 * outcomes with the claimed fires; the planner then remembers them (the due times to arm, the
 * fire-now jobs, the schedules that no longer read).
 */
import type { ClaimedJob, FirePlan, PlannedFire, PlanOutcome } from '../store/hot/claim.js';
import { type ClaimedTime, type MissedTimes, planClaimedTimes, scheduleOf } from './misfire.js';

/** The plan of one due job and what the planner must remember of it. */
export interface DueJobPlan extends PlanOutcome {
  plan: FirePlan;
}

/**
 * Plans `job` (misfire.ts `planClaimedTimes`: every time inside the misfire window fires, the
 * older ones become one record by the policy; a recurring job's times up to `recordUntil` are
 * recorded together). A job in `firedNow` already got a fire-now misfire
 * this tick and gets a skip instead. A skipped misfire is recorded `skipped` by the claim's own
 * transaction, so the log shows it and no crash leaves it pending. A schedule that no longer
 * reads would fail every batch it is in: the job is stopped instead (`error` says why).
 */
export function planDueJob(
  job: ClaimedJob,
  now: number,
  misfireWindowMs: number,
  firedNow: ReadonlySet<number>,
  recordUntil?: number,
): DueJobPlan {
  const outcome: DueJobPlan = {
    jobId: job.id,
    plan: { fires: [], nextFireAt: null },
    dueAts: [],
    firedNow: false,
  };
  if (job.schedule_type === 'NONE') return outcome;
  try {
    const strategy = firedNow.has(job.id) ? 'DO_NOTHING' : job.misfire_strategy;
    const planned = planClaimedTimes(
      scheduleOf(job),
      job.next_fire_at as number,
      now,
      strategy,
      misfireWindowMs,
      recordUntil,
    );
    const fires = planned.times.map((time) => plannedFire(time, outcome));
    outcome.plan = { fires, nextFireAt: planned.nextFireAt };
  } catch (err) {
    outcome.plan = { fires: [], nextFireAt: null, stop: true };
    outcome.error = err instanceof Error ? err.message : String(err);
  }
  return outcome;
}

function plannedFire(time: ClaimedTime, outcome: DueJobPlan): PlannedFire {
  const { scheduledAt, decision } = time;
  if (decision.action === 'skip') {
    return { scheduledAt, triggerType: 'MISFIRE', status: 'skipped', handleMsg: skippedMessage(time.missed) };
  }
  if (decision.triggerType === 'MISFIRE') outcome.firedNow = true;
  outcome.dueAts.push([scheduledAt, decision.dueAt]);
  return { scheduledAt, triggerType: decision.triggerType };
}

/** Why a claimed time missed by more than the window was skipped, and how many times it stands for. */
function skippedMessage(missed: MissedTimes | undefined): string {
  const count = missed?.count ?? 1;
  const times = missed?.atLeast
    ? `${count} or more scheduled times were`
    : count === 1
      ? '1 scheduled time was'
      : `${count} scheduled times were`;
  return `misfire: skipped (DO_NOTHING), missed by more than the misfire window; ${times} missed, from this one on`;
}
