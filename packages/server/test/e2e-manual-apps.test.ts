/**
 * MANUAL apps end to end: the app's typed address list is where its fires go, with no
 * registration needed (as an XXL-JOB executor group with 手动录入 addresses works), through the
 * REST API as the console uses it.
 *
 * The listed executors hold the app's executor token: its own (answered by createApp), or, for an
 * app in compatibility mode, the installation-wide one — which is how an executor registered under
 * another app name with that token can be listed, as in XXL-JOB.
 */
import { createExecutor, type Executor } from '@tickwheel/executor';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { FireRow } from '../src/store/index.js';
import {
  type E2eExecutor,
  type E2eServer,
  freePort,
  startExecutor,
  startServer,
  tempDir,
  waitFor,
} from './helpers/e2e.js';

const API_TOKEN = 'e2e-manual-apps-token-0123456789abcdef';
/** Nothing listens on port 1 of the loopback: a call there is refused at once. */
const DEAD_ADDRESS = 'http://127.0.0.1:1/';

let server: E2eServer | undefined;
const executors: E2eExecutor[] = [];
const bareExecutors: Executor[] = [];

afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
  for (const executor of bareExecutors.splice(0)) await executor.stop({ timeoutMs: 0 });
  await server?.close();
  server = undefined;
});

