/**
 * The load: K workflow runs in flight, a new one triggered as soon as one ends. It goes on past
 * the window until every run triggered in the window has ended, so the last measured runs see the
 * same load as the first; then it stops triggering and waits for the rest.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Window } from '../fire/messages.js';

export interface InFlightOptions {
  concurrency: number;
  /** Starts a run; resolves with its id. */
  trigger(): Promise<number>;
  /** Which of `runIds` have ended. */
  ended(runIds: readonly number[]): Promise<number[]>;
  /** Runs triggered in it are the measured ones (epoch ms, end excluded). */
  window: Window;
  /** Epoch ms: the loop gives up on unfinished runs then. */
  deadline: number;
  /** Time between two looks at the runs in flight, ms. */
  pollMs: number;
}

export interface InFlightResult {
  /** The runs triggered in the window, in trigger order. */
  windowRuns: number[];
  /** Every run triggered. */
  triggered: number;
  /** Runs (of the window or after it) that had not ended by the deadline. */
  unfinished: number;
  /** Of those, runs of the window. */
  unfinishedInWindow: number;
}

export async function keepRunsInFlight(options: InFlightOptions): Promise<InFlightResult> {
  const { concurrency, window, deadline } = options;
  const inFlight = new Set<number>();
  const windowRuns: number[] = [];
  const windowPending = new Set<number>();
  let triggered = 0;

  const topUp = () =>
    Promise.all(
      Array.from({ length: concurrency - inFlight.size }, async () => {
        const at = Date.now();
        const runId = await options.trigger();
        triggered++;
        inFlight.add(runId);
        if (at >= window.start && at < window.end) {
          windowRuns.push(runId);
          windowPending.add(runId);
        }
      }),
    );
  const collectEnded = async () => {
    if (inFlight.size === 0) return;
    for (const runId of await options.ended([...inFlight])) {
      inFlight.delete(runId);
      windowPending.delete(runId);
    }
  };

  while ((Date.now() < window.end || windowPending.size > 0) && Date.now() < deadline) {
    await topUp();
    await sleep(options.pollMs);
    await collectEnded();
  }
  // No new runs: those still in flight end with the load going down, and are not measured.
  while (inFlight.size > 0 && Date.now() < deadline) {
    await sleep(options.pollMs);
    await collectEnded();
  }
  return {
    windowRuns,
    triggered,
    unfinished: inFlight.size,
    unfinishedInWindow: windowPending.size,
  };
}
