/**
 * Leases: named ownership with an expiry and an epoch. A shard (`shard:<n>`) or the maintenance
 * work (`maintenance`) has one owner until its lease expires. The epoch grows by one every time
 * the lease is granted afresh (to another node, or to the same node after it let it lapse): it
 * is the fencing token the claim compares, so a node that stalled past its expiry cannot write
 * with the term it lost.
 */
import { type Kysely, sql } from 'kysely';
import type { StoreConnection } from './connection.js';
import type { Database, LeaseRow } from './schema.js';

/** The lease of shard `index`. */
export function shardLeaseName(index: number): string {
  return `shard:${index}`;
}

/** The lease of the maintenance work (registry clean-up, reports, retention). */
export const MAINTENANCE_LEASE = 'maintenance';

export interface HeldLease {
  epoch: number;
  expiresAt: number;
}

/**
 * The conditional UPDATE that grants a lease: free or expired → `nodeId`, epoch + 1; held by
 * `nodeId` and unexpired → renewed, same epoch; held by another node → no row.
 */
function grant(db: Kysely<Database>, name: string, nodeId: string, ttlMs: number, nowMs: number) {
  // `epoch` comes first in SET: MySQL evaluates assignments left to right, so it must read the
  // old owner and expiry before they are overwritten (PostgreSQL and SQLite read old values anyway).
  return db
    .updateTable('lease')
    .set({
      epoch: sql<number>`CASE WHEN owner_node = ${nodeId} AND expires_at > ${nowMs} THEN epoch ELSE epoch + 1 END`,
      owner_node: nodeId,
      expires_at: nowMs + ttlMs,
    })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('owner_node', '=', nodeId), eb('expires_at', '<=', nowMs)]));
}

export function createLeaseRepository(conn: StoreConnection) {
  const { db } = conn;

  /** Ensures the lease row exists, unowned and expired, so taking it is always an UPDATE. */
  async function ensureLeaseRow(name: string): Promise<void> {
    const insert = db.insertInto('lease').values({ name, owner_node: '', epoch: 0, expires_at: 0 });
    if (conn.dialect === 'mysql') await insert.ignore().execute();
    else await insert.onConflict((oc) => oc.column('name').doNothing()).execute();
  }

  /**
   * Takes the lease when it is free or expired, or renews it when `nodeId` holds it, as one
   * conditional UPDATE. Returns the epoch and expiry, or null when another node holds it.
   *
   * @example
   * const held = await store.leases.acquireOrRenewLease('shard:3', 'node-a', 15_000, Date.now());
   * if (held) planner.own(3, held.epoch);
   */
  async function acquireOrRenewLease(
    name: string,
    nodeId: string,
    ttlMs: number,
    nowMs: number,
  ): Promise<HeldLease | null> {
    await ensureLeaseRow(name);
    if (conn.dialect !== 'mysql') {
      const row = await grant(db, name, nodeId, ttlMs, nowMs)
        .returning(['epoch', 'expires_at'])
        .executeTakeFirst();
      return row === undefined ? null : { epoch: row.epoch, expiresAt: row.expires_at };
    }
    // No RETURNING on MySQL: read the granted epoch back under the row lock the UPDATE took.
    return db.transaction().execute(async (trx) => {
      const result = await grant(trx, name, nodeId, ttlMs, nowMs).executeTakeFirst();
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

  async function findLease(name: string): Promise<LeaseRow | undefined> {
    return db.selectFrom('lease').selectAll().where('name', '=', name).executeTakeFirst();
  }

  async function listLeases(): Promise<LeaseRow[]> {
    return db.selectFrom('lease').selectAll().orderBy('name').execute();
  }

  return { acquireOrRenewLease, releaseLease, findLease, listLeases };
}

export type LeaseRepository = ReturnType<typeof createLeaseRepository>;
