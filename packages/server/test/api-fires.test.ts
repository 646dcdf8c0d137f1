import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher } from '../src/dispatch/dispatcher.js';
import { type ApiHarness, createApp, createJob, expectError, startApiServer } from './helpers/api-server.js';
import {
  closeAll,
  deadAddress,
  fire,
  gate,
  startExecutors,
  TOKEN,
  target,
} from './helpers/dispatch-fixtures.js';

let api: ApiHarness;
let appId: number;
let jobId: number;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  api = await startApiServer();
  appId = await createApp(api, { appName: 'test-app' });
  jobId = (await createJob(api, appId, { name: 'fired' })).id;
});
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});
afterAll(async () => {
  await api.close();
});

/** A pending fire record of the test job, scheduled at `scheduledAt`. */
async function pendingFire(scheduledAt = api.clock.now(), job = jobId): Promise<number> {
  const [id] = await api.store.fires.createFires(
    [{ jobId: job, appId, scheduledAt, triggerType: 'CRON', executorHandler: 'hello', executorParam: 'p' }],
    scheduledAt,
  );
  return id!;
}

/** A fire really dispatched to `address` and recorded as such, as the engine would. */
async function dispatchedFire(address: string): Promise<number> {
  const fireId = await pendingFire();
  const dispatcher = new Dispatcher({ accessToken: TOKEN });
  cleanups.push(() => dispatcher.close());
  const [outcome] = await dispatcher.dispatch(fire({ fireId, jobId, scheduledAt: api.clock.now() }), [
    target(address),
  ]);
  await api.store.fires.markDispatched([
    {
      fireId,
      triggerAt: outcome!.triggerAt,
      executorAddress: outcome!.address,
      triggerCode: outcome!.triggerCode,
      triggerMsg: outcome!.triggerMsg,
    },
  ]);
  return fireId;
}

