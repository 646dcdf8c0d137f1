import { ManualClock } from '@tickwheel/test-fixtures/manual-clock';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VacuumMonitor } from '../src/monitors/vacuum.js';
import type { Store } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, seedDueJobs, type TestDatabase } from './helpers/databases.js';
import { MONITOR_TIMINGS } from './helpers/monitor-timings.js';

const NOW = Date.parse('2026-05-20T12:00:00Z');

/**
 * Moves each job's next fire time `times` times, as claims do, on one connection, and has the
 * statistics flushed so `pg_stat_user_tables` counts the dead versions (a backend otherwise
 * reports them up to 10 s later).
 */
async function advanceJobs(store: Store, jobIds: readonly number[], times: number): Promise<void> {
  await store.db.connection().execute(async (db) => {
    for (let i = 1; i <= times; i++) {
      await sql`UPDATE job SET next_fire_at = ${NOW + i * 1000} WHERE id IN (${sql.join(jobIds)})`.execute(
        db,
      );
    }
    await sql`SELECT pg_stat_force_next_flush()`.execute(db);
    await sql`SELECT 1`.execute(db);
  });
}

async function deadJobRows(store: Store): Promise<number> {
  return (await store.upkeep.tableRows()).find((row) => row.table === 'job')?.dead ?? 0;
}

async function waitForDeadJobRows(store: Store, atLeast: number): Promise<number> {
  const until = Date.now() + 15_000;
  for (;;) {
    const dead = await deadJobRows(store);
    if (dead >= atLeast || Date.now() > until) return dead;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('vacuum monitor on postgres', () => {
  let database: TestDatabase;
  let store: Store;
  let clock: ManualClock;
  const warnings: string[] = [];
  const logger = {
    error: () => {},
    debug: () => {},
    warn: (message: string) => warnings.push(message),
  };
  beforeEach(async () => {
    database = await createTestDatabase('postgres');
    store = await database.open();
    clock = new ManualClock(NOW);
    warnings.length = 0;
  });
  afterEach(async () => {
    await database.drop();
  });

  function monitor(deadRows: number, nodeId = 'node-a') {
    const vacuums: string[] = [];
    const built = new VacuumMonitor({
      ...MONITOR_TIMINGS.vacuum,
      upkeep: store.upkeep,
      lease: { leases: store.leases, nodeId },
      clock,
      logger,
      deadRows,
      onVacuum: (table) => vacuums.push(table),
    });
    return { monitor: built, vacuums };
  }

  it('vacuums the job table once its dead rows reach the threshold, and only then', async () => {
    const { jobIds } = await seedDueJobs(store, 20, NOW);
    await advanceJobs(store, jobIds, 30); // 600 dead versions
    expect(await waitForDeadJobRows(store, 600)).toBeGreaterThanOrEqual(600);

    const { monitor: high, vacuums: none } = monitor(5_000);
    expect(await high.sweep()).toEqual({ held: true, vacuumed: [] });
    expect(none).toEqual([]);
    expect(await deadJobRows(store)).toBeGreaterThanOrEqual(600);

    const { monitor: low, vacuums } = monitor(500);
    const sweep = await low.sweep();
    expect(sweep.held).toBe(true);
    expect(sweep.vacuumed.map((v) => v.table)).toEqual(['job']);
    expect(sweep.vacuumed[0]?.dead).toBeGreaterThanOrEqual(600);
    expect(vacuums).toEqual(['job']);
    // The vacuum removed them (it sets the count as it ends); the jobs themselves are untouched.
    expect(await deadJobRows(store)).toBe(0);
    const jobs = await store.jobs.findJobsByIds(jobIds);
    expect(jobs.map((job) => job.next_fire_at)).toEqual(jobIds.map(() => NOW + 30_000));
    const counted = await sql<{ vacuum_count: string }>`
      SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = to_regclass('job')`.execute(store.db);
    expect(Number(counted.rows[0]?.vacuum_count)).toBe(1);

    // Nothing left to do: the next sweep vacuums nothing.
    expect((await low.sweep()).vacuumed).toEqual([]);
  });

  it('leaves the tables to the node holding the maintenance lease', async () => {
    const { jobIds } = await seedDueJobs(store, 10, NOW);
    await advanceJobs(store, jobIds, 30);
    expect(await waitForDeadJobRows(store, 300)).toBeGreaterThanOrEqual(300);
    const a = monitor(100, 'node-a');
    const b = monitor(100, 'node-b');
    expect((await a.monitor.sweep()).vacuumed.map((v) => v.table)).toEqual(['job']);
    await advanceJobs(store, jobIds, 30);
    expect(await waitForDeadJobRows(store, 300)).toBeGreaterThanOrEqual(300);
    expect(await b.monitor.sweep()).toEqual({ held: false, vacuumed: [] });
    expect(b.vacuums).toEqual([]);
    expect(await deadJobRows(store)).toBeGreaterThanOrEqual(300);
  });

  it('says once, at the first sweep, when the database runs no autovacuum', async () => {
    const { monitor: built } = monitor(10_000);
    await built.sweep();
    await built.sweep();
    const on = await sql<{ on: string }>`SELECT current_setting('autovacuum') AS on`.execute(store.db);
    if (on.rows[0]?.on === 'on') expect(warnings).toEqual([]);
    else {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/autovacuum is off.*fire table/);
    }
  });
});

describe.each(DIALECTS.filter((dialect) => dialect !== 'postgres'))('upkeep on %s', (dialect) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase(dialect);
  });
  afterEach(async () => {
    await database.drop();
  });

  it('has nothing to vacuum: rows are updated in place', async () => {
    const store = await database.open();
    expect(await store.upkeep.tableRows()).toEqual([]);
    expect(await store.upkeep.vacuum('job')).toBe(false);
    expect(await store.upkeep.autovacuumOn()).toBe(true);
  });
});
