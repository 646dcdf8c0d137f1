/**
 * The PostgreSQL statements that find a batch's records by id and then check their status (the
 * send fence, the results, and the skips and trigger-type changes of the planner's recovery and
 * the loader) must look them up by primary key. Left to itself the planner may intersect the ids with the
 * (status, scheduled_at) index's `pending` or `dispatched` range, which keeps an entry for every
 * version of a record that had the status since the last vacuum: each statement then reads
 * through them all, and the more records the table has had, the slower every batch (a fence of
 * 500 records took 166 ms instead of 11 at 160,000 records with no vacuum, bench/fire/postgres-cost).
 * The table here is in that state: thousands of records that were pending and dispatched and are
 * finished now, no vacuum and no statistics (as on a database whose autovacuum is off), and then
 * the same analysed.
 */
import { sql } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPendingTriggerTypeStatement, skipPendingStatement } from '../src/store/fires.js';
import {
  PG_ADVANCE_AND_RECORD,
  PG_ADVANCE_AND_RECORD_PLAIN,
  PG_CLAIM_SETTINGS,
  PG_SELECT_DUE,
} from '../src/store/hot/claim.js';
import { PG_APPS_OF_FIRES, PG_FIRES_JOBS } from '../src/store/hot/due-load.js';
import { PG_FINISH } from '../src/store/hot/finish.js';
import { PG_FENCE } from '../src/store/hot/send-fence.js';
import type { Store } from '../src/store/index.js';
import { shardLeaseName } from '../src/store/leases.js';
import { createTestDatabase, seedDueJobs, type TestDatabase } from './helpers/databases.js';

const RECORDS = 30_000;
const BATCH = 500;
const NOW = Date.parse('2026-05-20T12:00:00Z');

/** Every node of a JSON plan, depth first. */
function planNodes(node: Record<string, unknown>): Record<string, unknown>[] {
  const children = (node.Plans as Record<string, unknown>[] | undefined) ?? [];
  return [node, ...children.flatMap(planNodes)];
}

/** With and without the planner's statistics: a database whose autovacuum is off has none. */
const STATISTICS = [
  ['without statistics', false],
  ['analysed', true],
] as const;

/**
 * `text`'s generic plan (a prepared statement's from its sixth run on), run on `values` under
 * `EXPLAIN ANALYZE` in a transaction begun with `settings` and rolled back, on a client of
 * `pool`'s of its own; the plan's root node.
 */
async function genericPlanRun(
  pool: pg.Pool,
  text: string,
  values: readonly unknown[],
  settings?: string,
): Promise<Record<string, unknown>> {
  const client = await pool.connect();
  try {
    return await genericPlanRunOn(client, text, values, settings);
  } finally {
    client.release();
  }
}

