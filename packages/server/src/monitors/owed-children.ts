/**
 * The owed-children sweep: fires the child jobs of successes whose node stopped between writing
 * the result and creating the child records (a crash, a kill -9, a lost database connection).
 * The success says it owes them (`children_status`, set by the statement that finished it), so
 * nothing is lost with the node's memory. At start and then every minute, on the node holding
 * the maintenance lease, it reads the owed records — finished longer ago than the result hook
 * takes, scheduled within the look-back — through their partial index, and pays them through
 * the child trigger, whose compare-and-set makes each child fire once even when the hook of a
 * slow node pays the same debt at the same moment.
 */
import type { Logger } from 'pino';
import type { ChildTrigger } from '../child-jobs/child-trigger.js';
import type { Clock } from '../scheduling/clock.js';
import type { ChildFireRepository } from '../store/index.js';
import { holdMaintenanceLease, type MaintenanceLeaseOptions } from './maintenance-lease.js';
import { Periodic } from './periodic.js';

export interface OwedChildrenMonitorOptions {
  childFires: Pick<ChildFireRepository, 'findOwedChildren'>;
  children: Pick<ChildTrigger, 'fireOwed'>;
  lease: MaintenanceLeaseOptions;
  clock: Clock;
  logger: Pick<Logger, 'error' | 'info'>;
  /** Time between two sweeps; the first runs at start. */
  intervalMs: number;
  /** A success finished less than this long ago is left to its result hook. */
  graceMs: number;
  /**
   * How far back a sweep looks, by scheduled time: child jobs owed longer are not fired any
   * more (a day-old success firing its children now would surprise more than help).
   */
  lookBackMs: number;
  /** Owed records read per statement. */
  batchSize: number;
}

/** What one sweep did; `held` false when another node holds the maintenance lease. */
export interface OwedChildrenSweep {
  held: boolean;
  /** Owed records this sweep found (and paid, unless another node paid them meanwhile). */
  owed: number;
  /** Child records this sweep created. */
  fired: number[];
}

/**
 * @example
 * const monitor = new OwedChildrenMonitor({ childFires: store.childFires, children: childTrigger,
 *   lease: { leases: store.leases, nodeId }, clock, logger });
 * monitor.start();
 */
export class OwedChildrenMonitor {
  private readonly options: OwedChildrenMonitorOptions;
  private readonly settings: Required<
    Pick<OwedChildrenMonitorOptions, 'graceMs' | 'lookBackMs' | 'batchSize'>
  >;
  private readonly loop: Periodic;

  constructor(options: OwedChildrenMonitorOptions) {
    this.options = options;
    this.settings = {
      graceMs: options.graceMs,
      lookBackMs: options.lookBackMs,
      batchSize: options.batchSize,
    };
    this.loop = new Periodic({
      name: 'owed-children sweep',
      intervalMs: options.intervalMs,
      clock: options.clock,
      logger: options.logger,
      run: () => this.sweep(),
    });
  }

  /** Starts the loop with a first sweep now (in the background): a restart pays what the crash left. */
  start(): void {
    this.loop.start();
    void this.loop.runNow();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One sweep, if this node holds the maintenance lease. */
  async sweep(): Promise<OwedChildrenSweep> {
    const { clock, lease, childFires, children } = this.options;
    const sweep: OwedChildrenSweep = { held: false, owed: 0, fired: [] };
    if (!(await holdMaintenanceLease(lease, clock.now()))) return sweep;
    sweep.held = true;
    const seen = new Set<number>();
    for (;;) {
      const now = clock.now();
      const owed = await childFires.findOwedChildren({
        scheduledFrom: now - this.settings.lookBackMs,
        finishedBefore: now - this.settings.graceMs,
        limit: this.settings.batchSize,
      });
      // A record paid meanwhile by another node is no longer listed; one left owed (its job's
      // children could not be read) would be listed again: stop once a page brings nothing new.
      const fresh = owed.filter((fire) => !seen.has(fire.id));
      for (const fire of fresh) seen.add(fire.id);
      if (fresh.length === 0) break;
      sweep.fired.push(...(await children.fireOwed(fresh)));
      sweep.owed += fresh.length;
      if (owed.length < this.settings.batchSize) break;
    }
    if (sweep.owed > 0) {
      this.options.logger.info(
        { owed: sweep.owed, childFires: sweep.fired.length },
        'fired the child jobs of successes whose node stopped before firing them',
      );
    }
    return sweep;
  }
}
