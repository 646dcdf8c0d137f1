/**
 * Retries, alarms and child jobs end to end: a real server on each database and real executors
 * on loopback. Failures are retried as RETRY records after the job's back-off, alarms reach the
 * AlarmSink as `alarmOn` says, retries are rows that outlive a restart, and successes fire the
 * child jobs — a broadcast's once, after every shard (and every shard's retry) succeeded.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FireRow, Store } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import {
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  firesOf,
  freePort,
  sleep,
  startExecutor,
  startServer,
  waitFor,
} from './helpers/e2e.js';
import { RecordingAlarmSink } from './helpers/recording-alarm-sink.js';

let server: E2eServer | undefined;
let database: TestDatabase | undefined;
const executors: E2eExecutor[] = [];

afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
  await server?.close();
  await database?.drop();
  server = undefined;
  database = undefined;
});

/** A server on `database` whose alarms go to `sink`, sending due retries every 100 ms. */
function startOn(db: TestDatabase, sink: RecordingAlarmSink, port = 0): Promise<E2eServer> {
  return startServer({ database: db.url, port, internal: { alarmSink: sink, retryMonitorIntervalMs: 100 } });
}

/** Records of `jobId` that satisfy `predicate`, oldest first. */
async function firesWhere(store: Store, jobId: number, predicate: (fire: FireRow) => boolean) {
  return (await firesOf(store, jobId)).filter(predicate);
}

