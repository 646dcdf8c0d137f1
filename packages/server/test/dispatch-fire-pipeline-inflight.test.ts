/**
 * How many dispatches the fire pipeline keeps in flight. Each dispatch holds its slot for its
 * send's round trip, so the bound is the node's ceiling: slots ÷ round trip. At 320 slots and a
 * 30–50 ms round trip under load a node topped out near 6,500 fires a second and its claims fell
 * behind; the default keeps the dispatcher's lanes (2,000 fast + 500 slow) busy.
 */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DispatchOutcome, FireToDispatch } from '../src/dispatch/dispatcher.js';
import { FirePipeline } from '../src/dispatch/fire-pipeline.js';
import { SERVER_DEFAULTS } from '../src/options.js';
import { systemClock } from '../src/scheduling/clock.js';
import { InFlightFires } from '../src/scheduling/in-flight.js';
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
  /** The executor instance each answer announces (null: an XXL-JOB executor announces none). */
  instanceOf: (fireId: number) => string | null = () => null;

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
              executorInstance: this.instanceOf(fire.fireId),
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

/** The same, taking the due fires together (`dispatchMany`), each answered on its own as the test says. */
class HeldBatchDispatcher extends HeldDispatcher {
  readonly batches: number[] = [];

  dispatchMany(
    items: readonly { fire: FireToDispatch }[],
    onOutcomes?: (index: number, outcomes: DispatchOutcome[]) => void,
  ): Promise<DispatchOutcome[][]> {
    this.batches.push(items.length);
    return Promise.all(
      items.map(({ fire }, i) =>
        this.dispatch(fire).then((outcomes) => {
          onOutcomes?.(i, outcomes);
          return outcomes;
        }),
      ),
    );
  }
}

/** Whether this run of the tests hands the pipeline a dispatcher that takes fires together. */
let together = false;

/**
 * `count` pending API fires of one app, due now, and a pipeline over them whose dispatcher holds
 * every send until the test answers it.
 */
async function heldPipeline(
  appName: string,
  count: number,
  dispatchesInFlight: number,
  inFlight?: InFlightFires,
  markHoldMs?: number,
) {
  database = await createTestDatabase('sqlite');
  const store = await database.open();
  const appId = await createApp(store, appName);
  const job = await createJob(store, {
    app_id: appId,
    name: appName,
    executor_handler: 'held',
    schedule_type: 'NONE',
    schedule_conf: '',
  });
  const now = Date.now();
  const ids: number[] = [];
  for (let page = 0; page * 100 < count; page++) {
    const fires = Array.from({ length: Math.min(100, count - page * 100) }, (_, i) => ({
      jobId: job.id,
      appId,
      scheduledAt: now + page * 100 + i,
      triggerType: 'API' as const,
      executorHandler: 'held',
      executorParam: null,
    }));
    ids.push(...(await store.fires.createFires(fires, now)));
  }
  const dispatcher = together ? new HeldBatchDispatcher() : new HeldDispatcher();
  const pipeline = new FirePipeline({
    store,
    dispatcher,
    executors: {
      addressesOf: () => [{ address: 'http://127.0.0.1:9/', protocol: 'G2' as const, appName }],
    },
    clock: systemClock,
    logger: silent,
    batchSize: 100,
    dispatchesInFlight,
    ...(inFlight === undefined ? {} : { inFlight }),
    ...(markHoldMs === undefined ? {} : { markHoldMs }),
  });
  return { store, dispatcher, pipeline, ids };
}

