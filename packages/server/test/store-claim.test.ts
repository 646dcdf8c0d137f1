import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClaimedFire, ClaimRequest, OwnedShard, Store } from '../src/store/index.js';
import { createTestDatabase, STORE_VARIANTS, seedDueJobs, type TestDatabase } from './helpers/databases.js';

const T0 = 1_700_000_000_000;
const TTL = 60_000;

/** The misfire window the claims plan with: a time claimed later than this is a misfire. */
const WINDOW = 5_000;

async function ownShards(store: Store, nodeId: string, total: number, nowMs: number): Promise<OwnedShard[]> {
  const shards: OwnedShard[] = [];
  for (let index = 0; index < total; index++) {
    const held = await store.leases.acquireOrRenewLease(`shard:${index}`, nodeId, TTL, nowMs);
    if (held) shards.push({ index, epoch: held.epoch });
  }
  return shards;
}

function request(
  nodeId: string,
  shards: OwnedShard[],
  nowMs: number,
  over: Partial<ClaimRequest> = {},
): ClaimRequest {
  // The seeded jobs fire every second (FIX_RATE 1): one fire at the due time, the next 1 s later.
  return {
    nodeId,
    nowMs,
    horizonMs: nowMs,
    shardTotal: 4,
    shards,
    limit: 1000,
    misfireWindowMs: WINDOW,
    ...over,
  };
}

