import type { JobContext } from '@tickwheel/executor';
import { describe, expect, it } from 'vitest';
import { broadcastTargets, type FireToDispatch } from '../src/dispatch/dispatcher.js';
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
import { MIMIC_APP, startMimic, type XxlMimic } from './helpers/xxl-mimic.js';

const { cleanups, dispatcher } = closedAfterEach();

async function mimic(generation: '2.x' | '3.x' | '3.5'): Promise<XxlMimic> {
  const m = await startMimic({ generation, accessToken: TOKEN });
  cleanups.push(() => m.stop());
  return m;
}

describe('Dispatcher', () => {
  it('delivers a fire to a real executor, which runs it under the fire id', async () => {
    const seen: Array<Pick<JobContext, 'jobId' | 'logId' | 'param' | 'logDateTime'>> = [];
    const executors = await startExecutors(1, (ex) =>
      ex.handle('hello', (ctx) => {
        seen.push({ jobId: ctx.jobId, logId: ctx.logId, param: ctx.param, logDateTime: ctx.logDateTime });
        return 'done';
      }),
    );
    cleanups.push(() => closeAll(executors));
    const f = fire({ jobId: 9, executorParam: 'x=1', scheduledAt: 1_700_000_000_000 });
    const before = Date.now();
    const outcomes = await dispatcher().dispatch(f, targetsOf(executors));
    expect(outcomes).toEqual([
      expect.objectContaining({
        fireId: f.fireId,
        parentFireId: null,
        address: executors[0]!.address,
        shardIndex: 0,
        shardTotal: 1,
        triggerCode: 200,
        lane: 'fast',
      }),
    ]);
    expect(outcomes[0]!.triggerAt).toBeGreaterThanOrEqual(before);
    expect(outcomes[0]!.latencyMs).toBeGreaterThan(0);
    const callback = await executors[0]!.server.callbackFor(f.fireId);
    expect(callback).toMatchObject({ handleCode: 200, handleMsg: 'done' });
    expect(seen).toEqual([{ jobId: 9, logId: f.fireId, param: 'x=1', logDateTime: 1_700_000_000_000 }]);
  });

  it('writes the trigger type, the route and the executor answer into the trigger message', async () => {
    const executors = await startExecutors(1, (ex) => ex.handle('hello', () => 'ok'));
    cleanups.push(() => closeAll(executors));
    const address = executors[0]!.address;
    const [outcome] = await dispatcher().dispatch(fire({ triggerType: 'MANUAL' }), targetsOf(executors));
    expect(outcome!.triggerMsg).toBe(
      `trigger MANUAL\nroute FIRST: ${address} (first of 1)\nrun ${address}: code 200, Success`,
    );
  });

  it("reports the executor's refusal as a failed dispatch with its message", async () => {
    const executors = await startExecutors(1, () => {});
    cleanups.push(() => closeAll(executors));
    const [outcome] = await dispatcher().dispatch(fire({ executorHandler: 'missing' }), targetsOf(executors));
    expect(outcome).toMatchObject({ triggerCode: 500, address: executors[0]!.address });
    expect(outcome!.triggerMsg).toContain('code 500, job handler [missing] not found.');
  });

  it('fails a fire with no executor online, naming the app', async () => {
    const outcomes = await dispatcher().dispatch(fire(), []);
    expect(outcomes).toEqual([
      expect.objectContaining({
        address: null,
        triggerCode: 500,
        shardIndex: 0,
        shardTotal: 1,
        latencyMs: 0,
      }),
    ]);
    expect(outcomes[0]!.triggerMsg).toBe(`trigger CRON\nno executor online for app ${APP}`);
  });

  it('fails a fire whose route strategy is unknown, naming it', async () => {
    const m = await mimic('2.x');
    const odd = fire({ routeStrategy: 'SHORTEST_QUEUE' as FireToDispatch['routeStrategy'] });
    const [outcome] = await dispatcher().dispatch(odd, [target(m.address)]);
    expect(outcome).toMatchObject({ triggerCode: 500, address: null });
    expect(outcome!.triggerMsg).toContain('unknown route strategy SHORTEST_QUEUE');
    expect(m.requests).toHaveLength(0);
  });

  it('reports a hung executor as a timeout within the call timeout', async () => {
    const m = await mimic('2.x');
    m.hang = true;
    const started = Date.now();
    const [outcome] = await dispatcher({ callTimeoutMs: 400 }).dispatch(fire(), [target(m.address)]);
    const took = Date.now() - started;
    expect(outcome).toMatchObject({ triggerCode: 500, address: m.address });
    expect(outcome!.triggerMsg).toContain(`run ${m.address}: timeout after 400 ms`);
    expect(took).toBeGreaterThanOrEqual(390);
    expect(took).toBeLessThan(900);
  });

  it('uses an address override as the candidate list, in the order given', async () => {
    const ms = await Promise.all([mimic('2.x'), mimic('2.x'), mimic('2.x')]);
    const [low, high] = ms.map((m) => m.address).sort();
    const online = ms.map((m) => target(m.address));
    const [outcome] = await dispatcher().dispatch(
      fire({ routeStrategy: 'FIRST', addressOverride: [high!, low!] }),
      online,
    );
    expect(outcome).toMatchObject({ address: high, triggerCode: 200 });
    expect(outcome!.triggerMsg).toContain(`address override: ${high}, ${low}`);
  });

  it('speaks G4 to a 3.5 executor: trigger path and app name header', async () => {
    const m = await mimic('3.5');
    const [outcome] = await dispatcher().dispatch(fire({ appName: MIMIC_APP }), [
      target(m.address, 'G4', MIMIC_APP),
    ]);
    expect(outcome).toMatchObject({ triggerCode: 200 });
    expect(m.requests.map((r) => r.url)).toEqual(['/trigger']);
    expect(m.requests[0]!.headers['xxl-job-appname']).toBe(MIMIC_APP);
  });

  it('reaches a real Tickwheel executor registered as G4 on its trigger path', async () => {
    const executors = await startExecutors(1, (ex) => ex.handle('hello', () => 'g4'), 'G4');
    cleanups.push(() => closeAll(executors));
    const f = fire();
    const [outcome] = await dispatcher().dispatch(f, targetsOf(executors, 'G4'));
    expect(outcome).toMatchObject({ triggerCode: 200 });
    expect(await executors[0]!.server.callbackFor(f.fireId)).toMatchObject({
      handleCode: 200,
      handleMsg: 'g4',
    });
  });
});

