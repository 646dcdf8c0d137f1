/**
 * The vacuum monitor (PostgreSQL only): every `intervalMs`, on the node holding the maintenance
 * lease, it reads the dead rows of the tables the scheduler rewrites all the time
 * (store/upkeep.ts: jobs, workflows, leases, nodes, registrations) and vacuums each that has
 * `deadRows` or more. A claim's look for due jobs reads through the index entries of every old
 * version of a job until a vacuum removes them; autovacuum comes at most once a minute (or
 * never, where it is off), by which time a busy scheduler has left hundreds of thousands. On
 * SQLite and MySQL it is not started.
 *
 * Where autovacuum is off, the first sweep says so in the log once: `fire` is not vacuumed here
 * (it is large and grows with the retention), and without autovacuum its dead versions stay.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Clock } from '../scheduling/clock.js';
import type { UpkeepRepository, VacuumedTable } from '../store/upkeep.js';
import { holdMaintenanceLease, type MaintenanceLeaseOptions } from './maintenance-lease.js';
import { Periodic } from './periodic.js';

export interface VacuumMonitorOptions {
  upkeep: UpkeepRepository;
  lease: MaintenanceLeaseOptions;
  clock: Clock;
  logger: Pick<Logger, 'error' | 'warn' | 'debug'>;
  /** Time between two sweeps. */
  intervalMs: number;
  /** A table is vacuumed once it has this many dead rows. */
  deadRows: number;
  /** Called after each vacuum (metrics). */
  onVacuum?: (table: VacuumedTable, ms: number) => void;
}

/** What one sweep did; `held` false when another node holds the maintenance lease. */
export interface VacuumSweep {
  held: boolean;
  /** The tables vacuumed, with the dead rows each had. */
  vacuumed: { table: VacuumedTable; dead: number; ms: number }[];
}

/**
 * @example
 * const monitor = new VacuumMonitor({ upkeep: store.upkeep, lease, clock, logger,
 *   intervalMs: 2_000, deadRows: 10_000 });
 * monitor.start();
 */
export class VacuumMonitor {
  private readonly options: VacuumMonitorOptions;
  private readonly loop: Periodic;
  private autovacuumChecked = false;

  constructor(options: VacuumMonitorOptions) {
    this.options = options;
    this.loop = new Periodic({
      name: 'vacuum sweep',
      intervalMs: options.intervalMs,
      clock: options.clock,
      logger: options.logger,
      run: () => this.sweep(),
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One sweep now: vacuums the tables with `deadRows` dead rows or more, one after the other. */
  async sweep(): Promise<VacuumSweep> {
    const { upkeep, lease, clock, logger, deadRows, onVacuum } = this.options;
    if (!(await holdMaintenanceLease(lease, clock.now()))) return { held: false, vacuumed: [] };
    if (!this.autovacuumChecked) {
      this.autovacuumChecked = true;
      if (!(await upkeep.autovacuumOn())) {
        logger.warn(
          'PostgreSQL autovacuum is off: Tickwheel vacuums its job, workflow, lease, node and registry tables itself, ' +
            'but the fire table keeps its dead row versions until a VACUUM (turn autovacuum on, or vacuum fire on a schedule)',
        );
      }
    }
    const vacuumed: VacuumSweep['vacuumed'] = [];
    for (const { table, dead } of await upkeep.tableRows()) {
      if (dead < deadRows) continue;
      const started = performance.now();
      const done = await upkeep.vacuum(table);
      const ms = performance.now() - started;
      if (!done) continue;
      vacuumed.push({ table, dead, ms });
      onVacuum?.(table, ms);
      logger.debug({ table, dead, ms: Math.round(ms) }, 'table vacuumed');
    }
    return { held: true, vacuumed };
  }
}
