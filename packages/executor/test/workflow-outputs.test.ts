/**
 * Workflow outputs and upstream: a workflow node's run sees its workflow run and its upstream
 * nodes' outputs in `ctx.workflow` and `ctx.upstream`, and its returned value or `setOutput()`
 * reaches the server as the callback item's `output` — in process, in a worker thread, and
 * through a spill and a restart — bounded by `WORKFLOW_LIMITS.outputBytes`, the result unchanged.
 */
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Executor } from '@tickwheel/executor';
import { WireMessages, WORKFLOW_LIMITS } from '@tickwheel/protocol';
import { freshLogId, trigger } from '@tickwheel/test-fixtures/executor-client';
import { type ExecutorFixture, startExecutor, tempDir } from '@tickwheel/test-fixtures/executor-fixture';
import { afterEach, describe, expect, it } from 'vitest';

const fixtures: ExecutorFixture[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const fx of fixtures.splice(0)) await fx.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function executor(register: (ex: Executor) => void): Promise<ExecutorFixture> {
  const fx = await startExecutor(register);
  fixtures.push(fx);
  return fx;
}

const workflow = {
  runId: 41,
  nodeKey: 'load',
  param: 'day=2024-10-04',
  upstream: {
    extract: { status: 'succeeded', output: { rows: 3, files: ['a.csv'] } },
    check: { status: 'skipped', output: null },
  },
};

/** Runs `handler` once as the workflow node above (or outside a workflow) and returns the raw callback item and the run's log. */
async function runOnce(
  fx: ExecutorFixture,
  handler: string,
  fields: Record<string, unknown> = { workflow },
): Promise<{ item: Record<string, unknown>; log: string }> {
  const logId = freshLogId();
  const logDateTime = Date.now();
  const answer = await fx.call('run', trigger({ logId, logDateTime, executorHandler: handler, ...fields }));
  expect(answer.returnT.code).toBe(200);
  await fx.server.callbackFor(logId);
  return { item: rawCallbackItem(fx, logId), log: await runLog(fx, logId, logDateTime) };
}

/** The callback item for `logId` exactly as the executor sent it. */
function rawCallbackItem(fx: ExecutorFixture, logId: number): Record<string, unknown> {
  for (const request of fx.server.requestsTo('/api/callback')) {
    const item = (request.body as Array<Record<string, unknown>>).find((i) => i.logId === logId);
    if (item) return item;
  }
  throw new Error(`no callback item for logId ${logId}`);
}

async function runLog(fx: ExecutorFixture, logId: number, logDateTime: number): Promise<string> {
  const log = await fx.call('log', { logDateTim: logDateTime, logId, fromLineNum: 1 });
  return (log.returnT.content as { logContent: string }).logContent;
}

