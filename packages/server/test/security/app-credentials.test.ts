/**
 * A credential per app, end to end with real Tickwheel executors: an app's token registers,
 * calls back and is called for that app only; the installation token only for the apps still in
 * compatibility mode; a rotation keeps the old token working until its overlap ends.
 */
import { randomBytes } from 'node:crypto';
import { ACCESS_TOKEN_HEADER, CALLBACK_ADDRESS_HEADER, type ReturnT } from '@tickwheel/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import {
  createJob,
  E2E_TOKEN,
  type E2eExecutor,
  type E2eServer,
  firesOf,
  startExecutor,
  startServer,
  waitFor,
} from '../helpers/e2e.js';

let server: E2eServer | undefined;
const executors: E2eExecutor[] = [];

afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
  await server?.close();
  server = undefined;
});

/** An AUTO app with a token of its own (what createApp makes); returns its id and token. */
async function appWithToken(store: Store, appName: string): Promise<{ id: number; token: string }> {
  const token = randomBytes(32).toString('base64url');
  const row = await store.apps.createApp(
    { appName, title: appName, addressType: 'AUTO', accessToken: token },
    Date.now(),
  );
  return { id: row.id, token };
}

/** An executor-API call as an executor makes it. */
async function executorCall(
  call: string,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<ReturnT<unknown>> {
  const response = await fetch(`${server!.server.url}api/${call}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', [ACCESS_TOKEN_HEADER]: token, ...headers },
    body: JSON.stringify(body),
  });
  return (await response.json()) as ReturnT<unknown>;
}

function registration(appName: string, address: string) {
  return { registryGroup: 'EXECUTOR', registryKey: appName, registryValue: address };
}

/** A job of `appId` on `* * * * * ?` running `handler`, in turn on the app's executors. */
function everySecond(store: Store, appId: number, handler: string) {
  return createJob(store, {
    app_id: appId,
    name: handler,
    executor_handler: handler,
    executor_route_strategy: 'ROUND',
    schedule_type: 'CRON',
    schedule_conf: '* * * * * ?',
  });
}

async function succeeded(store: Store, jobId: number, address?: string): Promise<number> {
  return (await firesOf(store, jobId)).filter(
    (f) => f.status === 'succeeded' && (address === undefined || f.executor_address === address),
  ).length;
}

describe('a credential per app', () => {
  it('a token of app A cannot register an executor under app B, nor remove one', async () => {
    server = await startServer();
    const { store } = server;
    const a = await appWithToken(store, 'app-a');
    const b = await appWithToken(store, 'app-b');

    const forged = await executorCall('registry', a.token, registration('app-b', 'http://127.0.0.1:1/'));
    expect(forged).toMatchObject({ code: 500, msg: "The access token is wrong for app 'app-b'." });
    expect(await store.registry.listAlive(0, 'app-b')).toEqual([]);

    expect(
      await executorCall('registry', b.token, registration('app-b', 'http://127.0.0.1:1/')),
    ).toMatchObject({
      code: 200,
    });
    const removal = await executorCall(
      'registryRemove',
      a.token,
      registration('app-b', 'http://127.0.0.1:1/'),
    );
    expect(removal.code).toBe(500);
    expect((await store.registry.listAlive(0, 'app-b')).map((r) => r.registry_value)).toEqual([
      'http://127.0.0.1:1/',
    ]);
    // A token nobody has is refused as XXL-JOB refuses it.
    expect(await executorCall('registry', 'not-a-token', registration('app-b', 'http://x:1/'))).toMatchObject(
      {
        code: 500,
        msg: 'The access token is wrong.',
      },
    );
  });

  it("the server calls each app's executors with that app's token, and each runs its own jobs", async () => {
    server = await startServer();
    const { store } = server;
    const a = await appWithToken(store, 'app-a');
    const b = await appWithToken(store, 'app-b');
    // Each executor takes calls with its own app's token only.
    const exA = await startExecutor(server.server, 'app-a', (ex) => ex.handle('a', async () => 'a'), {
      accessToken: a.token,
    });
    const exB = await startExecutor(server.server, 'app-b', (ex) => ex.handle('b', async () => 'b'), {
      accessToken: b.token,
    });
    executors.push(exA, exB);
    const jobA = await everySecond(store, a.id, 'a');
    const jobB = await everySecond(store, b.id, 'b');
    await waitFor(
      async () => (await succeeded(store, jobA.id)) >= 2 && (await succeeded(store, jobB.id)) >= 2,
      {
        what: 'two succeeded runs of each app',
      },
    );
    const failed = [...(await firesOf(store, jobA.id)), ...(await firesOf(store, jobB.id))].filter(
      (f) => f.status === 'failed' || f.status === 'dispatch_failed',
    );
    expect(failed.map((f) => [f.status, f.trigger_msg, f.handle_msg])).toEqual([]);
  });

  it("a token of app A cannot finish app B's runs, nor can one executor of B finish another's", async () => {
    server = await startServer();
    const { store } = server;
    const a = await appWithToken(store, 'app-a');
    const b = await appWithToken(store, 'app-b');
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const exB = await startExecutor(
      server.server,
      'app-b',
      (ex) =>
        ex.handle('slow', async () => {
          await held;
          return 'real';
        }),
      { accessToken: b.token },
    );
    executors.push(exB);
    const job = await createJob(store, {
      app_id: b.id,
      name: 'slow',
      executor_handler: 'slow',
      schedule_type: 'NONE',
      schedule_conf: '',
    });
    const { fireId } = await server.server.triggerJob({ jobId: job.id });
    await waitFor(async () => (await store.fires.findFireById(fireId))?.status === 'dispatched', {
      what: 'the run accepted',
    });
    const forgedResult = [{ logId: fireId, logDateTim: Date.now(), handleCode: 200, handleMsg: 'forged' }];

    // The servers answer 200 (as XXL-JOB's do for an unknown logId) and take nothing.
    expect((await executorCall('callback', a.token, forgedResult)).code).toBe(200);
    expect((await executorCall('callback', E2E_TOKEN, forgedResult)).code).toBe(200);
    expect(
      (
        await executorCall('callback', b.token, forgedResult, {
          [CALLBACK_ADDRESS_HEADER]: 'http://127.0.0.1:2/',
        })
      ).code,
    ).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await store.fires.findFireById(fireId))?.status).toBe('dispatched');

    release();
    await waitFor(async () => (await store.fires.findFireById(fireId))?.status === 'succeeded', {
      what: 'the real result',
    });
    expect((await store.fires.findFireById(fireId))?.handle_msg).toBe('real');
  });

  it('the installation token works for an app in compatibility mode only', async () => {
    server = await startServer();
    const { store } = server;
    const own = await appWithToken(store, 'own-app');
    // An app as every app was before per-app tokens: no token of its own.
    const legacy = await store.apps.createApp(
      { appName: 'legacy-app', title: 'legacy', addressType: 'AUTO' },
      Date.now(),
    );
    expect(
      await executorCall('registry', E2E_TOKEN, registration('own-app', 'http://127.0.0.1:3/')),
    ).toMatchObject({
      code: 500,
      msg: "The access token is wrong for app 'own-app'.",
    });
    const exLegacy = await startExecutor(server.server, 'legacy-app', (ex) =>
      ex.handle('l', async () => 'l'),
    );
    executors.push(exLegacy);
    const job = await everySecond(store, legacy.id, 'l');
    await waitFor(async () => (await succeeded(store, job.id)) >= 2, { what: 'runs of the legacy app' });
    expect(own.id).not.toBe(legacy.id);
  });

  it('after a rotation the old token works until the overlap ends, then its executor is refused and skipped', async () => {
    server = await startServer({ internal: { registryMonitorIntervalMs: 200 } });
    const { store } = server;
    const app = await appWithToken(store, 'rotating');
    const oldEx = await startExecutor(server.server, 'rotating', (ex) => ex.handle('r', async () => 'old'), {
      accessToken: app.token,
    });
    executors.push(oldEx);
    const job = await everySecond(store, app.id, 'r');
    await waitFor(async () => (await succeeded(store, job.id, oldEx.address)) >= 1, {
      what: 'a run on the old token',
    });

    const newToken = randomBytes(32).toString('base64url');
    const overlapEnds = Date.now() + 3_000;
    expect(await store.apps.rotateAppToken(app.id, newToken, overlapEnds, Date.now())).toBe(true);
    const newEx = await startExecutor(server.server, 'rotating', (ex) => ex.handle('r', async () => 'new'), {
      accessToken: newToken,
    });
    executors.push(newEx);

    // During the overlap both executors register and are called, each with its own token.
    const before = await succeeded(store, job.id, oldEx.address);
    await waitFor(async () => (await succeeded(store, job.id, oldEx.address)) > before, {
      what: 'a run on the old token during the overlap',
    });
    await waitFor(async () => (await succeeded(store, job.id, newEx.address)) >= 1, {
      what: 'a run on the new token',
    });

    // After it: the old token is refused and its executor is no longer dispatched to.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, overlapEnds - Date.now()) + 500));
    expect(await executorCall('registry', app.token, registration('rotating', oldEx.address))).toMatchObject({
      code: 500,
      msg: 'The access token is wrong.',
    });
    const after = Date.now() + 1_000;
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const late = (await firesOf(store, job.id)).filter((f) => (f.trigger_at ?? 0) >= after);
    expect(late.length).toBeGreaterThan(0);
    expect(late.every((f) => f.executor_address === newEx.address && f.status === 'succeeded')).toBe(true);
  });
});
