/**
 * `Dispatcher.dispatchMany`: the due fires of a load dispatched together. The common fire (a route
 * that asks no executor, one executor, no override, no re-send, no shard, fast lane) is routed,
 * fenced with the batch and sent with the batch's other runs to its executor; every other fire
 * goes as `dispatch` would send it. Real Tickwheel executors on loopback.
 */
import { describe, expect, it } from 'vitest';
import type { DispatchOutcome } from '../src/dispatch/dispatcher.js';
import type { FenceVerdict, SendToFence } from '../src/dispatch/send-fence.js';
import {
  APP,
  closeAll,
  closedAfterEach,
  fire,
  startExecutors,
  TOKEN,
  target,
  targetsOf,
} from './helpers/dispatch-fixtures.js';
import { startMimic } from './helpers/xxl-mimic.js';

const { cleanups, dispatcher } = closedAfterEach();

async function twoExecutors() {
  const executors = await startExecutors(2, (ex) => ex.handle('hello', (ctx) => `ran ${ctx.logId}`));
  cleanups.push(() => closeAll(executors));
  const sorted = [...executors].sort((a, b) => (a.address < b.address ? -1 : 1));
  return { executors, targets: targetsOf(executors), first: sorted[0]!, last: sorted[1]! };
}

/** A fire's one outcome. */
function only(o: DispatchOutcome[] | undefined): DispatchOutcome {
  expect(o).toHaveLength(1);
  return o![0]!;
}

