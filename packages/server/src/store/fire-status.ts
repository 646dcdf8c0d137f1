/**
 * The life of a fire record, in one place. Every statement that changes `fire.status` takes its
 * "from" set from here, which is what makes the marks and the finalise idempotent: a record that
 * already left the set is not touched again.
 *
 *   pending ──markDispatched──▶ dispatched ──result──▶ succeeded | failed | timeout | killed
 *      │                                                          ▲
 *      ├──markDispatchFailed──▶ dispatch_failed ──late result─────┤
 *      ├──result (it raced ahead of the dispatch mark)────────────┤
 *      └──skip / kill before dispatch──▶ skipped | killed         │
 *                                           └──result (it ran)───┘
 */
import { HandleCode } from '@tickwheel/protocol';

export const FIRE_STATUSES = [
  'pending',
  'dispatched',
  'dispatch_failed',
  'succeeded',
  'failed',
  'timeout',
  'killed',
  'skipped',
] as const;
export type FireStatus = (typeof FIRE_STATUSES)[number];

/**
 * PostgreSQL: a record's status as an expression no index serves (`(f.status || '')`), for the
 * hot statements that find their records by id and then check the status. Written plainly, the
 * planner may read the (status, scheduled_at) index's `pending` or `dispatched` range and
 * intersect it with the ids: that range keeps an entry for every version of every record that
 * had the status since the table's last vacuum, so each statement read through hundreds of
 * thousands of dead entries (a fence of 500 records 166 ms instead of 11, growing with every
 * record written; bench/fire/postgres-cost.ts). By id, a statement reads its own records only.
 * (SQLite's statements write `+fire.status` for the same reason.)
 */
export const pgStatusById = (alias: string) => `(${alias}.status || '')`;

/**
 * Statuses a run's result may finalise. A dispatch can time out on our side while the executor
 * did accept the run, so a late result on a dispatch_failed record is still the truth; and a
 * record skipped after it was sent (its sender lost the shard before marking it, and the job was
 * stopped meanwhile) ran all the same: a run that executed always has its result stored.
 */
export const FINISHABLE_STATUSES = [
  'pending',
  'dispatched',
  'dispatch_failed',
  'skipped',
] as const satisfies readonly FireStatus[];

/** Statuses nothing changes any more. */
export const FINAL_STATUSES = [
  'succeeded',
  'failed',
  'timeout',
  'killed',
  'skipped',
] as const satisfies readonly FireStatus[];

/** Statuses a dispatch mark may leave: only a record nobody has dispatched or finished yet. */
export const DISPATCHABLE_STATUSES = ['pending'] as const satisfies readonly FireStatus[];

/** A finished run's status, from the handle code its result carries. */
export type FinishedStatus = 'succeeded' | 'failed' | 'timeout' | 'killed';

const TRANSITIONS: Readonly<Record<FireStatus, readonly FireStatus[]>> = {
  pending: ['dispatched', 'dispatch_failed', 'succeeded', 'failed', 'timeout', 'killed', 'skipped'],
  dispatched: ['succeeded', 'failed', 'timeout', 'killed'],
  dispatch_failed: ['succeeded', 'failed', 'timeout', 'killed'],
  succeeded: [],
  failed: [],
  timeout: [],
  killed: [],
  skipped: ['succeeded', 'failed', 'timeout', 'killed'],
};

/** True when a record in `from` may move to `to`. */
export function canTransition(from: FireStatus, to: FireStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** True when nothing changes a record in this status any more. */
export function isFinalStatus(status: FireStatus): boolean {
  return (FINAL_STATUSES as readonly FireStatus[]).includes(status);
}

/** The status a result with this handle code finalises a record to (XXL-JOB: 200 success, 502 timeout, anything else failure). */
export function statusForHandleCode(handleCode: number): FinishedStatus {
  if (handleCode === HandleCode.SUCCESS) return 'succeeded';
  if (handleCode === HandleCode.TIMEOUT) return 'timeout';
  return 'failed';
}

/**
 * The values of `fire.children_status`: what a record's success owes its job's child jobs
 * (child-fires.ts). Set to OWED by the statement that finishes the record, left by a
 * compare-and-set in the transaction that creates the child records.
 */
export const CHILDREN_STATUS = {
  /** Nothing owed: not a success, a job without child jobs, or a shard (its broadcast owes them). */
  NONE: 0,
  /** The run succeeded and its job has child jobs; their records are not created yet. */
  OWED: 1,
  /** The child records were created (those of the child jobs that still existed). */
  FIRED: 2,
} as const;
