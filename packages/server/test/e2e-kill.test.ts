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
import { startMimic, type XxlMimic } from './helpers/xxl-mimic.js';

const API_TOKEN = 'e2e-api-token-0123456789abcdef';

let server: E2eServer | undefined;
let executor: E2eExecutor | undefined;
let mimic: XxlMimic | undefined;

afterEach(async () => {
  await executor?.close();
  await mimic?.stop();
  await server?.close();
  server = undefined;
  executor = undefined;
  mimic = undefined;
});

async function api(method: 'GET' | 'POST', path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server!.server.url}api/v1/${path}`, {
    method,
    headers: { authorization: `Bearer ${API_TOKEN}` },
  });
  return { status: response.status, body: await response.json() };
}

async function fireStatus(fireId: number): Promise<string | undefined> {
  return (await server!.store.fires.findFireById(fireId))?.status;
}

/** A job of `appName` fired by hand, serially (the executor queues a run behind a running one). */
async function manualJob(appName: string, handler: string): Promise<number> {
  const appId = await createApp(server!.store, appName);
  const job = await createJob(server!.store, {
    app_id: appId,
    name: `${handler} by hand`,
    schedule_type: 'NONE',
    schedule_conf: '',
    executor_handler: handler,
  });
  return job.id;
}

async function triggerDispatched(jobId: number): Promise<number> {
  const { fireId } = await server!.server.triggerJob({ jobId });
  await waitFor(async () => (await fireStatus(fireId)) === 'dispatched', {
    what: `fire ${fireId} dispatched`,
  });
  return fireId;
}

describe('kill through the API end to end', () => {
  it('killFire stops the run on its executor and records the fire killed', async () => {
    server = await startServer({ apiToken: API_TOKEN });
    const aborted: unknown[] = [];
    let running = false;
    executor = await startExecutor(server.server, 'e2e-kill', (ex) =>
      ex.handle('forever', async (ctx) => {
        running = true;
        await new Promise<void>((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            aborted.push(ctx.signal.reason);
            resolve();
          }),
        );
      }),
    );
    const jobId = await manualJob('e2e-kill', 'forever');
    const { fireId } = await server.server.triggerJob({ jobId });
    await waitFor(() => running, { what: 'the run to start' });

    const response = await api('POST', `fires/${fireId}/kill`);

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: fireId, status: 'killed' });
    await waitFor(() => aborted.length === 1, { what: 'the handler to be aborted' });
    // The executor's own report of the killed run arrives later and changes nothing.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const fire = (await server.store.fires.findFireById(fireId))!;
    expect(fire.status).toBe('killed');
    expect(fire.handle_msg).toMatch(/killed by admin through the API/);
  });

  it('on a Tickwheel executor, killFire of a queued run drops only it: the running run goes on and succeeds', async () => {
    server = await startServer({ apiToken: API_TOKEN });
    const started: number[] = [];
    const finish = new Map<number, () => void>();
    executor = await startExecutor(server.server, 'e2e-kill-one', (ex) =>
      ex.handle('gated', (ctx) => {
        started.push(ctx.logId);
        return new Promise<string>((resolve) => finish.set(ctx.logId, () => resolve('finished')));
      }),
    );
    const jobId = await manualJob('e2e-kill-one', 'gated');
    const running = await triggerDispatched(jobId);
    await waitFor(() => started.includes(running), { what: 'the first run to start' });
    const queued = await triggerDispatched(jobId);

    expect(await api('GET', `fires/${queued}/kill-scope`)).toEqual({
      status: 200,
      body: { scope: 'run', executorAddress: executor.address, jobId },
    });
    const killed = await api('POST', `fires/${queued}/kill`);

    expect(killed).toMatchObject({ status: 200, body: { id: queued, status: 'killed' } });
    expect(await fireStatus(running)).toBe('dispatched');
    finish.get(running)!();
    await waitFor(async () => (await fireStatus(running)) === 'succeeded', {
      what: 'the running run to succeed',
    });
    expect(started).toEqual([running]);
    expect(await fireStatus(queued)).toBe('killed');
  });

  it('on an XXL-JOB executor, killFire stops the job there, and the running run it stopped is recorded killed', async () => {
    server = await startServer({ apiToken: API_TOKEN });
    mimic = await startMimic({ generation: '2.x', accessToken: server.server.accessToken });
    mimic.callbacksTo = { url: server.server.url, accessToken: server.server.accessToken };
    await registerAddress(server.server, 'e2e-kill-xxl', mimic.address);
    const jobId = await manualJob('e2e-kill-xxl', 'anything');
    const running = await triggerDispatched(jobId);
    const queued = await triggerDispatched(jobId);
    const other = await triggerDispatched(jobId);

    // The console shows this before the kill is confirmed.
    expect(await api('GET', `fires/${queued}/kill-scope`)).toEqual({
      status: 200,
      body: { scope: 'job', executorAddress: mimic.address, jobId },
    });
    const killed = await api('POST', `fires/${queued}/kill`);

    expect(killed).toMatchObject({ status: 200, body: { id: queued, status: 'killed' } });
    // An XXL-JOB executor gets the kill it knows, and no field it would ignore.
    expect(mimic.requestsTo('/kill').map((r) => r.body)).toEqual([{ jobId }]);
    await waitFor(async () => (await fireStatus(running)) !== 'dispatched', {
      what: 'the running run reported',
    });
    const runningFire = (await server.store.fires.findFireById(running))!;
    expect(runningFire.status).toBe('killed');
    expect(runningFire.handle_msg).toBe('scheduling center kill job. [job running, killed]');
    await waitFor(async () => (await fireStatus(other)) !== 'dispatched', {
      what: 'the other queued run reported',
    });
    const otherFire = (await server.store.fires.findFireById(other))!;
    expect(otherFire.status).toBe('killed');
    expect(otherFire.handle_msg).toBe(
      'scheduling center kill job. [job not executed, in the job queue, killed.]',
    );
  });
});
