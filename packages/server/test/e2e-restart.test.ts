/**
 * The server process killed with SIGKILL while it holds claimed, pending fires (the look-ahead
 * claims 5 s ahead): after a restart on the same data dir every fire runs exactly once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../src/store/index.js';
import {
  ChildProcess,
  createApp,
  createJob,
  E2E_TOKEN,
  freePort,
  sleep,
  spawnExecutor,
  tempDir,
  waitFor,
} from './helpers/e2e.js';

const CLI_BIN = fileURLToPath(new URL('../../cli/bin/tickwheel.js', import.meta.url));
const CLI_MAIN = fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url));

let dataDir: string;
let store: Store | undefined;
const processes: ChildProcess[] = [];
/** Directories removed after the processes writing to them are gone. */
const dirs: string[] = [];

beforeAll(() => {
  if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: run \`npx tsc -b\` first`);
});

afterEach(async () => {
  for (const child of processes.splice(0)) await child.kill();
  await store?.close();
  store = undefined;
  await rm(dataDir, { recursive: true, force: true });
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** `tickwheel start` on the data dir; resolves once it listens. */
async function startCli(port: number): Promise<ChildProcess> {
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
    ],
    {},
  );
  processes.push(cli);
  await cli.waitForOutput(/listening on/);
  return cli;
}

/** `<jobId> <scheduledAt>` of every run the executor started, with how many times each ran. */
function executions(recordFile: string): Map<string, number> {
  const counts = new Map<string, number>();
  if (!existsSync(recordFile)) return counts;
  for (const line of readFileSync(recordFile, 'utf8').split('\n')) {
    if (line === '') continue;
    const [jobId, scheduledAt] = line.split(' ');
    const key = `${jobId} ${scheduledAt}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

describe('server crash end to end', () => {
  it('runs each fire left pending by a server killed with SIGKILL exactly once after a restart', async () => {
    dataDir = await tempDir();
    const recordFile = path.join(dataDir, 'executions.txt');
    store = await openStore({ database: `sqlite:${path.join(dataDir, 'tickwheel.db')}` });
    const appId = await createApp(store, 'e2e-restart');
    const job = await createJob(store, {
      app_id: appId,
      name: 'every second',
      schedule_type: 'CRON',
      schedule_conf: '* * * * * ?',
      executor_handler: 'record',
    });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;

    const first = await startCli(port);
    const executor = await spawnExecutor({ url, accessToken: E2E_TOKEN, store }, 'e2e-restart', {
      TW_RECORD_FILE: recordFile,
      TW_HEARTBEAT_MS: '300',
    });
    processes.push(executor.process);
    dirs.push(executor.logDir);
    await waitFor(() => executions(recordFile).size >= 2, { what: 'two runs before the crash' });
    // The planner claims up to 5 s ahead: wait until several claimed fires are waiting in its wheel.
    await waitFor(
      async () => (await store!.fires.listFires({ jobId: job.id, status: 'pending' })).length >= 3,
      {
        what: 'fires claimed ahead',
      },
    );

    // Fires before the executor had registered failed to dispatch: the check starts at the first run.
    const firstRun = Math.min(...[...executions(recordFile).keys()].map((key) => Number(key.split(' ')[1])));
    await first.kill();
    const killedAt = Date.now();
    const pending = await store.fires.listFires({ jobId: job.id, status: 'pending' });
    expect(pending.length).toBeGreaterThan(0);
    const lastPending = Math.max(...pending.map((f) => f.scheduled_at));

    await sleep(500);
    await startCli(port);
    await waitFor(
      () => [...executions(recordFile).keys()].some((key) => Number(key.split(' ')[1]) > lastPending),
      { timeoutMs: 12_000, what: 'the runs after the restart' },
    );
    await waitFor(
      async () =>
        (
          await store!.fires.listFires({ jobId: job.id, from: firstRun, to: lastPending + 1, limit: 1000 })
        ).every((f) => f.status === 'succeeded'),
      { what: 'every result up to the crash recorded' },
    );

    const counts = executions(recordFile);
    const scheduled = [...counts.keys()].map((key) => Number(key.split(' ')[1])).sort((a, b) => a - b);
    // Exactly once each, and no second missing between the first run and the last.
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    for (let i = 1; i < scheduled.length; i++) expect(scheduled[i]! - scheduled[i - 1]!).toBe(1_000);
    expect(scheduled.some((at) => at > killedAt)).toBe(true);
    const records = await store.fires.listFires({
      jobId: job.id,
      from: firstRun,
      to: lastPending + 1,
      limit: 1000,
    });
    expect(new Set(records.map((f) => f.scheduled_at)).size).toBe(records.length);
    for (const record of pending) expect(counts.get(`${job.id} ${record.scheduled_at}`)).toBe(1);
  });
});