describe('SHARDING_BROADCAST', () => {
  it('sends one run per executor with shard i to the i-th address, each under its own fire id', async () => {
    const shardsSeen = new Map<string, { index: number; total: number; logId: number }>();
    const executors = await startExecutors(3, (ex) =>
      ex.handle('hello', (ctx) => {
        shardsSeen.set(ex.address!, { index: ctx.shardIndex, total: ctx.shardTotal, logId: ctx.logId });
        return `shard ${ctx.shardIndex}`;
      }),
    );
    cleanups.push(() => closeAll(executors));
    const d = dispatcher();
    const f = fire({ routeStrategy: 'SHARDING_BROADCAST' });
    const addresses = targetsOf(executors).reverse();
    // The caller creates the shard records first, one per target, in the targets' order.
    const shards = broadcastTargets(f, addresses);
    const sorted = executors.map((e) => e.address).sort();
    expect(shards).toEqual(sorted.map((address, shardIndex) => ({ address, shardIndex, shardTotal: 3 })));
    f.shardFireIds = shards.map((s) => 90_000 + s.shardIndex);
    const outcomes = await d.dispatch(f, addresses);
    expect(
      outcomes.map((o) => [o.fireId, o.parentFireId, o.address, o.shardIndex, o.shardTotal, o.triggerCode]),
    ).toEqual(sorted.map((address, i) => [90_000 + i, f.fireId, address, i, 3, 200]));
    expect(outcomes[1]!.triggerMsg).toContain(`shard 1/3 → ${sorted[1]}`);
    for (const [i, address] of sorted.entries()) {
      const fixture = executors.find((e) => e.address === address)!;
      expect(await fixture.server.callbackFor(90_000 + i)).toMatchObject({
        handleCode: 200,
        handleMsg: `shard ${i}`,
      });
      expect(shardsSeen.get(address)).toEqual({ index: i, total: 3, logId: 90_000 + i });
    }
  });

  it('fails a broadcast, saying why, when its shard records were not created for every executor', async () => {
    const m = await mimic('2.x');
    const [missing] = await dispatcher().dispatch(fire({ routeStrategy: 'SHARDING_BROADCAST' }), [
      target(m.address),
    ]);
    expect(missing).toMatchObject({ triggerCode: 500, address: null });
    expect(missing!.triggerMsg).toContain('SHARDING_BROADCAST needs its 1 shard records (shardFireIds)');
    const [short] = await dispatcher().dispatch(
      fire({ routeStrategy: 'SHARDING_BROADCAST', shardFireIds: [1, 2] }),
      [target(m.address)],
    );
    expect(short).toMatchObject({ triggerCode: 500, address: null });
    expect(m.requests).toHaveLength(0);
  });

  it('a broadcast has no targets when it is a retry of one shard, a re-send, another route or has no executor', () => {
    const addresses = [target('http://127.0.0.1:1/'), target('http://127.0.0.1:2/')];
    expect(broadcastTargets(fire({ routeStrategy: 'SHARDING_BROADCAST' }), addresses)).toHaveLength(2);
    expect(
      broadcastTargets(
        fire({ routeStrategy: 'SHARDING_BROADCAST', shard: { index: 1, total: 2 } }),
        addresses,
      ),
    ).toEqual([]);
    expect(
      broadcastTargets(fire({ routeStrategy: 'SHARDING_BROADCAST', resendTo: addresses[0]! }), addresses),
    ).toEqual([]);
    expect(broadcastTargets(fire({ routeStrategy: 'FIRST' }), addresses)).toEqual([]);
    expect(broadcastTargets(fire({ routeStrategy: 'SHARDING_BROADCAST' }), [])).toEqual([]);
    // An address override keeps its own order.
    const overridden = fire({
      routeStrategy: 'SHARDING_BROADCAST',
      addressOverride: ['http://127.0.0.1:2/', 'http://127.0.0.1:1/'],
    });
    expect(broadcastTargets(overridden, addresses).map((s) => s.address)).toEqual([
      'http://127.0.0.1:2/',
      'http://127.0.0.1:1/',
    ]);
  });

  describe('the send fence', () => {
    it('sends nothing the fence refuses, and says why in an outcome that is left unmarked', async () => {
      const m = await mimic('2.x');
      const d = dispatcher({ fence: async () => ({ admitted: false, reason: 'not-owner' }) });
      const [outcome] = await d.dispatch(fire({ leased: true }), [target(m.address)]);
      expect(outcome).toMatchObject({ notSent: 'not-owner', triggerCode: 500 });
      expect(outcome!.triggerMsg).toContain('no longer holds the fire’s shard');
      expect(m.requests).toHaveLength(0);
    });

    it('asks the fence with the fire, the chosen executor and whether the fire is leased, before the run', async () => {
      const executors = await startExecutors(2, (ex) => ex.handle('hello', () => 'done'));
      cleanups.push(() => closeAll(executors));
      const asked: unknown[] = [];
      const d = dispatcher({
        fence: async (send) => {
          asked.push(send);
          return { admitted: true };
        },
      });
      const f = fire({ jobId: 4, routeStrategy: 'LAST', leased: true });
      const [outcome] = await d.dispatch(f, targetsOf(executors));
      const last = [...executors].sort((a, b) => (a.address < b.address ? -1 : 1)).at(-1)!;
      expect(asked).toEqual([{ fireId: f.fireId, jobId: 4, address: last.address, leased: true }]);
      expect(outcome).toMatchObject({ triggerCode: 200, address: last.address });
      expect(outcome!.notSent).toBeUndefined();
    });

    it('sends a record that went to another executor before to that one, whatever the route picks', async () => {
      const executors = await startExecutors(2, (ex) => ex.handle('hello', () => 'done'));
      cleanups.push(() => closeAll(executors));
      const sorted = [...executors].sort((a, b) => (a.address < b.address ? -1 : 1));
      const d = dispatcher({
        fence: async (send) =>
          send.address === sorted[1]!.address
            ? { admitted: true }
            : { admitted: false, sentTo: sorted[1]!.address },
      });
      const f = fire({ routeStrategy: 'FIRST' });
      const [outcome] = await d.dispatch(f, targetsOf(executors));
      expect(outcome).toMatchObject({ triggerCode: 200, address: sorted[1]!.address });
      expect(outcome!.triggerMsg).toContain('where it was sent before');
      expect(await sorted[1]!.server.callbackFor(f.fireId)).toMatchObject({ handleCode: 200 });
    });

    it('counts an executor’s repeat refusal of the same logId as accepted: the run is there already', async () => {
      const executors = await startExecutors(1, (ex) => ex.handle('hello', () => 'done'));
      cleanups.push(() => closeAll(executors));
      const f = fire({ fireId: 777_001 });
      const d = dispatcher();
      expect((await d.dispatch(f, targetsOf(executors)))[0]).toMatchObject({ triggerCode: 200 });
      const [again] = await d.dispatch(f, targetsOf(executors));
      expect(again).toMatchObject({ triggerCode: 200 });
      expect(again!.triggerMsg).toContain('repeat trigger job, logId:777001');
      expect(again!.triggerMsg).toContain('had accepted this run before');
    });

    it('sends nothing when the fence cannot be asked', async () => {
      const m = await mimic('2.x');
      const d = dispatcher({
        fence: async () => {
          throw new Error('connection terminated');
        },
      });
      const [outcome] = await d.dispatch(fire({ leased: true }), [target(m.address)]);
      expect(outcome).toMatchObject({ notSent: 'fence-failed' });
      expect(outcome!.triggerMsg).toContain('connection terminated');
      expect(m.requests).toHaveLength(0);
    });
  });
});
