/**
 * Alarms survive the node that queued them, on SQLite, PostgreSQL and MariaDB: the failure
 * decision that alarms records the alarm as owed (PENDING) in the statement that takes the
 * decision, the alarm queue holds it — renewing the hold — until it records SENT or FAILED, and
 * the owed-alarm sweep sends again, once, what no live queue holds any more. Alarms go to a real
 * HTTP receiver on loopback through a WEBHOOK channel.
 */
import { type Answer, type HttpReceiver, startHttpReceiver } from '@tickwheel/test-fixtures/alarm-receivers';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AlarmQueue } from '../src/alarms/alarm-queue.js';
import { ALARM_STATUS } from '../src/alarms/alarm-status.js';
import { OwedAlarmMonitor } from '../src/monitors/owed-alarms.js';
import { FailureDecisions } from '../src/retries/failure-decisions.js';
import { systemClock } from '../src/scheduling/clock.js';
import type { FireRow, JobRow, Store } from '../src/store/index.js';
import { alarmQueue, failedFire } from './helpers/alarm-fixtures.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import { sleep, waitFor } from './helpers/e2e.js';
import { MONITOR_TIMINGS } from './helpers/monitor-timings.js';

const silent = pino({ level: 'silent' });
const HOLD_MS = 300;

describe.each(DIALECTS)('owed alarms on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  /** A second node's pool on the same database. */
  let other: Store;
  let receiver: HttpReceiver;
  /** How the receiver answers the next request. */
  let answer: Answer;
  let channelId: number;
  const queues: AlarmQueue[] = [];
  const monitors: OwedAlarmMonitor[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    store = await database.open();
    other = await database.open();
    receiver = await startHttpReceiver(() => answer);
    const now = Date.now();
    channelId = (
      await store.alarmChannels.createAlarmChannel(
        {
          name: 'ops-hook',
          type: 'WEBHOOK',
          enabled: true,
          config: JSON.stringify({ url: `${receiver.url}/alarms` }),
        },
        now,
      )
    ).id;
  });
  beforeEach(async () => {
    answer = { status: 204 };
    receiver.requests.length = 0;
    await store.db.deleteFrom('lease').execute();
  });
  afterEach(async () => {
    for (const monitor of monitors.splice(0)) await monitor.stop();
    for (const queue of queues.splice(0)) await queue.stop(0);
  });
  afterAll(async () => {
    await receiver.close();
    await database.drop();
  });

  /** A node's alarm queue (holds of HOLD_MS) and owed-alarm sweep. */
  function alarmNode(on: Store, nodeId: string, limits: Parameters<typeof alarmQueue>[1] = {}) {
    const queue = alarmQueue(on, { holdMs: HOLD_MS, ...limits });
    queues.push(queue);
    const monitor = new OwedAlarmMonitor({
      ...MONITOR_TIMINGS.owedAlarms,
      owedAlarms: on.owedAlarms,
      fires: on.fires,
      jobs: on.jobs,
      alarms: queue,
      holdMs: HOLD_MS,
      lease: { leases: on.leases, nodeId },
      clock: systemClock,
      logger: silent,
    });
    monitors.push(monitor);
    const decisions = new FailureDecisions({
      store: on,
      alarms: queue,
      clock: systemClock,
      logger: silent,
      alarmHoldMs: HOLD_MS,
    });
    return { queue, monitor, decisions };
  }

  /** A failed run of a job alarming through the webhook channel (or `job` fields), not decided yet. */
  const failure = (job: Partial<JobRow> = { alarm_channel_ids: String(channelId) }) => failedFire(store, job);

  /** An alarm owed by a node that died: decided, with a hold that already ran out. */
  async function orphanedAlarm(job?: Partial<JobRow>): Promise<{ job: JobRow; fire: FireRow }> {
    const failed = await failure(job);
    expect(await store.retries.decideWithoutRetry(failed.fire.id, { heldUntil: Date.now() - 1 })).toBe(true);
    return failed;
  }

  const fireOf = async (id: number) => (await store.fires.findFireById(id))!;

  it('the decision owes the alarm on the record, and the queue settles it SENT', async () => {
    answer = 'hang';
    const { decisions, queue } = alarmNode(store, 'node-a', { sendTimeoutMs: 1_000, maxAttempts: 1 });
    const { fire } = await failure();

    const decidedAt = Date.now();
    const [decision] = await decisions.decide([fire.id]);

    expect(decision).toMatchObject({ fireId: fire.id, retryFireId: null, alarmed: true });
    const owed = await fireOf(fire.id);
    expect(owed.alarm_status).toBe(ALARM_STATUS.PENDING);
    expect(Number(owed.alarm_held_until)).toBeGreaterThanOrEqual(decidedAt + HOLD_MS);
    await waitFor(() => receiver.requests.length === 1, { what: 'the alarm reached the receiver' });
    answer = { status: 204 };
    await queue.idle();
    const settled = await fireOf(fire.id);
    expect(settled.alarm_status).toBe(ALARM_STATUS.FAILED);
    expect(Number(settled.alarm_held_until)).toBe(0);

    const second = await failure();
    await decisions.decide([second.fire.id]);
    await queue.idle();
    expect(await fireOf(second.fire.id)).toMatchObject({
      alarm_status: ALARM_STATUS.SENT,
      alarm_msg: 'WEBHOOK ops-hook: sent',
    });
  });

  it('an alarm owed by a node that died is sent again by the sweep, once; a second sweep sends nothing', async () => {
    const { fire, job } = await orphanedAlarm();
    const { monitor, queue } = alarmNode(store, 'node-a');

    const swept = await monitor.sweep();

    expect(swept).toEqual({ held: true, resent: [fire.id] });
    await queue.idle();
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.json).toMatchObject({
      event: 'alarm',
      job: { id: job.id },
      fire: { id: fire.id },
    });
    expect(receiver.requests[0]!.json.reason).toContain(
      'sent again: the server node that queued this alarm stopped',
    );
    expect(await fireOf(fire.id)).toMatchObject({
      alarm_status: ALARM_STATUS.SENT,
      alarm_msg: 'WEBHOOK ops-hook: sent',
    });

    expect(await monitor.sweep()).toEqual({ held: true, resent: [] });
    await queue.idle();
    expect(receiver.requests).toHaveLength(1);
  });

  it('an alarm a live queue holds is not sent again while its channel takes longer than the hold', async () => {
    answer = 'hang';
    const sender = alarmNode(store, 'node-a', { sendTimeoutMs: 1_500, maxAttempts: 1 });
    const sweeper = alarmNode(other, 'node-b');
    const { fire } = await failure();
    await sender.decisions.decide([fire.id]);
    await waitFor(() => receiver.requests.length === 1, { what: 'the alarm reached the receiver' });

    // Five holds long: the sending queue renews its hold, so the other node's sweeps find nothing.
    const until = Date.now() + 5 * HOLD_MS;
    while (Date.now() < until) {
      expect((await sweeper.monitor.sweep()).resent).toEqual([]);
      await sleep(HOLD_MS / 3);
    }

    await sender.queue.idle();
    expect(receiver.requests).toHaveLength(1);
    expect((await fireOf(fire.id)).alarm_status).toBe(ALARM_STATUS.FAILED);
  });

  it('of two sweeps taking the same unheld alarm at once, one sends it', async () => {
    const { fire } = await orphanedAlarm();
    const row = await fireOf(fire.id);
    // Held a minute by whichever wins, so the sweeps below do not find it again.
    const takes = await Promise.all([
      store.owedAlarms.takeUnheldAlarm(row, Date.now() + 60_000),
      other.owedAlarms.takeUnheldAlarm(row, Date.now() + 60_000),
    ]);
    expect(takes.filter(Boolean)).toHaveLength(1);

    const again = await orphanedAlarm();
    // Two sweeps at once on two pools (a maintenance lease handed over mid-sweep).
    const a = alarmNode(store, 'node-a');
    const b = alarmNode(other, 'node-a');
    const [first, second] = await Promise.all([a.monitor.sweep(), b.monitor.sweep()]);
    expect([...first.resent, ...second.resent]).toEqual([again.fire.id]);
    await Promise.all([a.queue.idle(), b.queue.idle()]);
    expect(receiver.requests.filter((r) => r.json.fire.id === again.fire.id)).toHaveLength(1);
  });

  it('a job naming no alarm target owes no alarm; one whose channels are all disabled is settled NONE', async () => {
    const { decisions, queue } = alarmNode(store, 'node-a');
    const silentJob = await failure({});
    await decisions.decide([silentJob.fire.id]);
    expect((await fireOf(silentJob.fire.id)).alarm_status).toBe(ALARM_STATUS.NONE);

    const disabled = await store.alarmChannels.createAlarmChannel(
      {
        name: `off-${dialect}`,
        type: 'WEBHOOK',
        enabled: false,
        config: JSON.stringify({ url: receiver.url }),
      },
      Date.now(),
    );
    const muted = await failure({ alarm_channel_ids: String(disabled.id) });
    // Owed by the decision (PENDING), then settled by the queue, which may already have done so.
    await decisions.decide([muted.fire.id]);
    await queue.idle();
    expect(await fireOf(muted.fire.id)).toMatchObject({
      alarm_status: ALARM_STATUS.NONE,
      alarm_msg: expect.stringContaining('none of the job’s alarm channels is enabled'),
    });
    expect(receiver.requests).toEqual([]);
  });

  it('an owed alarm of a deleted job is settled FAILED, saying why', async () => {
    const { fire, job } = await orphanedAlarm();
    await store.jobs.deleteJob(job.id);
    const { monitor } = alarmNode(store, 'node-a');

    expect(await monitor.sweep()).toEqual({ held: true, resent: [] });
    expect(await fireOf(fire.id)).toMatchObject({
      alarm_status: ALARM_STATUS.FAILED,
      alarm_msg: `not sent: job ${job.id} was deleted before its alarm could be sent again`,
    });
    expect(receiver.requests).toEqual([]);
  });
});
