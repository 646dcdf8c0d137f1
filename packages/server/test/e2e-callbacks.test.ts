import { afterEach, describe, expect, it } from 'vitest';
import {
  callServer,
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  startExecutor,
  startServer,
  waitFor,
} from './helpers/e2e.js';

let server: E2eServer | undefined;
let executor: E2eExecutor | undefined;

afterEach(async () => {
  await executor?.close();
  await server?.close();
  server = undefined;
  executor = undefined;
});

describe('callbacks end to end', () => {
  it('a duplicated callback for a finished run changes nothing', async () => {
    server = await startServer();
    executor = await startExecutor(server.server, 'e2e-callbacks', (ex) =>
      ex.handle('ok', async () => 'done'),
    );
    const appId = await createApp(server.store, 'e2e-callbacks');
    const job = await createJob(server.store, {
      app_id: appId,
      name: 'succeeds',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'ok',
    });
    const { fireId } = await server.server.triggerJob({ jobId: job.id });
    await waitFor(async () => (await server!.store.fires.findFireById(fireId))?.status === 'succeeded', {
      what: 'the result',
    });
    const before = await server.store.fires.findFireById(fireId);

    const duplicate = [
      { logId: fireId, logDateTim: before!.scheduled_at, handleCode: 500, handleMsg: 'late and wrong' },
    ];
    expect((await callServer(server.server, 'callback', duplicate)).code).toBe(200);
    expect((await callServer(server.server, 'callback', { callbackList: duplicate })).code).toBe(200);

    expect(await server.store.fires.findFireById(fireId)).toEqual(before);
  });

  it('a duplicated callback of a FIX_DELAY run sets the next fire once, from the first result', async () => {
    server = await startServer();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    executor = await startExecutor(server.server, 'e2e-callbacks', (ex) => ex.handle('held', () => held));
    const appId = await createApp(server.store, 'e2e-callbacks');
    const job = await createJob(server.store, {
      app_id: appId,
      name: 'fixed delay',
      schedule_type: 'FIX_DELAY',
      schedule_conf: '30',
      executor_handler: 'held',
    });
    // Fire it now through the planner, as its first scheduled run.
    await server.store.jobs.updateJob(job.id, { next_fire_at: Date.now() }, Date.now());
    let fireId = 0;
    await waitFor(
      async () => {
        const [fire] = await server!.store.fires.listFires({ jobId: job.id, status: 'dispatched' });
        fireId = fire?.id ?? 0;
        return fireId !== 0;
      },
      { what: 'the dispatch' },
    );
    expect((await server.store.jobs.findJobById(job.id))?.next_fire_at).toBeNull();

    const result = [{ logId: fireId, logDateTim: Date.now(), handleCode: 200, handleMsg: 'ended' }];
    await callServer(server.server, 'callback', result);
    let next: number | null | undefined = null;
    await waitFor(
      async () => {
        next = (await server!.store.jobs.findJobById(job.id))?.next_fire_at;
        return next !== null;
      },
      { what: 'the next fire time' },
    );
    await callServer(server.server, 'callback', result);
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();

    expect(next).toBeGreaterThan(Date.now() + 25_000);
    expect((await server.store.jobs.findJobById(job.id))?.next_fire_at).toBe(next);
  });
});
