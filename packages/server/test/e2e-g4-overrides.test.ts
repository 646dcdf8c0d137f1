/**
 * A run triggered once with an address list, sent to an XXL-JOB 3.5 (G4) executor: the server
 * must speak G4 to it (`trigger` with `XXL-JOB-APPNAME`), as it does when it routes a fire there,
 * also when a restart re-sends the stored list. The Tickwheel executor in G4 mode refuses the
 * 2.x `run` without the app name header exactly as a 3.5 executor does.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FireRow, openStore } from '../src/store/index.js';
import {
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  freePort,
  startExecutor,
  startServer,
  tempDir,
  waitFor,
} from './helpers/e2e.js';

const APP = 'e2e-g4-fleet';

let server: E2eServer | undefined;
const executors: E2eExecutor[] = [];
const dataDirs: string[] = [];

afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
  await server?.close();
  server = undefined;
  for (const dir of dataDirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function g4Executor(ran: number[]): Promise<E2eExecutor> {
  const executor = await startExecutor(
    server!.server,
    APP,
    (ex) =>
      ex.handle('where', (ctx) => {
        ran.push(ctx.logId);
        return 'ran on the 3.5 executor';
      }),
    { protocol: 'G4' },
  );
  executors.push(executor);
  return executor;
}

async function jobOnApp() {
  const appId = await createApp(server!.store, APP);
  return createJob(server!.store, {
    app_id: appId,
    name: 'runs on a 3.5 executor',
    schedule_type: 'NONE',
    schedule_conf: '',
    executor_handler: 'where',
    executor_route_strategy: 'FIRST',
    misfire_strategy: 'FIRE_ONCE_NOW',
  });
}

async function settled(fireId: number): Promise<FireRow> {
  let fire: FireRow | undefined;
  await waitFor(
    async () => {
      fire = await server!.store.fires.findFireById(fireId);
      return fire !== undefined && !['pending', 'dispatched', 'running'].includes(fire.status);
    },
    { what: `fire ${fireId} settled` },
  );
  return fire!;
}

describe('a trigger-once address list naming a G4 executor', () => {
  it('is sent the 3.5 way (trigger with XXL-JOB-APPNAME) and runs', async () => {
    server = await startServer();
    const ran: number[] = [];
    const executor = await g4Executor(ran);
    const job = await jobOnApp();

    const { fireId } = await server.server.triggerJob({ jobId: job.id, addressList: [executor.address] });

    const fire = await settled(fireId);
    expect(fire.trigger_msg).not.toContain('appname is empty');
    expect(fire).toMatchObject({
      status: 'succeeded',
      executor_address: executor.address,
      handle_msg: 'ran on the 3.5 executor',
    });
    expect(ran).toEqual([fireId]);
  });

  it('is sent the 3.5 way when a restart re-sends the stored list', async () => {
    const dataDir = await tempDir();
    dataDirs.push(dataDir);
    const port = await freePort();
    server = await startServer({ port }, dataDir);
    const ran: number[] = [];
    const executor = await g4Executor(ran);
    const job = await jobOnApp();
    await server.server.stop();

    // A trigger-once record the stopped server left pending, with its address list.
    const store = await openStore({ database: `sqlite:${path.join(dataDir, 'tickwheel.db')}` });
    const [fireId] = await store.fires.createFires(
      [
        {
          jobId: job.id,
          appId: job.app_id,
          scheduledAt: Date.now(),
          triggerType: 'API',
          executorHandler: 'where',
          executorParam: '',
          addressOverride: [executor.address],
        },
      ],
      Date.now(),
    );
    await store.close();

    // Same port: the executor's callbacks and heartbeats reach the restarted server.
    server = await startServer({ port }, dataDir);
    const fire = await settled(fireId!);
    expect(fire.trigger_msg).not.toContain('appname is empty');
    expect(fire).toMatchObject({ status: 'succeeded', executor_address: executor.address });
    expect(ran).toEqual([fireId]);
  });
});