async function genericPlanRunOn(
  client: pg.PoolClient,
  text: string,
  values: readonly unknown[],
  settings?: string,
): Promise<Record<string, unknown>> {
  // EXECUTE takes no bound parameters: its arguments go in as literals.
  const literal = (value: unknown): string => {
    if (!Array.isArray(value))
      return typeof value === 'number' ? String(value) : client.escapeLiteral(String(value));
    const items = value.map((item) =>
      item === null ? 'NULL' : `"${String(item).replace(/["\\]/g, '\\$&')}"`,
    );
    return client.escapeLiteral(`{${items.join(',')}}`);
  };
  await client.query('SET plan_cache_mode = force_generic_plan');
  await client.query(`PREPARE tw_plan_check AS ${text}`);
  try {
    await client.query(settings === undefined ? 'BEGIN' : `BEGIN; ${settings}`);
    const result = await client.query<{ 'QUERY PLAN': { Plan: Record<string, unknown> }[] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE tw_plan_check(${values.map(literal).join(', ')})`,
    );
    return result.rows[0]?.['QUERY PLAN'][0]?.Plan as Record<string, unknown>;
  } finally {
    await client.query('ROLLBACK');
    await client.query('DEALLOCATE tw_plan_check');
    await client.query('RESET plan_cache_mode');
  }
}

describe('hot statements on postgres', () => {
  let database: TestDatabase;
  let store: Store;
  let ids: number[];
  let jobId: number;
  let appId: number;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    store = await database.open();
    const seeded = await seedDueJobs(store, 1, NOW);
    appId = seeded.appId;
    jobId = seeded.jobIds[0] as number;
    // Every record goes pending → dispatched → succeeded, as a fire does, in three statements;
    // the last batch stays pending: the records a fence or a result is about.
    await sql`
      INSERT INTO fire (job_id, app_id, claim_job_id, scheduled_at, trigger_type, executor_handler, executor_param,
                        shard_index, shard_total, status, retry_count, alarm_status, claimed_by_epoch, created_at)
      SELECT ${jobId}, ${appId}, ${jobId}, ${NOW}::bigint + g * 1000, 'CRON', 'demo', '', 0, 1, 'pending', 0, 0, 1, ${NOW}::bigint
      FROM generate_series(1, ${RECORDS}) AS g`.execute(store.db);
    await sql`UPDATE fire SET status = 'dispatched', sent_to = 'http://127.0.0.1:9999/'`.execute(store.db);
    await sql`UPDATE fire SET status = 'succeeded' WHERE id <= (SELECT max(id) FROM fire) - ${BATCH}`.execute(
      store.db,
    );
    await sql`UPDATE fire SET status = 'pending', sent_to = NULL WHERE status = 'dispatched'`.execute(
      store.db,
    );
    const rows = await sql<{ id: string }>`SELECT id FROM fire WHERE status = 'pending' ORDER BY id`.execute(
      store.db,
    );
    ids = rows.rows.map((row) => Number(row.id));
  });

  afterAll(async () => {
    await database.drop();
  });

  /** The plan of `text` with `values`, as JSON text (the statement is not run). */
  async function plan(text: string, values: unknown[]): Promise<string> {
    const conn = store.connection;
    if (conn.dialect !== 'postgres') throw new Error('unreachable');
    const result = await conn.pool.query<{ 'QUERY PLAN': unknown }>({
      text: `EXPLAIN (FORMAT JSON) ${text}`,
      values,
    });
    return JSON.stringify(result.rows[0]?.['QUERY PLAN']);
  }

  const fenceValues = () => [
    ids,
    ids.map(() => 'http://127.0.0.1:9999/'),
    ids.map(() => 'shard:1'),
    ids.map(() => 1),
    'node-a',
    NOW,
    // Sent as claimed: the job and app, and the updated_at each was read at.
    ids.map(() => jobId),
    ids.map(() => NOW),
    ids.map(() => appId),
    ids.map(() => NOW),
  ];
  const finishValues = () => [
    ids,
    ids.map(() => 'succeeded'),
    ids.map(() => 200),
    ids.map(() => null),
    ids.map(() => NOW),
    ids.map(() => null),
    ids.map(() => null),
    ids.map(() => null),
    ids.map(() => null),
    ids.map(() => NOW),
    ids.map(() => 'http://127.0.0.1:9999/'),
    ids.map(() => 200),
    ids.map(() => ''),
    ids.map(() => null),
  ];

  it.each(
    STATISTICS,
  )('%s, the due load, the send fence, the results, skips and trigger-type changes look their records up by primary key', async (_name, analyse) => {
    expect(ids).toHaveLength(BATCH);
    if (analyse) await sql`ANALYZE fire`.execute(store.db);
    const statements: [string, string, unknown[]][] = [
      ['due load', PG_FIRES_JOBS, [ids]],
      ['send fence', PG_FENCE, fenceValues()],
      ['results', PG_FINISH, finishValues()],
    ];
    for (const [name, statement] of [
      ['skip', skipPendingStatement(store.connection, ids, 'job gone', NOW)],
      ['skip as misfire', skipPendingStatement(store.connection, ids, 'recovery skipped', NOW, 'MISFIRE')],
      ['trigger type', setPendingTriggerTypeStatement(store.connection, ids, 'MISFIRE')],
    ] as const) {
      const compiled = statement.compile();
      statements.push([name, compiled.sql, [...compiled.parameters]]);
    }
    for (const [name, text, values] of statements) {
      const shown = await plan(text, values);
      expect(shown, name).toContain('fire_pkey');
      expect(shown, name).not.toContain('fire_status_scheduled_idx');
    }
    // The due load's apps, as the server runs them (its generic plan, ten ids assumed): by the
    // records' primary key, not through the (app_id, scheduled_at) index, which holds every record
    // an app ever had.
    const conn = store.connection;
    if (conn.dialect !== 'postgres') throw new Error('unreachable');
    for (const size of [1, 70, BATCH]) {
      const shown = JSON.stringify(await genericPlanRun(conn.pool, PG_APPS_OF_FIRES, [ids.slice(0, size)]));
      expect(shown, `apps of ${size}`).toContain('fire_pkey');
      expect(shown, `apps of ${size}`).not.toContain('fire_app_scheduled_idx');
    }
  });

  it.each(
    STATISTICS,
  )("%s, the claim's generic plan unnests its batch once, not once per lease this node holds", async (_name, analyse) => {
    const conn = store.connection;
    if (conn.dialect !== 'postgres') throw new Error('unreachable');
    const shards = 64;
    await sql`DELETE FROM lease`.execute(store.db);
    await sql`
      INSERT INTO lease (name, owner_node, epoch, expires_at)
      SELECT 'shard:' || g, 'node-a', 3, ${NOW + 60_000}::bigint FROM generate_series(0, ${shards - 1}) AS g`.execute(
      store.db,
    );
    expect(shardLeaseName(5)).toBe('shard:5');
    const { appId, jobIds } = await seedDueJobs(store, BATCH, NOW);
    if (analyse) await sql`ANALYZE lease; ANALYZE job`.execute(store.db);
    const values = [
      NOW,
      jobIds,
      jobIds.map(() => NOW),
      jobIds.map(() => NOW + 1000),
      jobIds.map(() => 1),
      jobIds.map((id) => shardLeaseName(id % shards)),
      jobIds.map(() => 3),
      'node-a',
      jobIds,
      jobIds.map(() => appId),
      jobIds.map(() => NOW),
      jobIds.map(() => 'CRON'),
      jobIds.map(() => 'demo'),
      jobIds.map(() => ''),
      jobIds.map(() => 0),
      jobIds.map(() => 3),
      jobIds.map(() => 'pending'),
      jobIds.map(() => null),
      jobIds.map(() => null),
    ];
    // The plain insert and the one under "on conflict do nothing" (claim.ts): the same plan but the insert.
    for (const statement of [PG_ADVANCE_AND_RECORD_PLAIN, PG_ADVANCE_AND_RECORD]) {
      const root = await genericPlanRun(conn.pool, statement, values);
      expect(root['Actual Rows']).toBe(BATCH);
      const scans = planNodes(root).filter((node) => node['Node Type'] === 'Function Scan');
      expect(scans.length).toBeGreaterThan(0);
      for (const scan of scans) expect(scan['Actual Loops'], JSON.stringify(root)).toBe(1);
    }
  });
});

describe("the claim's look for due jobs on postgres", () => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    store = await database.open();
  });

  afterAll(async () => {
    await database.drop();
  });

  it.each(
    STATISTICS,
  )("%s, the claim's look for due jobs walks the due index in time order and stops at the batch size", async (_name, analyse) => {
    const conn = store.connection;
    if (conn.dialect !== 'postgres') throw new Error('unreachable');
    // 10,000 enabled jobs due within the look-ahead, each advanced a few times (the dead versions
    // a claim leaves), as in bench/fire's PostgreSQL spread 10,000.
    const { jobIds } = await seedDueJobs(store, 1, NOW);
    const columns = await sql<{ name: string }>`
      SELECT column_name AS name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'job' AND column_name NOT IN ('id', 'name')
      ORDER BY ordinal_position`.execute(store.db);
    const list = sql.raw(columns.rows.map((row) => row.name).join(', '));
    await sql`INSERT INTO job (name, ${list}) SELECT 'job ' || g, ${list} FROM job, generate_series(1, 9999) AS g
              WHERE id = ${jobIds[0]}`.execute(store.db);
    for (let round = 0; round < 3; round++) {
      await sql`UPDATE job SET next_fire_at = next_fire_at + 1 WHERE next_fire_at IS NOT NULL`.execute(
        store.db,
      );
    }
    const due = await sql<{ n: number }>`SELECT count(*)::int AS n FROM job WHERE trigger_status = 1`.execute(
      store.db,
    );
    if (analyse) await sql`ANALYZE job`.execute(store.db);
    const limit = 100;
    const shards = Array.from({ length: 64 }, (_, i) => i);
    const root = await genericPlanRun(
      conn.pool,
      PG_SELECT_DUE,
      [NOW + 10_000, 64, shards, limit],
      PG_CLAIM_SETTINGS,
    );
    expect(root['Actual Rows']).toBe(limit);
    const nodes = planNodes(root);
    const shown = JSON.stringify(root);
    expect(
      nodes.map((node) => node['Node Type']),
      shown,
    ).not.toContain('Sort');
    const scans = nodes.filter((node) => node['Relation Name'] === 'job');
    expect(
      scans.map((node) => [node['Node Type'], node['Index Name']]),
      shown,
    ).toEqual([['Index Scan', 'job_due_idx']]);
    // Stopped at the batch: not every one of the due jobs read.
    expect(Number(scans[0]?.['Actual Rows']), shown).toBeLessThan(Number(due.rows[0]?.n) / 10);
  });
});
