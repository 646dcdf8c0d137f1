/**
 * `report-progress`: a job that works through steps and logs its progress into the run's log,
 * which the console (or the `log` call) shows while the run is going.
 *
 * Parameter: the number of steps (default 5). Each step takes 200 ms.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobContext } from '@tickwheel/executor';

const DEFAULT_STEPS = 5;
const STEP_MS = 200;

export default async function reportProgress(ctx: JobContext): Promise<string> {
  const steps = stepsFrom(ctx.param);
  ctx.log(`starting ${steps} steps`);
  for (let step = 1; step <= steps; step++) {
    // Passing the signal makes the wait end at once on timeout or kill (the await then throws).
    await sleep(STEP_MS, undefined, { signal: ctx.signal });
    ctx.log(`step ${step}/${steps} done (${Math.round((step / steps) * 100)}%)`);
  }
  return `reported ${steps} steps`;
}

function stepsFrom(param: string): number {
  const steps = Number.parseInt(param, 10);
  return Number.isInteger(steps) && steps > 0 ? steps : DEFAULT_STEPS;
}
