/**
 * Sends first: while a burst of due fires waits to be sent, dispatch marks and run results wait
 * (give-way.ts) — until the burst is sent, a cap of them is queued, or the oldest has waited its
 * longest.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type GiveWay, giveWayToSends } from '../src/dispatch/give-way.js';
import { MarkBatcher } from '../src/dispatch/mark-batcher.js';
import { ResultRecorder } from '../src/executor-api/result-recorder.js';
import type { DispatchMark, FinishedFire, FireResult } from '../src/store/index.js';

const silent = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A burst the test ends by hand. */
function burst(cap = 1_000, maxHoldMs = 5_000): GiveWay & { waiting: boolean } {
  const giveWay = { waiting: true, sendsWaiting: () => giveWay.waiting, cap, maxHoldMs };
  return giveWay;
}

describe('giving way to sends', () => {
  it('goes at once without a burst; waits while one is sent and goes when it is', async () => {
    const now = performance.now();
    let done = false;
    await giveWayToSends(
      undefined,
      () => 1,
      () => now,
    );
    await giveWayToSends(
      { ...burst(), sendsWaiting: () => false },
      () => 1,
      () => now,
    );

    const giveWay = burst();
    const going = giveWayToSends(
      giveWay,
      () => 1,
      () => performance.now(),
    ).then(() => {
      done = true;
    });
    await sleep(40);
    expect(done).toBe(false);
    giveWay.waiting = false;
    await going;
    expect(done).toBe(true);
  });

  it('goes at the cap, and once the oldest write has waited its longest', async () => {
    await giveWayToSends(
      burst(100),
      () => 100,
      () => performance.now(),
    );

    const queuedAt = performance.now();
    const started = performance.now();
    await giveWayToSends(
      burst(1_000, 80),
      () => 1,
      () => queuedAt,
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    // A write queued long ago (a node that stays behind) does not wait at all.
    const before = performance.now();
    await giveWayToSends(
      burst(1_000, 80),
      () => 1,
      () => queuedAt - 1_000,
    );
    expect(performance.now() - before).toBeLessThan(20);
  });

  it('dispatch marks wait for the burst, then are written together', async () => {
    const written: number[][] = [];
    const giveWay = burst();
    const batcher = new MarkBatcher({
      fires: {
        markDispatched: async (marks: readonly DispatchMark[]) => {
          written.push(marks.map((mark) => mark.fireId));
          return marks.length;
        },
        markDispatchFailed: async () => 0,
      },
      batchSize: 500,
      onError: () => {},
      giveWay,
    });
    const mark = (fireId: number): DispatchMark => ({
      fireId,
      triggerAt: Date.now(),
      executorAddress: 'http://127.0.0.1:9/',
      triggerCode: 200,
      triggerMsg: 'ok',
    });
    const marked = [1, 2, 3].map((id) => batcher.add('dispatched', mark(id)));
    await sleep(50);
    expect(written).toEqual([]);
    giveWay.waiting = false;
    await Promise.all(marked);
    expect(written).toEqual([[1, 2, 3]]);
  });

  it('run results wait for the burst, then are written; the callback is answered after', async () => {
    const written: number[][] = [];
    const giveWay = burst();
    const recorder = new ResultRecorder({
      fires: {
        finishFires: async (results: readonly FireResult[]) => {
          written.push(results.map((result) => result.fireId));
          return [] as FinishedFire[];
        },
        findFiresByIds: async () => [],
        settleBroadcastParents: async () => [],
      } as never,
      clock: { now: () => Date.now() },
      logger: silent,
      giveWay,
    });
    let answered = false;
    const recorded = recorder
      .record([{ fireId: 7, handleCode: 200, handleMsg: null, handleAt: Date.now() }])
      .then(() => {
        answered = true;
      });
    await sleep(50);
    expect(written).toEqual([]);
    expect(answered).toBe(false);
    giveWay.waiting = false;
    await recorded;
    expect(written).toEqual([[7]]);
  });
});
