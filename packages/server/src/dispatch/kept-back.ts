/**
 * Runs kept back (by the send fence, or because their executors' transport was down), reported as
 * a warning at most every KEPT_BACK_WARN_INTERVAL_MS with counts by reason and the first fire ids:
 * a takeover keeps back every fire of the shards that moved, and a Redis outage every fire for
 * stream executors (again at each try), which as a line per fire would flood the log.
 */
import type { Logger } from 'pino';
import type { Clock } from '../scheduling/clock.js';
import type { DispatchOutcome } from './dispatcher.js';

/** Least time between two warnings about runs the send fence kept back. */
export const KEPT_BACK_WARN_INTERVAL_MS = 5_000;

export class KeptBackReport {
  private counts: Record<string, number> = {};
  private fireIds: number[] = [];
  private lastAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  add(kept: readonly DispatchOutcome[]): void {
    for (const outcome of kept) {
      const reason = outcome.notSent ?? 'sent';
      this.counts[reason] = (this.counts[reason] ?? 0) + 1;
      if (this.fireIds.length < 10) this.fireIds.push(outcome.fireId);
    }
    const now = this.clock.now();
    if (now - this.lastAt < KEPT_BACK_WARN_INTERVAL_MS) return;
    this.logger.warn(
      { notSent: this.counts, firstFireIds: this.fireIds },
      'runs kept back, not sent (by reason, since the last such line)',
    );
    this.counts = {};
    this.fireIds = [];
    this.lastAt = now;
  }
}
