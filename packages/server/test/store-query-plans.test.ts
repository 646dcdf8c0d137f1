import type { SelectQueryBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectOwedChildren } from '../src/store/child-fires.js';
import {
  MYSQL_EXISTING_FIRES,
  MYSQL_SELECT_DUE,
  PG_SELECT_DUE,
  SQLITE_SELECT_DUE,
} from '../src/store/hot/claim.js';
import type { Database, FireTable, Store } from '../src/store/index.js';
import { selectUnheldAlarms } from '../src/store/owed-alarms.js';
import { selectDueRetries } from '../src/store/retries.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';

const T0 = 1_700_000_000_000;
const JOBS = 2_000;
const FIRES = 20_000;

/** The plan of a raw statement as one string, in the dialect's own EXPLAIN. */
async function explainRaw(
  store: Store,
  sql: Record<'sqlite' | 'postgres' | 'mysql', string>,
  params: Record<'sqlite' | 'postgres' | 'mysql', unknown[]>,
) {
  const conn = store.connection;
  if (conn.dialect === 'sqlite')
    return JSON.stringify(conn.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql.sqlite}`).all(...params.sqlite));
  if (conn.dialect === 'postgres')
    return JSON.stringify((await conn.pool.query(`EXPLAIN ${sql.postgres}`, params.postgres)).rows);
  return JSON.stringify((await conn.pool.query(`EXPLAIN ${sql.mysql}`, params.mysql))[0]);
}

/** The plan of a query-builder query: compiled once, explained with each dialect's EXPLAIN. */
async function explainBuilt<O>(store: Store, query: SelectQueryBuilder<Database, keyof Database, O>) {
  const { sql, parameters } = query.compile();
  return explainRaw(
    store,
    { sqlite: sql, postgres: sql, mysql: sql },
    { sqlite: [...parameters], postgres: [...parameters], mysql: [...parameters] },
  );
}

/**
 * The plan reads through one of the `expected` indexes and scans no table whole (PostgreSQL
 * "Seq Scan", SQLite "SCAN t" without an index, MySQL access type ALL). Which index wins
 * among several that fit is the planner's call on this data, so a test may accept a few.
 */
function expectIndexed(plan: string, expected: RegExp): void {
  expect(plan).toMatch(expected);
  expect(plan).not.toMatch(/Seq Scan on (job|fire)\b/);
  expect(plan).not.toMatch(/"detail":"SCAN (job|fire)"/);
  expect(plan).not.toMatch(/"type":"ALL"/);
}

async function seed(store: Store): Promise<void> {
  const app = await store.apps.createApp({ appName: 'plans', title: 'Plans', addressType: 'AUTO' }, T0);
  const jobs = Array.from({ length: JOBS }, (_, i) => ({
    app_id: app.id,
    name: `job ${i}`,
    author: '',
    alarm_email: '',
    schedule_type: 'CRON',
    schedule_conf: '0 * * * * ?',
    time_zone: 'UTC',
    misfire_strategy: 'DO_NOTHING',
    executor_route_strategy: 'FIRST',
    executor_handler: 'h',
    executor_param: '',
    executor_block_strategy: 'SERIAL_EXECUTION',
    executor_timeout: 0,
    executor_fail_retry_count: 0,
    glue_type: 'BEAN',
    glue_source: '',
    glue_remark: '',
    glue_updated_at: T0,
    child_job_ids: '',
    // A few are due; the rest fire over the next day or are stopped.
    trigger_status: i % 5 === 0 ? 0 : 1,
    next_fire_at: i % 100 === 1 ? T0 : T0 + 60_000 + i * 40_000,
    last_run_end_at: null,
    created_at: T0,
    updated_at: T0,
  }));
  for (let i = 0; i < jobs.length; i += 500)
    await store.db
      .insertInto('job')
      .values(jobs.slice(i, i + 500))
      .execute();
  const statuses = ['succeeded', 'failed', 'succeeded', 'succeeded'] as const;
  const fires: Omit<FireTable, 'id'>[] = Array.from({ length: FIRES }, (_, i) => ({
    job_id: (i % JOBS) + 1,
    app_id: (i % 50) + 1,
    parent_fire_id: null,
    claim_job_id: (i % JOBS) + 1,
    scheduled_at: T0 - (FIRES - i) * 1000,
    trigger_type: 'CRON',
    trigger_at: T0 - (FIRES - i) * 1000,
    executor_address: `http://10.0.${i % 7}.1:9999/`,
    executor_handler: 'h',
    executor_param: '',
    shard_index: 0,
    shard_total: 1,
    trigger_code: 200,
    trigger_msg: '',
    handle_at: null,
    handle_code: 200,
    handle_msg: '',
    // A handful pending or dispatched, as in a live table: the rest finished long ago.
    status: i % 400 === 0 ? 'pending' : i % 400 === 1 ? 'dispatched' : statuses[i % 4]!,
    retry_count: 0,
    alarm_status: 1,
    claimed_by_epoch: 1,
    created_at: T0,
  }));
  for (let i = 0; i < fires.length; i += 1000)
    await store.db
      .insertInto('fire')
      .values(fires.slice(i, i + 1000))
      .execute();
  const conn = store.connection;
  if (conn.dialect === 'sqlite') conn.sqlite.exec('ANALYZE');
  else if (conn.dialect === 'postgres') await conn.pool.query('ANALYZE job; ANALYZE fire');
  else await conn.pool.query('ANALYZE TABLE job, fire');
}

