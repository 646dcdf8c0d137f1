/**
 * Held dispatch marks (mark-batcher.ts): the mark of a run whose executor refuses a logId twice
 * waits for the run's result and is written in the result's statement; otherwise it is written on
 * its own, at its hold's end at the latest. The result recorder takes and settles them.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { MarkBatcher } from '../src/dispatch/mark-batcher.js';
import { ResultRecorder } from '../src/executor-api/result-recorder.js';
import type { DispatchMark, FinishedFire, FireResult } from '../src/store/index.js';

const silent = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const mark = (fireId: number, executorInstance: string | null = 'inst-1'): DispatchMark => ({
  fireId,
  triggerAt: Date.now(),
  executorAddress: 'http://127.0.0.1:9/',
  triggerCode: 200,
  triggerMsg: 'ok',
  executorInstance,
});

/** A batcher over a store that records what it was asked to write. */
function batcher(holdMs: number, maxHeld?: number) {
  const writes: { kind: string; ids: number[] }[] = [];
  const announced: number[] = [];
  const marks = new MarkBatcher({
    fires: {
      markDispatched: async (batch: readonly DispatchMark[]) => {
        writes.push({ kind: 'dispatched', ids: batch.map((m) => m.fireId) });
        return batch.length;
      },
      markDispatchFailed: async (batch: readonly DispatchMark[]) => {
        writes.push({ kind: 'dispatch_failed', ids: batch.map((m) => m.fireId) });
        return batch.length;
      },
    },
    batchSize: 500,
    writeSpacingMs: 0,
    holdMs,
    ...(maxHeld === undefined ? {} : { maxHeld }),
    onError: () => {},
    onWritten: (ids) => announced.push(...ids),
  });
  return { marks, writes, announced };
}

/** A result recorder over `finishFires` that writes the held marks of `marks` with the results. */
function recorderOver(
  marks: MarkBatcher,
  finishFires: (results: readonly FireResult[]) => Promise<FinishedFire[]>,
): ResultRecorder {
  return new ResultRecorder({
    fires: { finishFires } as never,
    clock: { now: () => Date.now() },
    logger: silent,
    writeSpacingMs: 0,
    heldMarks: marks,
  });
}

/** Every record of `results` finished (a store that finds each one open). */
const allFinished = (results: readonly FireResult[]): FinishedFire[] =>
  results.map((r) => ({ fireId: r.fireId, parentFireId: null, status: 'succeeded' }) as FinishedFire);

const success = (fireId: number): FireResult => ({
  fireId,
  handleCode: 200,
  handleMsg: null,
  handleAt: Date.now(),
});

describe('mark batches one after another', () => {
  it('a mark added by the caller its batch just woke is written too', async () => {
    const { marks, writes } = batcher(0);
    for (let id = 1; id <= 3; id++) await marks.add('dispatched', mark(id));
    expect(writes.map((w) => w.ids)).toEqual([[1], [2], [3]]);
  });
});

