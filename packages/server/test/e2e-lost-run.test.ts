import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ChildProcess,
  callServer,
  createApp,
  createJob,
  type E2eServer,
  firesOf,
  freePort,
  registerAddress,
  sleep,
  spawnExecutor,
  startServer,
  waitFor,
} from './helpers/e2e.js';
import { startMimic, type XxlMimic } from './helpers/xxl-mimic.js';

let server: E2eServer | undefined;
let executors: { process: ChildProcess; logDir: string }[] = [];
let mimic: XxlMimic | undefined;

afterEach(async () => {
  for (const executor of executors) {
    await executor.process.kill();
    await rm(executor.logDir, { recursive: true, force: true });
  }
  await mimic?.stop();
  await server?.close();
  server = undefined;
  executors = [];
  mimic = undefined;
});

describe('lost runs end to end', () => {
  it('fails the record of a run whose executor process was killed with SIGKILL mid-run', async () => {
    server = await startServer({
      executorDeadAfterMs: 1_000,
      lostRunAfterMs: 500,
      internal: { lostRunMonitorIntervalMs: 200 },
    });
    const executor = await spawnExecutor(server, 'e2e-lost', { TW_HEARTBEAT_MS: '300' });
    executors.push(executor);
    const appId = await createApp(server.store, 'e2e-lost');
    const job = await createJob(server.store, {
      app_id: appId,
      name: 'long run',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'sleep',
    });

    const { fireId } = await server.server.triggerJob({ jobId: job.id });
    await executor.process.waitForOutput(new RegExp(`running ${fireId}`));
    await executor.process.kill();

    await waitFor(async () => (await server!.store.fires.findFireById(fireId))?.status === 'failed', {
      what: 'the lost-run monitor to fail the record',
    });
    const fire = (await server.store.fires.findFireById(fireId))!;
    expect(fire.handle_code).toBe(500);
    expect(fire.handle_msg).toContain(`executor ${fire.executor_address} went offline`);
  });

  it('fails at once, and retries, the run of an executor that restarted at the same address mid-run', async () => {
    // Default rules otherwise: an executor counts as offline after 90 s, a run on it as lost a
    // minute later; the restart alone must fail the run, well within that.
    server = await startServer();
    const port = String(await freePort());
    const first = await spawnExecutor(server, 'e2e-restart', {
      TW_PORT: port,
      TW_HEARTBEAT_MS: '300',
    });
    executors.push(first);
    const appId = await createApp(server.store, 'e2e-restart');
    const job = await createJob(server.store, {
      app_id: appId,
      name: 'long run',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'sleep',
      executor_fail_retry_count: 1,
      retry_delay_seconds: 1,
    });

    const { fireId } = await server.server.triggerJob({ jobId: job.id });
    await first.process.waitForOutput(new RegExp(`running ${fireId}`));
    const accepted = (await server.store.fires.findFireById(fireId))!;
    expect(accepted.executor_instance).toMatch(/^[0-9a-f-]{36}$/);
    await first.process.kill();
    const restartedAt = Date.now();
    const second = await spawnExecutor(server, 'e2e-restart', {
      TW_PORT: port,
      TW_HEARTBEAT_MS: '300',
    });
    executors.push(second);
    expect(second.address).toBe(first.address);

    await waitFor(async () => (await server!.store.fires.findFireById(fireId))?.status === 'failed', {
      what: 'the restart to fail the record',
      timeoutMs: 20_000,
    });
    expect(Date.now() - restartedAt).toBeLessThan(60_000);
    const fire = (await server.store.fires.findFireById(fireId))!;
    expect(fire.handle_code).toBe(500);
    expect(fire.handle_msg).toContain(`executor ${first.address} restarted while the run was in progress`);
    expect(fire.handle_msg).toContain(`instance ${accepted.executor_instance} that accepted it is gone`);

    // The retry follows, and runs on the new instance.
    await waitFor(
      async () =>
        (await firesOf(server!.store, job.id)).some(
          (f) => f.trigger_type === 'RETRY' && f.parent_fire_id === fireId && f.status === 'dispatched',
        ),
      { what: 'the retry to be dispatched', timeoutMs: 20_000 },
    );
    const retry = (await firesOf(server.store, job.id)).find((f) => f.trigger_type === 'RETRY')!;
    await second.process.waitForOutput(new RegExp(`running ${retry.id}`));
    expect(retry.executor_instance).not.toBe(accepted.executor_instance);
  });

  it('asks an XXL-JOB executor (no instance id) with idleBeat after the grace: an idle one fails the run, a busy one keeps it; a late real result is still stored', async () => {
    server = await startServer({
      lostRunIdleGraceMs: 500,
      internal: { lostRunMonitorIntervalMs: 200 },
    });
    mimic = await startMimic({ generation: '2.x', accessToken: server.server.accessToken });
    await registerAddress(server.server, 'e2e-xxl', mimic.address);
    const appId = await createApp(server.store, 'e2e-xxl');
    const jobOf = (name: string) =>
      createJob(server!.store, {
        app_id: appId,
        name,
        schedule_type: 'NONE',
        schedule_conf: '',
        executor_handler: 'demo',
      });
    const idleJob = await jobOf('dropped run');
    const busyJob = await jobOf('long run');
    mimic.busyJobIds.add(busyJob.id);

    const { fireId: idleFire } = await server.server.triggerJob({ jobId: idleJob.id });
    const { fireId: busyFire } = await server.server.triggerJob({ jobId: busyJob.id });
    const dispatchedAt = Date.now();
    await waitFor(async () => (await server!.store.fires.findFireById(idleFire))?.status === 'failed', {
      what: 'the idle check to fail the record',
    });
    expect(Date.now() - dispatchedAt).toBeGreaterThanOrEqual(500);
    const failed = (await server.store.fires.findFireById(idleFire))!;
    expect(failed.executor_instance).toBeNull();
    expect(failed.handle_msg).toContain(`has no run of job ${idleJob.id} running or queued`);
    expect(mimic.requestsTo('/idleBeat').length).toBeGreaterThanOrEqual(2);

    await sleep(1_000);
    expect((await server.store.fires.findFireById(busyFire))?.status).toBe('dispatched');

    // The executor's callback was only late: its result replaces the failure.
    const answer = await callServer(server.server, 'callback', [
      { logId: idleFire, logDateTim: failed.scheduled_at, handleCode: 200, handleMsg: 'done after all' },
    ]);
    expect(answer.code).toBe(200);
    await waitFor(async () => (await server!.store.fires.findFireById(idleFire))?.status === 'succeeded', {
      what: 'the late result to be stored',
    });
    expect(await server.store.fires.findFireById(idleFire)).toMatchObject({
      handle_code: 200,
      handle_msg: 'done after all',
      lost_at: null,
    });
  });
});
