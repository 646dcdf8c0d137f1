/**
 * The workflow sweep: moves on what a server node left when it stopped between a node's end
 * and its run's next step (a crash, a kill -9, a lost database connection). Nothing of a run
 * lives only in a node's memory — the node records, the run's state and version are stored —
 * so the sweep reads running runs not changed for a while and steps them (engine.ts); the
 * compare-and-set of the run's version makes a step the sweep and a slow node compute at once
 * count once. It also starts SERIAL workflows' waiting runs whose turn came while their node
 * died, and sends failed runs' alarms no node sent. At start and then every 10 s, on the node
 * holding the maintenance lease.
 */
import type { Logger } from 'pino';
import { holdMaintenanceLease, type MaintenanceLeaseOptions } from '../monitors/maintenance-lease.js';
import { Periodic } from '../monitors/periodic.js';
import type { Clock } from '../scheduling/clock.js';
import type { Store } from '../store/index.js';
import type { WorkflowEngine } from './engine.js';

export interface WorkflowSweepOptions {
  store: Pick<Store, 'workflows'>;
  engine: Pick<WorkflowEngine, 'advance' | 'promote' | 'sendAlarm'>;
  lease: MaintenanceLeaseOptions;
  clock: Clock;
  logger: Pick<Logger, 'error' | 'info'>;
  /** Time between two sweeps (the server's `internal.workflowSweepIntervalMs`). */
  intervalMs: number;
  /** A run changed less than this long ago is left to the node moving it (`internal.workflowSweepGraceMs`). */
  graceMs: number;
}

const BATCH = 200;

export class WorkflowSweep {
  private readonly options: WorkflowSweepOptions;
  private readonly graceMs: number;
  private readonly loop: Periodic;

  constructor(options: WorkflowSweepOptions) {
    this.options = options;
    this.graceMs = options.graceMs;
    this.loop = new Periodic({
      name: 'workflow sweep',
      intervalMs: options.intervalMs,
      clock: options.clock,
      logger: options.logger,
      run: () => this.sweep(),
    });
  }

  start(): void {
    this.loop.start();
    void this.loop.runNow();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One sweep, if this node holds the maintenance lease; returns the runs it stepped. */
  async sweep(): Promise<{ held: boolean; stepped: number }> {
    const { clock, lease, store, engine } = this.options;
    if (!(await holdMaintenanceLease(lease, clock.now()))) return { held: false, stepped: 0 };
    const before = clock.now() - this.graceMs;
    const stale = await store.workflows.findStaleRuns(before, BATCH);
    for (const run of stale) await engine.advance(run.id);
    for (const workflowId of await store.workflows.findWorkflowsWithWaitingRuns(BATCH)) {
      await engine.promote(workflowId);
    }
    for (const run of await store.workflows.findOwedRunAlarms(before, BATCH)) await engine.sendAlarm(run.id);
    return { held: true, stepped: stale.length };
  }
}
