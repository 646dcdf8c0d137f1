/**
 * Leases: named ownership with an expiry and an epoch. A shard (`shard:<n>`) or the maintenance
 * work (`maintenance`) has one owner until its lease expires. The epoch grows by one every time
 * the lease is granted afresh (to another node, or to the same node after it let it lapse): it
 * is the fencing token the claim compares, so a node that stalled past its expiry cannot write
 * with the term it lost.
 */
import { type Kysely, type RawBuilder, sql, type UpdateQueryBuilder, type UpdateResult } from 'kysely';
import type { StoreConnection } from './connection.js';
import type { DialectName } from './database-url.js';
import type { Database, LeaseRow } from './schema.js';

/** The lease of shard `index`. */
export function shardLeaseName(index: number): string {
  return `shard:${index}`;
}

/** The lease of the maintenance work (registry clean-up, reports, retention). */
export const MAINTENANCE_LEASE = 'maintenance';

/**
 * The database server's clock in epoch milliseconds, as SQL text of each dialect. Lease expiries
 * are written and compared in this clock, so nodes whose own clocks disagree still agree on who
 * holds what. PostgreSQL reads `clock_timestamp()` (the time of the evaluation, not of the
 * transaction's start); MySQL/MariaDB `NOW(3)` (the statement's start); SQLite, one node on one
 * machine, the machine's clock. Each is the millisecond begun, as `Date.now()` is: a reading
 * rounded to the nearest one (PostgreSQL's `::bigint` alone) put a node's clock, corrected to the
 * database's (scheduling/clock.ts), half a millisecond ahead on average — a whole one in most
 * samples — and a run released at its time then started before it by the executor's clock.
 */
export const DATABASE_NOW_MS_SQL: Readonly<Record<DialectName, string>> = {
  postgres: 'floor(extract(epoch from clock_timestamp()) * 1000)::bigint',
  mysql: 'CAST(ROUND(UNIX_TIMESTAMP(NOW(3)) * 1000) AS SIGNED)',
  sqlite: "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)",
};

/**
 * The database's now in epoch milliseconds as a Kysely fragment, for a condition such as
 * "the lease is unexpired in database time" inside another statement.
 *
 * @example
 * db.selectFrom('lease').select('name')
 *   .where('owner_node', '=', nodeId)
 *   .where('expires_at', '>', databaseNowMs(conn.dialect));
 */
export function databaseNowMs(dialect: DialectName): RawBuilder<number> {
  return sql<number>`${sql.raw(DATABASE_NOW_MS_SQL[dialect])}`;
}

export interface HeldLease {
  epoch: number;
  expiresAt: number;
}

/** A lease this node holds or was just granted, by name. */
export interface GrantedLease extends HeldLease {
  name: string;
}

/** A shard lease row as of one read, with the database's clock at that read. */
export interface LeaseSnapshot {
  leases: LeaseRow[];
  /** The database's now (or the `nowMs` passed) when the rows were read. */
  nowMs: number;
}

/**
 * "Now" for one statement: the database's clock (`nowMs` undefined) or the time the caller
 * passes (SQLite nodes and tests on a manual clock).
 */
function nowOf(dialect: DialectName, nowMs: number | undefined): RawBuilder<number> {
  return nowMs === undefined ? databaseNowMs(dialect) : sql<number>`${nowMs}`;
}

/** The expiry `ttlMs` from now, in the same clock (a bigint expression on the database clock). */
function expiryOf(dialect: DialectName, nowMs: number | undefined, ttlMs: number): RawBuilder<number> {
  return nowMs === undefined
    ? sql<number>`${databaseNowMs(dialect)} + ${sql.lit(ttlMs)}`
    : sql<number>`${nowMs + ttlMs}`;
}

/**
 * The conditional UPDATE that grants a lease: free or expired → `nodeId`, epoch + 1; held by
 * `nodeId` and unexpired → renewed, same epoch; held by another node → no row.
 */
function grant(
  db: Kysely<Database>,
  dialect: DialectName,
  name: string,
  nodeId: string,
  ttlMs: number,
  nowMs: number | undefined,
) {
  const now = nowOf(dialect, nowMs);
  // `epoch` comes first in SET: MySQL evaluates assignments left to right, so it must read the
  // old owner and expiry before they are overwritten (PostgreSQL and SQLite read old values anyway).
  return db
    .updateTable('lease')
    .set({
      epoch: sql<number>`CASE WHEN owner_node = ${nodeId} AND expires_at > ${now} THEN epoch ELSE epoch + 1 END`,
      owner_node: nodeId,
      expires_at: expiryOf(dialect, nowMs, ttlMs),
    })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('owner_node', '=', nodeId), eb('expires_at', '<=', now)]));
}

