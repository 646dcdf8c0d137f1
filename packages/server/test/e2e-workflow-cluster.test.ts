/**
 * A workflow run survives the server node that moved it: two servers on one PostgreSQL
 * database, the run started on one (in its own process), that node killed with SIGKILL while a
 * node of the run is on the executor. The executor's result goes to the other server, which
 * moves the run on: the next node runs once, whatever repeats — the same callback sent again,
 * the sweep stepping the run at the same time as the result hook.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createExecutor, type Executor } from '@tickwheel/executor';
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import {
  ChildProcess,
  callServer,
  createApp,
  createJob,
  E2E_TOKEN,
  type E2eServer,
  sleep,
  startServer,
  tempDir,
  waitFor,
} from './helpers/e2e.js';
import { callApiOk } from './helpers/http-api.js';

const SERVER_PROCESS = fileURLToPath(new URL('./fixtures/server-process.mjs', import.meta.url));
const SERVER_DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const ADMIN_TOKEN = 'tw_e2e-workflow-cluster-token-0123456789';
const APP = 'e2e-workflow-cluster';

let db: TestDatabase | undefined;
const closers: Array<() => Promise<void>> = [];

beforeAll(() => {
  if (!existsSync(SERVER_DIST)) throw new Error(`${SERVER_DIST} is missing: run \`npx tsc -b\` first`);
});

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  await db?.drop();
  db = undefined;
});

describe('a workflow run in a two-node cluster on PostgreSQL', () => {
  it('advances once when the node that started it is killed while a node of it runs', async () => {
    db = await createTestDatabase('postgres');
    const first = new ChildProcess([SERVER_PROCESS], {
      TW_DATABASE: db.url,
      TW_NODE_ID: 'node-a',
      TW_TOKEN: E2E_TOKEN,
      TW_API_TOKEN: ADMIN_TOKEN,
    });
    closers.push(() => first.kill());
    const [, urlA] = await first.waitForOutput(/listening (\S+)/);
    // The other node steps runs left unchanged for half a second: its sweep and its result
    // hook race to move the run on.
    const b: E2eServer = await startServer({
      database: db.url,
      nodeId: 'node-b',
      apiToken: ADMIN_TOKEN,
      internal: { workflowSweepIntervalMs: 100, workflowSweepGraceMs: 0 },
    });
    closers.push(() => b.close());

    const started: string[] = [];
    let release: (() => void) | undefined;
    const logDir = await tempDir('tw-e2e-executor-');
    const executor: Executor = createExecutor({
      appName: APP,
      serverAddresses: [urlA!, b.server.url],
      accessToken: E2E_TOKEN,
      host: '127.0.0.1',
      port: 0,
      logDir,
      logger: pino({ level: 'silent' }),
      internal: { heartbeatIntervalMs: 500, callbackRetryIntervalMs: 200 },
    });
    executor.handle('wf-step', async (ctx) => {
      started.push(ctx.workflow!.nodeKey);
      if (ctx.workflow!.nodeKey === 'slow') await new Promise<void>((resolve) => (release = resolve));
      return { node: ctx.workflow!.nodeKey };
    });
    await executor.start();
    closers.push(async () => {
      await executor.stop({ timeoutMs: 0 });
      await rm(logDir, { recursive: true, force: true });
    });
    await waitFor(async () => (await b.store.registry.listAlive(0, APP)).length > 0, {
      what: 'the executor registered',
    });

    const appId = await createApp(b.store, APP);
    const job = await createJob(b.store, {
      app_id: appId,
      name: 'step',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'wf-step',
    });
    const workflow = await callApiOk<{ id: number }>(urlA!, 'POST', '/api/v1/workflows', {
      token: ADMIN_TOKEN,
      body: {
        appId,
        name: 'survives its node',
        nodes: [
          { key: 'slow', jobId: job.id },
          { key: 'next', jobId: job.id },
          { key: 'last', jobId: job.id },
        ],
        edges: [
          { from: 'slow', to: 'next' },
          { from: 'next', to: 'last' },
        ],
      },
    });
    const { runId } = await callApiOk<{ runId: number }>(
      urlA!,
      'POST',
      `/api/v1/workflows/${workflow.id}/trigger`,
      {
        token: ADMIN_TOKEN,
        body: {},
      },
    );
    await waitFor(() => started.includes('slow'), { what: 'the slow node on the executor' });
    const slowFire = (await b.store.fires.listFires({ jobId: job.id, limit: 10 }))[0]!;
    expect(slowFire.workflow_node_key).toBe('slow');

    // The node that started the run and sent the slow node dies; the node ends after that.
    await first.kill();
    release!();

    await waitFor(async () => (await b.store.workflows.findRunById(runId))?.status === 'succeeded', {
      what: 'the run to succeed on the other node',
      timeoutMs: 20_000,
    });
    // The same result again, to the live node: nothing moves twice.
    const again = await callServer(b.server, 'callback', [
      {
        logId: slowFire.id,
        logDateTim: slowFire.scheduled_at,
        handleCode: 200,
        handleMsg: 'again',
        output: { node: 'slow' },
      },
    ]);
    expect(again.code).toBe(200);
    await sleep(500);

    const fires = (await b.store.fires.listFires({ jobId: job.id, limit: 100 })).filter(
      (fire) => fire.workflow_run_id === runId,
    );
    const byNode = (key: string) => fires.filter((fire) => fire.workflow_node_key === key);
    expect(byNode('slow')).toHaveLength(1);
    expect(byNode('next')).toHaveLength(1);
    expect(byNode('last')).toHaveLength(1);
    expect(started.sort()).toEqual(['last', 'next', 'slow']);
    const run = (await b.store.workflows.findRunById(runId))!;
    const state = JSON.parse(run.state) as { nodes: Record<string, { status: string }> };
    expect(Object.values(state.nodes).map((node) => node.status)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    expect(byNode('slow')[0]!.output).toBe(JSON.stringify({ node: 'slow' }));
  });
});
