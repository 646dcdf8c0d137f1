/**
 * The registry monitor (XXL-JOB's JobRegistryHelper). On every node, every few seconds, it
 * refreshes the node's view of online executors from the registry table (executors may register
 * with any node). On the node holding the maintenance lease, every 30 s, it deletes registrations
 * unseen for 90 s and writes each AUTO app's address list, so the app table shows what is online
 * as XXL-JOB's does.
 */
import type { Logger } from 'pino';
import type { ExecutorDirectory } from '../executors/directory.js';
import type { Clock } from '../scheduling/clock.js';
import type { AppRepository, RegistryRepository } from '../store/index.js';
import { holdMaintenanceLease, type MaintenanceLeaseOptions } from './maintenance-lease.js';
import { Periodic } from './periodic.js';

export interface RegistryMonitorOptions {
  registry: Pick<RegistryRepository, 'deleteDead'>;
  apps: Pick<AppRepository, 'setAddressList'>;
  directory: Pick<ExecutorDirectory, 'refresh' | 'knownApps' | 'registeredOf'>;
  lease: MaintenanceLeaseOptions;
  clock: Clock;
  logger: Pick<Logger, 'error' | 'info'>;
  /** Time between two clean-ups (maintenance lease holder only). */
  sweepIntervalMs: number;
  /** Time between two refreshes of this node's view. */
  refreshIntervalMs: number;
  /** A registration unseen for this long is deleted; use the directory's value. */
  deadTimeoutMs: number;
}

/** What one clean-up did; `held` false when another node holds the maintenance lease. */
export interface RegistrySweep {
  held: boolean;
  deleted: number;
  addressListsWritten: number;
}

/**
 * @example
 * const monitor = new RegistryMonitor({ registry: store.registry, apps: store.apps, directory,
 *   lease: { leases: store.leases, nodeId }, clock, logger });
 * await monitor.start(); // the directory is filled before this resolves
 */
export class RegistryMonitor {
  private readonly options: RegistryMonitorOptions;
  private readonly deadTimeoutMs: number;
  private readonly sweeps: Periodic;
  private readonly refreshes: Periodic;

  constructor(options: RegistryMonitorOptions) {
    this.options = options;
    this.deadTimeoutMs = options.deadTimeoutMs;
    const common = { clock: options.clock, logger: options.logger };
    this.sweeps = new Periodic({
      ...common,
      name: 'registry clean-up',
      intervalMs: options.sweepIntervalMs,
      run: () => this.sweep(),
    });
    this.refreshes = new Periodic({
      ...common,
      name: 'executor directory refresh',
      intervalMs: options.refreshIntervalMs,
      run: () => options.directory.refresh(),
    });
  }

  /** Fills the directory once (so dispatch has addresses from the start), then starts both loops. */
  async start(): Promise<void> {
    await this.refreshes.runNow();
    this.refreshes.start();
    this.sweeps.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.sweeps.stop(), this.refreshes.stop()]);
  }

  /** One clean-up, if this node holds the maintenance lease. */
  async sweep(): Promise<RegistrySweep> {
    const now = this.options.clock.now();
    if (!(await holdMaintenanceLease(this.options.lease, now))) {
      return { held: false, deleted: 0, addressListsWritten: 0 };
    }
    const deleted = await this.options.registry.deleteDead(now - this.deadTimeoutMs);
    if (deleted > 0)
      this.options.logger.info({ deleted }, 'removed executor registrations unseen for too long');
    await this.options.directory.refresh();
    const addressListsWritten = await this.writeAddressLists(now);
    return { held: true, deleted, addressListsWritten };
  }

  /** Writes each AUTO app's online addresses into its row, where they changed. */
  private async writeAddressLists(now: number): Promise<number> {
    let written = 0;
    for (const app of this.options.directory.knownApps()) {
      if (app.addressType !== 'AUTO') continue;
      const online = this.options.directory.registeredOf(app.appName).map((executor) => executor.address);
      const addressList = online.length === 0 ? null : online.join(',');
      if (addressList === app.addressList) continue;
      await this.options.apps.setAddressList(app.id, addressList, now);
      written++;
    }
    return written;
  }
}