describe('Dispatcher.dispatchMany', () => {
  it('routes a batch, asks the fence once for it, and gives each fire the outcome its own dispatch would', async () => {
    const { targets, first, last } = await twoExecutors();
    const asked: SendToFence[][] = [];
    const d = dispatcher({
      fenceMany: async (sends) => {
        asked.push([...sends]);
        return sends.map(() => ({ admitted: true }) as FenceVerdict);
      },
    });
    const fires = [
      fire({ jobId: 1, routeStrategy: 'FIRST', leased: true }),
      fire({ jobId: 2, routeStrategy: 'LAST', leased: true }),
      fire({ jobId: 3, routeStrategy: 'FIRST', leased: true }),
      fire({ jobId: 4, routeStrategy: 'LAST', leased: true, triggerType: 'MANUAL' }),
    ];
    const outcomes = await d.dispatchMany(fires.map((f) => ({ fire: f, addresses: targets })));
    expect(outcomes.map((o) => o.map((x) => [x.fireId, x.address, x.triggerCode, x.lane]))).toEqual([
      [[fires[0]!.fireId, first.address, 200, 'fast']],
      [[fires[1]!.fireId, last.address, 200, 'fast']],
      [[fires[2]!.fireId, first.address, 200, 'fast']],
      [[fires[3]!.fireId, last.address, 200, 'fast']],
    ]);
    expect(outcomes[3]![0]!.triggerMsg).toBe(
      `trigger MANUAL\nroute LAST: ${last.address} (last of 2)\nrun ${last.address}: code 200, Success`,
    );
    expect(asked).toEqual([
      fires.map((f, i) => ({
        fireId: f.fireId,
        jobId: f.jobId,
        address: i % 2 === 0 ? first.address : last.address,
        leased: true,
        readAt: undefined,
      })),
    ]);
    for (const [i, f] of fires.entries()) {
      const executor = i % 2 === 0 ? first : last;
      expect(await executor.server.callbackFor(f.fireId)).toMatchObject({
        handleCode: 200,
        handleMsg: `ran ${f.fireId}`,
      });
    }
  });

  it('sends nothing the fence refuses, re-sends a record to where it went before, and keeps the others going', async () => {
    const { targets, first, last } = await twoExecutors();
    const [admitted, refused, elsewhere] = [fire({ jobId: 11 }), fire({ jobId: 12 }), fire({ jobId: 13 })];
    const single: SendToFence[] = [];
    const d = dispatcher({
      fenceMany: async (sends) =>
        sends.map((s): FenceVerdict => {
          if (s.fireId === refused.fireId) return { admitted: false, reason: 'not-owner' };
          if (s.fireId === elsewhere.fireId) return { admitted: false, sentTo: last.address };
          return { admitted: true };
        }),
      // The re-send is fenced once more, on its own.
      fence: async (send) => {
        single.push(send);
        return { admitted: true };
      },
    });
    const outcomes = await d.dispatchMany(
      [admitted, refused, elsewhere].map((f) => ({ fire: f, addresses: targets })),
    );
    expect(outcomes[0]).toEqual([expect.objectContaining({ triggerCode: 200, address: first.address })]);
    expect(outcomes[1]).toEqual([expect.objectContaining({ notSent: 'not-owner', triggerCode: 500 })]);
    expect(outcomes[2]).toEqual([expect.objectContaining({ triggerCode: 200, address: last.address })]);
    expect(outcomes[2]![0]!.triggerMsg).toContain('where it was sent before');
    expect(single.map((s) => [s.fireId, s.address])).toEqual([[elsewhere.fireId, last.address]]);
    expect(await last.server.callbackFor(elsewhere.fireId)).toMatchObject({ handleCode: 200 });
    expect(await first.server.callbackFor(admitted.fireId)).toMatchObject({ handleCode: 200 });
  });

  it('sends none of a batch when the fence cannot be asked, saying why in each outcome', async () => {
    const { targets } = await twoExecutors();
    const d = dispatcher({
      fenceMany: async () => {
        throw new Error('connection terminated');
      },
    });
    const fires = [fire(), fire({ routeStrategy: 'LAST' })];
    const outcomes = (await d.dispatchMany(fires.map((f) => ({ fire: f, addresses: targets })))).flat();
    expect(outcomes.map((o) => [o.fireId, o.notSent])).toEqual(fires.map((f) => [f.fireId, 'fence-failed']));
    expect(outcomes.every((o) => o.triggerMsg.includes('connection terminated'))).toBe(true);
  });

  it('dispatches an override, a FAILOVER fire and a fire with no executor beside the batch, each as dispatch would', async () => {
    const { targets, first, last } = await twoExecutors();
    const d = dispatcher();
    const overridden = fire({ jobId: 21, addressOverride: [last.address] });
    const failover = fire({ jobId: 22, routeStrategy: 'FAILOVER' });
    const plain = fire({ jobId: 23 });
    const nowhere = fire({ jobId: 24 });
    const outcomes = await d.dispatchMany([
      { fire: overridden, addresses: targets },
      { fire: failover, addresses: targets },
      { fire: plain, addresses: targets },
      { fire: nowhere, addresses: [] },
    ]);
    expect(only(outcomes[0])).toMatchObject({ triggerCode: 200, address: last.address });
    expect(only(outcomes[0]).triggerMsg).toContain(`address override: ${last.address}`);
    expect(only(outcomes[1])).toMatchObject({ triggerCode: 200, address: first.address });
    expect(only(outcomes[1]).triggerMsg).toContain('route FAILOVER');
    expect(only(outcomes[2])).toMatchObject({ triggerCode: 200, address: first.address });
    expect(only(outcomes[3])).toMatchObject({ triggerCode: 500, address: null });
    expect(only(outcomes[3]).triggerMsg).toBe(`trigger CRON\nno executor online for app ${APP}`);
    expect(await last.server.callbackFor(overridden.fireId)).toMatchObject({ handleCode: 200 });
  });

  it('holds a fast-lane slot a batched fire until the batch is answered, and sends past the free slots one by one', async () => {
    const { targets } = await twoExecutors();
    const d = dispatcher({ fastConcurrency: 2 });
    const fires = [fire({ jobId: 31 }), fire({ jobId: 32 }), fire({ jobId: 33 }), fire({ jobId: 34 })];
    const dispatching = d.dispatchMany(fires.map((f) => ({ fire: f, addresses: targets })));
    // Two fires took the two slots as a batch; the other two wait in the lane for them.
    expect(d.laneStats().fast).toEqual({ running: 2, queued: 2 });
    const outcomes = (await dispatching).flat();
    expect(outcomes.map((o) => o.triggerCode)).toEqual([200, 200, 200, 200]);
    expect(d.laneStats().fast).toEqual({ running: 0, queued: 0 });
  });

  it('holds the runs of fires fenced ahead of their time until it, never sending one early, and sends a due one at once', async () => {
    const started = new Map<number, number>();
    const executors = await startExecutors(1, (ex) =>
      ex.handle('hello', (ctx) => {
        started.set(ctx.logId, Date.now());
        return 'ok';
      }),
    );
    cleanups.push(() => closeAll(executors));
    const targets = targetsOf(executors);
    const fencedAt: number[] = [];
    const d = dispatcher({
      fenceMany: async (sends) => {
        fencedAt.push(Date.now());
        return sends.map(() => ({ admitted: true }) as FenceVerdict);
      },
    });
    const now = Date.now();
    // Two fires due on one 5 ms step, one later, one already due; and one through `dispatch`.
    const ahead = [now + 300, now + 300, now + 360].map((at, i) =>
      fire({ jobId: 51 + i, leased: true, scheduledAt: Math.ceil(at / 5) * 5 }),
    );
    const due = fire({ jobId: 54, leased: true, scheduledAt: now - 10 });
    const alone = fire({ jobId: 55, leased: true, scheduledAt: now + 250 });
    const [outcomes, aloneOutcomes] = await Promise.all([
      d.dispatchMany([...ahead, due].map((f) => ({ fire: f, addresses: targets }))),
      d.dispatch(alone, targets),
    ]);
    // Fenced at once, ahead of their time.
    expect(fencedAt).toHaveLength(2);
    for (const at of fencedAt) expect(at).toBeLessThan(now + 200);
    const all = [...ahead, due, alone];
    const outcomeOf = [...outcomes, aloneOutcomes].map((o) => only(o));
    expect(outcomeOf.map((o) => o.triggerCode)).toEqual([200, 200, 200, 200, 200]);
    for (const [i, f] of all.entries()) {
      await executors[0]!.server.callbackFor(f.fireId);
      // Sent and started at its time or after, never before.
      expect(outcomeOf[i]!.triggerAt).toBeGreaterThanOrEqual(f.scheduledAt);
      expect(started.get(f.fireId)).toBeGreaterThanOrEqual(f.scheduledAt);
    }
    // The two due on the same step went out together; the due one at once.
    expect(outcomeOf[0]!.triggerAt).toBe(outcomeOf[1]!.triggerAt);
    expect(started.get(due.fireId)).toBeLessThan(now + 200);
  });

  it('settles the fires of an executor that answers while another executor of the batch hangs', async () => {
    const { first } = await twoExecutors();
    const hung = await startMimic({ generation: '2.x', accessToken: TOKEN });
    hung.hang = true;
    cleanups.push(() => hung.stop());
    const d = dispatcher({ callTimeoutMs: 1_500 });
    const live = [fire({ jobId: 41 }), fire({ jobId: 42 })];
    const stuck = fire({ jobId: 43 });
    const items = [
      { fire: live[0]!, addresses: [target(first.address)] },
      { fire: stuck, addresses: [target(hung.address)] },
      { fire: live[1]!, addresses: [target(first.address)] },
    ];
    const settledAt = new Map<number, number>();
    const started = Date.now();
    const outcomes = await d.dispatchMany(items, (index, settled) => {
      // Each fire's outcomes come with its own place in the batch.
      expect(settled[0]!.fireId).toBe(items[index]!.fire.fireId);
      settledAt.set(items[index]!.fire.fireId, Date.now() - started);
    });
    expect(outcomes.map((o) => o[0]!.triggerCode)).toEqual([200, 500, 200]);
    expect(outcomes[1]![0]!.triggerMsg).toContain('timeout after 1500 ms');
    // The live executor's fires were settled long before the hung one's timed out.
    expect(settledAt.get(live[0]!.fireId)).toBeLessThan(1_000);
    expect(settledAt.get(live[1]!.fireId)).toBeLessThan(1_000);
    expect(settledAt.get(stuck.fireId)).toBeGreaterThanOrEqual(1_400);
    expect(d.laneStats().fast).toEqual({ running: 0, queued: 0 });
  });
});