describe.each(DIALECTS)('query plans of the hot queries on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    store = await database.open();
    await seed(store);
  }, 60_000);
  afterAll(async () => {
    await database.drop();
  });

  it('the claim finds due jobs through the (trigger_status, next_fire_at) index', async () => {
    const plan = await explainRaw(
      store,
      { sqlite: SQLITE_SELECT_DUE, postgres: PG_SELECT_DUE, mysql: MYSQL_SELECT_DUE },
      {
        sqlite: [T0, 4, '[0,1,2,3]', 1000],
        postgres: [T0, 4, [0, 1, 2, 3], 1000],
        mysql: [T0, 4, [0, 1, 2, 3], 1000],
      },
    );
    expectIndexed(plan, /job_due_idx/);
  });

  it('the claim key lookup (MySQL claim) is index-backed', async () => {
    const sql =
      'SELECT job_id, scheduled_at FROM fire WHERE job_id IN (%) AND scheduled_at >= % AND claim_job_id IS NOT NULL';
    const plan = await explainRaw(
      store,
      {
        sqlite: sql.replace('%', '?, ?, ?').replace('%', '?'),
        postgres: sql.replace('%', '$1, $2, $3').replace('%', '$4'),
        mysql: MYSQL_EXISTING_FIRES,
      },
      { sqlite: [5, 6, 7, T0], postgres: [5, 6, 7, T0], mysql: [[5, 6, 7], T0] },
    );
    expectIndexed(plan, /fire_job_claim_key|fire_scheduled_idx/);
  });

  it('pending fires for recovery are found through an index on status', async () => {
    const plan = await explainBuilt(
      store,
      store.db
        .selectFrom('fire')
        .selectAll()
        .where('status', '=', 'pending')
        .where('scheduled_at', '<=', T0)
        .where((eb) => eb(eb('job_id', '%', 4), 'in', [0, 1]))
        .orderBy('scheduled_at')
        .limit(1000),
    );
    expectIndexed(plan, /fire_status_scheduled_idx/);
  });

  it("the retry monitor's due retries are read through the partial index of pending retries (PostgreSQL, SQLite)", async () => {
    const plan = await explainBuilt(
      store,
      selectDueRetries(store.db, { nowMs: T0, claimedBefore: T0 - 60_000, limit: 100 }),
    );
    // MySQL has no partial index (migration 0017): the status index there.
    expectIndexed(plan, dialect === 'mysql' ? /fire_status_scheduled_idx/ : /fire_retry_due_idx/);
  });

  it('a page of recovery after a (scheduled_at, id) cursor reads through an index on status', async () => {
    const cursor = { scheduledAt: T0 - 10_000_000, id: 10_000 };
    const plan = await explainBuilt(
      store,
      store.db
        .selectFrom('fire')
        .selectAll()
        .where('status', '=', 'pending')
        .where('scheduled_at', '<=', T0)
        .where((eb) => eb(eb('job_id', '%', 4), 'in', [0, 1]))
        .where('parent_fire_id', 'is', null)
        .where('scheduled_at', '>=', cursor.scheduledAt)
        .where((eb) => eb.or([eb('scheduled_at', '>', cursor.scheduledAt), eb('id', '>', cursor.id)]))
        .orderBy('scheduled_at')
        .orderBy('id')
        .limit(1000),
    );
    expectIndexed(plan, /fire_status_scheduled_idx/);
  });

  it('lost runs are found through an index on status', async () => {
    const plan = await explainBuilt(
      store,
      store.db
        .selectFrom('fire as f')
        .selectAll('f')
        .where('f.status', '=', 'dispatched')
        .where('f.trigger_at', '<=', T0 - 600_000)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('registry as r')
                .select('r.id')
                .whereRef('r.registry_value', '=', 'f.executor_address')
                .where('r.updated_at', '>', T0 - 90_000),
            ),
          ),
        )
        .orderBy('f.trigger_at')
        .limit(100),
    );
    expectIndexed(plan, /fire_status_scheduled_idx/);
  });

  it('the runs of an address another instance accepted are found through the status index (migration 0015 dropped the address index)', async () => {
    const plan = await explainBuilt(
      store,
      store.db
        .selectFrom('fire as f')
        .select(['f.id', 'f.executor_address', 'f.executor_instance'])
        .where('f.status', '=', 'dispatched')
        .where('f.executor_address', '=', 'http://127.0.0.1:9999/')
        .where('f.executor_instance', 'is not', null)
        .where('f.executor_instance', '<>', 'instance-b')
        .orderBy('f.id')
        .limit(100),
    );
    expect(plan).not.toMatch(/fire_status_address_idx/);
    expectIndexed(plan, /fire_status_scheduled_idx/);
  });

  it('the console listing by app and time range is index-backed', async () => {
    const plan = await explainBuilt(
      store,
      store.db
        .selectFrom('fire')
        .selectAll()
        .where('app_id', '=', 3)
        .where('scheduled_at', '>=', T0 - 3_600_000)
        .where('scheduled_at', '<', T0)
        .orderBy('scheduled_at', 'desc')
        .orderBy('id', 'desc')
        .limit(50),
    );
    expectIndexed(plan, /fire_app_scheduled_idx|fire_scheduled_idx/);
  });

  it('a job’s fires are listed through the claim key’s leading (job_id, scheduled_at)', async () => {
    const plan = await explainBuilt(
      store,
      store.db
        .selectFrom('fire')
        .selectAll()
        .where('job_id', '=', 42)
        .orderBy('scheduled_at', 'desc')
        .limit(50),
    );
    expectIndexed(plan, /fire_job_claim_key/);
  });

  it('retention finds old records through the scheduled_at index', async () => {
    const plan = await explainBuilt(
      store,
      store.db
        .selectFrom('fire')
        .select('id')
        .where('scheduled_at', '<', T0 - 19_000_000)
        .orderBy('scheduled_at')
        .limit(1000),
    );
    expectIndexed(plan, /fire_scheduled_idx/);
  });

  it('the owed-children sweep reads only owed records, through their own index', async () => {
    const plan = await explainBuilt(
      store,
      selectOwedChildren(store.db, { scheduledFrom: T0 - 86_400_000, finishedBefore: T0, limit: 200 }),
    );
    expectIndexed(plan, /fire_children_owed_idx/);
  });

  it('the owed-alarm sweep reads only owed alarms, through their own index', async () => {
    const plan = await explainBuilt(store, selectUnheldAlarms(store.db, { heldBefore: T0, limit: 200 }));
    expectIndexed(plan, /fire_alarm_owed_idx/);
  });
});