/** The parts of the REST API's answers these tests read. */
interface Answer {
  id: number;
  accessToken: string | null;
  fireIds: number[];
  onlineAddresses: string[];
  items: Array<{
    id: number;
    onlineAddresses: string[];
    address: string;
    protocol: string;
    lastBeatAt: number | null;
  }>;
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; json: Answer }> {
  const response = await fetch(new URL(path, server!.server.url), {
    method,
    headers: {
      authorization: `Bearer ${API_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

/**
 * A MANUAL app listing `addresses` and a job of it on `route`, created through the REST API; in
 * compatibility mode unless `ownToken` (then `accessToken` is its token).
 */
async function manualAppWithJob(addresses: string[], route = 'FIRST', ownToken = false) {
  const app = await api('POST', '/api/v1/apps', {
    appName: `manual-${Math.random().toString(36).slice(2, 8)}`,
    title: 'Listed by hand',
    addressType: 'MANUAL',
    addressList: addresses,
    ...(ownToken ? {} : { useInstallationToken: true }),
  });
  expect(app.status).toBe(201);
  const job = await api('POST', '/api/v1/jobs', {
    appId: app.json.id,
    name: 'runs where the app lists',
    scheduleType: 'NONE',
    executorHandler: 'where',
    executorRouteStrategy: route,
  });
  expect(job.status).toBe(201);
  return { appId: app.json.id, jobId: job.json.id, accessToken: app.json.accessToken };
}

async function triggerAndSettle(jobId: number): Promise<FireRow> {
  const triggered = await api('POST', `/api/v1/jobs/${jobId}/trigger`, {});
  expect(triggered.status).toBe(200);
  const fireId = triggered.json.fireIds[0]!;
  let fire: FireRow | undefined;
  await waitFor(
    async () => {
      fire = await server!.store.fires.findFireById(fireId);
      return fire?.status === 'succeeded' || fire?.status === 'failed' || fire?.status === 'dispatch_failed';
    },
    { what: `fire ${fireId} settled` },
  );
  return fire!;
}

describe('a MANUAL app', () => {
  it('runs its job on a listed executor that registered only under another app name', async () => {
    server = await startServer({ apiToken: API_TOKEN });
    const ran: number[] = [];
    const executor = await startExecutor(server.server, 'some-other-app', (ex) =>
      ex.handle('where', (ctx) => {
        ran.push(ctx.logId);
        return 'ran on the listed executor';
      }),
    );
    executors.push(executor);
    const { jobId } = await manualAppWithJob([executor.address]);

    const fire = await triggerAndSettle(jobId);

    expect(fire.status).toBe('succeeded');
    expect(fire.executor_address).toBe(executor.address);
    expect(fire.handle_msg).toBe('ran on the listed executor');
    expect(ran).toEqual([fire.id]);
  });

  it('dispatches to a listed executor that never registered anywhere, with the app’s own token', async () => {
    server = await startServer({ apiToken: API_TOKEN });
    const ran: number[] = [];
    const logDir = await tempDir('tw-e2e-executor-');
    // The app is created first, listing the address the executor will take: its token is known then.
    const port = await freePort();
    const { jobId, accessToken } = await manualAppWithJob([`http://127.0.0.1:${port}/`], 'FIRST', true);
    expect(accessToken).toEqual(expect.any(String));
    // No server addresses: it registers nowhere (and keeps its results in its run logs).
    const loner = createExecutor({
      appName: 'unregistered',
      accessToken: accessToken!,
      host: '127.0.0.1',
      port,
      logDir,
      logger: pino({ level: 'silent' }),
    });
    loner.handle('where', (ctx) => {
      ran.push(ctx.logId);
    });
    await loner.start();
    bareExecutors.push(loner);

    const triggered = await api('POST', `/api/v1/jobs/${jobId}/trigger`, {});
    const fireId = triggered.json.fireIds[0]!;

    await waitFor(() => ran.length === 1, { what: 'the run on the unregistered executor' });
    expect(ran).toEqual([fireId]);
    // The dispatch mark is written in a batch after the executor took the run: it may come a
    // moment after the run itself on a loaded machine.
    await waitFor(async () => (await server.store.fires.findFireById(fireId))?.status !== 'pending', {
      what: 'the dispatch mark of the run',
    });
    const fire = await server.store.fires.findFireById(fireId);
    expect(fire).toMatchObject({ status: 'dispatched', executor_address: loner.address, trigger_code: 200 });
  });

  it('with its own token, is refused by a listed executor holding another token, and the fire says so', async () => {
    server = await startServer({ apiToken: API_TOKEN });
    const ran: number[] = [];
    const executor = await startExecutor(server.server, 'holds-the-installation-token', (ex) =>
      ex.handle('where', (ctx) => {
        ran.push(ctx.logId);
      }),
    );
    executors.push(executor);
    const { jobId } = await manualAppWithJob([executor.address], 'FIRST', true);

    const fire = await triggerAndSettle(jobId);

    expect(fire.status).toBe('dispatch_failed');
    expect(fire.trigger_msg).toContain('The access token is wrong.');
    expect(ran).toEqual([]);
  });

  it('shows its listed addresses as its online executors in the API', async () => {
    server = await startServer({ apiToken: API_TOKEN });
    const listed = ['http://10.0.0.8:9999/', 'http://10.0.0.9:9999/'];
    const { appId } = await manualAppWithJob(listed);

    const one = await api('GET', `/api/v1/apps/${appId}`);
    expect(one.json.onlineAddresses).toEqual(listed);
    const all = await api('GET', '/api/v1/apps');
    expect(all.json.items.find((a) => a.id === appId)?.onlineAddresses).toEqual(listed);
  });

  it('lists its typed addresses as its executors, with the registration of those that register elsewhere', async () => {
    server = await startServer({ apiToken: API_TOKEN });
    const executor = await startExecutor(server.server, 'registers-elsewhere', (ex) =>
      ex.handle('where', () => 'picked in the trigger'),
    );
    executors.push(executor);
    const { appId, jobId } = await manualAppWithJob([DEAD_ADDRESS, executor.address]);

    const listed = await api('GET', `/api/v1/apps/${appId}/executors`);

    expect(listed.status).toBe(200);
    expect(listed.json.items).toEqual([
      { address: DEAD_ADDRESS, protocol: 'G2', lastBeatAt: null, transport: 'http' },
      { address: executor.address, protocol: 'G2', lastBeatAt: expect.any(Number), transport: 'http' },
    ]);
    // The trigger dialog offers these; choosing the live one runs there.
    const triggered = await api('POST', `/api/v1/jobs/${jobId}/trigger`, { addressList: [executor.address] });
    expect(triggered.status).toBe(200);
    await waitFor(
      async () =>
        (await server!.store.fires.findFireById(triggered.json.fireIds[0]!))?.status === 'succeeded',
      { what: 'the run on the chosen listed executor' },
    );
  });

  it('FAILOVER skips a listed address that does not answer its beat', async () => {
    server = await startServer({ apiToken: API_TOKEN });
    const executor = await startExecutor(server.server, 'failover-target', (ex) =>
      ex.handle('where', () => 'the live one'),
    );
    executors.push(executor);
    // The dead address sorts first, so FAILOVER beats it first.
    expect(DEAD_ADDRESS < executor.address).toBe(true);
    const { jobId } = await manualAppWithJob([DEAD_ADDRESS, executor.address], 'FAILOVER');

    const fire = await triggerAndSettle(jobId);

    expect(fire.status).toBe('succeeded');
    expect(fire.executor_address).toBe(executor.address);
    expect(fire.trigger_msg).toContain(DEAD_ADDRESS);
    expect(fire.handle_msg).toBe('the live one');
  });
});
