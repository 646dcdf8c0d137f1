/**
 * How many dispatches the fire pipeline keeps in flight. Each dispatch holds its slot for its
 * send's round trip, so the bound is the node's ceiling: slots ÷ round trip. At 320 slots and a
 * 30–50 ms round trip under load a node topped out near 6,500 fires a second and its claims fell
 * behind; the default keeps the dispatcher's lanes (2,000 fast + 500 slow) busy.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Dispatcher, type DispatchOutcome, type FireToDispatch } from '../src/dispatch/dispatcher.js';
import { DISPATCHES_IN_FLIGHT, FirePipeline } from '../src/dispatch/fire-pipeline.js';
import { systemClock } from '../src/scheduling/clock.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { createApp, createJob, waitFor } from './helpers/e2e.js';

const silent = pino({ level: 'silent' });
let database: TestDatabase | undefined;

afterEach(async () => {
  await database?.drop();
  database = undefined;
});

/** A dispatcher whose sends are answered only when the test says. */
class HeldDispatcher {
  readonly held: Array<{ fire: FireToDispatch; answer: () => void }> = [];

  dispatch(fire: FireToDispatch): Promise<DispatchOutcome[]> {
    return new Promise((resolve) => {
      this.held.push({
        fire,
        answer: () =>
          resolve([
            {
              fireId: fire.fireId,
              parentFireId: null,
              address: 'http://127.0.0.1:9/',
              shardIndex: 0,
              shardTotal: 1,
              triggerAt: Date.now(),
              triggerCode: 200,
              triggerMsg: 'held by the test',
              executorInstance: null,
              latencyMs: 1,
              lane: 'fast',
            },
          ]),
      });
    });
  }

  answerAll(): void {
    for (const { answer } of this.held.splice(0)) answer();
  }
}

describe('the fire pipeline in flight', () => {
  it('keeps as many dispatches in flight as it is given, and the default fills the dispatcher’s lanes', async () => {
    expect(new Dispatcher({ accessToken: '' }).capacity).toBe(2_500);
    expect(DISPATCHES_IN_FLIGHT).toBeGreaterThan(2_500);

    database = await createTestDatabase('sqlite');
    const store = await database.open();
    const appId = await createApp(store, 'inflight');
    const job = await createJob(store, {
      app_id: appId,
      name: 'held',
      executor_handler: 'held',
      schedule_type: 'NONE',
      schedule_conf: '',
    });
    const ids: number[] = [];
    for (let page = 0; page < 15; page++) {
      const fires = Array.from({ length: 100 }, (_, i) => ({
        jobId: job.id,
        appId,
        scheduledAt: Date.now() + page * 100 + i,
        triggerType: 'API' as const,
        executorHandler: 'held',
        executorParam: null,
      }));
      ids.push(...(await store.fires.createFires(fires, Date.now())));
    }

    const dispatcher = new HeldDispatcher();
    const pipeline = new FirePipeline({
      store,
      dispatcher,
      executors: {
        addressesOf: () => [{ address: 'http://127.0.0.1:9/', protocol: 'G2' as const, appName: 'inflight' }],
      },
      clock: systemClock,
      logger: silent,
      batchSize: 100,
      dispatchesInFlight: 1_000,
    });
    pipeline.onDue(ids);
    await waitFor(async () => dispatcher.held.length === 1_000, { what: '1,000 dispatches in flight' });
    // Loaded and waiting for a slot, not handed to the dispatcher.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(dispatcher.held.length).toBe(1_000);
    expect(pipeline.backlog).toBe(1_500);

    dispatcher.answerAll();
    await waitFor(async () => dispatcher.held.length === 500, { what: 'the other 500 in flight' });
    dispatcher.answerAll();
    expect(await pipeline.drain(5_000)).toBe(true);
    const dispatched = await store.fires.countFires({ status: 'dispatched' });
    expect(dispatched).toBe(1_500);
  });
});
