/**
 * What a finished run owes survives the server node that owed it, end to end on SQLite: an alarm
 * queued on a server process killed with SIGKILL is sent again by the next server (once), and
 * the child jobs of a success whose node died before firing them are fired by a live server
 * (once), with real executors and a real alarm receiver on loopback.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Answer, type HttpReceiver, startHttpReceiver } from '@tickwheel/test-fixtures/alarm-receivers';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ALARM_STATUS } from '../src/alarms/alarm-status.js';
import { openStore, type Store } from '../src/store/index.js';
import {
  ChildProcess,
  createApp,
  createJob,
  E2E_TOKEN,
  type E2eExecutor,
  type E2eServer,
  firesOf,
  sleep,
  startExecutor,
  startServer,
  tempDir,
  waitFor,
} from './helpers/e2e.js';

const SERVER_PROCESS = fileURLToPath(new URL('./fixtures/server-process.mjs', import.meta.url));
const SERVER_DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const ADMIN_TOKEN = 'tw_e2e-owed-admin-token-0123456789';
const HOLD_MS = 1_500;

let dataDir: string | undefined;
let seedStore: Store | undefined;
let server: E2eServer | undefined;
const closers: Array<() => Promise<void>> = [];

beforeAll(() => {
  if (!existsSync(SERVER_DIST)) throw new Error(`${SERVER_DIST} is missing: run \`npx tsc -b\` first`);
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await server?.close();
  server = undefined;
  await seedStore?.close();
  seedStore = undefined;
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

async function started<T extends { close(): Promise<void> }>(thing: Promise<T>): Promise<T> {
  const value = await thing;
  closers.push(() => value.close());
  return value;
}

async function rest(baseUrl: string, method: string, urlPath: string, body?: unknown) {
  const response = await fetch(`${baseUrl}api/v1${urlPath}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

describe('owed alarms and child jobs end to end', () => {
  it('an alarm queued on a server killed with SIGKILL is sent again by the next server, once', async () => {
    dataDir = await tempDir();
    let answer: Answer = 'hang';
    const receiver: HttpReceiver = await started(startHttpReceiver(() => answer));
    const first = new ChildProcess([SERVER_PROCESS], {
      TW_DATA_DIR: dataDir,
      TW_TOKEN: E2E_TOKEN,
      TW_API_TOKEN: ADMIN_TOKEN,
      TW_ALARMS: JSON.stringify({ holdMs: HOLD_MS, sendTimeoutMs: 60_000, maxAttempts: 1 }),
    });
    closers.push(() => first.kill());
    const [, url] = await first.waitForOutput(/listening (\S+)/);
    const channel = await rest(url!, 'POST', '/alarm-channels', {
      name: 'ops-hook',
      type: 'WEBHOOK',
      config: { url: `${receiver.url}/alarms` },
    });
    expect(channel.status).toBe(201);
    seedStore = await openStore({ database: `sqlite:${path.join(dataDir, 'tickwheel.db')}` });
    // No executor of the app is online: the trigger's dispatch fails, and that failure alarms.
    const appId = await createApp(seedStore, 'e2e-owed-alarms');
    const job = await createJob(seedStore, {
      app_id: appId,
      name: 'nightly report',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'report',
      alarm_channel_ids: String(channel.json.id),
    });
    expect((await rest(url!, 'POST', `/jobs/${job.id}/trigger`, {})).status).toBeLessThan(300);
    await waitFor(() => receiver.requests.length === 1, { what: 'the first server sent the alarm' });
    const [fire] = await firesOf(seedStore, job.id);
    expect(fire).toMatchObject({ status: 'dispatch_failed', alarm_status: ALARM_STATUS.PENDING });

    // The channel has not answered when the server dies: the alarm is owed, held by nobody.
    await first.kill();
    answer = { status: 204 };
    server = await startServer(
      { apiToken: ADMIN_TOKEN, internal: { alarms: { holdMs: HOLD_MS }, owedAlarmMonitorIntervalMs: 200 } },
      dataDir,
    );

    await waitFor(
      async () => (await server!.store.fires.findFireById(fire!.id))?.alarm_status === ALARM_STATUS.SENT,
      { what: 'the next server sent the alarm again', timeoutMs: 15_000 },
    );
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]!.json).toMatchObject({ event: 'alarm', fire: { id: fire!.id } });
    expect(receiver.requests[1]!.json.reason).toContain('sent again');
    expect((await rest(server.server.url, 'GET', `/fires/${fire!.id}`)).json).toMatchObject({
      alarmStatus: 'SENT',
      alarmMsg: 'WEBHOOK ops-hook: sent',
    });
    // Several holds and sweeps later, still sent once by each server.
    await sleep(3 * HOLD_MS);
    expect(receiver.requests).toHaveLength(2);
  });

  it('the child jobs a success owes when its node died before firing them are fired by a live server, once', async () => {
    server = await startServer({ internal: { owedChildrenMonitorIntervalMs: 200 } });
    const childRuns: number[] = [];
    const executor: E2eExecutor = await started(
      startExecutor(server.server, 'e2e-owed-children', (ex) => {
        ex.handle('child', async (ctx) => {
          childRuns.push(ctx.logId);
          return 'child ran';
        });
      }),
    );
    expect(executor.address).toMatch(/^http:/);
    const { store } = server;
    const appId = await createApp(store, 'e2e-owed-children');
    const none = { schedule_type: 'NONE', schedule_conf: '' };
    const child = await createJob(store, {
      app_id: appId,
      name: 'child',
      executor_handler: 'child',
      ...none,
    });
    const parent = await createJob(store, {
      app_id: appId,
      name: 'parent',
      executor_handler: 'parent',
      child_job_ids: String(child.id),
      ...none,
    });
    // What a node that died right after writing the parent's result leaves: the record is
    // finished (a minute ago, past the result hook's grace), its child job owed, not fired.
    const ranAt = Date.now() - 60_000;
    const [parentFireId] = await store.fires.createFires(
      [
        {
          jobId: parent.id,
          appId,
          scheduledAt: ranAt,
          triggerType: 'MANUAL',
          executorHandler: 'parent',
          executorParam: '',
        },
      ],
      ranAt,
    );
    const finished = await store.fires.finishFires([
      { fireId: parentFireId!, handleCode: 200, handleMsg: 'parent ran', handleAt: ranAt },
    ]);
    expect(finished.map((f) => f.childrenOwed)).toEqual([true]);

    await waitFor(async () => (await firesOf(store, child.id)).some((f) => f.status === 'succeeded'), {
      what: 'the owed child job ran',
    });
    await sleep(1_000);
    const childFires = await firesOf(store, child.id);
    expect(childFires).toHaveLength(1);
    expect(childFires[0]).toMatchObject({
      trigger_type: 'PARENT',
      triggered_by_fire_id: parentFireId,
      handle_msg: 'child ran',
    });
    expect(childRuns).toEqual([childFires[0]!.id]);
  });
});
