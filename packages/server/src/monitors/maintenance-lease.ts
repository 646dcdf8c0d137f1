/**
 * Maintenance work (registry clean-up, lost runs, reports, retention) runs on one node at
 * a time: before each sweep a monitor takes or renews the `maintenance` lease, and skips the
 * sweep when another node holds it. Alone, a node always gets it.
 */
import type { LeaseRepository } from '../store/index.js';
import { MAINTENANCE_LEASE } from '../store/index.js';

export interface MaintenanceLeaseOptions {
  leases: Pick<LeaseRepository, 'acquireOrRenewLease'>;
  nodeId: string;
  /**
   * How long the lease lasts unrenewed. It must outlast the longest interval between two
   * sweeps, so the holder keeps it from one sweep to the next; when the holder dies, another
   * node takes the work over this long after its last sweep. Default 120,000 ms.
   */
  ttlMs?: number;
  /** Grant and compare the lease in the database's clock rather than in `nowMs`'s. Default false. */
  databaseClock?: boolean;
}

export const DEFAULT_MAINTENANCE_LEASE_TTL_MS = 120_000;

/** Takes or renews the maintenance lease; true when this node holds it now. */
export async function holdMaintenanceLease(
  options: MaintenanceLeaseOptions,
  nowMs: number,
): Promise<boolean> {
  const held = await options.leases.acquireOrRenewLease(
    MAINTENANCE_LEASE,
    options.nodeId,
    options.ttlMs ?? DEFAULT_MAINTENANCE_LEASE_TTL_MS,
    options.databaseClock ? undefined : nowMs,
  );
  return held !== null;
}