describe.each([
  ['one dispatch a fire', false],
  ['the due fires together (dispatchMany)', true],
])('the fire pipeline in flight, %s', (_name, batched) => {
  beforeEach(() => {
    together = batched;
  });

  it('hands the dispatcher the loaded fires together only when it takes them so', async () => {
    const { store, dispatcher, pipeline, ids } = await heldPipeline('together', 300, 1_000);
    pipeline.onDue(ids);
    await waitFor(async () => dispatcher.held.length === 300, { what: '300 dispatches in flight' });
    if (dispatcher instanceof HeldBatchDispatcher) {
      // Loaded 100 a statement, handed over a batch (the pipeline's batch size) at most at a time.
      expect(dispatcher.batches.reduce((a, b) => a + b, 0)).toBe(300);
      expect(dispatcher.batches.every((n) => n > 1 && n <= 100)).toBe(true);
    }
    expect(pipeline.backlog).toBe(300);
    dispatcher.answerAll();
    expect(await pipeline.drain(5_000)).toBe(true);
    expect(await store.fires.countFires({ status: 'dispatched' })).toBe(300);
  });

  it('forgets a record in the in-flight registry once its mark is written, not before', async () => {
    const inFlight = new InFlightFires(systemClock);
    const { store, dispatcher, pipeline, ids } = await heldPipeline('registry', 200, 1_000, inFlight);
    // The planner adds its due records as it hands them over.
    inFlight.add(ids);
    pipeline.onDue(ids);
    await waitFor(async () => dispatcher.held.length === 200, { what: '200 dispatches in flight' });
    // Sent, not yet marked: recovery must leave them to this dispatch.
    expect(ids.every((id) => inFlight.has(id))).toBe(true);

    dispatcher.answerAll();
    expect(await pipeline.drain(5_000)).toBe(true);
    expect(await store.fires.countFires({ status: 'dispatched' })).toBe(200);
    // Marked, so no longer pending: nothing is left for the registry to hold.
    expect(ids.filter((id) => inFlight.has(id))).toEqual([]);
  });

  it('holds the marks of runs an executor that refuses repeats accepted, for their results; writes the others', async () => {
    const inFlight = new InFlightFires(systemClock);
    const { store, dispatcher, pipeline, ids } = await heldPipeline('hold', 4, 1_000, inFlight, 60_000);
    // Two runs go to a Tickwheel executor (it announces an instance), two to an XXL-JOB one.
    const tickwheel = new Set(ids.slice(0, 2));
    dispatcher.instanceOf = (fireId) => (tickwheel.has(fireId) ? 'inst-1' : null);
    inFlight.add(ids);
    pipeline.onDue(ids);
    await waitFor(async () => dispatcher.held.length === 4, { what: 'four dispatches in flight' });
    dispatcher.answerAll();
    await waitFor(async () => (await store.fires.countFires({ status: 'dispatched' })) === 2, {
      what: 'the XXL-JOB runs marked',
    });
    const byId = new Map((await store.fires.findFiresByIds(ids)).map((fire) => [fire.id, fire]));
    for (const id of ids) expect(byId.get(id)!.status).toBe(tickwheel.has(id) ? 'pending' : 'dispatched');
    // Held: still this node's to send, so recovery leaves them alone.
    expect(ids.filter((id) => inFlight.has(id)).sort()).toEqual([...tickwheel].sort());

    // The result recorder takes them for the results' statement; settled as written, they are done.
    const taken = pipeline.heldMarks.take(ids);
    expect([...taken.keys()].sort()).toEqual([...tickwheel].sort());
    expect(taken.get(ids[0]!)).toMatchObject({ triggerCode: 200, executorInstance: 'inst-1' });
    pipeline.heldMarks.settle(taken, new Set([ids[0]!]));
    // The one not written with a result is written on its own, and the drain waits for it.
    expect(await pipeline.drain(5_000)).toBe(true);
    expect((await store.fires.findFireById(ids[1]!))!.status).toBe('dispatched');
    expect((await store.fires.findFireById(ids[0]!))!.status).toBe('pending');
    expect(ids.filter((id) => inFlight.has(id))).toEqual([]);
  });

  it('writes held marks at the drain', async () => {
    const { store, dispatcher, pipeline, ids } = await heldPipeline(
      'hold-drain',
      3,
      1_000,
      undefined,
      60_000,
    );
    dispatcher.instanceOf = () => 'inst-1';
    pipeline.onDue(ids);
    await waitFor(async () => dispatcher.held.length === 3, { what: 'three dispatches in flight' });
    dispatcher.answerAll();
    expect(await pipeline.drain(5_000)).toBe(true);
    expect(await store.fires.countFires({ status: 'dispatched' })).toBe(3);
  });

  it('keeps as many dispatches in flight as it is given', async () => {
    const { store, dispatcher, pipeline, ids } = await heldPipeline('inflight', 1_500, 1_000);
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

  it('holds the marks of a burst while the rest of it waits to be sent, and writes them after', async () => {
    const { store, dispatcher, pipeline, ids } = await heldPipeline('burst', 1_000, 100);
    pipeline.onDue(ids);
    await waitFor(async () => dispatcher.held.length === 100, { what: '100 dispatches in flight' });
    expect(pipeline.waitingToSend).toBe(900);

    // 100 sent, 800 still waiting: their marks wait.
    dispatcher.answerAll();
    await waitFor(async () => dispatcher.held.length === 100, { what: 'the next 100 in flight' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await store.fires.countFires({ status: 'dispatched' })).toBe(0);

    // Once fewer than BURST_WAITING wait, the marks go.
    while (dispatcher.held.length > 0) {
      dispatcher.answerAll();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await pipeline.drain(5_000)).toBe(true);
    expect(await store.fires.countFires({ status: 'dispatched' })).toBe(1_000);
  });

  it("a write gives way to a burst for less than a dispatch mark's default hold, so a result that waited still takes its mark along", async () => {
    const { pipeline } = await heldPipeline('hold', 10, 10);
    expect(pipeline.giveWay(10_000).maxHoldMs).toBeLessThan(SERVER_DEFAULTS.dispatchMarkHoldMs);
  });

  it('gives way to one burst for a second at most: a node that stays behind writes its marks as it sends', async () => {
    const { store, dispatcher, pipeline, ids } = await heldPipeline('behind', 1_000, 100);
    pipeline.onDue(ids);
    await waitFor(async () => dispatcher.held.length === 100, { what: '100 dispatches in flight' });
    const giveWay = pipeline.giveWay(10_000);
    expect(giveWay.sendsWaiting()).toBe(true);
    // A slow trickle: 10 sends every 100 ms, 800 and more still waiting throughout.
    const started = performance.now();
    while (performance.now() - started < 1_300) {
      for (const { answer } of dispatcher.held.splice(0, 10)) answer();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(pipeline.waitingToSend).toBeGreaterThanOrEqual(500);
    expect(giveWay.sendsWaiting()).toBe(false);
    await waitFor(async () => (await store.fires.countFires({ status: 'dispatched' })) >= 100, {
      what: 'the marks of the sends so far',
    });

    while (dispatcher.held.length > 0) {
      dispatcher.answerAll();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await pipeline.drain(5_000)).toBe(true);
  });
});
