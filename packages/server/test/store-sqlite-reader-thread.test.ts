import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../src/store/index.js';
import { SqliteReaderThread } from '../src/store/sqlite-reader-thread.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { type SeedFire, seedFires } from './helpers/report-fixtures.js';

const NOW = Date.parse('2026-05-20T12:00:00Z');

function fires(count: number): SeedFire[] {
  return Array.from({ length: count }, (_, i) => ({
    appId: 1 + (i % 3),
    jobId: 1,
    scheduledAt: NOW + i,
    status: 'succeeded',
    triggerAt: NOW + i + 5,
    handleAt: NOW + i + 50,
  }));
}

describe('SQLite reader thread', () => {
  let database: TestDatabase;
  let store: Store;
  beforeEach(async () => {
    database = await createTestDatabase('sqlite');
    store = await database.open();
  });
  afterEach(async () => {
    await database.drop();
  });

  function sqliteOf(s: Store) {
    const conn = s.connection;
    if (conn.dialect !== 'sqlite') throw new Error('unreachable');
    return conn;
  }

  it("reads what the server's connection reads, and sees its later commits", async () => {
    await seedFires(store, fires(300));
    const reader = sqliteOf(store).reader!;
    const query = store.db
      .selectFrom('fire')
      .select((eb) => ['app_id', eb.fn.countAll<number>().as('n')])
      .where('scheduled_at', '>=', NOW)
      .groupBy('app_id')
      .orderBy('app_id')
      .compile();

    expect(await reader.read(query)).toEqual((await store.db.executeQuery(query)).rows);
    expect(await reader.read(query)).toEqual([
      { app_id: 1, n: 100 },
      { app_id: 2, n: 100 },
      { app_id: 3, n: 100 },
    ]);

    await seedFires(store, fires(1));
    expect((await reader.read(query))[0]).toEqual({ app_id: 1, n: 101 });
  });

  it('a long read leaves the event loop free; the same read on the connection holds it', async () => {
    const reader = sqliteOf(store).reader!;
    // About a quarter of a second of SQLite work.
    const long = sql<{
      n: number;
    }>`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000)
      SELECT count(*) AS n FROM c`.compile(store.db);
    const ticksDuring = async (read: () => Promise<unknown>) => {
      let ticks = 0;
      const ticker = setInterval(() => {
        ticks += 1;
      }, 1);
      const rows = await read();
      const seen = ticks;
      clearInterval(ticker);
      return { rows, ticks: seen };
    };

    const threaded = await ticksDuring(() => reader.read(long));
    expect(threaded.rows).toEqual([{ n: 3_000_000 }]);
    expect(threaded.ticks).toBeGreaterThan(5);
    const inline = await ticksDuring(() => store.db.executeQuery(long).then((result) => result.rows));
    expect(inline.rows).toEqual([{ n: 3_000_000 }]);
    expect(inline.ticks).toBeLessThanOrEqual(1);
  });

  it("a statement SQLite refuses fails with SQLite's reason, and the thread reads on", async () => {
    const reader = sqliteOf(store).reader!;
    await expect(reader.read(sql`SELECT nope FROM fire`.compile(store.db))).rejects.toThrow(
      /no such column: nope/,
    );
    // Read-only: a write is refused by SQLite itself.
    await expect(reader.read(sql`DELETE FROM fire RETURNING id`.compile(store.db))).rejects.toThrow(
      /readonly/,
    );
    expect(await reader.read(sql<{ one: number }>`SELECT 1 AS one`.compile(store.db))).toEqual([{ one: 1 }]);
  });

  it("reads on the server's connection when the thread cannot open the file", async () => {
    await seedFires(store, fires(2));
    const conn = sqliteOf(store);
    const missing = Object.create(conn.sqlite, { name: { value: `${conn.sqlite.name}.missing` } });
    const reader = new SqliteReaderThread(missing, conn.db);
    try {
      const rows = await reader.read(
        store.db
          .selectFrom('fire')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .compile(),
      );
      expect(rows).toEqual([{ n: 2 }]);
    } finally {
      await reader.close();
    }
  });

  it('closes with the store; an in-memory database has no reader', async () => {
    const reader = sqliteOf(store).reader!;
    expect(await reader.read(sql<{ one: number }>`SELECT 1 AS one`.compile(store.db))).toEqual([{ one: 1 }]);
    await store.close();
    // Closed: a read goes to the (closed) connection, which refuses it.
    await expect(reader.read(sql`SELECT 1`.compile(store.db))).rejects.toThrow();

    const inMemory = await openStore({ database: 'sqlite::memory:' });
    try {
      expect(sqliteOf(inMemory).reader).toBeUndefined();
    } finally {
      await inMemory.close();
    }
  });
});
