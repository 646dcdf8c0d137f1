/**
 * The reports monitor (XXL-JOB's JobLogReportHelper): every minute, on the node holding the
 * maintenance lease, it recomputes the daily figures per app (`daily_app_report`) from the fire
 * records, so the dashboard reads a few small rows and never the fire table.
 *
 * Which days: every day of the last 30 that is still open — computed last before the end of
 * the day after it (results and lost runs of a day keep arriving after midnight). That is always
 * today and yesterday; after a restart or a pause it also catches up the days missed. Once a day
 * has been computed a full day after its end its figures are final and are never recomputed,
 * so they stay when retention deletes its records. Days retention may have begun deleting are
 * never recomputed (retention keeps at least 3 days, so today and yesterday are always whole).
 */
import type { Logger } from 'pino';
import { DAY_MS, dayStart, lastDays } from '../reports/days.js';
import { readRetentionSettings } from '../retention/settings.js';
import type { Clock } from '../scheduling/clock.js';
import type { ReportRepository, SettingRepository } from '../store/index.js';
import { holdMaintenanceLease, type MaintenanceLeaseOptions } from './maintenance-lease.js';
import { Periodic } from './periodic.js';

export interface ReportsMonitorOptions {
  reports: Pick<ReportRepository, 'computeDay' | 'replaceDay' | 'lastComputedAt'>;
  settings: Pick<SettingRepository, 'getSetting'>;
  lease: MaintenanceLeaseOptions;
  clock: Clock;
  logger: Pick<Logger, 'error'>;
  /** Time between two sweeps; the first runs at start. */
  intervalMs: number;
}

/** The longest series the dashboard shows, in days. */
export const REPORT_WINDOW_DAYS = 30;

/** What one sweep did; `held` false when another node holds the maintenance lease. */
export interface ReportsSweep {
  held: boolean;
  /** The days recomputed, oldest first. */
  days: string[];
}

/**
 * @example
 * const monitor = new ReportsMonitor({ reports: store.reports, settings: store.settings,
 *   lease: { leases: store.leases, nodeId }, clock, logger });
 * monitor.start();
 */
export class ReportsMonitor {
  private readonly options: ReportsMonitorOptions;
  private readonly loop: Periodic;

  constructor(options: ReportsMonitorOptions) {
    this.options = options;
    this.loop = new Periodic({
      name: 'reports sweep',
      intervalMs: options.intervalMs,
      clock: options.clock,
      logger: options.logger,
      run: () => this.sweep(),
    });
  }

  /** Starts the loop with a first sweep now (in the background). */
  start(): void {
    this.loop.start();
    void this.loop.runNow();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One sweep, if this node holds the maintenance lease. */
  async sweep(): Promise<ReportsSweep> {
    const { clock, reports } = this.options;
    const sweep: ReportsSweep = { held: false, days: [] };
    if (!(await holdMaintenanceLease(this.options.lease, clock.now()))) return sweep;
    sweep.held = true;
    const now = clock.now();
    const { retentionDays } = await readRetentionSettings(this.options.settings);
    const retainedFrom = now - retentionDays * DAY_MS;
    const window = lastDays(now, REPORT_WINDOW_DAYS).filter((day) => dayStart(day) >= retainedFrom);
    if (window.length === 0) return sweep;
    const computedAt = await reports.lastComputedAt(window[0]!, window[window.length - 1]!);
    for (const day of window) {
      const from = dayStart(day);
      if ((computedAt.get(day) ?? 0) >= from + 2 * DAY_MS) continue;
      const figures = await reports.computeDay(from, from + DAY_MS);
      // A day with no fires and no rows needs no write.
      if (figures.length === 0 && !computedAt.has(day)) continue;
      await reports.replaceDay(day, figures, clock.now());
      sweep.days.push(day);
    }
    return sweep;
  }
}