describe.each(STORE_VARIANTS)('claimDueFires on %s', (variant) => {
  let database: TestDatabase;
  let store: Store;
  beforeEach(async () => {
    database = await createTestDatabase(variant);
    store = await database.open();
  });
  afterEach(async () => {
    await database.drop();
  });

  it('records one pending fire per due job and advances next_fire_at', async () => {
    const { jobIds } = await seedDueJobs(store, 5, T0);
    const shards = await ownShards(store, 'node-a', 4, T0);
    const result = await store.fires.claimDueFires(request('node-a', shards, T0));

    expect(result.scanned).toBe(5);
    expect(result.fires.map((f) => f.job.id).sort((a, b) => a - b)).toEqual(jobIds);
    for (const fire of result.fires) {
      const row = (await store.fires.findFireById(fire.fireId))!;
      expect(row).toMatchObject({
        job_id: fire.job.id,
        claim_job_id: fire.job.id,
        scheduled_at: T0,
        trigger_type: 'CRON',
        status: 'pending',
        executor_handler: 'demo',
        executor_param: fire.job.executor_param,
        retry_count: 2,
        claimed_by_epoch: 1,
        created_at: T0,
      });
    }
    const jobs = await store.jobs.findJobsByIds(jobIds);
    expect(jobs.map((job) => job.next_fire_at)).toEqual(jobIds.map(() => T0 + 1000));
  });

  it('leaves jobs that are not due, stopped, or in shards the claimer does not own', async () => {
    const { jobIds } = await seedDueJobs(store, 8, T0);
    await store.jobs.updateJob(jobIds[0]!, { next_fire_at: T0 + 10_000 }, T0);
    await store.jobs.stopJob(jobIds[1]!, T0);
    const shards = (await ownShards(store, 'node-a', 4, T0)).filter(
      (shard) => shard.index !== jobIds[2]! % 4,
    );
    const result = await store.fires.claimDueFires(request('node-a', shards, T0));

    const claimed = new Set(result.fires.map((f) => f.job.id));
    expect(claimed.has(jobIds[0]!)).toBe(false);
    expect(claimed.has(jobIds[1]!)).toBe(false);
    expect(claimed.has(jobIds[2]!)).toBe(false);
    for (const id of jobIds) {
      if (id % 4 !== jobIds[2]! % 4 && id !== jobIds[0] && id !== jobIds[1])
        expect(claimed.has(id)).toBe(true);
    }
  });

  it('claims jobs in next_fire_at order and at most `limit` per batch', async () => {
    const { jobIds } = await seedDueJobs(store, 6, T0);
    for (const [i, id] of jobIds.entries()) await store.jobs.updateJob(id, { next_fire_at: T0 - i * 10 }, T0);
    const shards = await ownShards(store, 'node-a', 4, T0);
    const result = await store.fires.claimDueFires(request('node-a', shards, T0, { limit: 2 }));
    expect(result.scanned).toBe(2);
    expect(result.fires.map((f) => f.job.id)).toEqual([jobIds[5], jobIds[4]]);
  });

  /** Gives the jobs a schedule (and misfire policy) the claim plans with. */
  async function schedule(
    jobIds: readonly number[],
    scheduleType: string,
    scheduleConf: string,
    nextFireAt: number | null,
  ): Promise<void> {
    await store.db
      .updateTable('job')
      .set({ schedule_type: scheduleType, schedule_conf: scheduleConf, next_fire_at: nextFireAt })
      .where('id', 'in', [...jobIds])
      .execute();
  }

  it('records every time a plan fires, clears a job without a schedule, stops one whose schedule no longer reads', async () => {
    const { jobIds } = await seedDueJobs(store, 3, T0);
    const [several, none, broken] = jobIds as [number, number, number];
    await schedule([several], 'FIX_RATE', '2', T0);
    await schedule([none], 'NONE', '', T0);
    await schedule([broken], 'CRON', 'not a cron', T0);
    const shards = await ownShards(store, 'node-a', 4, T0);
    // 4.5 s late: the three times inside the misfire window all fire.
    const result = await store.fires.claimDueFires(request('node-a', shards, T0 + 4500));
    expect(result.fires.filter((f) => f.job.id === several).map((f) => f.scheduledAt)).toEqual([
      T0,
      T0 + 2000,
      T0 + 4000,
    ]);
    expect(result.fires.filter((f) => f.job.id !== several)).toEqual([]);
    expect((await store.jobs.findJobById(several))!.next_fire_at).toBe(T0 + 6000);
    expect(await store.jobs.findJobById(none)).toMatchObject({ trigger_status: 1, next_fire_at: null });
    expect(await store.jobs.findJobById(broken)).toMatchObject({ trigger_status: 0, next_fire_at: null });
    expect(await store.fires.countFires()).toBe(3);
    // What was planned comes back with the claim: the due times to arm, and why a job stopped.
    const planned = new Map(result.planned.map((p) => [p.jobId, p]));
    expect(planned.get(several)?.dueAts).toEqual([
      [T0, T0],
      [T0 + 2000, T0 + 2000],
      [T0 + 4000, T0 + 4000],
    ]);
    expect(planned.get(broken)?.error).toEqual(expect.any(String));
    expect(planned.get(none)).toMatchObject({ dueAts: [], firedNow: false });
  });

  it('records a skipped misfire as skipped in the claim itself and returns it apart from the fires to dispatch', async () => {
    const { jobIds } = await seedDueJobs(store, 3, T0);
    const [missed, onTime, alreadyRecorded] = jobIds as [number, number, number];
    const shards = await ownShards(store, 'node-a', 4, T0);
    // The third job's time is taken already: its skipped record is refused by the unique key.
    await schedule([missed, onTime], 'FIX_RATE', '60', T0 + 600_000);
    await schedule([alreadyRecorded], 'FIX_RATE', '60', T0);
    const first = await store.fires.claimDueFires(request('node-a', shards, T0));
    expect(first.fires.map((f) => f.job.id)).toEqual([alreadyRecorded]);

    const later = T0 + 30_000;
    await schedule([missed, alreadyRecorded], 'FIX_RATE', '60', T0);
    await schedule([onTime], 'FIX_RATE', '1', later);
    const result = await store.fires.claimDueFires(request('node-a', shards, later));
    expect(result.fires.map((f) => f.job.id)).toEqual([onTime]);
    expect(result.skipped.map((f) => [f.job.id, f.scheduledAt, f.triggerType])).toEqual([
      [missed, T0, 'MISFIRE'],
    ]);
    // Skipped when the claim returns: no second statement, nothing pending for recovery to find.
    expect(await store.fires.findFireById(result.skipped[0]!.fireId)).toMatchObject({
      job_id: missed,
      claim_job_id: missed,
      scheduled_at: T0,
      trigger_type: 'MISFIRE',
      status: 'skipped',
      handle_at: later,
      handle_msg: expect.stringMatching(
        /^misfire: skipped \(DO_NOTHING\), missed by more than the misfire window/,
      ),
      handle_code: null,
      trigger_at: null,
    });
    expect(await store.fires.findFireById(result.fires[0]!.fireId)).toMatchObject({
      status: 'pending',
      handle_at: null,
      handle_msg: null,
    });
    expect(await store.fires.countFires({ status: 'pending' })).toBe(2);
    expect(await store.fires.countFires({ status: 'skipped' })).toBe(1);
    expect((await store.jobs.findJobById(missed))!.next_fire_at).toBe(T0 + 60_000);
    expect((await store.jobs.findJobById(alreadyRecorded))!.next_fire_at).toBe(T0 + 60_000);
  });

  it('a job given a fire-now misfire this tick gets a skip instead, the first one comes back as fired now', async () => {
    const { jobIds } = await seedDueJobs(store, 2, T0);
    const [given, first] = jobIds as [number, number];
    await schedule(jobIds, 'FIX_RATE', '60', T0);
    await store.db.updateTable('job').set({ misfire_strategy: 'FIRE_ONCE_NOW' }).execute();
    const shards = await ownShards(store, 'node-a', 4, T0);
    const later = T0 + 30_000;
    const result = await store.fires.claimDueFires(request('node-a', shards, later, { firedNow: [given] }));
    expect(result.fires.map((f) => [f.job.id, f.triggerType])).toEqual([[first, 'MISFIRE']]);
    expect(result.skipped.map((f) => f.job.id)).toEqual([given]);
    const planned = new Map(result.planned.map((p) => [p.jobId, p]));
    expect(planned.get(first)).toMatchObject({ firedNow: true, dueAts: [[T0, later]] });
    expect(planned.get(given)).toMatchObject({ firedNow: false, dueAts: [] });
  });

  it('a claim with a stale lease epoch records no skipped misfire either', async () => {
    await seedDueJobs(store, 2, T0);
    const stale = await ownShards(store, 'node-a', 4, T0);
    const later = T0 + TTL + 1;
    await ownShards(store, 'node-b', 4, later);
    // A minute late: each job's oldest time is a skipped misfire, the rest would fire.
    const result = await store.fires.claimDueFires(request('node-a', stale, later));
    expect(result).toMatchObject({ fires: [], skipped: [] });
    expect(await store.fires.countFires()).toBe(0);
  });

  it('a claim with a stale lease epoch records nothing and moves no job', async () => {
    const { jobIds } = await seedDueJobs(store, 4, T0);
    // One time each, fired however late the claim (a window longer than the stall).
    await schedule(jobIds, 'FIX_RATE', '100', T0);
    const late = { misfireWindowMs: 120_000 };
    const stale = await ownShards(store, 'node-a', 4, T0);
    // node-a stalls past its expiry; node-b takes every shard over with a new epoch.
    const later = T0 + TTL + 1;
    const fresh = await ownShards(store, 'node-b', 4, later);
    expect(fresh.map((s) => s.epoch)).toEqual([2, 2, 2, 2]);

    const result = await store.fires.claimDueFires(request('node-a', stale, later, late));
    expect(result.fires).toEqual([]);
    expect(await store.fires.countFires()).toBe(0);
    const jobs = await store.jobs.findJobsByIds(jobIds);
    expect(jobs.every((job) => job.next_fire_at === T0)).toBe(true);

    // The same stale epoch presented by the new owner's node id is refused as well.
    const wrongEpoch = await store.fires.claimDueFires(request('node-b', stale, later, late));
    expect(wrongEpoch.fires).toEqual([]);
    const owned = await store.fires.claimDueFires(request('node-b', fresh, later, late));
    expect(owned.fires).toHaveLength(4);
    expect(owned.fires.every((f) => f.job.next_fire_at === T0)).toBe(true);
  });

  it('a claim after the lease expired records nothing, even with the right epoch', async () => {
    await seedDueJobs(store, 2, T0);
    const shards = await ownShards(store, 'node-a', 4, T0);
    const result = await store.fires.claimDueFires(request('node-a', shards, T0 + TTL));
    expect(result.fires).toEqual([]);
    expect(await store.fires.countFires()).toBe(0);
  });

  it.runIf(variant === 'postgres')(
    'a job stopped while a claim runs is neither fired nor started again',
    async () => {
      const { jobIds } = await seedDueJobs(store, 2, T0);
      const [stopped, running] = jobIds as [number, number];
      const shards = await ownShards(store, 'node-a', 4, T0);
      const other = await database.open();
      const conn = other.connection;
      if (conn.dialect !== 'postgres') throw new Error('unreachable');
      const client = await conn.pool.connect();
      try {
        // The strictest stop: trigger_status alone, next_fire_at left as it was. The claim skips
        // the row while the stop holds it (or, were it to wait, finds it stopped).
        await client.query('BEGIN');
        await client.query('UPDATE job SET trigger_status = 0 WHERE id = $1', [stopped]);
        let settled = false;
        const claiming = store.fires.claimDueFires(request('node-a', shards, T0)).finally(() => {
          settled = true;
        });
        const deadline = Date.now() + 3_000;
        for (;;) {
          const waiting = await client.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE wait_event_type = 'Lock' AND query LIKE 'WITH advanced AS%'`,
          );
          if (settled || waiting.rows[0].n > 0 || Date.now() > deadline) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await client.query('COMMIT');
        const result = await claiming;
        expect(result.fires.map((fire) => fire.job.id)).toEqual([running]);
      } finally {
        client.release();
        await other.close();
      }
      const job = (await store.jobs.findJobById(stopped))!;
      expect(job.trigger_status).toBe(0);
      expect(job.next_fire_at).toBe(T0);
      expect(await store.fires.countFires()).toBe(1);
    },
  );

  it('a time that already has a record is not recorded again when next_fire_at is set back to it', async () => {
    const { jobIds } = await seedDueJobs(store, 1, T0);
    const shards = await ownShards(store, 'node-a', 4, T0);
    const first = await store.fires.claimDueFires(request('node-a', shards, T0));
    expect(first.fires).toHaveLength(1);
    // An edit recomputes next_fire_at to a time that was already claimed.
    await store.jobs.updateJob(jobIds[0]!, { next_fire_at: T0 }, T0);
    const second = await store.fires.claimDueFires(request('node-a', shards, T0));
    expect(second.fires).toEqual([]);
    expect(await store.fires.countFires()).toBe(1);
    expect((await store.jobs.findJobById(jobIds[0]!))!.next_fire_at).toBe(T0 + 1000);
  });

  it('two claimers racing on separate connections claim every due fire exactly once over many rounds', async () => {
    const jobs = 120;
    const rounds = 12;
    const { jobIds } = await seedDueJobs(store, jobs, T0);
    const other = await database.open();
    const shards = await ownShards(store, 'node-a', 4, T0);
    // Both claimers present the same valid lease: the worst case, two planners that both
    // believe they own every shard. Only the row locks, the compare-and-set and the unique key
    // stand between them and a duplicate.
    const claimed: ClaimedFire[] = [];
    const drain = async (claimer: Store, nowMs: number) => {
      for (;;) {
        const result = await claimer.fires.claimDueFires(request('node-a', shards, nowMs, { limit: 25 }));
        claimed.push(...result.fires);
        if (result.scanned < 25) return;
      }
    };
    for (let round = 0; round < rounds; round++) {
      const nowMs = T0 + round * 1000;
      await Promise.all([drain(store, nowMs), drain(other, nowMs), drain(store, nowMs), drain(other, nowMs)]);
      await drain(store, nowMs);
    }

    const keys = claimed.map((f) => `${f.job.id}@${f.scheduledAt}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toHaveLength(jobs * rounds);
    const rows = await store.fires.listFires({ limit: jobs * rounds + 10 });
    expect(rows).toHaveLength(jobs * rounds);
    expect(new Set(rows.map((row) => row.id))).toEqual(new Set(claimed.map((f) => f.fireId)));
    const advanced = await store.jobs.findJobsByIds(jobIds);
    expect(advanced.every((job) => job.next_fire_at === T0 + rounds * 1000)).toBe(true);
  });

  it('two nodes owning disjoint shards together claim every job once', async () => {
    const { jobIds } = await seedDueJobs(store, 40, T0);
    const other = await database.open();
    const a: OwnedShard[] = [];
    const b: OwnedShard[] = [];
    for (let index = 0; index < 4; index++) {
      const [owner, list, node] = index % 2 === 0 ? [store, a, 'node-a'] : [other, b, 'node-b'];
      const held = (await owner.leases.acquireOrRenewLease(`shard:${index}`, node, TTL, T0))!;
      list.push({ index, epoch: held.epoch });
    }
    // Racing claims may pass over a row the other node holds for an instant (on MySQL, SKIP
    // LOCKED also skips rows the other scan locked before testing their shard): such a job is
    // claimed at the node's next tick, well inside the look-ahead. Each node ticks until it
    // scans nothing — which, while the other's scan holds its rows, can come early — and then
    // both tick once more after the race, as their schedulers would a second later.
    const claimAll = async (owner: Store, node: string, shards: OwnedShard[]) => {
      const fires: ClaimedFire[] = [];
      for (let tick = 0; tick < 10; tick++) {
        const result = await owner.fires.claimDueFires(request(node, shards, T0));
        fires.push(...result.fires);
        if (result.fires.length === 0 && result.scanned === 0) break;
      }
      return fires;
    };
    const [ra, rb] = await Promise.all([claimAll(store, 'node-a', a), claimAll(other, 'node-b', b)]);
    ra.push(...(await claimAll(store, 'node-a', a)));
    rb.push(...(await claimAll(other, 'node-b', b)));
    expect(ra.every((f) => f.job.id % 2 === 0)).toBe(true);
    expect(rb.every((f) => f.job.id % 2 === 1)).toBe(true);
    expect([...ra, ...rb].map((f) => f.job.id).sort((x, y) => x - y)).toEqual(jobIds);
  });
});

describe('claimDueFires on postgres: a plain insert, and "on conflict do nothing" after a taken time', () => {
  let database: TestDatabase;
  let store: Store;
  /** The names of the prepared statements the pool's clients ran, in order. */
  const ran: string[] = [];

  beforeEach(async () => {
    database = await createTestDatabase('postgres');
    store = await database.open();
    const conn = store.connection;
    if (conn.dialect !== 'postgres') throw new Error('unreachable');
    ran.length = 0;
    const watched = new WeakSet<object>();
    const connect = conn.pool.connect.bind(conn.pool);
    conn.pool.connect = (async () => {
      const client = await connect();
      if (!watched.has(client)) {
        watched.add(client);
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        client.query = ((config: unknown, ...rest: unknown[]) => {
          const name = (config as { name?: unknown } | null)?.name;
          if (typeof name === 'string') ran.push(name);
          return query(config, ...rest);
        }) as typeof client.query;
      }
      return client;
    }) as typeof conn.pool.connect;
  });
  afterEach(async () => {
    await database.drop();
  });

  const records = () => ran.filter((name) => name.startsWith('tw_claim_advance_and_record'));

  it('records with a plain insert; a taken time rolls the claim back and makes it again, whole, deduplicating for a minute', async () => {
    const { jobIds } = await seedDueJobs(store, 3, T0);
    const [taken, other, last] = jobIds as [number, number, number];
    const shards = await ownShards(store, 'node-a', 4, T0);
    const first = await store.fires.claimDueFires(request('node-a', shards, T0));
    expect(first.fires).toHaveLength(3);
    expect(records()).toEqual(['tw_claim_advance_and_record_plain']);

    // One job set back onto its recorded time, the others due at their next: the plain insert
    // meets the taken time, and the claim made again records the others' and skips the taken one.
    await store.jobs.updateJob(taken, { next_fire_at: T0 }, T0);
    const second = await store.fires.claimDueFires(request('node-a', shards, T0 + 1000));
    expect(records()).toEqual([
      'tw_claim_advance_and_record_plain',
      'tw_claim_advance_and_record_plain',
      'tw_claim_advance_and_record',
    ]);
    expect(second.fires.map((f) => [f.job.id, f.scheduledAt]).sort((a, b) => a[0]! - b[0]!)).toEqual([
      [taken, T0 + 1000],
      [other, T0 + 1000],
      [last, T0 + 1000],
    ]);
    // Nothing twice, and every job advanced once by the claim that committed.
    expect(await store.fires.countFires()).toBe(6);
    for (const id of jobIds) expect((await store.jobs.findJobById(id))!.next_fire_at).toBe(T0 + 2000);

    // Within the minute the claims deduplicate from the start; after it, they insert plainly again.
    const third = await store.fires.claimDueFires(request('node-a', shards, T0 + 2000));
    expect(records().at(-1)).toBe('tw_claim_advance_and_record');
    expect(third.fires.map((f) => f.scheduledAt)).toEqual([T0 + 2000, T0 + 2000, T0 + 2000]);
    const renewed = await ownShards(store, 'node-a', 4, T0 + 61_000);
    const later = await store.fires.claimDueFires(request('node-a', renewed, T0 + 62_000));
    expect(records().slice(-2)).toEqual(['tw_claim_advance_and_record', 'tw_claim_advance_and_record_plain']);
    expect(later.fires.length).toBeGreaterThan(0);
  });
});