describe('held dispatch marks', () => {
  it('holds a holdable accepted mark until its hold ends, then writes it on its own', async () => {
    const { marks, writes, announced } = batcher(150);
    let done = false;
    const written = marks.add('dispatched', mark(1), { holdable: true }).then(() => {
      done = true;
    });
    expect(marks.holding).toBe(1);
    await sleep(60);
    expect(writes).toEqual([]);
    expect(done).toBe(false);
    await written;
    expect(writes).toEqual([{ kind: 'dispatched', ids: [1] }]);
    expect(announced).toEqual([1]);
    expect(marks.holding).toBe(0);
  });

  it('writes at once what it may not hold: not holdable, a failed dispatch, no hold set, past the cap', async () => {
    const held = batcher(10_000, 1);
    await held.marks.add('dispatched', mark(1), {});
    await held.marks.add('dispatch_failed', { ...mark(2), triggerCode: 500 }, { holdable: true });
    void held.marks.add('dispatched', mark(3), { holdable: true });
    await held.marks.add('dispatched', mark(4), { holdable: true }); // the cap (1) is taken by 3
    expect(held.writes).toEqual([
      { kind: 'dispatched', ids: [1] },
      { kind: 'dispatch_failed', ids: [2] },
      { kind: 'dispatched', ids: [4] },
    ]);
    expect(held.marks.holding).toBe(1);
    await held.marks.idle();

    const none = batcher(0);
    await none.marks.add('dispatched', mark(5), { holdable: true });
    expect(none.writes).toEqual([{ kind: 'dispatched', ids: [5] }]);
  });

  it('put places a mark as add does, for nobody to wait on: written at once, held when holdable, a failed one never held', async () => {
    const { marks, writes, announced } = batcher(10_000);
    marks.put('dispatched', mark(1));
    marks.put('dispatch_failed', { ...mark(2), triggerCode: 500 }, true);
    marks.put('dispatched', mark(3), true);
    expect(marks.holding).toBe(1);
    await sleep(30);
    // Only the held one is not written yet.
    expect(writes.flatMap((w) => w.ids).sort()).toEqual([1, 2]);
    await marks.idle();
    const idsOf = (kind: string) => writes.filter((w) => w.kind === kind).flatMap((w) => w.ids);
    expect(idsOf('dispatched')).toEqual([1, 3]);
    expect(idsOf('dispatch_failed')).toEqual([2]);
    expect([...announced].sort()).toEqual([1, 2, 3]);
    expect(marks.holding).toBe(0);
  });

  it('a taken mark settled as written is done without a statement of its own; one not written is queued', async () => {
    const { marks, writes, announced } = batcher(10_000);
    const first = marks.add('dispatched', mark(1), { holdable: true });
    const second = marks.add('dispatched', mark(2), { holdable: true });
    const taken = marks.take([1, 2, 3]);
    expect([...taken.keys()]).toEqual([1, 2]);
    expect(marks.holding).toBe(0);
    // Taken twice: the second take finds nothing.
    expect(marks.take([1, 2]).size).toBe(0);
    marks.settle(taken, new Set([1]));
    await first;
    expect(announced).toEqual([1]);
    await second;
    expect(writes).toEqual([{ kind: 'dispatched', ids: [2] }]);
    expect(announced).toEqual([1, 2]);
  });

  it('idle writes the held marks at once and waits for the taken ones to be settled', async () => {
    const { marks, writes } = batcher(60_000);
    void marks.add('dispatched', mark(1), { holdable: true });
    void marks.add('dispatched', mark(2), { holdable: true });
    const taken = marks.take([2]);
    let idle = false;
    const going = marks.idle().then(() => {
      idle = true;
    });
    await sleep(30);
    expect(writes).toEqual([{ kind: 'dispatched', ids: [1] }]);
    expect(idle).toBe(false);
    marks.settle(taken, new Set());
    await going;
    expect(writes).toEqual([
      { kind: 'dispatched', ids: [1] },
      { kind: 'dispatched', ids: [2] },
    ]);
  });

  it('a second dispatch of a held fire writes the first mark and holds the second', async () => {
    const { marks, writes } = batcher(60_000);
    const first = marks.add('dispatched', { ...mark(1), triggerMsg: 'first' }, { holdable: true });
    void marks.add('dispatched', { ...mark(1), triggerMsg: 'second' }, { holdable: true });
    await first;
    expect(writes).toEqual([{ kind: 'dispatched', ids: [1] }]);
    expect(marks.take([1]).get(1)?.triggerMsg).toBe('second');
  });

  it('the result recorder writes a held mark with its result, and gives back the mark of a record it did not finish', async () => {
    const { marks, writes, announced } = batcher(60_000);
    const finishCalls: FireResult[][] = [];
    const recorder = new ResultRecorder({
      fires: {
        // Fire 2 was finished already: the store changes only fire 1.
        finishFires: async (results: readonly FireResult[]) => {
          finishCalls.push([...results]);
          return results
            .filter((r) => r.fireId === 1)
            .map((r) => ({ fireId: r.fireId, parentFireId: null, status: 'succeeded' }) as FinishedFire);
        },
      } as never,
      clock: { now: () => Date.now() },
      logger: silent,
      writeSpacingMs: 0,
      heldMarks: marks,
    });
    const marked = [1, 2].map((id) => marks.add('dispatched', mark(id), { holdable: true }));
    const finished = await recorder.record([
      { fireId: 1, handleCode: 200, handleMsg: null, handleAt: Date.now() },
      { fireId: 2, handleCode: 200, handleMsg: null, handleAt: Date.now() },
      { fireId: 3, handleCode: 200, handleMsg: null, handleAt: Date.now() },
    ]);
    expect(finished.map((f) => f.fireId)).toEqual([1]);
    expect(finishCalls).toHaveLength(1);
    expect(finishCalls[0]!.map((r) => [r.fireId, r.dispatch?.executorInstance ?? null])).toEqual([
      [1, 'inst-1'],
      [2, 'inst-1'],
      [3, null],
    ]);
    await Promise.all(marked);
    // Fire 1's mark went with its result; fire 2's record took none, so its mark is written alone.
    expect(writes).toEqual([{ kind: 'dispatched', ids: [2] }]);
    expect(announced.sort()).toEqual([1, 2]);
  });

  it('a result waiting its turn keeps its mark past the hold: the record is written once', async () => {
    const { marks, writes } = batcher(50);
    const finishCalls: FireResult[][] = [];
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const recorder = recorderOver(marks, async (results) => {
      finishCalls.push([...results]);
      await gate; // the first write takes long: the second result waits behind it
      return allFinished(results);
    });
    const marked = [1, 2].map((id) => marks.add('dispatched', mark(id), { holdable: true }));
    const first = recorder.record([success(1)]);
    await sleep(5);
    const second = recorder.record([success(2)]);
    await sleep(150); // three holds
    expect(finishCalls).toHaveLength(1);
    open();
    await Promise.all([first, second, ...marked]);
    expect(
      finishCalls.map((call) => call.map((r) => [r.fireId, r.dispatch?.executorInstance ?? null])),
    ).toEqual([[[1, 'inst-1']], [[2, 'inst-1']]]);
    expect(writes).toEqual([]);
  });

  it('a mark held after its result came in still goes with it', async () => {
    const { marks, writes } = batcher(60_000);
    const finishCalls: FireResult[][] = [];
    const recorder = recorderOver(marks, async (results) => {
      finishCalls.push([...results]);
      return allFinished(results);
    });
    // The callback overtook the `run` call's answer: the mark is held in the same turn, after the result came in.
    const finished = recorder.record([success(1)]);
    const marked = marks.add('dispatched', mark(1), { holdable: true });
    await Promise.all([finished, marked]);
    expect(finishCalls[0]!.map((r) => r.dispatch?.executorInstance ?? null)).toEqual(['inst-1']);
    expect(writes).toEqual([]);
  });

  it('a failed result statement gives the taken marks back to be written', async () => {
    const { marks, writes } = batcher(60_000);
    const recorder = new ResultRecorder({
      fires: {
        finishFires: async () => {
          throw new Error('database gone');
        },
      } as never,
      clock: { now: () => Date.now() },
      logger: silent,
      writeSpacingMs: 0,
      heldMarks: marks,
    });
    const marked = marks.add('dispatched', mark(1), { holdable: true });
    await expect(
      recorder.record([{ fireId: 1, handleCode: 200, handleMsg: null, handleAt: Date.now() }]),
    ).rejects.toThrow('database gone');
    await marked;
    expect(writes).toEqual([{ kind: 'dispatched', ids: [1] }]);
  });
});
