import { isTickwheelError } from '@tickwheel/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  firesOf,
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

async function twoExecutors(runs: Array<{ address: string; param: string; logId: number }>) {
  for (let i = 0; i < 2; i++) {
    const executor: E2eExecutor = await startExecutor(server!.server, 'e2e-trigger', (ex) =>
      ex.handle('echo', async (ctx) => {
        runs.push({ address: ex.address!, param: ctx.param, logId: ctx.logId });
        return `echo ${ctx.param}`;
      }),
    );
    executors.push(executor);
  }
  const appId = await createApp(server!.store, 'e2e-trigger');
  return createJob(server!.store, {
    app_id: appId,
    name: 'trigger me',
    schedule_type: 'NONE',
    schedule_conf: '',
    executor_handler: 'echo',
    executor_param: 'the job param',
    executor_route_strategy: 'FIRST',
  });
}

describe('trigger once end to end', () => {
  it('runs the job once with the given param on the executor the override names', async () => {
    server = await startServer();
    const runs: Array<{ address: string; param: string; logId: number }> = [];
    const job = await twoExecutors(runs);
    const last = executors.map((e) => e.address).sort()[1]!;

    const { fireId, outcomes } = await server.server.triggerJob({
      jobId: job.id,
      triggerType: 'API',
      executorParam: 'just this once',
      addressList: [last.replace(/\/$/, '')],
    });

    expect(outcomes).toHaveLength(1);
    await waitFor(async () => (await server!.store.fires.findFireById(fireId))?.status === 'succeeded', {
      what: 'the result',
    });
    const fire = (await server.store.fires.findFireById(fireId))!;
    expect(fire.trigger_type).toBe('API');
    expect(fire.executor_param).toBe('just this once');
    expect(fire.executor_address).toBe(last);
    expect(fire.handle_msg).toBe('echo just this once');
    expect(runs).toEqual([{ address: last, param: 'just this once', logId: fireId }]);
  });

  it('runs with the job’s own param on the route’s pick when no override is given', async () => {
    server = await startServer();
    const runs: Array<{ address: string; param: string; logId: number }> = [];
    const job = await twoExecutors(runs);
    const first = executors.map((e) => e.address).sort()[0]!;

    const { fireId } = await server.server.triggerJob({ jobId: job.id });

    const fire = (await server.store.fires.findFireById(fireId))!;
    expect(fire.trigger_type).toBe('MANUAL');
    expect(fire.executor_address).toBe(first);
    await waitFor(() => runs.length === 1, { what: 'the run' });
    expect(runs[0]).toEqual({ address: first, param: 'the job param', logId: fireId });
  });

  it('refuses an override address that is not one of the app’s, and records nothing', async () => {
    server = await startServer();
    const job = await twoExecutors([]);

    const attempt = server.server.triggerJob({
      jobId: job.id,
      addressList: ['http://169.254.169.254/latest/'],
    });

    await expect(attempt).rejects.toSatisfy(
      (err: unknown) => isTickwheelError(err, 'TW_ERR_INVALID_FIELD') && err.field === 'addressList[0]',
    );
    expect(await firesOf(server.store, job.id)).toEqual([]);
  });

  it('refuses an unknown job with TW_ERR_UNKNOWN_JOB', async () => {
    server = await startServer();

    await expect(server.server.triggerJob({ jobId: 404_404 })).rejects.toSatisfy((err: unknown) =>
      isTickwheelError(err, 'TW_ERR_UNKNOWN_JOB'),
    );
  });
});