describe('listFires and getFire', () => {
  it("reads one record with XXL-JOB's fields", async () => {
    const id = await pendingFire(Date.parse('2026-01-01T00:00:00Z'));
    const res = await api.call('GET', `/api/v1/fires/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id,
      jobId,
      appId,
      parentFireId: null,
      scheduledAt: Date.parse('2026-01-01T00:00:00Z'),
      triggerAt: null,
      triggerType: 'CRON',
      executorAddress: null,
      executorHandler: 'hello',
      executorParam: 'p',
      shardIndex: 0,
      shardTotal: 1,
      triggerCode: null,
      triggerMsg: null,
      handleAt: null,
      handleCode: null,
      handleMsg: null,
      status: 'pending',
      retryCount: 0,
      retryFireId: null,
      triggeredByFireId: null,
      alarmStatus: 'NONE',
      alarmMsg: null,
      workflowRunId: null,
      workflowNodeKey: null,
    });
  });

  it('filters by job, status and scheduled time, newest first, a page at a time', async () => {
    const job = (await createJob(api, appId, { name: 'listed' })).id;
    const base = Date.parse('2026-02-01T00:00:00Z');
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await pendingFire(base + i * 1000, job));
    await api.store.fires.finishFires([
      { fireId: ids[1]!, handleCode: 500, handleMsg: 'boom', handleAt: base + 5000 },
    ]);
    const page = (await api.call('GET', `/api/v1/fires?jobId=${job}&status=pending&limit=2&offset=1`)).json();
    expect(page).toMatchObject({ total: 4, limit: 2, offset: 1 });
    expect(page.items.map((f: { id: number }) => f.id)).toEqual([ids[3], ids[2]]);
    const failed = (await api.call('GET', `/api/v1/fires?jobId=${job}&status=failed&status=timeout`)).json();
    expect(failed.items.map((f: { id: number }) => f.id)).toEqual([ids[1]]);
    const window = (
      await api.call('GET', `/api/v1/fires?appId=${appId}&jobId=${job}&from=${base + 1000}&to=${base + 3000}`)
    ).json();
    expect(window.items.map((f: { id: number }) => f.id)).toEqual([ids[2], ids[1]]);
  });

  it('refuses an unknown status, listing the allowed ones, and a time range that ends before it starts', async () => {
    const error = expectError(
      await api.call('GET', '/api/v1/fires?status=lost'),
      400,
      'TW_ERR_UNKNOWN_ENUM_VALUE',
      'status[0]',
    );
    expect(error.message).toContain('must be one of pending, dispatched');
    expectError(await api.call('GET', '/api/v1/fires?from=2000&to=1000'), 400, 'TW_ERR_INVALID_FIELD', 'to');
    expectError(await api.call('GET', '/api/v1/fires?from=yesterday'), 400, 'TW_ERR_INVALID_FIELD', 'from');
  });

  it('answers 404 for a record that does not exist', async () => {
    expectError(await api.call('GET', '/api/v1/fires/999999'), 404, 'TW_ERR_NOT_FOUND');
    expectError(await api.call('GET', '/api/v1/fires/999999/log'), 404, 'TW_ERR_NOT_FOUND');
    expectError(await api.call('POST', '/api/v1/fires/999999/kill'), 404, 'TW_ERR_NOT_FOUND');
  });
});

describe('getFireLog', () => {
  it("reads the run's log lines from the executor recorded on the fire, page by page", async () => {
    const executors = await startExecutors(1, (ex) =>
      ex.handle('hello', (ctx) => {
        for (let i = 1; i <= 3; i++) ctx.log(`step ${i}`);
      }),
    );
    cleanups.push(() => closeAll(executors));
    const fireId = await dispatchedFire(executors[0]!.address);
    await executors[0]!.server.callbackFor(fireId);
    const first = await api.call('GET', `/api/v1/fires/${fireId}/log`);
    expect(first.statusCode).toBe(200);
    const page = first.json();
    expect(page.fromLineNum).toBe(1);
    expect(page.logContent).toContain('step 1');
    expect(page.logContent).toContain('step 3');
    const next = (
      await api.call('GET', `/api/v1/fires/${fireId}/log?fromLineNum=${page.toLineNum + 1}`)
    ).json();
    expect(next.fromLineNum).toBe(page.toLineNum + 1);
    expect(next.logContent).toBe('');
    // The store has no result yet (the executor's callback went to a stand-in): the run is not over.
    expect(page.isEnd).toBe(false);
    expect(next.isEnd).toBe(false);
    await api.store.fires.finishFires([
      { fireId, handleCode: 200, handleMsg: null, handleAt: api.clock.now() },
    ]);
    // Finished: a read that brings lines is not the end yet; one that brings nothing more is.
    expect((await api.call('GET', `/api/v1/fires/${fireId}/log`)).json()).toMatchObject({ isEnd: false });
    const last = (
      await api.call('GET', `/api/v1/fires/${fireId}/log?fromLineNum=${page.toLineNum + 1}`)
    ).json();
    expect(last).toMatchObject({ logContent: '', isEnd: true });
  });

  it('answers 409 for a fire that was never delivered to an executor', async () => {
    const id = await pendingFire();
    expectError(await api.call('GET', `/api/v1/fires/${id}/log`), 409, 'TW_ERR_CONFLICT');
  });

  it('answers 502 when the recorded executor does not answer', async () => {
    const fireId = await pendingFire();
    await api.store.fires.markDispatched([
      {
        fireId,
        triggerAt: api.clock.now(),
        executorAddress: await deadAddress(),
        triggerCode: 200,
        triggerMsg: 'ok',
      },
    ]);
    expectError(await api.call('GET', `/api/v1/fires/${fireId}/log`), 502, 'TW_ERR_EXECUTOR_CALL_FAILED');
  });

  it('refuses a line number below 1', async () => {
    const id = await pendingFire();
    expectError(
      await api.call('GET', `/api/v1/fires/${id}/log?fromLineNum=0`),
      400,
      'TW_ERR_INVALID_FIELD',
      'fromLineNum',
    );
  });
});

describe('killFire', () => {
  it('stops the running run on the executor recorded on the fire and records it killed', async () => {
    const started = gate();
    const executors = await startExecutors(1, (ex) =>
      ex.handle('hello', (ctx) => {
        started.open();
        return new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        );
      }),
    );
    cleanups.push(() => closeAll(executors));
    const fireId = await dispatchedFire(executors[0]!.address);
    await started.promise;
    const res = await api.call('POST', `/api/v1/fires/${fireId}/kill`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: fireId,
      status: 'killed',
      handleCode: 500,
      handleMsg: 'killed by admin through the API',
    });
    expect(await executors[0]!.server.callbackFor(fireId)).toMatchObject({ handleCode: 500 });
  });

  it('answers 409 for a fire that has finished', async () => {
    const id = await pendingFire();
    await api.store.fires.finishFires([
      { fireId: id, handleCode: 200, handleMsg: null, handleAt: api.clock.now() },
    ]);
    const error = expectError(await api.call('POST', `/api/v1/fires/${id}/kill`), 409, 'TW_ERR_CONFLICT');
    expect(error.message).toContain('already finished (succeeded)');
  });

  it('answers 409 for a fire not dispatched yet', async () => {
    const id = await pendingFire();
    expectError(await api.call('POST', `/api/v1/fires/${id}/kill`), 409, 'TW_ERR_CONFLICT');
  });

  it('answers 502 and records nothing when the executor cannot be reached', async () => {
    const fireId = await pendingFire();
    await api.store.fires.markDispatched([
      {
        fireId,
        triggerAt: api.clock.now(),
        executorAddress: await deadAddress(),
        triggerCode: 200,
        triggerMsg: 'ok',
      },
    ]);
    expectError(await api.call('POST', `/api/v1/fires/${fireId}/kill`), 502, 'TW_ERR_EXECUTOR_CALL_FAILED');
    expect((await api.store.fires.findFireById(fireId))?.status).toBe('dispatched');
  });
});
