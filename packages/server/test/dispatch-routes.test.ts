import { describe, expect, it } from 'vitest';
import { Dispatcher } from '../src/dispatch/dispatcher.js';
import type { ExecutorAddress } from '../src/dispatch/executor-client.js';
import { ConsistentHashRoute, ringHash } from '../src/dispatch/routes/consistent-hash.js';
import { LeastFrequentlyUsedRoute, type UseCounts } from '../src/dispatch/routes/least-frequently-used.js';
import { LeastRecentlyUsedRoute, type UseOrder } from '../src/dispatch/routes/least-recently-used.js';
import { PerJobState } from '../src/dispatch/routes/per-job-state.js';
import { RandomRoute } from '../src/dispatch/routes/random.js';
import { RoundRoute } from '../src/dispatch/routes/round.js';
import type { Route } from '../src/dispatch/routes/route.js';
import {
  closeAll,
  closedAfterEach,
  deadAddress,
  fire,
  gate,
  startExecutors,
  TOKEN,
  target,
  targetsOf,
} from './helpers/dispatch-fixtures.js';
import { startMimic, type XxlMimic } from './helpers/xxl-mimic.js';

const { cleanups, dispatcher } = closedAfterEach({ callTimeoutMs: 1_000 });

async function mimics(count: number): Promise<XxlMimic[]> {
  const started = await Promise.all(Array.from({ length: count }, () => startMimic({ generation: '2.x' })));
  cleanups.push(() => Promise.all(started.map((m) => m.stop())).then(() => {}));
  return started;
}

/** Synthetic executors for the routes that decide without calling anyone. */
const A = target('http://10.0.0.1:9999/');
const B = target('http://10.0.0.2:9999/');
const C = target('http://10.0.0.3:9999/');
const D = target('http://10.0.0.4:9999/');

function picks(route: Route, jobId: number, candidates: ExecutorAddress[], times: number): string[] {
  return Array.from({ length: times }, () => {
    const pick = route.pick({ jobId, candidates });
    if (pick instanceof Promise) throw new Error('expected a synchronous route');
    return pick.picked[0]!.address;
  });
}

/** A clock the test moves. */
function clock(start = Date.UTC(2025, 0, 1, 12)) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('FIRST and LAST', () => {
  it('send to the lowest and the highest address, whatever order the registry lists them in', async () => {
    const ms = await mimics(3);
    const listed = ms.map((m) => target(m.address)).reverse();
    const sorted = ms.map((m) => m.address).sort();
    const d = dispatcher();
    const [first] = await d.dispatch(fire({ routeStrategy: 'FIRST' }), listed);
    const [last] = await d.dispatch(fire({ routeStrategy: 'LAST' }), listed);
    expect(first).toMatchObject({ address: sorted[0], triggerCode: 200 });
    expect(first!.triggerMsg).toContain(`route FIRST: ${sorted[0]} (first of 3)`);
    expect(last).toMatchObject({ address: sorted[2], triggerCode: 200 });
    const received = (address: string | undefined) =>
      ms.find((m) => m.address === address)!.requestsTo('/run');
    expect(received(sorted[0])).toHaveLength(1);
    expect(received(sorted[2])).toHaveLength(1);
    expect(received(sorted[1])).toHaveLength(0);
  });
});

describe('RANDOM', () => {
  it('maps the random draw onto the candidates', () => {
    const draws = [0, 0.5, 0.999];
    const route = new RandomRoute(() => draws.shift()!);
    expect(picks(route, 1, [A, B, C], 3)).toEqual([A.address, B.address, C.address]);
  });

  it('reaches every executor over many fires', async () => {
    const ms = await mimics(3);
    const d = dispatcher();
    for (let i = 0; i < 30; i++)
      await d.dispatch(
        fire({ routeStrategy: 'RANDOM' }),
        ms.map((m) => target(m.address)),
      );
    for (const m of ms) expect(m.requestsTo('/run').length).toBeGreaterThan(0);
  });
});

