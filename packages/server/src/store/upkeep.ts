/**
 * PostgreSQL's upkeep of the tables the scheduler rewrites all the time. Every claim moves a
 * job's `next_fire_at`, which is in an index (`job_due_idx`), so each claim leaves the job's old
 * version and its index entry behind until a vacuum; the claim's own look for due jobs reads
 * through the entries of every old version due before now, so the longer since the last vacuum,
 * the more each claim reads (at 5,000 fires a second, 300,000 entries a minute). Autovacuum
 * visits a table at most once a minute (`autovacuum_naptime`), and not at all where it is off;
 * the vacuum monitor (monitors/vacuum.ts) vacuums these tables itself once their dead rows pass
 * a threshold. They are small (a row per job, lease, node, registration): a vacuum of each
 * takes milliseconds. `fire` is not among them: it grows with the retention, and its vacuum is
 * left to autovacuum. SQLite and MySQL update rows in place (InnoDB's purge thread removes old
 * versions): nothing to do there.
 */
import { sql } from 'kysely';
import type { StoreConnection } from './connection.js';

/** The tables the vacuum monitor looks after, each rewritten by the scheduler many times a row. */
export const VACUUMED_TABLES = ['job', 'workflow', 'lease', 'cluster_node', 'registry'] as const;

export type VacuumedTable = (typeof VACUUMED_TABLES)[number];

/** A table's rows as PostgreSQL's statistics count them (a second or so behind). */
export interface TableRows {
  table: VacuumedTable;
  live: number;
  dead: number;
}

export function createUpkeepRepository(conn: StoreConnection) {
  const { db } = conn;

  /**
   * Live and dead rows of each vacuumed table (of the schema the store uses), from
   * `pg_stat_user_tables`. Empty on SQLite and MySQL.
   */
  async function tableRows(): Promise<TableRows[]> {
    if (conn.dialect !== 'postgres') return [];
    const { rows } = await sql<{ table: VacuumedTable; live: string; dead: string }>`
      SELECT c.relname AS "table", s.n_live_tup AS live, s.n_dead_tup AS dead
      FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
      WHERE s.relid IN (${sql.join(VACUUMED_TABLES.map((t) => sql`to_regclass(${t})`))})
      ORDER BY c.relname`.execute(db);
    return rows.map((r) => ({ table: r.table, live: Number(r.live), dead: Number(r.dead) }));
  }

  /**
   * Vacuums `table` (plain VACUUM: no lock that stops reads or writes). `SKIP_LOCKED`: when
   * another vacuum (autovacuum's) has the table, this one does nothing and returns false.
   */
  async function vacuum(table: VacuumedTable): Promise<boolean> {
    if (conn.dialect !== 'postgres') return false;
    if (!VACUUMED_TABLES.includes(table)) throw new Error(`not a vacuumed table: ${table}`);
    const before = await vacuumCount(table);
    await sql`VACUUM (SKIP_LOCKED) ${sql.table(table)}`.execute(db);
    return (await vacuumCount(table)) > before;
  }

  /** How many times `table` was vacuumed by hand (the statistics count it as the vacuum ends). */
  async function vacuumCount(table: VacuumedTable): Promise<number> {
    const { rows } = await sql<{ count: string }>`
      SELECT vacuum_count AS count FROM pg_stat_user_tables WHERE relid = to_regclass(${table})`.execute(db);
    return Number(rows[0]?.count ?? 0);
  }

  /** Whether the database runs autovacuum (`autovacuum` on); true on SQLite and MySQL, which need none. */
  async function autovacuumOn(): Promise<boolean> {
    if (conn.dialect !== 'postgres') return true;
    const { rows } = await sql<{ on: string }>`SELECT current_setting('autovacuum') AS on`.execute(db);
    return rows[0]?.on === 'on';
  }

  return { tableRows, vacuum, autovacuumOn };
}

export type UpkeepRepository = ReturnType<typeof createUpkeepRepository>;
