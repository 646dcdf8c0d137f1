/**
 * Routes at the server level: the algorithms have their own suite (dispatch-routes); these prove
 * the wiring — registered executors in, the right executor's `run` out, recorded on the fire.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  registerAddress,
  startExecutor,
  startServer,
  waitFor,
} from './helpers/e2e.js';

let server: E2eServer | undefined;
const executors: E2eExecutor[] = [];

afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
  await server?.close();
  server = undefined;
});

/** Starts `count` executors of `appName` whose handler `work` records which executor ran it. */
async function startExecutors(appName: string, count: number, ran: string[], block?: Promise<void>) {
  const started: E2eExecutor[] = [];
  for (let i = 0; i < count; i++) {
    const executor: E2eExecutor = await startExecutor(server!.server, appName, (ex) =>
      ex.handle('work', async () => {
        ran.push(ex.address!);
        await block;
        return 'worked';
      }),
    );
    started.push(executor);
    executors.push(executor);
  }
  return started.sort((a, b) => (a.address < b.address ? -1 : 1));
}

async function routedJob(appName: string, route: string): Promise<number> {
  const appId = await createApp(server!.store, appName);
  const job = await createJob(server!.store, {
    app_id: appId,
    name: `${route} job`,
    schedule_type: 'NONE',
    schedule_conf: '',
    executor_handler: 'work',
    executor_route_strategy: route,
  });
  return job.id;
}

describe('routes through the server', () => {
  it('FAILOVER skips a registered executor that is dead and runs on the next one', async () => {
    server = await startServer();
    const ran: string[] = [];
    const [live] = await startExecutors('e2e-failover', 1, ran);
    // Registered like any executor, but nothing listens there (port 1 refuses): it sorts first.
    const dead = 'http://127.0.0.1:1/';
    await registerAddress(server.server, 'e2e-failover', dead);
    const jobId = await routedJob('e2e-failover', 'FAILOVER');
    const candidates = [dead, live!.address].sort();
    expect(candidates[0]).toBe(dead);

    const { fireId } = await server.server.triggerJob({ jobId });

    const fire = await server.store.fires.findFireById(fireId);
    expect(fire?.executor_address).toBe(live!.address);
    expect(fire?.trigger_code).toBe(200);
    expect(fire?.trigger_msg).toContain(dead);
    await waitFor(() => ran.length === 1, { what: 'the run' });
    expect(ran).toEqual([live!.address]);
  });

  it('BUSYOVER skips the executor busy with the job and runs on an idle one', async () => {
    server = await startServer();
    const ran: string[] = [];
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const [first, second] = await startExecutors('e2e-busyover', 2, ran, blocked);
    const jobId = await routedJob('e2e-busyover', 'BUSYOVER');
    try {
      // The first executor (in address order, the one BUSYOVER asks first) gets a long run of the job.
      await server.server.triggerJob({ jobId, addressList: [first!.address] });
      await waitFor(() => ran.length === 1, { what: 'the blocking run' });

      const { fireId } = await server.server.triggerJob({ jobId });

      const fire = await server.store.fires.findFireById(fireId);
      expect(fire?.executor_address).toBe(second!.address);
      await waitFor(() => ran.length === 2, { what: 'the second run' });
      expect(ran).toEqual([first!.address, second!.address]);
    } finally {
      release();
    }
  });

  it('CONSISTENT_HASH keeps each job on its executor when a third executor joins', async () => {
    server = await startServer();
    const ran: string[] = [];
    await startExecutors('e2e-hash', 2, ran);
    const hashApp = await createApp(server.store, 'e2e-hash');
    const jobIds: number[] = [];
    // Enough jobs that the share kept does not hinge on where the random ports land on the ring.
    for (let i = 0; i < 40; i++) {
      const job = await createJob(server.store, {
        app_id: hashApp,
        name: `hash job ${i}`,
        schedule_type: 'NONE',
        schedule_conf: '',
        executor_handler: 'work',
        executor_route_strategy: 'CONSISTENT_HASH',
      });
      jobIds.push(job.id);
    }
    const executorOf = async () => {
      const picked = new Map<number, string>();
      for (const jobId of jobIds) {
        const { fireId } = await server!.server.triggerJob({ jobId });
        picked.set(jobId, (await server!.store.fires.findFireById(fireId))!.executor_address!);
      }
      return picked;
    };
    const before = await executorOf();
    expect(await executorOf()).toEqual(before);

    const [third] = await startExecutors('e2e-hash', 1, ran);
    const after = await executorOf();

    let kept = 0;
    for (const jobId of jobIds) {
      // A job either stays where it was or moves to the newcomer, never between the old two.
      expect([before.get(jobId), third!.address]).toContain(after.get(jobId));
      if (after.get(jobId) === before.get(jobId)) kept++;
    }
    // About two thirds stay; the newcomer takes about a third (its share varies with the ring).
    expect(kept).toBeGreaterThanOrEqual(jobIds.length / 3);
  });
});
