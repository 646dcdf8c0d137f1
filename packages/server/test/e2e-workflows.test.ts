/**
 * Workflows end to end on each database: a real server, a real Tickwheel executor, the REST API. Every
 * node is a job run on the executor; what the tests read is what the run view reads
 * (`getWorkflowRun`) and the fire records themselves.
 */
import type { JobContext } from '@tickwheel/executor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRow } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import {
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  sleep,
  startExecutor,
  startServer,
  waitFor,
} from './helpers/e2e.js';
import { callApiOk, callHttp } from './helpers/http-api.js';

const API_TOKEN = 'e2e-workflow-token-0123456789abcdef';
const APP = 'e2e-workflows';

interface RunNode {
  key: string;
  status: string;
  fireIds: number[];
  output?: unknown;
  decision?: string;
  childRunId: number | null;
  message: string | null;
}
interface Run {
  id: number;
  status: string;
  nodes: RunNode[];
}

let server: E2eServer;
let executor: E2eExecutor;
let appId: number;
const jobs: Record<string, JobRow> = {};
/** What each run of a node saw, by `runId/nodeKey`, in order. */
const seen = new Map<string, { upstream: JobContext['upstream']; param: string; startedAt: number }[]>();
/** Runs of `wf-hold` wait until the test lets them go (or their signal aborts). */
const held = new Set<() => void>();
let failing = new Set<string>();

function remember(ctx: JobContext): void {
  const key = `${ctx.workflow?.runId}/${ctx.workflow?.nodeKey}`;
  const list = seen.get(key) ?? [];
  list.push({ upstream: ctx.upstream, param: ctx.param, startedAt: Date.now() });
  seen.set(key, list);
}

const api = <T>(method: string, path: string, body?: unknown) =>
  callApiOk<T>(server.server.url, method, `/api/v1${path}`, {
    token: API_TOKEN,
    ...(body === undefined ? {} : { body }),
  });

const job = (handler: string) => jobs[handler]!.id;

async function createWorkflow(body: Record<string, unknown>): Promise<{ id: number }> {
  return api('POST', '/workflows', { appId, scheduleType: 'NONE', ...body });
}

async function trigger(workflowId: number, param?: string): Promise<{ runId: number; status: string }> {
  return api('POST', `/workflows/${workflowId}/trigger`, param === undefined ? {} : { param });
}

const getRun = (runId: number) => api<Run>('GET', `/workflow-runs/${runId}`);

async function waitForRun(runId: number, done: (run: Run) => boolean, what: string): Promise<Run> {
  let last: Run | undefined;
  await waitFor(
    async () => {
      last = await getRun(runId);
      return done(last);
    },
    { what, timeoutMs: 15_000 },
  ).catch((err: unknown) => {
    throw new Error(
      `${(err as Error).message}; last: ${JSON.stringify(last?.nodes.map((n) => [n.key, n.status, n.message]))} ${last?.status}`,
    );
  });
  return last!;
}

const ended = (run: Run) => !['running', 'waiting'].includes(run.status);
const node = (run: Run, key: string) => run.nodes.find((n) => n.key === key)!;
const statuses = (run: Run) => Object.fromEntries(run.nodes.map((n) => [n.key, n.status]));