describe('a workflow node run', () => {
  it("sends the handler's returned object as the output, its JSON still the message", async () => {
    const fx = await executor((ex) => ex.handle('report', async () => ({ rows: 3, ok: true })));
    const { item } = await runOnce(fx, 'report');
    expect(item).toMatchObject({
      handleCode: 200,
      handleMsg: '{"rows":3,"ok":true}',
      output: { rows: 3, ok: true },
    });
  });

  it('sends what setOutput set rather than the returned value, which stays the message', async () => {
    const fx = await executor((ex) =>
      ex.handle('files', async (ctx) => {
        ctx.setOutput({ files: 2 });
        return '2 files written';
      }),
    );
    const { item } = await runOnce(fx, 'files');
    expect(item).toMatchObject({ handleCode: 200, handleMsg: '2 files written', output: { files: 2 } });
  });

  it('sends an output with an explicit fail(), and with an error thrown after setOutput', async () => {
    const fx = await executor((ex) => {
      ex.handle('refuse', async (ctx) => {
        ctx.fail('no rows');
        return { rows: 0 };
      });
      ex.handle('breaks', async (ctx) => {
        ctx.setOutput({ step: 'upload' });
        throw new Error('upload failed');
      });
    });
    expect((await runOnce(fx, 'refuse')).item).toMatchObject({
      handleCode: 500,
      handleMsg: 'no rows',
      output: { rows: 0 },
    });
    expect((await runOnce(fx, 'breaks')).item).toMatchObject({
      handleCode: 500,
      handleMsg: 'upload failed',
      output: { step: 'upload' },
    });
  });

  it('sends no output for a handler that returns nothing, or a run that was stopped', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const fx = await executor((ex) => {
      ex.handle('quiet', async () => undefined);
      ex.handle('waits', async (ctx) => {
        ctx.setOutput('half done');
        started();
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        return 'finished anyway';
      });
    });
    expect((await runOnce(fx, 'quiet')).item).not.toHaveProperty('output');

    const logId = freshLogId();
    await fx.call('run', trigger({ jobId: 9, logId, executorHandler: 'waits', workflow }));
    await running;
    await fx.call('kill', { jobId: 9 });
    expect(await fx.server.callbackFor(logId)).toMatchObject({
      handleCode: 500,
      handleMsg: WireMessages.killRunning,
    });
    expect(rawCallbackItem(fx, logId)).not.toHaveProperty('output');
  });

  it('fills ctx.workflow and ctx.upstream from the run request', async () => {
    const seen: unknown[] = [];
    const fx = await executor((ex) =>
      ex.handle('look', async (ctx) => {
        seen.push(ctx.workflow, ctx.upstream);
      }),
    );
    await runOnce(fx, 'look');
    expect(seen).toEqual([
      { runId: 41, nodeKey: 'load', param: 'day=2024-10-04' },
      {
        extract: { status: 'succeeded', output: { rows: 3, files: ['a.csv'] } },
        check: { status: 'skipped', output: null },
      },
    ]);
  });

  it('says in the start line of its log which workflow run and node it is', async () => {
    const fx = await executor((ex) => ex.handle('hello', async () => 'hi'));
    const { log } = await runOnce(fx, 'hello');
    expect(log).toMatch(/tickwheel run start: .* workflowRun=41 node=load/);
  });
});

