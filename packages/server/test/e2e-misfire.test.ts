/**
 * Misfire policies after the server was down longer than the misfire window: the server stops
 * (its claimed fires stay pending), the pause passes, the server starts again on the same data
 * dir and port, and each job follows its policy.
 */
import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  firesOf,
  freePort,
  sleep,
  startExecutor,
  startServer,
  tempDir,
  waitFor,
} from './helpers/e2e.js';

const WINDOW_MS = 500;
const PAUSE_MS = 2_500;

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

interface Run {
  jobId: number;
  logId: number;
  scheduledAt: number;
  startedAt: number;
}

/**
 * Runs an every-second job with `strategy`, stops the server for longer than the window, starts
 * it again, and returns the fires and runs scheduled while it was down (and more than the window
 * before the restart).
 */
async function pauseLongerThanTheWindow(strategy: string) {
  dataDir = await tempDir();
  const port = await freePort();
  const options = { port, misfireWindowMs: WINDOW_MS };
  server = await startServer(options, dataDir);
  const runs: Run[] = [];
  executor = await startExecutor(server.server, 'e2e-misfire', (ex) =>
    ex.handle('tick', async (ctx) => {
      runs.push({ jobId: ctx.jobId, logId: ctx.logId, scheduledAt: ctx.logDateTime, startedAt: Date.now() });
    }),
  );
  const appId = await createApp(server.store, 'e2e-misfire');
  const job = await createJob(server.store, {
    app_id: appId,
    name: strategy,
    schedule_type: 'CRON',
    schedule_conf: '* * * * * ?',
    executor_handler: 'tick',
    misfire_strategy: strategy,
  });
  await waitFor(() => runs.length > 0, { what: 'the job running' });

  await server.server.stop();
  const stoppedAt = Date.now();
  await sleep(PAUSE_MS);
  const restartedAt = Date.now();
  server = await startServer(options, dataDir);
  await waitFor(() => runs.some((r) => r.scheduledAt > restartedAt), { what: 'the job back on schedule' });

  const missed = (at: number) => at > stoppedAt && at < restartedAt - WINDOW_MS;
  // The missed fires' results come back with the on-time ones: wait until each is final.
  const unsettled = new Set(['pending', 'dispatched']);
  await waitFor(
    async () =>
      (await firesOf(server!.store, job.id)).every(
        (f) => !missed(f.scheduled_at) || !unsettled.has(f.status),
      ),
    { what: 'the missed fires settled' },
  );
  return {
    restartedAt,
    fires: (await firesOf(server.store, job.id)).filter((f) => missed(f.scheduled_at)),
    runs: runs.filter((r) => missed(r.scheduledAt)),
  };
}

describe('misfire end to end', () => {
  it('DO_NOTHING skips every fire missed by more than the window and records why', async () => {
    const missed = await pauseLongerThanTheWindow('DO_NOTHING');

    expect(missed.fires.length).toBeGreaterThan(0);
    for (const fire of missed.fires) {
      expect(fire.status).toBe('skipped');
      expect(fire.handle_msg).toMatch(/misfire/i);
    }
    expect(missed.runs).toEqual([]);
  });

  it('FIRE_ONCE_NOW fires once at the restart for everything it missed', async () => {
    const missed = await pauseLongerThanTheWindow('FIRE_ONCE_NOW');

    expect(missed.runs).toHaveLength(1);
    const [run] = missed.runs;
    expect(run!.startedAt).toBeGreaterThanOrEqual(missed.restartedAt);
    expect(missed.fires.filter((f) => f.status === 'succeeded').map((f) => f.id)).toEqual([run!.logId]);
    for (const fire of missed.fires.filter((f) => f.id !== run!.logId)) expect(fire.status).toBe('skipped');
  });
});