describe.each(DIALECTS)('retries, alarms and child jobs on %s', (dialect) => {
  it('retries a failing job with exponential back-off as a chain of RETRY records, then alarms once with FINAL_FAILURE', async () => {
    database = await createTestDatabase(dialect);
    const sink = new RecordingAlarmSink();
    server = await startOn(database, sink);
    const { store } = server;
    executors.push(
      await startExecutor(server.server, 'e2e-retry', (ex) =>
        ex.handle('always-fails', async () => {
          throw new Error('the database is down');
        }),
      ),
    );
    const appId = await createApp(store, 'e2e-retry');
    const job = await createJob(store, {
      app_id: appId,
      name: 'fails',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'always-fails',
      executor_fail_retry_count: 2,
      retry_backoff_strategy: 'EXPONENTIAL',
      retry_delay_seconds: 1,
      retry_max_delay_seconds: 10,
      alarm_on: 'FINAL_FAILURE',
    });

    const { fireId } = await server.server.triggerJob({ jobId: job.id });
    await waitFor(async () => (await firesWhere(store, job.id, (f) => f.status === 'failed')).length === 3, {
      what: 'the first run and two retries failed',
    });
    await waitFor(async () => sink.of(job.id).length > 0, { what: 'the final alarm' });

    const [first, retry1, retry2] = await firesOf(store, job.id);
    expect(first!.id).toBe(fireId);
    expect(first!.trigger_type).toBe('MANUAL');
    expect(first!.retry_count).toBe(2);
    expect(first!.retry_fire_id).toBe(retry1!.id);
    expect(retry1).toMatchObject({ trigger_type: 'RETRY', parent_fire_id: first!.id, retry_count: 1 });
    expect(retry1!.retry_fire_id).toBe(retry2!.id);
    expect(retry2).toMatchObject({ trigger_type: 'RETRY', parent_fire_id: retry1!.id, retry_count: 0 });
    expect(Number(retry2!.retry_fire_id)).toBe(0);
    // Exponential back-off: 1 s after the first failure, 2 s after the second; sent within 1 s of its time.
    const waited1 = retry1!.scheduled_at - first!.handle_at!;
    const waited2 = retry2!.scheduled_at - retry1!.handle_at!;
    expect(waited1).toBeGreaterThanOrEqual(1_000);
    expect(waited1).toBeLessThan(1_500);
    expect(waited2).toBeGreaterThanOrEqual(2_000);
    expect(waited2).toBeLessThan(2_500);
    for (const retry of [retry1!, retry2!]) {
      expect(retry.trigger_at! - retry.scheduled_at).toBeGreaterThanOrEqual(0);
      expect(retry.trigger_at! - retry.scheduled_at).toBeLessThan(1_000);
    }

    await sleep(500);
    const alarms = sink.of(job.id);
    expect(alarms).toHaveLength(1);
    expect(alarms[0]!.fire.id).toBe(retry2!.id);
    expect(alarms[0]!.reason).toContain('the database is down');
    expect(alarms[0]!.reason).toContain('no retry left');
    expect(await firesOf(store, job.id)).toHaveLength(3);
  });

  it('sends a retry that was pending when the server stopped once the server is back, exactly once', async () => {
    database = await createTestDatabase(dialect);
    const sink = new RecordingAlarmSink();
    const port = await freePort();
    server = await startOn(database, sink, port);
    const runs = new Map<number, number>();
    executors.push(
      await startExecutor(server.server, 'e2e-retry-restart', (ex) =>
        ex.handle('fails-once', async (ctx) => {
          runs.set(ctx.logId, (runs.get(ctx.logId) ?? 0) + 1);
          if (runs.size === 1) throw new Error('first run fails');
          return 'recovered';
        }),
      ),
    );
    const appId = await createApp(server.store, 'e2e-retry-restart');
    const job = await createJob(server.store, {
      app_id: appId,
      name: 'fails once',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'fails-once',
      executor_fail_retry_count: 1,
      retry_delay_seconds: 2,
    });
    const { fireId } = await server.server.triggerJob({ jobId: job.id });
    let retryId = 0;
    await waitFor(
      async () => {
        retryId = (await server!.store.fires.findFireById(fireId))?.retry_fire_id ?? 0;
        return retryId > 0;
      },
      { what: 'the retry record' },
    );
    await server.close();
    const pending = await (await database.open()).fires.findFireById(retryId);
    expect(pending).toMatchObject({ status: 'pending', trigger_type: 'RETRY', parent_fire_id: fireId });

    server = await startOn(database, sink, port);
    await waitFor(async () => (await server!.store.fires.findFireById(retryId))?.status === 'succeeded', {
      what: 'the retry run after the restart',
    });
    const retry = (await server.store.fires.findFireById(retryId))!;
    expect(retry.handle_msg).toBe('recovered');
    expect(retry.trigger_at!).toBeGreaterThanOrEqual(retry.scheduled_at);
    await sleep(400);
    expect(runs.get(retryId)).toBe(1);
    expect(await firesOf(server.store, job.id)).toHaveLength(2);
    expect(sink.of(job.id).map((alarm) => alarm.fire.id)).toEqual([fireId]);
  });

  it("fires a broadcast's child job once, after every shard succeeded, counting a failed shard's retry", async () => {
    database = await createTestDatabase(dialect);
    const sink = new RecordingAlarmSink();
    server = await startOn(database, sink);
    const { store } = server;
    let shardOneFailed = false;
    for (let i = 0; i < 2; i++) {
      executors.push(
        await startExecutor(server.server, 'e2e-children', (ex) => {
          ex.handle('shard', async (ctx) => {
            if (ctx.shardIndex === 1 && !shardOneFailed) {
              shardOneFailed = true;
              throw new Error('shard 1 fails once');
            }
            return `shard ${ctx.shardIndex}/${ctx.shardTotal}`;
          });
          ex.handle('child', async () => 'child ran');
        }),
      );
    }
    const appId = await createApp(store, 'e2e-children');
    const none = { schedule_type: 'NONE', schedule_conf: '' };
    const child = await createJob(store, {
      app_id: appId,
      name: 'child',
      executor_handler: 'child',
      ...none,
    });
    const parent = await createJob(store, {
      app_id: appId,
      name: 'broadcast parent',
      executor_handler: 'shard',
      executor_route_strategy: 'SHARDING_BROADCAST',
      executor_fail_retry_count: 1,
      retry_delay_seconds: 1,
      child_job_ids: String(child.id),
      ...none,
    });

    const { fireId } = await server.server.triggerJob({ jobId: parent.id });
    await waitFor(async () => (await firesOf(store, child.id)).some((f) => f.status === 'succeeded'), {
      what: 'the child job ran',
    });
    await sleep(500);

    const summary = (await store.fires.findFireById(fireId))!;
    expect(summary.status).toBe('succeeded');
    expect(summary.handle_msg).toBe('broadcast: all 2 shards succeeded');
    const shards = await store.fires.findChildFires(fireId);
    expect(shards.map((s) => [s.shard_index, s.status])).toEqual([
      [0, 'succeeded'],
      [1, 'failed'],
    ]);
    const shardRetry = (await store.fires.findFireById(shards[1]!.retry_fire_id!))!;
    expect(shardRetry).toMatchObject({
      trigger_type: 'RETRY',
      parent_fire_id: shards[1]!.id,
      shard_index: 1,
      shard_total: 2,
      status: 'succeeded',
      handle_msg: 'shard 1/2',
      executor_address: shards[1]!.executor_address,
    });

    const childFires = await firesOf(store, child.id);
    expect(childFires).toHaveLength(1);
    expect(childFires[0]).toMatchObject({
      trigger_type: 'PARENT',
      triggered_by_fire_id: fireId,
      parent_fire_id: null,
      status: 'succeeded',
      handle_msg: 'child ran',
    });
    expect(childFires[0]!.scheduled_at).toBeGreaterThanOrEqual(shardRetry.handle_at!);
    // alarmOn EVERY_FAILURE: the shard's failure was alarmed, with its retry to come.
    expect(sink.of(parent.id).map((alarm) => alarm.fire.id)).toEqual([shards[1]!.id]);
  });
});

