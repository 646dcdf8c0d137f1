/**
 * A monitor's loop: run a sweep, wait the interval, run it again. A sweep never overlaps the
 * previous one (the next wait starts when it ends), an error is logged and the loop goes on, and
 * `stop()` waits for a sweep in progress. Time comes from the injected clock.
 */
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../scheduling/clock.js';

export interface PeriodicOptions {
  /** Named in log lines. */
  name: string;
  intervalMs: number;
  clock: Pick<Clock, 'setTimer' | 'clearTimer'>;
  logger: Pick<Logger, 'error'>;
  run: () => Promise<unknown>;
}

export class Periodic {
  private readonly options: PeriodicOptions;
  private timer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  private started = false;

  constructor(options: PeriodicOptions) {
    this.options = options;
  }

  /** Starts the loop; the first sweep runs one interval from now. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule();
  }

  /** Stops the loop and waits for a sweep in progress. */
  async stop(): Promise<void> {
    this.started = false;
    if (this.timer !== undefined) this.options.clock.clearTimer(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Runs one sweep now (after the one in progress, if any); errors are logged, not thrown. */
  async runNow(): Promise<void> {
    while (this.running !== undefined) await this.running;
    this.running = this.options
      .run()
      .then(
        () => {},
        (err: unknown) =>
          this.options.logger.error({ err }, `${this.options.name} failed; trying again next round`),
      )
      .finally(() => {
        this.running = undefined;
      });
    await this.running;
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = this.options.clock.setTimer(() => {
      this.timer = undefined;
      void this.runNow().then(() => {
        if (this.started) this.schedule();
      });
    }, this.options.intervalMs);
  }
}
