/**
 * The id of a row just inserted, the way each dialect hands it out: RETURNING on PostgreSQL and
 * SQLite, the driver's insertId on MySQL (which has no RETURNING).
 */
import { type InsertQueryBuilder, type InsertResult, sql } from 'kysely';
import type { DialectName } from './database-url.js';

export async function insertReturningId<DB, TB extends keyof DB>(
  dialect: DialectName,
  query: InsertQueryBuilder<DB, TB, InsertResult>,
): Promise<number> {
  if (dialect === 'mysql') return Number((await query.executeTakeFirstOrThrow()).insertId);
  // Every table inserted through here has an `id`; the builder cannot see that through the generics.
  const row = (await query.returning(sql<number>`id`.as('id')).executeTakeFirstOrThrow()) as { id: number };
  return row.id;
}
