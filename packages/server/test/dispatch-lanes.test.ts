import { describe, expect, it } from 'vitest';
import { DispatchLanes } from '../src/dispatch/lanes.js';
import { closedAfterEach, fire, target } from './helpers/dispatch-fixtures.js';
import { startMimic, type XxlMimic } from './helpers/xxl-mimic.js';

const { cleanups, dispatcher } = closedAfterEach();

async function mimic(delayMs: number): Promise<XxlMimic> {
  const m = await startMimic({ generation: '2.x' });
  m.answerDelayMs = delayMs;
  cleanups.push(() => m.stop());
  return m;
}

/** A clock the test moves; starts at the beginning of a window. */
function clock() {
  let now = Date.UTC(2025, 0, 1, 12);
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const WINDOW = 60_000;

describe('fast and slow dispatch lanes', () => {
  it('moves a job to the slow lane after more slow dispatches in one window than the limit', async () => {
    const slow = await mimic(80);
    const time = clock();
    const d = dispatcher({ slowDispatchMs: 40, slowDispatchLimit: 2, now: time.now });
    const slowJob = fire({ jobId: 7 });
    for (let i = 0; i < 3; i++) {
      const [outcome] = await d.dispatch({ ...slowJob, fireId: slowJob.fireId + i }, [target(slow.address)]);
      expect(outcome!.lane).toBe('fast');
    }
    expect(d.laneOf(7)).toBe('slow');
    expect(d.laneOf(8)).toBe('fast');
    const [next] = await d.dispatch({ ...slowJob, fireId: slowJob.fireId + 3 }, [target(slow.address)]);
    expect(next!.lane).toBe('slow');
  });

  it('keeps a slow job in the slow lane through the next window and moves it back after a calm one', async () => {
    const slow = await mimic(60);
    const time = clock();
    const d = dispatcher({ slowDispatchMs: 30, slowDispatchLimit: 1, now: time.now });
    const f = fire({ jobId: 11 });
    await Promise.all([0, 1].map((i) => d.dispatch({ ...f, fireId: f.fireId + i }, [target(slow.address)])));
    expect(d.laneOf(11)).toBe('slow');
    time.advance(WINDOW);
    // A new window, but the previous one was over the limit: still slow.
    expect(d.laneOf(11)).toBe('slow');
    time.advance(WINDOW);
    expect(d.laneOf(11)).toBe('fast');
  });

  it('does not count the wait for a lane slot as a slow dispatch', async () => {
    const quick = await mimic(20);
    const d = dispatcher({ fastConcurrency: 1, slowDispatchMs: 100, slowDispatchLimit: 1 });
    // Ten dispatches through one slot: the last waits ~180 ms, but each takes ~20 ms itself.
    await Promise.all(
      Array.from({ length: 10 }, () => d.dispatch(fire({ jobId: 3 }), [target(quick.address)])),
    );
    expect(d.laneOf(3)).toBe('fast');
  });

  it('bounds the dispatches in flight in a lane and queues the rest in order', async () => {
    const m = await mimic(150);
    const d = dispatcher({ fastConcurrency: 2 });
    const pending = Array.from({ length: 5 }, () => d.dispatch(fire(), [target(m.address)]));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(d.laneStats().fast).toEqual({ running: 2, queued: 3 });
    expect(m.requests).toHaveLength(2);
    await Promise.all(pending);
    expect(d.laneStats().fast).toEqual({ running: 0, queued: 0 });
  });

  it('frees the slot of a task that fails, by rejecting or by throwing, for the next in line', async () => {
    const lanes = new DispatchLanes({
      fastConcurrency: 1,
      slowConcurrency: 1,
      slowDispatchMs: 500,
      slowDispatchLimit: 10,
      slowWindowMs: WINDOW,
      now: clock().now,
    });
    const rejected = lanes.run(1, () => Promise.reject(new Error('refused')));
    const thrown = lanes.run(2, () => {
      throw new Error('thrown');
    });
    const next = lanes.run(3, async (lane) => `ran in the ${lane} lane`);
    expect(lanes.stats().fast).toEqual({ running: 1, queued: 2 });
    await expect(rejected).rejects.toThrow('refused');
    await expect(thrown).rejects.toThrow('thrown');
    await expect(next).resolves.toBe('ran in the fast lane');
    expect(lanes.stats().fast).toEqual({ running: 0, queued: 0 });
  });

  it('lets a stalled job hold up others while it is still in the fast lane (what the slow lane prevents)', async () => {
    const stalled = await mimic(1_000);
    const quick = await mimic(5);
    const d = dispatcher({ fastConcurrency: 4, slowDispatchMs: 100, slowDispatchLimit: 10 });
    const stalledJob = fire({ jobId: 98 });
    const burst = [0, 1, 2, 3].map((i) =>
      d.dispatch({ ...stalledJob, fireId: stalledJob.fireId + i }, [target(stalled.address)]),
    );
    const started = performance.now();
    await d.dispatch(fire({ jobId: 2_000 }), [target(quick.address)]);
    expect(performance.now() - started).toBeGreaterThan(900);
    await Promise.all(burst);
  });

  it('keeps fast jobs fast while a slow executor stalls its own job in the slow lane', async () => {
    const stalled = await mimic(1_500);
    const quick = await mimic(5);
    const d = dispatcher({
      fastConcurrency: 4,
      slowConcurrency: 2,
      slowDispatchMs: 100,
      slowDispatchLimit: 2,
      callTimeoutMs: 2_000,
    });
    const stalledJob = fire({ jobId: 99 });
    // Three slow dispatches at once (within the fast lane's four slots) mark job 99 slow.
    await Promise.all(
      [0, 1, 2].map((i) =>
        d.dispatch({ ...stalledJob, fireId: stalledJob.fireId + i }, [target(stalled.address)]),
      ),
    );
    expect(d.laneOf(99)).toBe('slow');

    // A burst of job 99 now queues behind the slow lane's two slots...
    const stalledBurst = Array.from({ length: 10 }, (_, i) =>
      d.dispatch({ ...stalledJob, fireId: stalledJob.fireId + 10 + i }, [target(stalled.address)]),
    );
    // ...while twenty other jobs still get through the fast lane at once.
    const started = performance.now();
    const fastOutcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => d.dispatch(fire({ jobId: 1_000 + i }), [target(quick.address)])),
    );
    const took = performance.now() - started;
    expect(fastOutcomes.every(([o]) => o!.triggerCode === 200 && o!.lane === 'fast')).toBe(true);
    // Twenty 5 ms dispatches four at a time: ~25 ms; a shared lane would wait for 1.5 s stalls.
    expect(took).toBeLessThan(500);
    expect(d.laneStats().slow.running).toBe(2);
    // Let the stalled executor go down so its queued dispatches end fast.
    await stalled.stop();
    const stalledOutcomes = await Promise.all(stalledBurst);
    expect(stalledOutcomes.every(([o]) => o!.lane === 'slow')).toBe(true);
  });

  it('lends a batch the free fast slots at once, none while dispatches wait, and counts a slow batch for each of its jobs', async () => {
    const time = clock();
    const lanes = new DispatchLanes({
      fastConcurrency: 3,
      slowConcurrency: 1,
      slowDispatchMs: 40,
      slowDispatchLimit: 0,
      slowWindowMs: WINDOW,
      now: time.now,
    });
    expect(lanes.takeFast(5)).toBe(3);
    // A dispatch now waits for a slot, and a later batch takes none ahead of it.
    let ran = false;
    const waiting = lanes.run(9, async () => {
      ran = true;
      return 'done';
    });
    expect(lanes.takeFast(1)).toBe(0);
    expect(lanes.stats().fast).toEqual({ running: 3, queued: 1 });
    // The batch of jobs 1 and 2 took 50 ms: one slow dispatch each; its slots go on to the waiting dispatch.
    lanes.releaseFast(1, 50);
    lanes.releaseFast(2, 50);
    expect(await waiting).toBe('done');
    expect(ran).toBe(true);
    expect([lanes.laneOf(1), lanes.laneOf(2), lanes.laneOf(3)]).toEqual(['slow', 'slow', 'fast']);
    lanes.releaseFast(3, 10);
    expect(lanes.laneOf(3)).toBe('fast');
    expect(lanes.stats().fast).toEqual({ running: 0, queued: 0 });
  });
});