describe('ROUND', () => {
  it('cycles each job through the executors on its own counter', () => {
    const route = new RoundRoute(new PerJobState(Date.now, 1_000), () => 0);
    expect(picks(route, 1, [A, B, C], 2)).toEqual([A.address, B.address]);
    expect(picks(route, 2, [A, B, C], 1)).toEqual([A.address]);
    expect(picks(route, 1, [A, B, C], 3)).toEqual([C.address, A.address, B.address]);
    expect(picks(route, 2, [A, B, C], 2)).toEqual([B.address, C.address]);
  });

  it('starts a job at a random offset so jobs do not all begin on the first executor', () => {
    const route = new RoundRoute(new PerJobState(Date.now, 1_000), () => 0.5);
    // 0.5 → start 50, and 50 % 3 = 2.
    expect(picks(route, 1, [A, B, C], 2)).toEqual([C.address, A.address]);
  });

  it('starts over at a random offset on a new day', () => {
    const time = clock();
    const draws = [0, 0.01];
    const route = new RoundRoute(new PerJobState(time.now, 1_000), () => draws.shift() ?? 0);
    expect(picks(route, 1, [A, B, C], 2)).toEqual([A.address, B.address]);
    time.advance(24 * 3_600_000);
    // 0.01 → start 1 → B again rather than C.
    expect(picks(route, 1, [A, B, C], 1)).toEqual([B.address]);
  });

  it('spreads one job over the real executors in address order', async () => {
    const ms = await mimics(2);
    const sorted = ms.map((m) => m.address).sort();
    const d = new Dispatcher({ accessToken: TOKEN, random: () => 0 });
    cleanups.push(() => d.close());
    const addresses = ms.map((m) => target(m.address));
    const sent: Array<string | null> = [];
    for (let i = 0; i < 4; i++)
      sent.push((await d.dispatch(fire({ routeStrategy: 'ROUND', jobId: 42 }), addresses))[0]!.address);
    expect(sent).toEqual([sorted[0], sorted[1], sorted[0], sorted[1]]);
  });
});

describe('LEAST_FREQUENTLY_USED', () => {
  it('picks the executor this job used least often, per job', () => {
    const route = new LeastFrequentlyUsedRoute(new PerJobState<UseCounts>(Date.now, 1_000), () => 0);
    expect(picks(route, 1, [A, B, C], 4)).toEqual([A.address, B.address, C.address, A.address]);
    // Another job has counts of its own.
    expect(picks(route, 2, [A, B, C], 1)).toEqual([A.address]);
    expect(picks(route, 1, [A, B, C], 2)).toEqual([B.address, C.address]);
  });

  it('sends a job to a joining executor until it has caught up', () => {
    const route = new LeastFrequentlyUsedRoute(new PerJobState<UseCounts>(Date.now, 1_000), () => 0);
    picks(route, 1, [A, B], 4);
    expect(picks(route, 1, [A, B, C], 3)).toEqual([C.address, C.address, A.address]);
  });

  it('forgets an executor that left and its counts', () => {
    const state = new PerJobState<UseCounts>(Date.now, 1_000);
    const route = new LeastFrequentlyUsedRoute(state, () => 0);
    picks(route, 1, [A, B, C], 3);
    picks(route, 1, [A, B], 1);
    expect([...state.stateOf(1, () => new Map()).keys()].sort()).toEqual([A.address, B.address]);
  });
});

describe('LEAST_RECENTLY_USED', () => {
  it('picks the executor this job used longest ago, per job', () => {
    const route = new LeastRecentlyUsedRoute(new PerJobState<UseOrder>(Date.now, 1_000));
    expect(picks(route, 1, [A, B, C], 4)).toEqual([A.address, B.address, C.address, A.address]);
    expect(picks(route, 2, [A, B, C], 1)).toEqual([A.address]);
    expect(picks(route, 1, [A, B, C], 1)).toEqual([B.address]);
  });

  it('gives a joining executor the next run, as it has not been used yet', () => {
    const route = new LeastRecentlyUsedRoute(new PerJobState<UseOrder>(Date.now, 1_000));
    picks(route, 1, [A, B], 3);
    expect(picks(route, 1, [A, B, D], 3)).toEqual([D.address, B.address, A.address]);
  });

  it('starts over on a new day', () => {
    const time = clock();
    const route = new LeastRecentlyUsedRoute(new PerJobState<UseOrder>(time.now, 1_000));
    picks(route, 1, [A, B, C], 1);
    time.advance(24 * 3_600_000);
    expect(picks(route, 1, [A, B, C], 1)).toEqual([A.address]);
  });
});

describe('per-job route state', () => {
  it('keeps at most the configured number of jobs, forgetting the one tracked longest', () => {
    const state = new PerJobState<{ n: number }>(Date.now, 2);
    state.stateOf(1, () => ({ n: 1 }));
    state.stateOf(2, () => ({ n: 2 }));
    state.stateOf(3, () => ({ n: 3 }));
    expect(state.size).toBe(2);
    expect(state.stateOf(1, () => ({ n: -1 })).n).toBe(-1);
    expect(state.stateOf(3, () => ({ n: -3 })).n).toBe(3);
  });
});

