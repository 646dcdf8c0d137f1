/**
 * A new PostgreSQL connection gets its session setting (`idle_in_transaction_session_timeout`, so
 * the database ends a transaction a stalled path left open) in the pool's `onConnect`, before the
 * pool hands it out: the setting holds for its very first statement, and the setting's statement
 * never runs beside the caller's on one client (deprecated in pg 8 with a warning, its queueing
 * to be removed in pg 9).
 */
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';

let database: TestDatabase | undefined;

afterEach(async () => {
  await database?.drop();
  database = undefined;
});

it('sets up each new connection before its first statement, and no pg warning says a statement was sent while another ran', async () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  process.on('warning', onWarning);
  try {
    database = await createTestDatabase('postgres');
    const store = await database.open();
    // More statements at once than the pool has connections: each connection is new when the
    // first of them gets it.
    const settings = await Promise.all(
      Array.from({ length: 24 }, () =>
        sql<{ timeout: string }>`SELECT current_setting('idle_in_transaction_session_timeout') AS timeout`
          .execute(store.db)
          .then((result) => result.rows[0]?.timeout),
      ),
    );
    expect(new Set(settings)).toEqual(new Set(['10s']));
    // A warning is emitted on the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((message) => message.includes('already executing'))).toEqual([]);
  } finally {
    process.off('warning', onWarning);
  }
});
