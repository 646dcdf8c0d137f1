import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../src/store/index.js';
import {
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  firesOf,
  freePort,
  startExecutor,
  startServer,
  tempDir,
  waitFor,
} from './helpers/e2e.js';

let server: E2eServer | undefined;
let executor: E2eExecutor | undefined;
let dataDir: string;

afterEach(async () => {
  await executor?.close();
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
  server = undefined;
  executor = undefined;
});

describe('graceful shutdown end to end', () => {
  it('leaves the claimed fires pending at stop, and the next start runs each of them once', async () => {
    dataDir = await tempDir();
    const options = { port: await freePort(), lookAheadMs: 3_000 };
    server = await startServer(options, dataDir);
    const runs: number[] = [];
    executor = await startExecutor(server.server, 'e2e-shutdown', (ex) =>
      ex.handle('tick', async (ctx) => {
        runs.push(ctx.logDateTime);
      }),
    );
    const appId = await createApp(server.store, 'e2e-shutdown');
    const job = await createJob(server.store, {
      app_id: appId,
      name: 'every second',
      schedule_type: 'CRON',
      schedule_conf: '* * * * * ?',
      executor_handler: 'tick',
    });
    await waitFor(
      async () => (await firesOf(server!.store, job.id)).filter((f) => f.status === 'pending').length >= 2,
      {
        what: 'fires claimed ahead',
      },
    );

    await server.server.stop();
    const stopped = await openStore({ database: `sqlite:${path.join(dataDir, 'tickwheel.db')}` });
    const pendingAtStop = (await firesOf(stopped, job.id)).filter((f) => f.status === 'pending');
    await stopped.close();
    server = await startServer(options, dataDir);
    const last = Math.max(...pendingAtStop.map((f) => f.scheduled_at));
    await waitFor(() => runs.some((at) => at > last), {
      timeoutMs: 6_000,
      what: 'the runs after the restart',
    });

    expect(pendingAtStop.length).toBeGreaterThan(0);
    for (const fire of pendingAtStop) expect(runs.filter((at) => at === fire.scheduled_at)).toHaveLength(1);
    expect(new Set(runs).size).toBe(runs.length);
  });
});