describe.each(DIALECTS)('workflows end to end on %s', (dialect) => {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    // Run ids start at 1 in each database: what a node saw is keyed by them.
    seen.clear();
    db = dialect === 'sqlite' ? undefined : await createTestDatabase(dialect);
    server = await startServer({
      apiToken: API_TOKEN,
      ...(db === undefined ? {} : { database: db.url }),
      internal: { workflowPollIntervalMs: 100 },
    });
    executor = await startExecutor(server.server, APP, (ex) => {
      ex.handle('wf-echo', (ctx) => {
        remember(ctx);
        return { node: ctx.workflow?.nodeKey, param: ctx.param, upstream: Object.keys(ctx.upstream).sort() };
      });
      ex.handle('wf-count', (ctx) => {
        remember(ctx);
        return { count: Number(ctx.param) };
      });
      ex.handle('wf-maybe-fail', (ctx) => {
        remember(ctx);
        if (failing.has(ctx.workflow!.nodeKey)) throw new Error(`${ctx.workflow!.nodeKey} failed as asked`);
        return { ok: ctx.workflow!.nodeKey };
      });
      ex.handle('wf-hold', async (ctx) => {
        remember(ctx);
        await new Promise<void>((resolve) => {
          const release = () => {
            held.delete(release);
            resolve();
          };
          held.add(release);
          ctx.signal.addEventListener('abort', release);
        });
        if (ctx.signal.aborted) throw new Error('stopped');
        return 'released';
      });
    });
    appId = await createApp(server.store, APP);
    for (const handler of ['wf-echo', 'wf-count', 'wf-maybe-fail', 'wf-hold']) {
      jobs[handler] = await createJob(server.store, {
        app_id: appId,
        name: handler,
        schedule_type: 'NONE',
        schedule_conf: '',
        executor_handler: handler,
      });
    }
  }, 30_000);

  afterAll(async () => {
    for (const release of [...held]) release();
    await executor?.close();
    await server?.close();
    await db?.drop();
  });

  it('runs a diamond: D starts only after both B and C ended and sees both outputs', async () => {
    const workflow = await createWorkflow({
      name: 'diamond',
      nodes: [
        { key: 'A', jobId: job('wf-echo'), param: 'start ${run.param}' },
        { key: 'B', jobId: job('wf-count'), param: '2' },
        { key: 'C', jobId: job('wf-hold') },
        { key: 'D', jobId: job('wf-echo'), param: 'B said ${B.output.count}' },
      ],
      edges: [
        { from: 'A', to: 'B' },
        { from: 'A', to: 'C' },
        { from: 'B', to: 'D' },
        { from: 'C', to: 'D' },
      ],
    });
    const { runId, status } = await trigger(workflow.id, 'p1');
    expect(status).toBe('running');
    // B ends while C is held: D must wait for C.
    await waitForRun(
      runId,
      (run) => node(run, 'B').status === 'succeeded' && node(run, 'C').status === 'running',
      'B done, C running',
    );
    await sleep(300);
    expect(node(await getRun(runId), 'D').status).toBe('waiting');
    expect(seen.get(`${runId}/D`)).toBeUndefined();
    const releasedAt = Date.now();
    for (const release of [...held]) release();
    const run = await waitForRun(runId, ended, 'the diamond to end');
    expect(run.status).toBe('succeeded');
    expect(statuses(run)).toEqual({ A: 'succeeded', B: 'succeeded', C: 'succeeded', D: 'succeeded' });
    const d = seen.get(`${runId}/D`)!;
    expect(d).toHaveLength(1);
    expect(d[0]!.startedAt).toBeGreaterThanOrEqual(releasedAt);
    expect(d[0]!.upstream).toEqual({
      B: { status: 'succeeded', output: { count: 2 } },
      C: { status: 'succeeded', output: 'released' },
    });
    expect(d[0]!.param).toBe('B said 2');
    expect(seen.get(`${runId}/A`)![0]!.param).toBe('start p1');
    expect(node(run, 'D').output).toEqual({ node: 'D', param: 'B said 2', upstream: ['B', 'C'] });
    // Each node has its fire record, which says which run and node it belongs to.
    for (const n of run.nodes) {
      expect(n.fireIds).toHaveLength(1);
      const fire = (await server.store.fires.findFireById(n.fireIds[0]!))!;
      expect([fire.workflow_run_id, fire.workflow_node_key, fire.trigger_type]).toEqual([
        runId,
        n.key,
        'WORKFLOW',
      ]);
    }
  });

  it('B failing skips D on a success edge and runs E on a failure edge; retrying B then runs D', async () => {
    failing = new Set(['B']);
    const workflow = await createWorkflow({
      name: 'failure paths',
      nodes: [
        { key: 'A', jobId: job('wf-echo') },
        { key: 'B', jobId: job('wf-maybe-fail') },
        { key: 'D', jobId: job('wf-echo') },
        { key: 'E', jobId: job('wf-echo') },
      ],
      edges: [
        { from: 'A', to: 'B' },
        { from: 'B', to: 'D', condition: 'SUCCESS' },
        { from: 'B', to: 'E', condition: 'FAILURE' },
      ],
    });
    const { runId } = await trigger(workflow.id);
    let run = await waitForRun(runId, ended, 'the run with a failed B to end');
    expect(statuses(run)).toEqual({ A: 'succeeded', B: 'failed', D: 'skipped', E: 'succeeded' });
    // B's failure was handled by its FAILURE edge: the run itself succeeded.
    expect(run.status).toBe('succeeded');
    expect(node(run, 'D').message).toContain('not taken');

    failing = new Set();
    await api('POST', `/workflow-runs/${runId}/nodes/B/retry`);
    run = await waitForRun(
      runId,
      (r) => ended(r) && node(r, 'D').status === 'succeeded',
      'D after the retry of B',
    );
    expect(statuses(run)).toEqual({ A: 'succeeded', B: 'succeeded', D: 'succeeded', E: 'succeeded' });
    expect(node(run, 'B').fireIds).toHaveLength(2);
    expect(seen.get(`${runId}/E`)).toHaveLength(1);
    // A retry of a node that did not fail is refused.
    const again = await callHttp(server.server.url, 'POST', `/api/v1/workflow-runs/${runId}/nodes/B/retry`, {
      token: API_TOKEN,
    });
    expect(again.status).toBe(409);
  });

  it('marking a failed node succeeded lets the run go on', async () => {
    failing = new Set(['A']);
    const workflow = await createWorkflow({
      name: 'mark',
      nodes: [
        { key: 'A', jobId: job('wf-maybe-fail') },
        { key: 'B', jobId: job('wf-echo') },
      ],
      edges: [{ from: 'A', to: 'B' }],
    });
    const { runId } = await trigger(workflow.id);
    let run = await waitForRun(runId, ended, 'the run to fail');
    expect(run.status).toBe('failed');
    expect(statuses(run)).toEqual({ A: 'failed', B: 'skipped' });
    await api('POST', `/workflow-runs/${runId}/nodes/A/mark`, { status: 'succeeded' });
    run = await waitForRun(
      runId,
      (r) => ended(r) && node(r, 'B').status === 'succeeded',
      'B after A was marked',
    );
    expect(run.status).toBe('succeeded');
    expect(node(run, 'A')).toMatchObject({
      status: 'succeeded',
      message: expect.stringContaining('marked succeeded'),
    });
    const audit = await api<{ items: { action: string; targetType: string; targetId: number }[] }>(
      'GET',
      '/audit?limit=20',
    );
    expect(audit.items).toContainEqual(
      expect.objectContaining({ action: 'MARK_NODE', targetType: 'WORKFLOW_RUN', targetId: runId }),
    );
    failing = new Set();
  });

  it('a decision node routes by an upstream output', async () => {
    const workflow = await createWorkflow({
      name: 'decision',
      nodes: [
        { key: 'count', jobId: job('wf-count'), param: '${run.param}' },
        { key: 'big', type: 'DECISION', expression: 'upstream.count.output.count > 10' },
        { key: 'many', jobId: job('wf-echo') },
        { key: 'few', jobId: job('wf-echo') },
      ],
      edges: [
        { from: 'count', to: 'big' },
        { from: 'big', to: 'many', value: 'true' },
        { from: 'big', to: 'few', value: 'false' },
      ],
    });
    const first = await waitForRun((await trigger(workflow.id, '42')).runId, ended, 'a run with 42');
    expect(statuses(first)).toEqual({
      count: 'succeeded',
      big: 'succeeded',
      many: 'succeeded',
      few: 'skipped',
    });
    expect(node(first, 'big').decision).toBe('true');
    const second = await waitForRun((await trigger(workflow.id, '3')).runId, ended, 'a run with 3');
    expect(statuses(second)).toEqual({
      count: 'succeeded',
      big: 'succeeded',
      many: 'skipped',
      few: 'succeeded',
    });
    expect(second.status).toBe('succeeded');
  });

  it('runs a nested workflow as one step, linked from the parent run', async () => {
    const inner = await createWorkflow({
      name: 'inner',
      nodes: [
        { key: 'X', jobId: job('wf-echo'), param: 'inner got ${run.param}' },
        { key: 'Y', jobId: job('wf-count'), param: '7' },
      ],
      edges: [{ from: 'X', to: 'Y' }],
    });
    const outer = await createWorkflow({
      name: 'outer',
      nodes: [
        { key: 'first', jobId: job('wf-echo') },
        { key: 'nested', type: 'WORKFLOW', workflowId: inner.id, param: 'from outer' },
        { key: 'last', jobId: job('wf-echo') },
      ],
      edges: [
        { from: 'first', to: 'nested' },
        { from: 'nested', to: 'last' },
      ],
    });
    const { runId } = await trigger(outer.id);
    const run = await waitForRun(runId, ended, 'the outer run');
    expect(run.status).toBe('succeeded');
    expect(statuses(run)).toEqual({ first: 'succeeded', nested: 'succeeded', last: 'succeeded' });
    const childRunId = node(run, 'nested').childRunId!;
    expect(childRunId).toBeGreaterThan(runId);
    const child = await api<Run & { parentRunId: number; parentNodeKey: string; triggerType: string }>(
      'GET',
      `/workflow-runs/${childRunId}`,
    );
    expect(child).toMatchObject({
      status: 'succeeded',
      parentRunId: runId,
      parentNodeKey: 'nested',
      triggerType: 'PARENT',
    });
    expect(seen.get(`${childRunId}/X`)![0]!.param).toBe('inner got from outer');
    expect(node(run, 'nested').output).toMatchObject({ Y: { count: 7 } });
    expect(seen.get(`${runId}/last`)![0]!.upstream.nested).toMatchObject({ status: 'succeeded' });
  });

  it('stopping a run kills its running node and stops the nodes still waiting', async () => {
    const workflow = await createWorkflow({
      name: 'stop me',
      nodes: [
        { key: 'hold', jobId: job('wf-hold') },
        { key: 'after', jobId: job('wf-echo') },
      ],
      edges: [{ from: 'hold', to: 'after' }],
    });
    const { runId } = await trigger(workflow.id);
    await waitForRun(
      runId,
      (run) => seen.has(`${runId}/hold`) && node(run, 'hold').status === 'running',
      'the held node to run',
    );
    await api('POST', `/workflow-runs/${runId}/stop`);
    const run = await waitForRun(
      runId,
      (r) => r.status === 'stopped' && node(r, 'hold').status !== 'running',
      'the stopped run',
    );
    expect(statuses(run)).toEqual({ hold: 'stopped', after: 'stopped' });
    const fire = (await server.store.fires.findFireById(node(run, 'hold').fireIds[0]!))!;
    expect(fire.status).toBe('killed');
    expect(seen.get(`${runId}/after`)).toBeUndefined();
    const again = await callHttp(server.server.url, 'POST', `/api/v1/workflow-runs/${runId}/stop`, {
      token: API_TOKEN,
    });
    expect(again.status).toBe(409);
  });

  it('SERIAL runs wait for the running one; DISCARD runs are skipped', async () => {
    const serial = await createWorkflow({
      name: 'serial',
      concurrency: 'SERIAL',
      nodes: [{ key: 'hold', jobId: job('wf-hold') }],
      edges: [],
    });
    const first = await trigger(serial.id);
    const second = await trigger(serial.id);
    expect([first.status, second.status]).toEqual(['running', 'waiting']);
    await waitFor(() => seen.has(`${first.runId}/hold`), { what: 'the first serial run' });
    await sleep(200);
    expect((await getRun(second.runId)).status).toBe('waiting');
    expect(seen.has(`${second.runId}/hold`)).toBe(false);
    for (const release of [...held]) release();
    await waitFor(() => seen.has(`${second.runId}/hold`), { what: 'the second serial run to start' });
    expect((await getRun(first.runId)).status).toBe('succeeded');
    for (const release of [...held]) release();
    await waitForRun(second.runId, ended, 'the second serial run');

    const discard = await createWorkflow({
      name: 'discard',
      concurrency: 'DISCARD',
      nodes: [{ key: 'hold', jobId: job('wf-hold') }],
      edges: [],
    });
    const kept = await trigger(discard.id);
    const dropped = await trigger(discard.id);
    expect([kept.status, dropped.status]).toEqual(['running', 'skipped']);
    expect((await getRun(dropped.runId)).status).toBe('skipped');
    await waitFor(() => seen.has(`${kept.runId}/hold`), { what: 'the kept run' });
    for (const release of [...held]) release();
    await waitForRun(kept.runId, ended, 'the kept run');
    expect(seen.has(`${dropped.runId}/hold`)).toBe(false);
  });

  it('refuses a cycle, naming it, and an unknown job, naming the node', async () => {
    const cyclic = await callHttp(server.server.url, 'POST', '/api/v1/workflows', {
      token: API_TOKEN,
      body: {
        appId,
        name: 'cycle',
        scheduleType: 'NONE',
        nodes: [
          { key: 'A', jobId: job('wf-echo') },
          { key: 'B', jobId: job('wf-echo') },
          { key: 'C', jobId: job('wf-echo') },
        ],
        edges: [
          { from: 'A', to: 'B' },
          { from: 'B', to: 'C' },
          { from: 'C', to: 'A' },
        ],
      },
    });
    expect(cyclic.status).toBe(400);
    const body = (await cyclic.json()) as { error: { code: string; field: string; message: string } };
    expect(body.error).toMatchObject({ code: 'TW_ERR_INVALID_FIELD', field: 'edges' });
    expect(body.error.message).toContain('A → B → C → A');
    const unknown = await callHttp(server.server.url, 'POST', '/api/v1/workflows', {
      token: API_TOKEN,
      body: { appId, name: 'ghost', nodes: [{ key: 'A', jobId: 999_999 }], edges: [] },
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { field: string } }).error.field).toBe('nodes[0].jobId');
    const badExpression = await callHttp(server.server.url, 'POST', '/api/v1/workflows', {
      token: API_TOKEN,
      body: {
        appId,
        name: 'bad decision',
        nodes: [{ key: 'A', type: 'DECISION', expression: 'a +' }],
        edges: [],
      },
    });
    expect(badExpression.status).toBe(400);
    expect(((await badExpression.json()) as { error: { field: string } }).error.field).toBe(
      'nodes[0].expression',
    );
  });

  it('fires a CRON workflow on its schedule', async () => {
    const workflow = await api<{ id: number; nextFireAt: number }>('POST', '/workflows', {
      appId,
      name: 'every second',
      scheduleType: 'CRON',
      scheduleConf: '* * * * * ?',
      triggerStatus: 1,
      nodes: [{ key: 'tick', jobId: job('wf-echo') }],
      edges: [],
    });
    expect(workflow.nextFireAt).toBeGreaterThan(Date.now() - 1000);
    let runs: { items: { id: number; triggerType: string; status: string }[] } = { items: [] };
    await waitFor(
      async () => {
        runs = await api('GET', `/workflow-runs?workflowId=${workflow.id}`);
        return runs.items.filter((r) => r.status === 'succeeded').length >= 2;
      },
      { what: 'two scheduled runs', timeoutMs: 10_000 },
    );
    expect(runs.items.every((r) => r.triggerType === 'CRON')).toBe(true);
    await api('POST', `/workflows/${workflow.id}/stop`);
  });
});
