/**
 * Fire records written straight into the table with the timings a test needs (dispatch and
 * result times, status), many rows per statement: the reports and retention suites seed days
 * of history without running them.
 */
import type { FireStatus, Store } from '../../src/store/index.js';

export interface SeedFire {
  appId: number;
  jobId: number;
  scheduledAt: number;
  status: FireStatus;
  /** Dispatch time; null when never dispatched. */
  triggerAt?: number | null;
  /** Result time; null when no result. */
  handleAt?: number | null;
  triggerType?: string;
  /** Default: scheduledAt. */
  createdAt?: number;
}

/** Inserts the records, `chunk` rows a statement. */
export async function seedFires(store: Store, fires: readonly SeedFire[], chunk = 500): Promise<void> {
  for (let i = 0; i < fires.length; i += chunk) {
    const rows = fires.slice(i, i + chunk).map((fire) => ({
      job_id: fire.jobId,
      app_id: fire.appId,
      parent_fire_id: null,
      claim_job_id: null,
      scheduled_at: fire.scheduledAt,
      trigger_type: fire.triggerType ?? 'CRON',
      trigger_at: fire.triggerAt ?? null,
      executor_address: fire.triggerAt == null ? null : 'http://127.0.0.1:9999/',
      executor_handler: 'seeded',
      executor_param: null,
      shard_index: 0,
      shard_total: 1,
      trigger_code: fire.triggerAt == null ? null : fire.status === 'dispatch_failed' ? 500 : 200,
      trigger_msg: null,
      handle_at: fire.handleAt ?? null,
      handle_code: fire.handleAt == null ? null : fire.status === 'succeeded' ? 200 : 500,
      handle_msg: null,
      status: fire.status,
      retry_count: 0,
      alarm_status: 0,
      claimed_by_epoch: 0,
      created_at: fire.createdAt ?? fire.scheduledAt,
    }));
    await store.db.insertInto('fire').values(rows).execute();
  }
}
