/** A fire record's statuses as the API names them, which are still in flight, and their colours. */
import type { Query } from '../../api/types';

export type FireStatusName = NonNullable<Query<'listFires'>['status']>[number];

export const FIRE_STATUSES: readonly FireStatusName[] = [
  'pending',
  'dispatched',
  'dispatch_failed',
  'succeeded',
  'failed',
  'timeout',
  'killed',
  'skipped',
];

/** Pending: not yet sent to an executor; dispatched: running there until its result comes back. */
const IN_FLIGHT: ReadonlySet<string> = new Set<FireStatusName>(['pending', 'dispatched']);

export function isInFlight(status: string): boolean {
  return IN_FLIGHT.has(status);
}

export function isFireStatus(value: string): value is FireStatusName {
  return (FIRE_STATUSES as readonly string[]).includes(value);
}

const COLORS: Record<FireStatusName, string> = {
  pending: 'default',
  dispatched: 'processing',
  dispatch_failed: 'error',
  succeeded: 'success',
  failed: 'error',
  timeout: 'warning',
  killed: 'magenta',
  skipped: 'default',
};

export function statusColor(status: string): string {
  return isFireStatus(status) ? COLORS[status] : 'default';
}
