/**
 * The alarm queue's guarantees, against real HTTP receivers on loopback: raising never waits,
 * a slow or failing channel holds up no other channel, sends time out, retries are bounded and
 * back off, and the fire record ends with the result — on SQLite, PostgreSQL and MariaDB.
 */
import { type Answer, type HttpReceiver, startHttpReceiver } from '@tickwheel/test-fixtures/alarm-receivers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AlarmQueue } from '../src/alarms/alarm-queue.js';
import { ALARM_STATUS } from '../src/alarms/alarm-status.js';
import type { Store } from '../src/store/index.js';
import { addChannel, alarmQueue, failedFire, raiseAndWait } from './helpers/alarm-fixtures.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import { sleep, waitFor } from './helpers/e2e.js';

describe.each(DIALECTS)('the alarm queue on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  let queue: AlarmQueue | undefined;
  const receivers: HttpReceiver[] = [];

  beforeEach(async () => {
    database = await createTestDatabase(dialect);
    store = await database.open();
  });

  afterEach(async () => {
    await queue?.stop(0);
    queue = undefined;
    for (const receiver of receivers.splice(0)) await receiver.close();
    await database.drop();
  });

  async function receiver(answer?: (n: number) => Answer): Promise<HttpReceiver> {
    let n = 0;
    const started = await startHttpReceiver(answer === undefined ? undefined : () => answer(++n));
    receivers.push(started);
    return started;
  }

  it('raise returns at once, before any channel is called, even when the channel hangs', async () => {
    const hanging = await receiver(() => 'hang');
    const channel = await addChannel(store, 'WEBHOOK', { url: `${hanging.url}/hook` });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: String(channel.id) });
    queue = alarmQueue(store, { sendTimeoutMs: 5_000 });

    const started = performance.now();
    for (let i = 0; i < 50; i += 1) queue.raise({ job, fire, reason: 'failed' });
    expect(performance.now() - started).toBeLessThan(20);
    expect(hanging.requests).toHaveLength(0);
  });

  it("a hanging channel does not delay another channel's alarm, nor the alarms of other jobs", async () => {
    const hanging = await receiver(() => 'hang');
    const healthy = await receiver();
    const slow = await addChannel(store, 'WEBHOOK', { url: `${hanging.url}/slow` }, { name: 'slow' });
    const quick = await addChannel(store, 'WEBHOOK', { url: `${healthy.url}/quick` }, { name: 'quick' });
    const both = await failedFire(store, { alarm_channel_ids: `${slow.id},${quick.id}` });
    const slowOnly = await failedFire(store, { alarm_channel_ids: String(slow.id) });
    const quickOnly = await failedFire(store, { alarm_channel_ids: String(quick.id) });
    queue = alarmQueue(store, { sendTimeoutMs: 5_000, concurrencyPerChannel: 1 });

    const raisedAt = Date.now();
    // The slow channel's lane fills up first: one send hanging, the others waiting behind it.
    for (let i = 0; i < 5; i += 1) queue.raise({ ...slowOnly, reason: 'failed' });
    queue.raise({ ...both, reason: 'failed' });
    queue.raise({ ...quickOnly, reason: 'failed' });

    await waitFor(() => healthy.requests.length === 2, { what: 'both alarms through the quick channel' });
    expect(Date.now() - raisedAt).toBeLessThan(1_000);
    expect(hanging.requests).toHaveLength(1);
    await waitFor(
      async () => (await store.fires.findFireById(quickOnly.fire.id))!.alarm_status === ALARM_STATUS.SENT,
      {
        what: 'the quick-only alarm recorded',
      },
    );
    // The alarm going through both channels waits for the slow one before it is recorded.
    expect((await store.fires.findFireById(both.fire.id))!.alarm_status).toBe(ALARM_STATUS.NONE);
  });

  it('retries a failing channel with a doubling back-off, at most maxAttempts times, then records FAILED', async () => {
    const failing = await receiver(() => ({ status: 503, body: { error: 'busy' } }));
    const channel = await addChannel(store, 'WEBHOOK', { url: `${failing.url}/hook` }, { name: 'busy-hook' });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: String(channel.id) });
    queue = alarmQueue(store, { maxAttempts: 3, retryDelayMs: 100, maxRetryDelayMs: 1_000 });

    await raiseAndWait(queue, { job, fire });

    expect(failing.requests).toHaveLength(3);
    const [first, second, third] = failing.requests.map((r) => r.receivedAt);
    expect(second! - first!).toBeGreaterThanOrEqual(95);
    expect(third! - second!).toBeGreaterThanOrEqual(195);
    // Every try of one alarm carries the same delivery id, so a receiver can drop repeats.
    expect(new Set(failing.requests.map((r) => r.headers['x-tickwheel-delivery'])).size).toBe(1);
    const recorded = (await store.fires.findFireById(fire.id))!;
    expect(recorded.alarm_status).toBe(ALARM_STATUS.FAILED);
    expect(recorded.alarm_msg).toMatch(
      /^WEBHOOK busy-hook: POST .*\/hook answered HTTP 503: .*\(after 3 tries\)$/,
    );
  });

  it('records SENT when a retry gets through', async () => {
    const flaky = await receiver((n) => (n === 1 ? { status: 502 } : { status: 200 }));
    const channel = await addChannel(store, 'WEBHOOK', { url: `${flaky.url}/hook` });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: String(channel.id) });
    queue = alarmQueue(store);

    await raiseAndWait(queue, { job, fire });

    expect(flaky.requests).toHaveLength(2);
    expect((await store.fires.findFireById(fire.id))!.alarm_status).toBe(ALARM_STATUS.SENT);
  });

  it('aborts a send that outlasts the timeout and tries it again', async () => {
    const hanging = await receiver(() => 'hang');
    const channel = await addChannel(store, 'WEBHOOK', { url: `${hanging.url}/hook` }, { name: 'mute' });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: String(channel.id) });
    queue = alarmQueue(store, { sendTimeoutMs: 200, maxAttempts: 2 });

    const started = Date.now();
    await raiseAndWait(queue, { job, fire });

    expect(hanging.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(2_000);
    const recorded = (await store.fires.findFireById(fire.id))!;
    expect(recorded.alarm_status).toBe(ALARM_STATUS.FAILED);
    expect(recorded.alarm_msg).toBe('WEBHOOK mute: no answer within 200 ms (after 2 tries)');
  });

  it('stop waits its bound, then records the alarms it could not send as failed', async () => {
    const hanging = await receiver(() => 'hang');
    const failing = await receiver(() => ({ status: 503 }));
    const mute = await addChannel(store, 'WEBHOOK', { url: `${hanging.url}/hook` }, { name: 'mute' });
    const busy = await addChannel(store, 'WEBHOOK', { url: `${failing.url}/hook` }, { name: 'busy' });
    const inFlight = await failedFire(store, { alarm_channel_ids: String(mute.id) });
    const backingOff = await failedFire(store, { alarm_channel_ids: String(busy.id) });
    queue = alarmQueue(store, { sendTimeoutMs: 10_000, retryDelayMs: 10_000 });
    queue.raise({ ...inFlight, reason: 'failed' });
    queue.raise({ ...backingOff, reason: 'failed' });
    await waitFor(() => hanging.requests.length === 1 && failing.requests.length === 1, {
      what: 'both sent once',
    });
    // The 503 is answered at once; give the queue a moment to read it and start backing off.
    await sleep(200);

    const started = Date.now();
    await queue.stop(300);
    expect(Date.now() - started).toBeLessThan(2_000);

    const a = (await store.fires.findFireById(inFlight.fire.id))!;
    expect(a.alarm_status).toBe(ALARM_STATUS.FAILED);
    expect(a.alarm_msg).toContain('the server stopped');
    const b = (await store.fires.findFireById(backingOff.fire.id))!;
    expect(b.alarm_status).toBe(ALARM_STATUS.FAILED);
    expect(b.alarm_msg).toBe('WEBHOOK busy: not retried: the server stopped (after 1 try)');
    queue.raise({ ...inFlight, reason: 'after the stop' });
    await queue.idle();
    expect(hanging.requests).toHaveLength(1);
  });
});
