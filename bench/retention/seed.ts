/**
 * What bench/retention starts from: one app, N every-second jobs (FIX_RATE 1 s, job i due at
 * phase ⌊i·1000/N⌋ ms of each second, so the fires arrive evenly), parked until `release()`, and
 * a million old fire records written by the database itself (`INSERT … SELECT` over a generated
 * series, 100,000 rows a statement): as fast as the database can write them, through the same
 * indexes the server keeps.
 */
import { JOB_DEFAULTS, type NewJobRow, type Store } from '@tickwheel/server/internal';

export const APP_NAME = 'bench-retention';
export const HANDLER = 'noop';
const PARKED_MS = 600_000;
const DAY_MS = 86_400_000;
const SERIES_CHUNK = 100_000;

export interface SeededJobs {
  appId: number;
  jobIds: number[];
  /** Moves the jobs so that phase 0 falls on `firstSecond` (a whole second), in one statement. */
  release(firstSecond: number): Promise<void>;
}

export async function seedJobs(store: Store, count: number, now: number): Promise<SeededJobs> {
  const app = await store.apps.createApp(
    { appName: APP_NAME, title: 'bench/retention', addressType: 'AUTO' },
    now,
  );
  const parked = Math.ceil((now + PARKED_MS) / 1000) * 1000;
  const rows: NewJobRow[] = Array.from({ length: count }, (_, i) => ({
    ...JOB_DEFAULTS,
    app_id: app.id,
    name: `every second ${i}`,
    author: 'bench',
    schedule_type: 'FIX_RATE',
    schedule_conf: '1',
    executor_handler: HANDLER,
    executor_route_strategy: 'ROUND',
    glue_updated_at: now,
    trigger_status: 1,
    next_fire_at: parked + Math.floor((i * 1000) / count),
    created_at: now,
    updated_at: now,
  }));
  await store.db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += 500)
      await trx
        .insertInto('job')
        .values(rows.slice(i, i + 500))
        .execute();
  });
  const jobs = await store.db.selectFrom('job').select('id').where('app_id', '=', app.id).execute();
  return {
    appId: app.id,
    jobIds: jobs.map((job) => job.id),
    release: async (firstSecond) => {
      await store.db
        .updateTable('job')
        .set((eb) => ({ next_fire_at: eb('next_fire_at', '+', firstSecond - parked) }))
        .where('app_id', '=', app.id)
        .execute();
    },
  };
}

/** The old records: finished runs of 100 jobs (not in the job table any more), 60 to 40 days ago. */
export async function seedOldFires(
  store: Store,
  appId: number,
  count: number,
  now: number,
  progress: (done: number) => void,
): Promise<void> {
  const first = now - 60 * DAY_MS;
  // Distinct times per job, as the claim key (claim_job_id, scheduled_at) requires.
  const step = Math.max(1, Math.floor((20 * DAY_MS) / count));
  const message =
    'trigger type: CRON; executor address: http://10.0.0.7:9999/; route: ROUND; block: SERIAL_EXECUTION';
  for (let from = 0; from < count; from += SERIES_CHUNK) {
    const rows = Math.min(SERIES_CHUNK, count - from);
    const columns = `(job_id, app_id, parent_fire_id, claim_job_id, scheduled_at, trigger_type, trigger_at,
        executor_address, executor_handler, executor_param, shard_index, shard_total, trigger_code, trigger_msg,
        handle_at, handle_code, handle_msg, status, retry_count, alarm_status, claimed_by_epoch, created_at)`;
    const select = (i: string, p: { app: string; first: string; step: string; msg: string }) => {
      const at = `${p.first} + (${i}) * ${p.step}`;
      return `SELECT 1000000 + (${i}) % 100, ${p.app}, NULL, 1000000 + (${i}) % 100, ${at}, 'CRON', ${at} + 4,
        'http://10.0.0.7:9999/', 'noop', '', 0, 1, 200, ${p.msg}, ${at} + 35, 200, '', 'succeeded', 0, 0, 1, ${at}`;
    };
    const conn = store.connection;
    if (conn.dialect === 'sqlite') {
      conn.sqlite
        .prepare(
          `WITH RECURSIVE s(i) AS (SELECT @from UNION ALL SELECT i + 1 FROM s WHERE i + 1 < @to)
           INSERT INTO fire ${columns} ${select('i', { app: '@app', first: '@first', step: '@step', msg: '@msg' })} FROM s`,
        )
        .run({ from, to: from + rows, app: appId, first, step, msg: message });
    } else if (conn.dialect === 'postgres') {
      const p = { app: '$3::bigint', first: '$4::bigint', step: '$5::bigint', msg: '$6::text' };
      await conn.pool.query(
        `INSERT INTO fire ${columns} ${select('s.i', p)} FROM generate_series($1::bigint, $2::bigint) AS s(i)`,
        [from, from + rows - 1, appId, first, step, message],
      );
    } else {
      throw new Error('bench/retention seeds SQLite and PostgreSQL');
    }
    progress(from + rows);
  }
  // The seed leaves a WAL of hundreds of MB; the server's first commit would checkpoint it on its
  // own thread and stall for seconds. Folded into the database now, it costs the server nothing.
  if (store.connection.dialect === 'sqlite') store.connection.sqlite.pragma('wal_checkpoint(TRUNCATE)');
}
