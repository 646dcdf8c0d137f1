import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SQLITE_INLINE_ROWS, type SqliteConnection } from '../src/store/connection.js';
import { loadDueFires } from '../src/store/hot/due-load.js';
import type { OwnedShard, Store } from '../src/store/index.js';
import type { SqliteHotOp } from '../src/store/sqlite-hot-thread.js';
import { createTestDatabase, seedDueJobs, type TestDatabase } from './helpers/databases.js';

const T0 = 1_700_000_000_000;

/** The hot statements on their own thread: where they run, in parts, and what happens when the thread dies. */
describe('SQLite hot statements thread', () => {
  let database: TestDatabase;
  let store: Store;
  let conn: SqliteConnection;
  /** The calls the thread was asked to run, by op. */
  let calls: Map<SqliteHotOp, number>;
  const warnings: string[] = [];

  beforeEach(async () => {
    database = await createTestDatabase('sqlite');
    store = await database.open();
    if (store.connection.dialect !== 'sqlite') throw new Error('unreachable');
    conn = store.connection;
    warnings.length = 0;
    const started = await conn.hot!.start(
      { warn: (_detail: unknown, message: string) => void warnings.push(message) },
      { checkpointing: false },
    );
    expect(started).toBe(true);
    calls = new Map();
    const hot = conn.hot!;
    const run = hot.run.bind(hot);
    hot.run = <T>(op: SqliteHotOp, arg: unknown) => {
      calls.set(op, (calls.get(op) ?? 0) + 1);
      return run<T>(op, arg);
    };
  });
  afterEach(async () => {
    await database.drop();
  });

  async function ownShards(): Promise<OwnedShard[]> {
    const shards: OwnedShard[] = [];
    for (let index = 0; index < 4; index++) {
      const held = await store.leases.acquireOrRenewLease(`shard:${index}`, 'node-a', 60_000, T0);
      if (held) shards.push({ index, epoch: held.epoch });
    }
    return shards;
  }

  /** A claim as the planner makes it: read, planned and recorded on the thread in one call. */
  async function claim(shards: OwnedShard[]) {
    return store.fires.claimDueFires({
      nodeId: 'node-a',
      nowMs: T0,
      horizonMs: T0,
      shardTotal: 4,
      shards,
      limit: 1000,
      misfireWindowMs: 5000,
    });
  }

  it('claims, loads, fences, marks and finishes on the thread, the records as the server thread writes them', async () => {
    const { jobIds } = await seedDueJobs(store, 600, T0);
    const result = await claim(await ownShards());

    expect(calls.get('claim')).toBe(1);
    expect(result.fires.map((fire) => fire.job.id).sort((a, b) => a - b)).toEqual(jobIds);
    expect(result.planned.map((p) => p.jobId).sort((a, b) => a - b)).toEqual(jobIds);
    // FIX_RATE 1 s: each job's next time is one second on.
    const jobs = await store.jobs.findJobsByIds(jobIds);
    expect(new Set(jobs.map((job) => job.next_fire_at))).toEqual(new Set([T0 + 1000]));

    const ids = result.fires.map((fire) => fire.fireId);
    const loaded = await loadDueFires(conn, ids);
    expect(loaded.fires).toHaveLength(600);
    expect(calls.get('load')).toBe(1);

    const answers = await store.fires.fenceSends(
      'node-a',
      T0,
      result.fires.map((fire) => ({
        fireId: fire.fireId,
        address: 'http://127.0.0.1:9999/',
        lease: { name: `shard:${fire.job.id % 4}`, epoch: 1 },
      })),
    );
    expect(answers.every((answer) => answer.admitted)).toBe(true);
    expect(calls.get('fence')).toBe(1);

    // 600 marks and 600 results go in parts of 250: three calls each.
    const marked = await store.fires.markDispatched(
      ids.map((fireId) => ({
        fireId,
        triggerAt: T0 + 5,
        executorAddress: 'http://127.0.0.1:9999/',
        triggerCode: 200,
        triggerMsg: 'sent',
      })),
    );
    expect(marked).toBe(600);
    expect(calls.get('mark')).toBe(3);
    const finished = await store.fires.finishFires(
      ids.map((fireId) => ({ fireId, handleCode: 200, handleMsg: 'ok', handleAt: T0 + 50 })),
    );
    expect(finished.map((fire) => fire.fireId).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    expect(calls.get('finish')).toBe(3);
    const rows = await database.query<{ status: string; n: number }>(
      'SELECT status, count(*) AS n FROM fire GROUP BY status',
    );
    expect(rows).toEqual([{ status: 'succeeded', n: 600 }]);
    // A result for a record already final changes nothing, on the thread as on the server's connection.
    expect(
      await store.fires.finishFires([
        { fireId: ids[0]!, handleCode: 500, handleMsg: 'late', handleAt: T0 + 60 },
      ]),
    ).toEqual([]);
  });

  it('answers a statement that fails with its error, and goes on', async () => {
    await expect(conn.hot!.run('finish', 'not JSON')).rejects.toThrow(/JSON/);
    expect(conn.hot!.running).toBe(true);
    expect(await loadDueFires(conn, [123])).toEqual({ fires: [], jobs: [], apps: [] });
  });

  it('runs a call of a few rows on the server’s connection while the thread is idle, and on the thread behind its calls while it is not', async () => {
    await seedDueJobs(store, 20, T0);
    const ids = (await claim(await ownShards())).fires.map((fire) => fire.fireId);
    calls.clear();

    // Idle: a load and a result of one record each run here, with the same outcome.
    expect((await loadDueFires(conn, [ids[0]!])).fires.map((fire) => fire.id)).toEqual([ids[0]]);
    const one = await store.fires.finishFires([
      { fireId: ids[0]!, handleCode: 200, handleMsg: 'ok', handleAt: T0 + 50 },
    ]);
    expect(one.map((fire) => fire.fireId)).toEqual([ids[0]]);
    expect(calls.size).toBe(0);

    // More rows than SQLITE_INLINE_ROWS: on the thread.
    const many = ids.slice(1, 2 + SQLITE_INLINE_ROWS);
    expect((await loadDueFires(conn, many)).fires).toHaveLength(many.length);
    expect(calls.get('load')).toBe(1);

    // A call on the thread: the small result after it waits for it there instead of overtaking it.
    const big = loadDueFires(conn, ids.slice(1));
    const small = store.fires.finishFires([
      { fireId: ids[1]!, handleCode: 500, handleMsg: 'failed', handleAt: T0 + 60 },
    ]);
    const [loaded, finished] = await Promise.all([big, small]);
    expect(loaded.fires).toHaveLength(19);
    expect(finished.map((fire) => fire.fireId)).toEqual([ids[1]]);
    expect(calls.get('load')).toBe(2);
    expect(calls.get('finish')).toBe(1);
    const rows = await database.query<{ id: number; status: string }>(
      "SELECT id, status FROM fire WHERE status <> 'pending' ORDER BY id",
    );
    expect(rows).toEqual([
      { id: ids[0], status: 'succeeded' },
      { id: ids[1], status: 'failed' },
    ]);
  });

  it('runs the statements on the server connection once the thread has died', async () => {
    const { jobIds } = await seedDueJobs(store, 3, T0);
    // The thread dies as a native crash would end it.
    const worker = (conn.hot as unknown as { worker: { terminate(): Promise<number> } }).worker;
    await worker.terminate();
    await expect.poll(() => conn.hot!.running).toBe(false);
    expect(warnings).toContain('the hot statements thread failed; the server runs them on its own thread');

    calls.clear();
    const result = await store.fires.claimDueFires({
      nodeId: 'node-a',
      nowMs: T0,
      horizonMs: T0,
      shardTotal: 4,
      shards: await ownShards(),
      limit: 1000,
      misfireWindowMs: 5000,
    });
    expect(result.fires.map((fire) => fire.job.id).sort((a, b) => a - b)).toEqual(jobIds);
    expect(calls.size).toBe(0);
  });

  it('runs the query builder’s writes outside transactions on the thread, so the event loop never waits for the lock', async () => {
    // The server's connection holds the write lock: a write made on it would wait (synchronously,
    // in SQLite's busy handler) or, as here, land inside this open transaction.
    conn.sqlite.prepare('BEGIN IMMEDIATE').run();
    let done = false;
    const heartbeat = store.nodes
      .heartbeatNode({ nodeId: 'node-a', address: 'http://a/', startedAt: T0 }, T0)
      .then(() => {
        done = true;
      });
    await new Promise((resolve) => setTimeout(resolve, 150));
    // The thread waits for the lock; the event loop ran this timer meanwhile.
    expect(done).toBe(false);
    conn.sqlite.prepare('ROLLBACK').run();
    await heartbeat;
    expect(calls.get('exec')).toBe(1);
    // Written by the thread, so the rollback above did not undo it.
    expect((await store.nodes.listAliveNodes(0)).map((node) => node.node_id)).toEqual(['node-a']);

    // An insert's id and a delete's count come back as Kysely gives them.
    const app = await store.apps.createApp({ appName: 'routed', title: 'Routed', addressType: 'AUTO' }, T0);
    expect(app.id).toBeGreaterThan(0);
    expect(await store.nodes.deleteDeadNodes(T0)).toBe(1);
    // A failing write fails with SQLite's error and code.
    await expect(
      store.apps.createApp({ appName: 'routed', title: 'Again', addressType: 'AUTO' }, T0),
    ).rejects.toMatchObject({
      code: expect.stringMatching(/^SQLITE_CONSTRAINT/),
    });
  });

  it('keeps reads and writes inside a transaction on the server’s connection', async () => {
    calls.clear();
    await expect(
      store.connection.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('cluster_node')
          .values({ node_id: 'node-b', address: 'http://b/', started_at: T0, heartbeat_at: T0 })
          .execute();
        throw new Error('roll it back');
      }),
    ).rejects.toThrow('roll it back');
    expect(calls.get('exec')).toBeUndefined();
    expect(await store.nodes.listAliveNodes(0)).toEqual([]);
  });
});
