/**
 * The send fence's batching: asks of one turn go to the store together, up to four statements
 * at once, and one at a time while the planner says its claim is behind (the claim keeps its
 * share of the database). The statements are held open here so what is in flight can be counted.
 */
import { describe, expect, it } from 'vitest';
import { FENCES_IN_FLIGHT, FENCES_IN_FLIGHT_CLAIM_BEHIND, SendFence } from '../src/dispatch/send-fence.js';
import type { SendFenceAnswer, SendFenceRequest } from '../src/store/hot/send-fence.js';

interface Statement {
  sends: readonly SendFenceRequest[];
  answer(): void;
}

function fenceOver(claimBehind: () => boolean) {
  const open: Statement[] = [];
  let mostAtOnce = 0;
  const fence = new SendFence({
    fenceSends: (_now, sends) =>
      new Promise<SendFenceAnswer[]>((resolve) => {
        const statement: Statement = {
          sends,
          answer() {
            open.splice(open.indexOf(statement), 1);
            resolve(sends.map((s) => ({ fireId: s.fireId, admitted: true })));
          },
        };
        open.push(statement);
        mostAtOnce = Math.max(mostAtOnce, open.length);
      }),
    leases: { shardOf: () => 0, epochOf: () => 1 },
    now: () => 0,
    batchSize: 10,
    claimBehind,
  });
  const ask = (count: number) =>
    Promise.all(
      Array.from({ length: count }, (_, i) =>
        fence.admit({ fireId: i + 1, jobId: i + 1, address: 'http://127.0.0.1:1/', leased: true }),
      ),
    );
  return { fence, open, ask, mostAtOnce: () => mostAtOnce };
}

/** Lets the fence gather and start what it may (a few turns of the event loop). */
const turns = async (n = 10) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('send fence batches', () => {
  it('runs up to four statements of a batch each at once while the claim keeps its lead', async () => {
    const { open, ask, mostAtOnce } = fenceOver(() => false);
    const verdicts = ask(100);
    await turns();
    expect(open).toHaveLength(FENCES_IN_FLIGHT);
    expect(open.map((s) => s.sends.length)).toEqual([10, 10, 10, 10]);
    while (open.length > 0) {
      open[0]!.answer();
      await turns();
    }
    expect(await verdicts).toHaveLength(100);
    expect((await verdicts).every((v) => v.admitted)).toBe(true);
    expect(mostAtOnce()).toBe(4);
  });

  it('runs one statement at a time while the claim is behind, and four again once it is not', async () => {
    let behind = true;
    const { open, ask, mostAtOnce } = fenceOver(() => behind);
    const verdicts = ask(100);
    await turns();
    expect(open).toHaveLength(FENCES_IN_FLIGHT_CLAIM_BEHIND);
    for (let i = 0; i < 3; i++) {
      open[0]!.answer();
      await turns();
      expect(open).toHaveLength(1);
    }
    expect(mostAtOnce()).toBe(1);
    behind = false;
    open[0]!.answer();
    await turns();
    expect(open).toHaveLength(FENCES_IN_FLIGHT);
    while (open.length > 0) {
      open[0]!.answer();
      await turns();
    }
    expect((await verdicts).every((v) => v.admitted)).toBe(true);
  });

  it('admitMany: one promise, the verdicts in the asks’ order across statements, a shard not held refused without asking', async () => {
    const statements: SendFenceRequest[][] = [];
    const fence = new SendFence({
      fenceSends: async (_now, sends) => {
        statements.push([...sends]);
        return sends.map((s) =>
          s.fireId % 2 === 0
            ? { fireId: s.fireId, admitted: true }
            : { fireId: s.fireId, admitted: false, reason: 'not-pending' },
        );
      },
      // Job 3's shard is not held here.
      leases: { shardOf: (jobId) => jobId, epochOf: (shard) => (shard === 3 ? undefined : 1) },
      now: () => 0,
      batchSize: 2,
    });
    const send = (fireId: number, jobId: number) => ({
      fireId,
      jobId,
      address: 'http://127.0.0.1:1/',
      leased: true,
    });
    const verdicts = await fence.admitMany([send(10, 1), send(11, 2), send(12, 3), send(14, 4), send(15, 5)]);
    expect(verdicts).toEqual([
      { admitted: true },
      { admitted: false, reason: 'not-pending' },
      { admitted: false, reason: 'not-owner' },
      { admitted: true },
      { admitted: false, reason: 'not-pending' },
    ]);
    expect(statements.map((s) => s.map((r) => r.fireId))).toEqual([
      [10, 11],
      [14, 15],
    ]);
    expect(await fence.admitMany([send(16, 3)])).toEqual([{ admitted: false, reason: 'not-owner' }]);
  });

  it('admitMany rejects once when a statement of its asks fails, fences none of its asks after, and answers the others', async () => {
    const statements: number[][] = [];
    const fence = new SendFence({
      fenceSends: async (_now, sends) => {
        statements.push(sends.map((s) => s.fireId));
        if (sends.some((s) => s.fireId === 21)) throw new Error('connection terminated');
        return sends.map((s) => ({ fireId: s.fireId, admitted: true }));
      },
      leases: { shardOf: () => 0, epochOf: () => 1 },
      now: () => 0,
      batchSize: 1,
    });
    const send = (fireId: number) => ({ fireId, jobId: 1, address: 'http://127.0.0.1:1/', leased: false });
    const many = fence.admitMany([send(20), send(21), send(22)]);
    const other = fence.admit(send(30));
    await expect(many).rejects.toThrow('connection terminated');
    expect(await other).toEqual({ admitted: true });
    // 22's statement would come after 21's failed: its send will not be made, so it is not fenced.
    expect(statements).toEqual([[20], [21], [30]]);
  });
});