export function createLeaseRepository(conn: StoreConnection) {
  const { db } = conn;

  /** Ensures the lease row exists, unowned and expired, so taking it is always an UPDATE. */
  async function ensureLeaseRow(name: string): Promise<void> {
    await ensureLeaseRows([name]);
  }

  /** Ensures every named lease row exists (one INSERT), so taking one is always an UPDATE. */
  async function ensureLeaseRows(names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    const insert = db
      .insertInto('lease')
      .values(names.map((name) => ({ name, owner_node: '', epoch: 0, expires_at: 0 })));
    if (conn.dialect === 'mysql') await insert.ignore().execute();
    else await insert.onConflict((oc) => oc.column('name').doNothing()).execute();
  }

  /**
   * Takes the lease when it is free or expired, or renews it when `nodeId` holds it, as one
   * conditional UPDATE. Returns the epoch and expiry, or null when another node holds it.
   * Without `nowMs` the statement reads the database's clock, and the expiry is in it.
   *
   * @example
   * const held = await store.leases.acquireOrRenewLease('shard:3', 'node-a', 15_000, Date.now());
   * if (held) planner.own(3, held.epoch);
   */
  async function acquireOrRenewLease(
    name: string,
    nodeId: string,
    ttlMs: number,
    nowMs?: number,
  ): Promise<HeldLease | null> {
    await ensureLeaseRow(name);
    if (conn.dialect !== 'mysql') {
      const row = await grant(db, conn.dialect, name, nodeId, ttlMs, nowMs)
        .returning(['epoch', 'expires_at'])
        .executeTakeFirst();
      return row === undefined ? null : { epoch: row.epoch, expiresAt: row.expires_at };
    }
    // No RETURNING on MySQL: read the granted epoch back under the row lock the UPDATE took.
    return db.transaction().execute(async (trx) => {
      const result = await grant(trx, conn.dialect, name, nodeId, ttlMs, nowMs).executeTakeFirst();
      if (result.numUpdatedRows === 0n) return null;
      const row = await trx
        .selectFrom('lease')
        .select(['epoch', 'expires_at'])
        .where('name', '=', name)
        .executeTakeFirstOrThrow();
      return { epoch: row.epoch, expiresAt: row.expires_at };
    });
  }

  /**
   * Gives the lease up at once (on shutdown) so another node need not wait for the expiry. The
   * row stays, owner and epoch included, so the next grant still increments the epoch.
   */
  async function releaseLease(name: string, nodeId: string, epoch: number): Promise<boolean> {
    const result = await db
      .updateTable('lease')
      .set({ expires_at: 0 })
      .where('name', '=', name)
      .where('owner_node', '=', nodeId)
      .where('epoch', '=', epoch)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * Renews, in one statement, the leases of `names` that `nodeId` holds unexpired; returns those
   * it renewed with their epoch and new expiry. A name missing from the answer was lost (taken
   * by another node, or expired): the caller must stop using it. Without `nowMs`, in database time.
   *
   * @example
   * const renewed = await store.leases.renewLeases('node-a', ['shard:0', 'shard:1'], 2_000);
   */
  async function renewLeases(
    nodeId: string,
    names: readonly string[],
    ttlMs: number,
    nowMs?: number,
  ): Promise<GrantedLease[]> {
    if (names.length === 0) return [];
    const now = nowOf(conn.dialect, nowMs);
    const update = (executor: Kysely<Database>) =>
      executor
        .updateTable('lease')
        .set({ expires_at: expiryOf(conn.dialect, nowMs, ttlMs) })
        .where('owner_node', '=', nodeId)
        .where('name', 'in', names)
        .where('expires_at', '>', now);
    return updatedLeases(update, nodeId, names, now);
  }

  /**
   * Runs a lease UPDATE over `names` and answers the leases it left with `nodeId`: through
   * RETURNING, or on MySQL (which has none) by reading them back under the row locks the UPDATE
   * took. A row still ours but expired by the database's clock was not updated, and is left out.
   */
  async function updatedLeases(
    update: (executor: Kysely<Database>) => UpdateQueryBuilder<Database, 'lease', 'lease', UpdateResult>,
    nodeId: string,
    names: readonly string[],
    now: RawBuilder<number>,
  ): Promise<GrantedLease[]> {
    if (conn.dialect !== 'mysql') {
      const rows = await update(db).returning(['name', 'epoch', 'expires_at']).execute();
      return rows.map(granted);
    }
    return db.transaction().execute(async (trx) => {
      const result = await update(trx).executeTakeFirst();
      if (result.numUpdatedRows === 0n) return [];
      const rows = await trx
        .selectFrom('lease')
        .select(['name', 'epoch', 'expires_at'])
        .where('owner_node', '=', nodeId)
        .where('name', 'in', names)
        .where('expires_at', '>', now)
        .execute();
      return rows.map(granted);
    });
  }

  /**
   * Takes, in one statement, those of `names` that are free or expired, each under a new epoch,
   * and renews those `nodeId` still holds unexpired (a restart under the same name), keeping
   * their epoch. Returns the leases granted (never more than `names`); a name another node
   * holds is skipped. Without `nowMs`, in database time.
   */
  async function acquireLeases(
    nodeId: string,
    names: readonly string[],
    ttlMs: number,
    nowMs?: number,
  ): Promise<GrantedLease[]> {
    if (names.length === 0) return [];
    const now = nowOf(conn.dialect, nowMs);
    const update = (executor: Kysely<Database>) =>
      executor
        .updateTable('lease')
        // `epoch` first: MySQL assigns left to right (see `grant`).
        .set({
          epoch: sql<number>`CASE WHEN owner_node = ${nodeId} AND expires_at > ${now} THEN epoch ELSE epoch + 1 END`,
          owner_node: nodeId,
          expires_at: expiryOf(conn.dialect, nowMs, ttlMs),
        })
        .where('name', 'in', names)
        .where((eb) => eb.or([eb('owner_node', '=', nodeId), eb('expires_at', '<=', now)]));
    return updatedLeases(update, nodeId, names, now);
  }

  /**
   * Gives up, in one statement, the leases of `names` that `nodeId` holds, so other nodes may
   * take them at once. Call it only once this node has stopped using them. Returns how many.
   */
  async function releaseLeases(nodeId: string, names: readonly string[]): Promise<number> {
    if (names.length === 0) return 0;
    const result = await db
      .updateTable('lease')
      .set({ expires_at: 0 })
      .where('owner_node', '=', nodeId)
      .where('name', 'in', names)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** The shard lease rows (`shard:<n>`), with the database's now at the read (or `nowMs`). */
  async function listShardLeases(nowMs?: number): Promise<LeaseSnapshot> {
    const rows = await db
      .selectFrom('lease')
      .select(['name', 'owner_node', 'epoch', 'expires_at', nowOf(conn.dialect, nowMs).as('db_now')])
      .where('name', 'like', 'shard:%')
      .execute();
    const at = rows[0] === undefined ? (nowMs ?? (await databaseNow())) : Number(rows[0].db_now);
    return {
      leases: rows.map(({ db_now: _, ...lease }) => lease),
      nowMs: at,
    };
  }

  /** The database server's clock now, in epoch milliseconds (see `databaseNowMs`). */
  async function databaseNow(): Promise<number> {
    const { rows } = await sql<{
      now: number | string;
    }>`SELECT ${databaseNowMs(conn.dialect)} AS now`.execute(db);
    return Number(rows[0]?.now);
  }

  async function findLease(name: string): Promise<LeaseRow | undefined> {
    return db.selectFrom('lease').selectAll().where('name', '=', name).executeTakeFirst();
  }

  async function listLeases(): Promise<LeaseRow[]> {
    return db.selectFrom('lease').selectAll().orderBy('name').execute();
  }

  return {
    acquireOrRenewLease,
    ensureLeaseRows,
    renewLeases,
    acquireLeases,
    releaseLease,
    releaseLeases,
    listShardLeases,
    databaseNow,
    findLease,
    listLeases,
  };
}

export type LeaseRepository = ReturnType<typeof createLeaseRepository>;

function granted(row: { name: string; epoch: number; expires_at: number }): GrantedLease {
  return { name: row.name, epoch: Number(row.epoch), expiresAt: Number(row.expires_at) };
}
