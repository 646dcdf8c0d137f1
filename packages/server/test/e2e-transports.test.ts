/**
 * The transports beside push, end to end: `http-pull` (real executors that open no port and keep
 * a WebSocket to the server, which sends every call over it) and `redis` (runs and calls through
 * each executor's Redis streams, on the real Redis). Everything push executors do must work the
 * same on each: schedules, every route strategy, block strategies, timeouts, kill, the live log,
 * broadcast shards, the lost-run rule with a retry, a server restart with runs in flight, and
 * push executors and these in one app, routed together.
 */
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Executor, ExecutorOptions } from '@tickwheel/executor';
import { isPullAddress, isStreamAddress, WireMessages } from '@tickwheel/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../src/store/index.js';
import {
  ChildProcess,
  createApp,
  createJob,
  E2E_TOKEN,
  type E2eExecutor,
  type E2eServer,
  firesOf,
  freePort,
  registerAddress,
  sleep,
  spawnExecutor,
  startExecutor,
  startServer,
  tempDir,
  waitFor,
} from './helpers/e2e.js';

const API_TOKEN = 'e2e-api-token-0123456789abcdef';
const REDIS_URL = process.env.TW_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Each transport: what its executors and the server are given, and what its addresses look like. */
const TRANSPORTS = [
  {
    transport: 'http-pull',
    executor: { transport: 'http-pull' } as Partial<ExecutorOptions>,
    server: {},
    env: { TW_TRANSPORT: 'http-pull' } as Record<string, string>,
    cliArgs: [] as string[],
    isAddress: isPullAddress,
    deadAddress: 'pull://0-dead-instance/',
  },
  {
    transport: 'redis',
    executor: { transport: 'redis', redis: REDIS_URL } as unknown as Partial<ExecutorOptions>,
    server: { redis: REDIS_URL },
    env: { TW_TRANSPORT: 'redis', TW_REDIS: REDIS_URL } as Record<string, string>,
    cliArgs: ['--redis', REDIS_URL],
    isAddress: isStreamAddress,
    deadAddress: 'stream://0-dead-instance/',
  },
] as const;

let server: E2eServer | undefined;
const executors: E2eExecutor[] = [];
const processes: Array<{ process: ChildProcess; logDir: string }> = [];

afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
  for (const { process, logDir } of processes.splice(0)) {
    await process.kill();
    await rm(logDir, { recursive: true, force: true });
  }
  await server?.close();
  server = undefined;
});

