/**
 * The hot statements' waits on PostgreSQL. On a busy node each wait for an answer is a wait for
 * the database and for the event loop, so:
 *
 * - a transaction's BEGIN is queued with its first statement and its COMMIT with its last
 *   (`inPostgresTransaction`): the claim's two statements are committed as the second one's
 *   answer comes, before the code after it runs — and nothing of a transaction that failed, at
 *   its BEGIN or at its last statement, is kept;
 * - a dispatch mark and a result batch are one statement each, with no BEGIN and COMMIT around it.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { inPostgresTransaction, type PostgresConnection } from '../src/store/connection.js';
import { PG_CLAIM_SETTINGS } from '../src/store/hot/claim.js';
import type { Store } from '../src/store/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { createApp, createJob } from './helpers/e2e.js';

let database: TestDatabase | undefined;

afterEach(async () => {
  await database?.drop();
  database = undefined;
});

/** A store on a fresh PostgreSQL database with a table `probe` of one integer key. */
async function probeStore(poolSize?: number): Promise<{ store: Store; conn: PostgresConnection }> {
  database = await createTestDatabase('postgres');
  const store = await database.open(poolSize === undefined ? {} : { poolSize });
  const conn = store.connection;
  if (conn.dialect !== 'postgres') throw new Error('unreachable');
  await conn.pool.query('CREATE TABLE probe (n int PRIMARY KEY)');
  return { store, conn };
}

async function probeRows(conn: PostgresConnection): Promise<number[]> {
  const result = await conn.pool.query<{ n: number }>('SELECT n FROM probe ORDER BY n');
  return result.rows.map((row) => row.n);
}

/** The text of every statement sent to the database while `work` runs. */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const texts: string[] = [];
  // Each query a client sends goes through its `submit` (the clients' own `query` is wrapped per
  // connection by the statement watchdog).
  const Query = (pg as unknown as { Query: { prototype: { submit: (...args: unknown[]) => unknown } } })
    .Query;
  const submit = Query.prototype.submit;
  Query.prototype.submit = function (this: { text: string }, ...args: unknown[]) {
    texts.push(this.text);
    return submit.apply(this, args);
  };
  try {
    await work();
  } finally {
    Query.prototype.submit = submit;
  }
  return texts;
}

describe('a PostgreSQL transaction whose BEGIN and COMMIT are queued with its statements', () => {
  it('is committed as its last statement is answered, before the code after it runs', async () => {
    const { conn } = await probeStore();
    let seenBeforeReturn: number[] = [];
    await inPostgresTransaction(conn, async (tx) => {
      await tx.query({ text: 'INSERT INTO probe VALUES (1)' });
      // Not committed yet: another connection does not see it.
      expect(await probeRows(conn)).toEqual([]);
      await tx.queryAndCommit({ text: 'INSERT INTO probe VALUES (2)' });
      seenBeforeReturn = await probeRows(conn);
    });
    expect(seenBeforeReturn).toEqual([1, 2]);
  });

  it('runs its first statement under the settings sent with the BEGIN, and only that transaction', async () => {
    const { conn } = await probeStore(1);
    const inside = await inPostgresTransaction(
      conn,
      async (tx) => (await tx.query<{ enable_bitmapscan: string }>({ text: 'SHOW enable_bitmapscan' })).rows,
      PG_CLAIM_SETTINGS,
    );
    expect(inside).toEqual([{ enable_bitmapscan: 'off' }]);
    // The same (only) pooled connection, after the transaction: the setting is back.
    const after = await conn.pool.query<{ enable_bitmapscan: string }>('SHOW enable_bitmapscan');
    expect(after.rows).toEqual([{ enable_bitmapscan: 'on' }]);
  });

  it('keeps nothing when its last statement fails, throws that failure, and pools its connection in good order', async () => {
    const { conn } = await probeStore(1);
    await conn.pool.query('INSERT INTO probe VALUES (3)');
    await expect(
      inPostgresTransaction(conn, async (tx) => {
        await tx.query({ text: 'INSERT INTO probe VALUES (4)' });
        await tx.queryAndCommit({ text: 'INSERT INTO probe VALUES (3)' });
      }),
    ).rejects.toThrow(/duplicate key value violates unique constraint "probe_pkey"/);
    expect(await probeRows(conn)).toEqual([3]);
    // The one pooled connection is out of the aborted transaction: the next one commits.
    await inPostgresTransaction(conn, async (tx) => {
      await tx.queryAndCommit({ text: 'INSERT INTO probe VALUES (5)' });
    });
    expect(await probeRows(conn)).toEqual([3, 5]);
  });

  it('runs nothing after its first statement when the BEGIN failed', async () => {
    const { conn } = await probeStore(1);
    let reached = false;
    await expect(
      inPostgresTransaction(
        conn,
        async (tx) => {
          await tx.query({ text: 'INSERT INTO probe VALUES (6)' });
          reached = true;
          await tx.queryAndCommit({ text: 'INSERT INTO probe VALUES (7)' });
        },
        'SET LOCAL tw_no_such_setting = 1',
      ),
    ).rejects.toThrow(/unrecognized configuration parameter "tw_no_such_setting"/);
    expect(reached).toBe(false);
    expect(await probeRows(conn)).toEqual([]);
    await inPostgresTransaction(conn, async (tx) => {
      await tx.queryAndCommit({ text: 'INSERT INTO probe VALUES (8)' });
    });
    expect(await probeRows(conn)).toEqual([8]);
  });

  it('sends a batch of dispatch marks and a batch of results as one statement each', async () => {
    const { store } = await probeStore();
    const appId = await createApp(store, 'trips');
    const job = await createJob(store, {
      app_id: appId,
      name: 'trips',
      executor_handler: 'trips',
      schedule_type: 'NONE',
      schedule_conf: '',
    });
    const ids = await store.fires.createFires(
      Array.from({ length: 20 }, (_, i) => ({
        jobId: job.id,
        appId,
        scheduledAt: 1_000_000 + i,
        triggerType: 'API' as const,
        executorHandler: 'trips',
        executorParam: null,
      })),
      Date.now(),
    );
    const marks = ids.map((fireId) => ({
      fireId,
      triggerAt: Date.now(),
      executorAddress: 'http://127.0.0.1:9/',
      triggerCode: 200,
      triggerMsg: 'sent',
    }));
    let changed = 0;
    const markStatements = await statementsOf(async () => {
      changed = await store.fires.markDispatched(marks);
    });
    expect(changed).toBe(20);
    expect(markStatements).toHaveLength(1);
    expect(markStatements[0]).toMatch(/^WITH locked AS/);

    let finished = 0;
    const finishStatements = await statementsOf(async () => {
      const results = ids.map((fireId) => ({
        fireId,
        handleCode: 200,
        handleMsg: 'ok',
        handleAt: Date.now(),
      }));
      finished = (await store.fires.finishFires(results)).length;
    });
    expect(finished).toBe(20);
    expect(finishStatements).toHaveLength(1);
    expect(finishStatements[0]).toMatch(/^WITH locked AS/);
    const statuses = await database!.query<{ status: string; count: string }>(
      'SELECT status, count(*) AS count FROM fire GROUP BY status',
    );
    expect(statuses).toEqual([{ status: 'succeeded', count: '20' }]);
  });
});