describe('an output the server cannot take', () => {
  it('over WORKFLOW_LIMITS.outputBytes is dropped with a line in the run log, the result unchanged', async () => {
    const big = 'é'.repeat(WORKFLOW_LIMITS.outputBytes / 2); // two UTF-8 bytes each, plus the quotes
    const fx = await executor((ex) =>
      ex.handle('big', async (ctx) => {
        ctx.setOutput(big);
        return 'done';
      }),
    );
    const { item, log } = await runOnce(fx, 'big');
    expect(item).toEqual({
      logId: item.logId,
      logDateTim: item.logDateTim,
      handleCode: 200,
      handleMsg: 'done',
    });
    expect(log).toContain(
      `tickwheel output dropped: its JSON is ${WORKFLOW_LIMITS.outputBytes + 2} bytes, over the limit of ${WORKFLOW_LIMITS.outputBytes} bytes`,
    );
  });

  it('at exactly WORKFLOW_LIMITS.outputBytes is sent', async () => {
    const fx = await executor((ex) =>
      ex.handle('edge', async (ctx) => ctx.setOutput('x'.repeat(WORKFLOW_LIMITS.outputBytes - 2))),
    );
    const { item } = await runOnce(fx, 'edge');
    expect((item.output as string).length).toBe(WORKFLOW_LIMITS.outputBytes - 2);
  });

  it('that JSON cannot write (a BigInt, a cycle, a function) is dropped with a line saying why', async () => {
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    const fx = await executor((ex) => {
      ex.handle('bigint', async () => ({ count: 10n }));
      ex.handle('cycle', async (ctx) => {
        ctx.setOutput(cycle);
        ctx.success('ok');
      });
      ex.handle('fn', async (ctx) => ctx.setOutput(() => 1));
    });
    const bigint = await runOnce(fx, 'bigint');
    expect(bigint.item).toMatchObject({ handleCode: 200 });
    expect(bigint.item).not.toHaveProperty('output');
    expect(bigint.log).toMatch(/tickwheel output dropped: it cannot be written as JSON \(.*BigInt/);

    const cyclic = await runOnce(fx, 'cycle');
    expect(cyclic.item).toMatchObject({ handleCode: 200, handleMsg: 'ok' });
    expect(cyclic.item).not.toHaveProperty('output');
    expect(cyclic.log).toMatch(/tickwheel output dropped: it cannot be written as JSON \(.*circular/);

    const fn = await runOnce(fx, 'fn');
    expect(fn.item).not.toHaveProperty('output');
    expect(fn.log).toContain('tickwheel output dropped: a function cannot be written as JSON');
  });

  it('is sent as its JSON value: toJSON applied, undefined members left out', async () => {
    const when = new Date('2024-10-04T00:00:00.000Z');
    const fx = await executor((ex) => ex.handle('dated', async () => ({ when, gone: undefined })));
    expect((await runOnce(fx, 'dated')).item.output).toEqual({ when: '2024-10-04T00:00:00.000Z' });
  });
});

describe('outside a workflow', () => {
  it('ctx.workflow is undefined, ctx.upstream is {}, and no output is sent (the log says so of a setOutput)', async () => {
    const seen: unknown[] = [];
    const fx = await executor((ex) => {
      ex.handle('plain', async (ctx) => {
        seen.push(ctx.workflow, ctx.upstream);
        return { rows: 1 };
      });
      ex.handle('sets', async (ctx) => {
        ctx.setOutput({ rows: 1 });
        return 'done';
      });
    });
    const plain = await runOnce(fx, 'plain', {});
    expect(seen).toEqual([undefined, {}]);
    expect(plain.item).toEqual({
      logId: plain.item.logId,
      logDateTim: plain.item.logDateTim,
      handleCode: 200,
      handleMsg: '{"rows":1}',
    });
    const sets = await runOnce(fx, 'sets', {});
    expect(sets.item).not.toHaveProperty('output');
    expect(sets.log).toContain("tickwheel output not sent: this run is not a workflow node's");
  });
});

describe('a worker handler', () => {
  it('reads ctx.upstream in its thread and its output reaches the callback', async () => {
    const modules = await tempDir();
    dirs.push(modules);
    const file = path.join(modules, 'sum.mjs');
    await writeFile(
      file,
      `export default async (ctx) => {
         if (ctx.param === 'big') ctx.setOutput('x'.repeat(${WORKFLOW_LIMITS.outputBytes}));
         return { node: ctx.workflow.nodeKey, rows: ctx.upstream.extract.output.rows + 1 };
       };`,
    );
    const fx = await executor((ex) => ex.handle('sum', { isolation: 'worker', module: pathToFileURL(file) }));
    expect((await runOnce(fx, 'sum')).item).toMatchObject({
      handleCode: 200,
      handleMsg: '{"node":"load","rows":4}',
      output: { node: 'load', rows: 4 },
    });
    const big = await runOnce(fx, 'sum', { workflow, executorParams: 'big' });
    expect(big.item).toMatchObject({ handleCode: 200 });
    expect(big.item).not.toHaveProperty('output');
    expect(big.log).toContain('tickwheel output dropped: its JSON is');
  });
});

describe('an output and the spill file', () => {
  it('survives a spill and an executor restart on the same log dir', async () => {
    const logDir = await tempDir();
    dirs.push(logDir);
    const register = (ex: Executor) => ex.handle('report', async () => ({ rows: 7 }));
    const first = await startExecutor(register, { logDir });
    first.server.refuseCallbacks = true;
    const logId = freshLogId();
    await first.call('run', trigger({ logId, executorHandler: 'report', workflow }));
    await first.server.waitFor(
      () => first.server.requestsTo('/api/callback').length > 0,
      5_000,
      'a callback',
    );
    await first.ex.stop({ timeoutMs: 0 });
    await first.server.stop();

    const second = await startExecutor(register, { logDir });
    fixtures.push(second);
    expect(await second.server.callbackFor(logId)).toEqual({
      logId,
      logDateTim: expect.any(Number),
      handleCode: 200,
      handleMsg: '{"rows":7}',
      output: { rows: 7 },
    });
  });
});
