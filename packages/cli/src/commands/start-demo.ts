/**
 * `tickwheel start --demo`: an executor inside the server's process and a few jobs for it, so a
 * fresh server has something alive to look at. The jobs are created at the first demo start only
 * (when the demo app does not exist yet), so a user's changes to them survive restarts. The demo
 * app has an executor token of its own, as every new app does; a demo app an earlier version made
 * keeps the installation-wide one (compatibility mode) until a rotation.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createExecutor, type Executor, type JobContext } from '@tickwheel/executor';
import { nextFireTimes } from '@tickwheel/protocol';
import type { TickwheelServer } from '@tickwheel/server';
import { type NewJob, storeOf } from '@tickwheel/server/internal';

export const DEMO_APP = 'tickwheel-demo';

/** The demo jobs: what each shows, and its schedule. */
const DEMO_JOBS: ReadonlyArray<NewJob & { schedule_type: string; schedule_conf: string }> = [
  {
    app_id: 0,
    name: 'Say hello every 5 seconds',
    schedule_type: 'CRON',
    schedule_conf: '*/5 * * * * ?',
    executor_handler: 'say-hello',
  },
  {
    app_id: 0,
    name: 'Count to 3 every 12 seconds (fixed rate)',
    schedule_type: 'FIX_RATE',
    schedule_conf: '12',
    executor_handler: 'count-to',
    executor_param: '3',
  },
  {
    app_id: 0,
    name: 'Sweep the shards every 30 seconds (broadcast)',
    schedule_type: 'CRON',
    schedule_conf: '*/30 * * * * ?',
    executor_route_strategy: 'SHARDING_BROADCAST',
    executor_handler: 'sweep-shard',
  },
  {
    app_id: 0,
    name: 'Greet someone every minute (with a parameter)',
    schedule_type: 'CRON',
    schedule_conf: '0 * * * * ?',
    executor_handler: 'greet',
    executor_param: 'Tickwheel',
  },
];

/** Starts the demo executor against `server` (its run logs under `<dataDir>/demo-logs`). */
export async function startDemoExecutor(server: TickwheelServer, dataDir: string): Promise<Executor> {
  const app = await storeOf(server).apps.findAppByName(DEMO_APP);
  const executor = createExecutor({
    appName: DEMO_APP,
    serverAddresses: [server.url],
    accessToken: app?.access_token ?? server.accessToken,
    host: '127.0.0.1',
    port: 0,
    logDir: path.join(dataDir, 'demo-logs'),
    logger: server.logger.child({ part: 'demo-executor' }),
  });
  executor.handle('say-hello', sayHello);
  executor.handle('count-to', countTo);
  executor.handle('sweep-shard', sweepShard);
  executor.handle('greet', greet);
  await executor.start();
  await waitUntilOnline(server, executor);
  return executor;
}

/** How long the demo waits for its executor's first registration before scheduling anyway. */
const REGISTRATION_WAIT_MS = 5_000;

/** Resolves once the server sees the executor online (its first registration landed), or after the wait. */
async function waitUntilOnline(server: TickwheelServer, executor: Executor): Promise<void> {
  const deadline = Date.now() + REGISTRATION_WAIT_MS;
  while (!server.executorsOnline(DEMO_APP).includes(executor.address ?? '')) {
    if (Date.now() > deadline) {
      server.logger.warn(
        { address: executor.address },
        'the demo executor has not registered yet; scheduling anyway',
      );
      return;
    }
    await sleep(10);
  }
}

/** Creates the demo app and its jobs unless the app exists already; returns how many jobs it created. */
export async function createDemoJobs(server: TickwheelServer): Promise<number> {
  const store = storeOf(server);
  if ((await store.apps.findAppByName(DEMO_APP)) !== undefined) return 0;
  const now = Date.now();
  const app = await store.apps.createApp(
    {
      appName: DEMO_APP,
      title: 'Tickwheel demo',
      addressType: 'AUTO',
      accessToken: randomBytes(32).toString('base64url'),
    },
    now,
  );
  for (const job of DEMO_JOBS) {
    const schedule = { scheduleType: job.schedule_type, scheduleConf: job.schedule_conf, timeZone: 'UTC' };
    const next = nextFireTimes(schedule, now, 1)[0] ?? null;
    await store.jobs.createJob(
      { ...job, app_id: app.id, author: 'tickwheel start --demo', trigger_status: 1, next_fire_at: next },
      now,
    );
  }
  return DEMO_JOBS.length;
}

async function sayHello(ctx: JobContext): Promise<string> {
  ctx.log(`hello from run ${ctx.logId}`);
  return `hello at ${new Date().toISOString()}`;
}

/** Counts to the parameter, a step a second, and stops early when the run is killed or times out. */
async function countTo(ctx: JobContext): Promise<string> {
  const target = Number.parseInt(ctx.param, 10) || 3;
  for (let i = 1; i <= target; i++) {
    await sleep(1_000, undefined, { signal: ctx.signal });
    ctx.log(`${i} of ${target}`);
  }
  return `counted to ${target}`;
}

/** Handles the items of its shard: item i belongs to shard i % total. */
async function sweepShard(ctx: JobContext): Promise<string> {
  const items = Array.from({ length: 10 }, (_, i) => i).filter((i) => i % ctx.shardTotal === ctx.shardIndex);
  ctx.log(`shard ${ctx.shardIndex + 1} of ${ctx.shardTotal} sweeps items ${items.join(', ')}`);
  return `swept ${items.length} items`;
}

async function greet(ctx: JobContext): Promise<string> {
  const name = ctx.param.trim() || 'world';
  ctx.log(`greeting ${name}`);
  return `hello, ${name}`;
}