describe('retries, alarms and child jobs (SQLite)', () => {
  it('fires child jobs with trigger type PARENT when a run succeeds, and none when it fails', async () => {
    database = await createTestDatabase('sqlite');
    const sink = new RecordingAlarmSink();
    server = await startOn(database, sink);
    const { store } = server;
    executors.push(
      await startExecutor(server.server, 'e2e-parent', (ex) => {
        ex.handle('parent', async (ctx) => {
          if (ctx.param === 'fail') throw new Error('parent failed');
          return 'parent ok';
        });
        ex.handle('child', async () => 'child ok');
      }),
    );
    const appId = await createApp(store, 'e2e-parent');
    const none = { schedule_type: 'NONE', schedule_conf: '' };
    const childA = await createJob(store, { app_id: appId, name: 'a', executor_handler: 'child', ...none });
    const childB = await createJob(store, { app_id: appId, name: 'b', executor_handler: 'child', ...none });
    const parent = await createJob(store, {
      app_id: appId,
      name: 'parent',
      executor_handler: 'parent',
      child_job_ids: `${childA.id},${childB.id}`,
      ...none,
    });

    const failed = await server.server.triggerJob({ jobId: parent.id, executorParam: 'fail' });
    const ok = await server.server.triggerJob({ jobId: parent.id });
    for (const child of [childA, childB]) {
      await waitFor(async () => (await firesOf(store, child.id)).some((f) => f.status === 'succeeded'), {
        what: `child ${child.name} ran`,
      });
    }
    await sleep(300);
    expect((await store.fires.findFireById(failed.fireId))!.status).toBe('failed');
    for (const child of [childA, childB]) {
      const fires = await firesOf(store, child.id);
      expect(fires).toHaveLength(1);
      expect(fires[0]).toMatchObject({ trigger_type: 'PARENT', triggered_by_fire_id: ok.fireId });
    }
    // No retries configured: the failure is alarmed once (EVERY_FAILURE, the default) and not retried.
    expect(sink.of(parent.id).map((alarm) => alarm.fire.id)).toEqual([failed.fireId]);
    expect(Number((await store.fires.findFireById(failed.fireId))!.retry_fire_id)).toBe(0);
  });

  it('alarms every failed attempt under EVERY_FAILURE and retries at once with a zero delay', async () => {
    database = await createTestDatabase('sqlite');
    const sink = new RecordingAlarmSink();
    server = await startOn(database, sink);
    const { store } = server;
    executors.push(
      await startExecutor(server.server, 'e2e-every', (ex) =>
        ex.handle('fails', async () => {
          throw new Error('nope');
        }),
      ),
    );
    const appId = await createApp(store, 'e2e-every');
    const job = await createJob(store, {
      app_id: appId,
      name: 'fails',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'fails',
      executor_fail_retry_count: 2,
      retry_delay_seconds: 0,
    });
    await server.server.triggerJob({ jobId: job.id });
    await waitFor(async () => sink.of(job.id).length === 3, { what: 'three alarms' });
    const fires = await firesOf(store, job.id);
    expect(fires.map((f) => [f.trigger_type, f.retry_count, f.status])).toEqual([
      ['MANUAL', 2, 'failed'],
      ['RETRY', 1, 'failed'],
      ['RETRY', 0, 'failed'],
    ]);
    expect(sink.of(job.id).map((alarm) => alarm.fire.id)).toEqual(fires.map((f) => f.id));
    expect(sink.of(job.id)[0]!.reason).toMatch(/retry 1 \(fire \d+\) in 0 s, 1 retry left after it/);
  });

  it('retries a dispatch no executor took, and the retry runs once an executor is online', async () => {
    database = await createTestDatabase('sqlite');
    const sink = new RecordingAlarmSink();
    server = await startOn(database, sink);
    const { store } = server;
    const appId = await createApp(store, 'e2e-undispatched');
    const job = await createJob(store, {
      app_id: appId,
      name: 'no executor yet',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'late',
      executor_fail_retry_count: 1,
      retry_delay_seconds: 2,
    });
    const { fireId, outcomes } = await server.server.triggerJob({ jobId: job.id });
    expect(outcomes[0]!.triggerCode).toBe(500);
    executors.push(
      await startExecutor(server.server, 'e2e-undispatched', (ex) =>
        ex.handle('late', async () => 'ran late'),
      ),
    );
    await waitFor(async () => (await firesOf(store, job.id)).some((f) => f.status === 'succeeded'), {
      what: 'the retry ran',
    });
    const [first, retry] = await firesOf(store, job.id);
    expect(first).toMatchObject({ id: fireId, status: 'dispatch_failed', retry_fire_id: retry!.id });
    expect(retry).toMatchObject({ trigger_type: 'RETRY', parent_fire_id: fireId, handle_msg: 'ran late' });
    expect(sink.of(job.id)[0]!.reason).toContain('could not be dispatched');
  });
});
