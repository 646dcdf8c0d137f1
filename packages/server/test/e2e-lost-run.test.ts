import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ChildProcess,
  createApp,
  createJob,
  type E2eServer,
  spawnExecutor,
  startServer,
  waitFor,
} from './helpers/e2e.js';

let server: E2eServer | undefined;
let executor: { process: ChildProcess; logDir: string } | undefined;

afterEach(async () => {
  await executor?.process.kill();
  if (executor) await rm(executor.logDir, { recursive: true, force: true });
  await server?.close();
  server = undefined;
  executor = undefined;
});

describe('lost runs end to end', () => {
  it('fails the record of a run whose executor process was killed with SIGKILL mid-run', async () => {
    server = await startServer({
      executorDeadAfterMs: 1_000,
      lostRunAfterMs: 500,
      internal: { lostRunMonitorIntervalMs: 200 },
    });
    executor = await spawnExecutor(server.server, 'e2e-lost', { TW_HEARTBEAT_MS: '300' });
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
});