describe('CONSISTENT_HASH', () => {
  const jobs = Array.from({ length: 10_000 }, (_, i) => i + 1);
  const owners = (route: Route, candidates: ExecutorAddress[]) =>
    new Map(jobs.map((jobId) => [jobId, picks(route, jobId, candidates, 1)[0]!]));

  it("hashes as XXL-JOB does: MD5's first four bytes, little-endian", () => {
    // md5("1") = c4ca4238…, read little-endian as 0x3842cac4.
    expect(ringHash('1')).toBe(0x3842cac4);
  });

  it('keeps a job on the same executor while the set is unchanged', () => {
    const route = new ConsistentHashRoute();
    const once = picks(route, 77, [A, B, C], 1)[0];
    expect(picks(route, 77, [C, A, B], 5)).toEqual(Array(5).fill(once));
  });

  it('spreads jobs about evenly', () => {
    const counts = new Map<string, number>();
    for (const owner of owners(new ConsistentHashRoute(), [A, B, C]).values()) {
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
    for (const count of counts.values()) expect(count / jobs.length).toBeGreaterThan(0.22);
    for (const count of counts.values()) expect(count / jobs.length).toBeLessThan(0.45);
  });

  it('moves only about a third of the jobs, all to the newcomer, when a third executor joins', () => {
    const route = new ConsistentHashRoute();
    const before = owners(route, [A, B]);
    const after = owners(route, [A, B, C]);
    const moved = jobs.filter((jobId) => before.get(jobId) !== after.get(jobId));
    const share = moved.length / jobs.length;
    expect(share).toBeGreaterThan(0.22);
    expect(share).toBeLessThan(0.45);
    for (const jobId of moved) expect(after.get(jobId)).toBe(C.address);
  });

  it('moves only the jobs of an executor that leaves', () => {
    const route = new ConsistentHashRoute();
    const before = owners(route, [A, B, C]);
    const after = owners(route, [A, C]);
    for (const jobId of jobs) {
      if (before.get(jobId) !== B.address) expect(after.get(jobId)).toBe(before.get(jobId));
    }
  });
});

describe('FAILOVER', () => {
  it('skips an executor that does not answer beat and picks the next live one', async () => {
    const executors = await startExecutors(2, (ex) => ex.handle('hello', () => 'ok'));
    cleanups.push(() => closeAll(executors));
    const dead = 'http://127.0.0.1:1/';
    const live = targetsOf(executors);
    const firstLive = live.map((t) => t.address).sort()[0]!;
    const [outcome] = await dispatcher().dispatch(fire({ routeStrategy: 'FAILOVER' }), [
      ...live,
      target(dead),
    ]);
    expect(outcome).toMatchObject({ address: firstLive, triggerCode: 200 });
    expect(outcome!.triggerMsg).toMatch(
      new RegExp(
        `route FAILOVER: ${dead} beat failed \\(connect ECONNREFUSED [^)]*\\); ${firstLive} beat ok → ${firstLive}`,
      ),
    );
  });

  it('fails the fire with every beat answer when no executor is alive', async () => {
    const deadOnes = [target(await deadAddress()), target(await deadAddress())];
    const [outcome] = await dispatcher().dispatch(fire({ routeStrategy: 'FAILOVER' }), deadOnes);
    expect(outcome).toMatchObject({ address: null, triggerCode: 500 });
    expect(outcome!.triggerMsg).toContain('no executor answered beat with code 200');
    expect(outcome!.triggerMsg.match(/beat failed/g)).toHaveLength(2);
  });
});

describe('BUSYOVER', () => {
  it('skips an executor whose lane for the job is busy', async () => {
    const hold = gate();
    const executors = await startExecutors(2, (ex) => ex.handle('hello', () => hold.promise));
    cleanups.push(async () => {
      hold.open();
      await closeAll(executors);
    });
    const targets = targetsOf(executors);
    const [busy, idle] = targets.map((t) => t.address).sort();
    const d = dispatcher();
    // Occupy job 5's lane on the first executor in address order.
    const [occupied] = await d.dispatch(fire({ jobId: 5, routeStrategy: 'FIRST' }), targets);
    expect(occupied).toMatchObject({ address: busy, triggerCode: 200 });
    const [outcome] = await d.dispatch(fire({ jobId: 5, routeStrategy: 'BUSYOVER' }), targets);
    expect(outcome).toMatchObject({ address: idle, triggerCode: 200 });
    expect(outcome!.triggerMsg).toContain(`route BUSYOVER: ${busy} idleBeat failed (`);
    expect(outcome!.triggerMsg).toContain(`${idle} idleBeat ok → ${idle}`);
    // Another job is idle on the first executor.
    const [other] = await d.dispatch(fire({ jobId: 6, routeStrategy: 'BUSYOVER' }), targets);
    expect(other).toMatchObject({ address: busy });
  });
});
