/**
 * The jobs of a case, written straight through the store (bulk inserts: seeding 100,000 jobs
 * through the REST API would take longer than the measurement).
 *
 * - spread: N FIX_RATE jobs of 1 s; job i is due at phase ⌊i·1000/N⌋ ms of every second, so N
 *   fires a second arrive evenly.
 * - aligned: N CRON jobs `* * * * * ?`, all due at the same instant every second.
 * - idle: the spread shape, beside jobs that are enabled but not due during the run (hourly and
 *   daily CRON jobs whose next time is far from now).
 *
 * The due jobs are written with their first time parked ten minutes ahead (out of the server's
 * look-ahead), and `release()` moves them all by the same whole number of seconds, in one
 * statement, once the server and the executors are up, so every case starts at a known instant.
 */
import { nextFireTimes } from '@tickwheel/protocol';
import { JOB_DEFAULTS, type NewJobRow, type Store } from '@tickwheel/server/internal';

export type Shape = 'spread' | 'aligned' | 'idle';

export const APP_NAME = 'bench';
const HANDLER = 'noop';
const IDLE_HANDLER = 'idle';
const PARKED_MS = 600_000;
/** Rows per INSERT: 500 × ~25 columns stays under SQLite's and PostgreSQL's bind-parameter limits. */
const INSERT_CHUNK = 500;

export interface SeededCase {
  /** Due job id → its phase within the second, in ms. */
  phases: Map<number, number>;
  /** Moves the due jobs so that the second with phase 0 starts at `firstSecond` (a whole second). */
  release(firstSecond: number): Promise<void>;
}

export async function seedCase(store: Store, shape: Shape, due: number, idle: number): Promise<SeededCase> {
  const now = Date.now();
  const app = await store.apps.createApp(
    { appName: APP_NAME, title: 'bench/fire', addressType: 'AUTO' },
    now,
  );
  if (shape === 'idle') await insertJobs(store, idleJobs(app.id, idle, now));
  const parked = Math.ceil((now + PARKED_MS) / 1000) * 1000;
  const phaseOf = (i: number) => (shape === 'aligned' ? 0 : Math.floor((i * 1000) / due));
  const rows: NewJobRow[] = [];
  for (let i = 0; i < due; i++) {
    rows.push({
      ...baseJob(app.id, now),
      name: `${shape} ${i}`,
      schedule_type: shape === 'aligned' ? 'CRON' : 'FIX_RATE',
      schedule_conf: shape === 'aligned' ? '* * * * * ?' : '1',
      executor_handler: HANDLER,
      next_fire_at: parked + phaseOf(i),
    });
  }
  await insertJobs(store, rows);
  const ids = await store.db
    .selectFrom('job')
    .select(['id', 'next_fire_at'])
    .where('executor_handler', '=', HANDLER)
    .execute();
  const phases = new Map(ids.map((job) => [job.id, (job.next_fire_at ?? parked) - parked]));
  return {
    phases,
    release: async (firstSecond) => {
      const shift = firstSecond - parked;
      await store.db
        .updateTable('job')
        .set((eb) => ({ next_fire_at: eb('next_fire_at', '+', shift) }))
        .where('executor_handler', '=', HANDLER)
        .execute();
    },
  };
}

function baseJob(appId: number, now: number): NewJobRow {
  return {
    ...JOB_DEFAULTS,
    app_id: appId,
    name: '',
    author: 'bench',
    time_zone: 'UTC',
    misfire_strategy: 'DO_NOTHING',
    executor_route_strategy: 'ROUND',
    executor_block_strategy: 'SERIAL_EXECUTION',
    glue_type: 'BEAN',
    glue_updated_at: now,
    trigger_status: 1,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Half hourly, half daily, at a minute and an hour far from now (30 minutes and 12 hours
 * away), so none is due while the benchmark runs; their `next_fire_at` is the schedule's own.
 */
function idleJobs(appId: number, count: number, now: number): NewJobRow[] {
  const date = new Date(now);
  const hourly = `0 ${(date.getUTCMinutes() + 30) % 60} * * * ?`;
  const daily = `0 0 ${(date.getUTCHours() + 12) % 24} * * ?`;
  const rows: NewJobRow[] = [];
  for (let i = 0; i < count; i++) {
    const scheduleConf = i % 2 === 0 ? hourly : daily;
    const [next] = nextFireTimes({ scheduleType: 'CRON', scheduleConf, timeZone: 'UTC' }, now, 1);
    rows.push({
      ...baseJob(appId, now),
      name: `idle ${i}`,
      schedule_type: 'CRON',
      schedule_conf: scheduleConf,
      executor_handler: IDLE_HANDLER,
      next_fire_at: next ?? null,
    });
  }
  return rows;
}

async function insertJobs(store: Store, rows: readonly NewJobRow[]): Promise<void> {
  await store.db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
      await trx
        .insertInto('job')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .execute();
    }
  });
}