async function api(method: 'GET' | 'POST', route: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server!.server.url}api/v1/${route}`, {
    method,
    headers: { authorization: `Bearer ${API_TOKEN}` },
  });
  return { status: response.status, body: await response.json() };
}

async function fire(fireId: number) {
  return (await server!.store.fires.findFireById(fireId))!;
}

async function waitStatus(fireId: number, status: string, timeoutMs = 8_000) {
  await waitFor(async () => (await fire(fireId)).status === status, {
    timeoutMs,
    what: `fire ${fireId} ${status}`,
  });
  return fire(fireId);
}

/** `count` executors of `appName` on `transport`, each with `register`, sorted by address. */
async function startTransportExecutors(
  transport: Partial<ExecutorOptions>,
  appName: string,
  count: number,
  register: (ex: Executor) => void,
): Promise<E2eExecutor[]> {
  const started: E2eExecutor[] = [];
  for (let i = 0; i < count; i++) {
    const executor = await startExecutor(server!.server, appName, register, transport);
    started.push(executor);
    executors.push(executor);
  }
  return started.sort((a, b) => (a.address < b.address ? -1 : 1));
}

async function manualJob(appName: string, fields: Record<string, unknown>): Promise<number> {
  const appId =
    (await server!.store.apps.findAppByName(appName))?.id ?? (await createApp(server!.store, appName));
  const job = await createJob(server!.store, {
    app_id: appId,
    name: `job ${Math.random().toString(36).slice(2, 8)}`,
    schedule_type: 'NONE',
    schedule_conf: '',
    executor_handler: 'work',
    ...fields,
  });
  return job.id;
}

describe.each(TRANSPORTS)('the $transport transport end to end', { timeout: 60_000 }, (t) => {
  const startPullExecutors = (appName: string, count: number, register: (ex: Executor) => void) =>
    startTransportExecutors(t.executor, appName, count, register);

  it('runs an every-second job on an executor that opens no port, every result recorded', async () => {
    server = await startServer({ ...t.server, apiToken: API_TOKEN });
    const ran: number[] = [];
    const [executor] = await startPullExecutors('pull-cron', 1, (ex) =>
      ex.handle('tick', async (ctx) => {
        ran.push(ctx.logId);
        return 'ticked';
      }),
    );
    expect(t.isAddress(executor!.address)).toBe(true);
    expect(executor!.ex.transport).toBe(t.transport);
    const appId =
      (await server.store.apps.findAppByName('pull-cron'))?.id ??
      (await createApp(server.store, 'pull-cron'));
    const job = await createJob(server.store, {
      app_id: appId,
      name: 'every second',
      schedule_type: 'CRON',
      schedule_conf: '* * * * * ?',
      executor_handler: 'tick',
    });

    await waitFor(
      async () => (await firesOf(server!.store, job.id)).filter((f) => f.status === 'succeeded').length >= 3,
      { what: 'three succeeded fires' },
    );
    const succeeded = (await firesOf(server.store, job.id)).filter((f) => f.status === 'succeeded');
    for (const record of succeeded) {
      expect(record).toMatchObject({
        executor_address: executor!.address,
        handle_code: 200,
        handle_msg: 'ticked',
      });
      expect(ran).toContain(record.id);
    }
    // The app lists it online with its transport.
    const listed = (await api('GET', `apps/${appId}/executors`)).body as {
      items: Array<{ address: string; transport: string }>;
    };
    expect(listed.items).toContainEqual(
      expect.objectContaining({ address: executor!.address, transport: t.transport }),
    );
    const app = (await api('GET', `apps/${appId}`)).body as {
      onlineExecutors: Array<{ address: string; transport: string }>;
    };
    expect(app.onlineExecutors).toEqual([{ address: executor!.address, transport: t.transport }]);
  });

  it('routes FIRST, LAST, ROUND, RANDOM, CONSISTENT_HASH, LEAST_FREQUENTLY_USED, LEAST_RECENTLY_USED to pull executors', async () => {
    server = await startServer({ ...t.server });
    const ranOn = new Map<number, string>();
    const pulled = await startPullExecutors('pull-routes', 3, (ex) =>
      ex.handle('work', async (ctx) => {
        ranOn.set(ctx.logId, ex.address!);
        return 'worked';
      }),
    );
    const addresses = pulled.map((e) => e.address);
    const runs = async (route: string, times: number) => {
      const jobId = await manualJob('pull-routes', { executor_route_strategy: route });
      const picked: string[] = [];
      for (let i = 0; i < times; i++) {
        const { fireId } = await server!.server.triggerJob({ jobId });
        const record = await waitStatus(fireId, 'succeeded');
        expect(ranOn.get(fireId)).toBe(record.executor_address);
        picked.push(record.executor_address!);
      }
      return picked;
    };

    expect(await runs('FIRST', 2)).toEqual([addresses[0], addresses[0]]);
    expect(await runs('LAST', 2)).toEqual([addresses[2], addresses[2]]);
    expect(new Set(await runs('ROUND', 3))).toEqual(new Set(addresses));
    for (const address of await runs('RANDOM', 3)) expect(addresses).toContain(address);
    const hashed = await runs('CONSISTENT_HASH', 3);
    expect(new Set(hashed).size).toBe(1);
    // Counts start at random in [0, 3) and ties go to the earlier executor: at worst (0, 0, 2)
    // the third has its first turn at the seventh run.
    expect(new Set(await runs('LEAST_FREQUENTLY_USED', 7)).size).toBe(3);
    expect(new Set(await runs('LEAST_RECENTLY_USED', 3)).size).toBe(3);
  });

  it('FAILOVER skips a pull executor whose connection is gone; BUSYOVER skips the busy one', async () => {
    server = await startServer({ ...t.server });
    const ranOn: string[] = [];
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const [first, second] = await startPullExecutors('pull-over', 2, (ex) =>
      ex.handle('work', async (ctx) => {
        ranOn.push(ex.address!);
        if (ctx.param === 'block') await blocked;
        return 'worked';
      }),
    );
    // Registered, but no executor holds a connection for it: it sorts first.
    const dead = t.deadAddress;
    await registerAddress(server.server, 'pull-over', dead);
    const failover = await manualJob('pull-over', { executor_route_strategy: 'FAILOVER' });
    const { fireId } = await server.server.triggerJob({ jobId: failover });
    const record = await waitStatus(fireId, 'succeeded');
    expect([first!.address, second!.address]).toContain(record.executor_address);
    expect(record.trigger_msg).toContain(dead);

    const busyover = await manualJob('pull-over', {
      executor_route_strategy: 'BUSYOVER',
      executor_param: 'block',
    });
    try {
      await server.server.triggerJob({ jobId: busyover, addressList: [first!.address] });
      await waitFor(() => ranOn.length === 2, { what: 'the blocking run' });
      const busy = await server.server.triggerJob({
        jobId: busyover,
        addressList: [first!.address, second!.address],
      });
      expect((await fire(busy.fireId)).executor_address).toBe(second!.address);
    } finally {
      release();
    }
  });

  it('DISCARD_LATER refuses a run while one runs; COVER_EARLY kills the running one for the new', async () => {
    server = await startServer({ ...t.server });
    const started: number[] = [];
    const finish = new Map<number, () => void>();
    await startPullExecutors('pull-block', 1, (ex) =>
      ex.handle('work', (ctx) => {
        started.push(ctx.logId);
        return new Promise<string>((resolve, reject) => {
          finish.set(ctx.logId, () => resolve('finished'));
          ctx.signal.addEventListener('abort', () => reject(new Error('stopped')));
        });
      }),
    );
    const discard = await manualJob('pull-block', { executor_block_strategy: 'DISCARD_LATER' });
    const running = (await server.server.triggerJob({ jobId: discard })).fireId;
    await waitFor(() => started.includes(running), { what: 'the first run' });
    const later = (await server.server.triggerJob({ jobId: discard })).fireId;
    if (t.transport === 'redis') {
      // Written to the stream, the run is dispatched; the executor's refusal comes back as its result.
      const refused = await waitStatus(later, 'failed');
      expect(refused.handle_msg).toContain(WireMessages.discardLater);
    } else {
      const refused = await fire(later);
      expect(refused.status).toBe('dispatch_failed');
      expect(refused.trigger_msg).toContain(WireMessages.discardLater);
    }
    finish.get(running)!();
    await waitStatus(running, 'succeeded');

    const cover = await manualJob('pull-block', { executor_block_strategy: 'COVER_EARLY' });
    const early = (await server.server.triggerJob({ jobId: cover })).fireId;
    await waitFor(() => started.includes(early), { what: 'the early run' });
    const newer = (await server.server.triggerJob({ jobId: cover })).fireId;
    await waitFor(() => started.includes(newer), { what: 'the newer run' });
    // As in XXL-JOB, the covered run ends failed with the block strategy's message.
    const covered = await waitStatus(early, 'failed');
    expect(covered.handle_msg).toContain(WireMessages.coverEarly);
    finish.get(newer)!();
    await waitStatus(newer, 'succeeded');
  });

  it('times a run out, kills a run through the API, and reads its live log', async () => {
    server = await startServer({ ...t.server, apiToken: API_TOKEN });
    const aborted: number[] = [];
    await startPullExecutors('pull-control', 1, (ex) =>
      ex.handle('work', async (ctx) => {
        for (let i = 1; i <= 3; i++) ctx.log(`line ${i} of run ${ctx.logId}`);
        await new Promise<void>((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            aborted.push(ctx.logId);
            resolve();
          }),
        );
      }),
    );
    const slow = await manualJob('pull-control', { executor_timeout: 1 });
    const timedOut = (await server.server.triggerJob({ jobId: slow })).fireId;
    const record = await waitStatus(timedOut, 'timeout');
    expect(record.handle_code).toBe(502);
    expect(aborted).toContain(timedOut);

    const forever = await manualJob('pull-control', {});
    const running = (await server.server.triggerJob({ jobId: forever })).fireId;
    await waitStatus(running, 'dispatched');
    await waitFor(
      async () => {
        const page = (await api('GET', `fires/${running}/log?fromLineNum=1`)).body as { logContent?: string };
        return (page.logContent ?? '').includes(`line 3 of run ${running}`);
      },
      { what: 'the live log' },
    );
    const page = (await api('GET', `fires/${running}/log?fromLineNum=1`)).body as {
      logContent: string;
      isEnd: boolean;
    };
    expect(page.logContent).toContain(`line 1 of run ${running}`);
    expect(page.isEnd).toBe(false);

    expect((await api('GET', `fires/${running}/kill-scope`)).body).toMatchObject({ scope: 'run' });
    const killed = await api('POST', `fires/${running}/kill`);
    expect(killed).toMatchObject({ status: 200, body: { id: running, status: 'killed' } });
    await waitFor(() => aborted.includes(running), { what: 'the handler aborted' });
  });

  it('broadcasts over three pull executors with each its shard index and total', async () => {
    server = await startServer({ ...t.server });
    const shards: Array<{ address: string; index: number; total: number }> = [];
    const pulled = await startPullExecutors('pull-broadcast', 3, (ex) =>
      ex.handle('work', async (ctx) => {
        shards.push({ address: ex.address!, index: ctx.shardIndex, total: ctx.shardTotal });
        return `shard ${ctx.shardIndex}`;
      }),
    );
    const jobId = await manualJob('pull-broadcast', { executor_route_strategy: 'SHARDING_BROADCAST' });
    const { fireId } = await server.server.triggerJob({ jobId });

    const parent = await waitStatus(fireId, 'succeeded');
    expect(parent.handle_msg).toBe('broadcast: all 3 shards succeeded');
    const children = await server.store.fires.findChildFires(fireId);
    expect(children.map((c) => [c.executor_address, c.shard_index, c.shard_total, c.status])).toEqual(
      pulled.map((e, i) => [e.address, i, 3, 'succeeded']),
    );
    expect(shards.sort((a, b) => a.index - b.index)).toEqual(
      pulled.map((e, i) => ({ address: e.address, index: i, total: 3 })),
    );
  });

  it('routes push and pull executors of one app together', async () => {
    server = await startServer({ ...t.server });
    const ranOn: string[] = [];
    const work = (ex: Executor) =>
      ex.handle('work', async () => {
        ranOn.push(ex.address!);
        return 'worked';
      });
    const [pull] = await startPullExecutors('pull-mixed', 1, work);
    const push = await startExecutor(server.server, 'pull-mixed', work);
    executors.push(push);
    const jobId = await manualJob('pull-mixed', { executor_route_strategy: 'ROUND' });
    for (let i = 0; i < 4; i++) {
      const { fireId } = await server.server.triggerJob({ jobId });
      await waitStatus(fireId, 'succeeded');
    }
    expect(new Set(ranOn)).toEqual(new Set([pull!.address, push.address]));
    const broadcast = await manualJob('pull-mixed', { executor_route_strategy: 'SHARDING_BROADCAST' });
    const { fireId } = await server.server.triggerJob({ jobId: broadcast });
    await waitStatus(fireId, 'succeeded');
    const shards = await server.store.fires.findChildFires(fireId);
    expect(shards.map((s) => s.executor_address).sort()).toEqual([pull!.address, push.address].sort());
  });

  it('fails by the lost-run rule a run whose pull executor was killed with SIGKILL, and its retry runs once elsewhere', async () => {
    server = await startServer({
      ...t.server,
      executorDeadAfterMs: 1_000,
      lostRunAfterMs: 500,
      // The executor list is not read again during the test: the killed executor leaves the
      // dispatch list when it turns dead, as the lost-run rule sees it, so its run's retry goes
      // only to the executor still online.
      internal: {
        lostRunMonitorIntervalMs: 200,
        retryMonitorIntervalMs: 100,
        directoryRefreshIntervalMs: 60_000,
      },
    });
    const env = { ...t.env, TW_HEARTBEAT_MS: '300', TW_SLEEP_MS: '60000' };
    const doomed = await spawnExecutor(server, 'pull-lost', env);
    processes.push(doomed);
    expect(t.isAddress(doomed.address)).toBe(true);
    const jobId = await manualJob('pull-lost', {
      executor_handler: 'sleep',
      executor_fail_retry_count: 1,
      retry_delay_seconds: 0,
      executor_route_strategy: 'FIRST',
    });
    const { fireId } = await server.server.triggerJob({ jobId, addressList: [doomed.address] });
    await doomed.process.waitForOutput(new RegExp(`running ${fireId}`));
    // A second executor for the retry, with a short sleep.
    const survivor = await spawnExecutor(server, 'pull-lost', { ...env, TW_SLEEP_MS: '100' });
    processes.push(survivor);
    await doomed.process.kill();

    const lost = await waitStatus(fireId, 'failed');
    expect(lost.handle_msg).toContain(`executor ${doomed.address} went offline`);
    await waitFor(
      async () =>
        (await firesOf(server!.store, jobId)).some(
          (f) => f.trigger_type === 'RETRY' && f.status === 'succeeded',
        ),
      { timeoutMs: 10_000, what: 'the retry to succeed' },
    );
    const retries = (await firesOf(server.store, jobId)).filter((f) => f.trigger_type === 'RETRY');
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ executor_address: survivor.address, parent_fire_id: fireId });
    expect(survivor.process.stdout.match(/running \d+/g)).toEqual([`running ${retries[0]!.id}`]);
  });
});

describe.each(TRANSPORTS)('the $transport transport across a server restart', { timeout: 60_000 }, (t) => {
  let store: Store | undefined;
  let dataDir: string | undefined;
  const servers: ChildProcess[] = [];

  afterEach(async () => {
    for (const child of servers.splice(0)) await child.kill();
    for (const { process, logDir } of processes.splice(0)) {
      await process.kill();
      await rm(logDir, { recursive: true, force: true });
    }
    await store?.close();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    store = undefined;
    dataDir = undefined;
  });

  it('runs each fire of an every-second job exactly once while the server is killed and started again', async () => {
    dataDir = await tempDir();
    const recordFile = path.join(dataDir, 'executions.txt');
    store = await openStore({ database: `sqlite:${path.join(dataDir, 'tickwheel.db')}` });
    const appId = await createApp(store, 'pull-restart');
    const job = await createJob(store, {
      app_id: appId,
      name: 'every second',
      schedule_type: 'CRON',
      schedule_conf: '* * * * * ?',
      executor_handler: 'record',
    });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const first = await startCli(port, dataDir, t.cliArgs);
    servers.push(first);
    const executor = await spawnExecutor({ url, accessToken: E2E_TOKEN, store }, 'pull-restart', {
      TW_RECORD_FILE: recordFile,
      ...t.env,
      TW_HEARTBEAT_MS: '300',
    });
    processes.push(executor);
    await waitFor(() => executions(recordFile).size >= 2, { what: 'two runs before the crash' });
    const firstRun = Math.min(...[...executions(recordFile).keys()]);

    await first.kill();
    const killedAt = Date.now();
    await sleep(500);
    servers.push(await startCli(port, dataDir, t.cliArgs));
    // The executor reconnects by itself; runs go on after the restart.
    await waitFor(() => [...executions(recordFile).keys()].some((at) => at > killedAt + 1_000), {
      timeoutMs: 15_000,
      what: 'runs after the restart',
    });
    // Every record up to the latest run settles: a fire the killed server had claimed goes out
    // late (recovered), never twice.
    const latest = Math.max(...executions(recordFile).keys());
    const records = () =>
      store!.fires.listFires({ jobId: job.id, from: firstRun, to: latest + 1, limit: 1000 });
    await waitFor(
      async () => (await records()).every((f) => f.status === 'succeeded' || f.status === 'skipped'),
      {
        timeoutMs: 20_000,
        what: 'every record up to the latest run settled',
      },
    );
    const counts = executions(recordFile);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    // Every second ran, except where the restart took longer than the misfire window (a loaded
    // machine): those times are not lost silently, the first of them is recorded `skipped`.
    const skipped = (await records()).filter((f) => f.status === 'skipped').map((f) => f.scheduled_at);
    const scheduled = [...counts.keys()].filter((at) => at <= latest).sort((a, b) => a - b);
    for (let i = 1; i < scheduled.length; i++) {
      const [before, after] = [scheduled[i - 1]!, scheduled[i]!];
      if (after - before !== 1_000) {
        expect(
          skipped.some((at) => at > before && at < after),
          `a skipped record between ${before} and ${after}`,
        ).toBe(true);
      }
    }
    await waitFor(
      async () =>
        (
          await store!.fires.listFires({ jobId: job.id, from: firstRun, to: killedAt - 2_000, limit: 1000 })
        ).every((f) => f.status === 'succeeded'),
      { what: 'every result before the crash recorded' },
    );
  });
});

const CLI_BIN = fileURLToPath(new URL('../../cli/bin/tickwheel.js', import.meta.url));

/** `tickwheel start` on `dataDir` (SQLite there); resolves once it listens. */
async function startCli(
  port: number,
  dataDir: string,
  extraArgs: readonly string[] = [],
): Promise<ChildProcess> {
  const cli = new ChildProcess(
    [
      CLI_BIN,
      'start',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--data-dir',
      dataDir,
      '--token',
      E2E_TOKEN,
      '--log-level',
      'warn',
      ...extraArgs,
    ],
    {},
  );
  await cli.waitForOutput(/listening on/);
  return cli;
}

/** The record handler's lines (`<jobId> <logDateTime> <logId>`), counted by scheduled time. */
function executions(recordFile: string): Map<number, number> {
  const counts = new Map<number, number>();
  let text = '';
  try {
    text = readFileSync(recordFile, 'utf8');
  } catch {
    return counts;
  }
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const at = Number(line.split(' ')[1]);
    counts.set(at, (counts.get(at) ?? 0) + 1);
  }
  return counts;
}
