/**
 * Isolation: worker handlers run in worker threads that are terminated when a run must stop;
 * in-process handlers are stopped cooperatively and the lane does not wait for them.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { WireMessages } from '@tickwheel/protocol';
import { freshLogId, trigger } from '@tickwheel/test-fixtures/executor-client';
import {
  type ExecutorFixture,
  sleep,
  startExecutor,
  tempDir,
} from '@tickwheel/test-fixtures/executor-fixture';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

let modules: string;
let fx: ExecutorFixture | undefined;

const MODULES: Record<string, string> = {
  'thread.mjs': `
    import { threadId } from 'node:worker_threads';
    export default async (ctx) => { ctx.log('running in thread', threadId); return 'thread ' + threadId; };`,
  'named.mjs': `
    export const pick = async () => 'the named export';
    export default async () => 'the default export';`,
  'spin.mjs': `
    export default (ctx) => { ctx.log('spinning'); for (;;) {} };`,
  'counter.mjs': `
    let runs = 0;
    export default (ctx) => { runs += 1; if (ctx.param === 'spin') for (;;) {} return 'run ' + runs; };`,
  'throws.mjs': `
    export default async () => { throw new Error('worker handler broke'); };`,
  'broken.mjs': `
    export default syntax error here;`,
};

beforeAll(async () => {
  modules = await tempDir();
  for (const [name, source] of Object.entries(MODULES)) await writeFile(path.join(modules, name), source);
});

afterAll(async () => {
  const { rm } = await import('node:fs/promises');
  await rm(modules, { recursive: true, force: true });
});

afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

function moduleUrl(name: string): URL {
  return pathToFileURL(path.join(modules, name));
}

async function startWithWorkers(names: string[]) {
  fx = await startExecutor((ex) => {
    for (const name of names) {
      ex.handle(name.replace('.mjs', ''), { isolation: 'worker', module: moduleUrl(name) });
    }
  });
  return fx;
}

/** CPU time (user + system, all threads of this process) spent over `ms`, in ms. */
async function cpuMsOver(ms: number): Promise<number> {
  const before = process.cpuUsage();
  await sleep(ms);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

describe('worker isolation', () => {
  it('a worker handler runs in a worker thread and its log and result reach the server', async () => {
    const fx = await startWithWorkers(['thread.mjs']);
    const logId = freshLogId();
    const logDateTime = Date.now();
    await fx.call('run', trigger({ logId, logDateTime, executorHandler: 'thread' }));
    const result = await fx.server.callbackFor(logId);
    expect(result.handleCode).toBe(200);
    const threadId = Number(result.handleMsg?.replace('thread ', ''));
    expect(threadId).toBeGreaterThan(0);
    const log = await fx.call('log', { logDateTim: logDateTime, logId, fromLineNum: 1 });
    expect((log.returnT.content as { logContent: string }).logContent).toContain(
      `running in thread ${threadId}`,
    );
  });

  it('the export named like the handler is preferred over the default export', async () => {
    fx = await startExecutor((ex) =>
      ex.handle('pick', { isolation: 'worker', module: moduleUrl('named.mjs').href }),
    );
    const logId = freshLogId();
    await fx.call('run', trigger({ logId, executorHandler: 'pick' }));
    expect(await fx.server.callbackFor(logId)).toMatchObject({
      handleCode: 200,
      handleMsg: 'the named export',
    });
  });

  it('kill terminates a CPU-bound worker handler so it stops using the CPU', async () => {
    const fx = await startWithWorkers(['spin.mjs']);
    const logId = freshLogId();
    await fx.call('run', trigger({ jobId: 30, logId, executorHandler: 'spin' }));
    await sleep(300);
    // A spinning thread uses about a core; other test files may share the machine, hence the margins.
    const busy = await cpuMsOver(1_000);
    expect(busy).toBeGreaterThan(250);
    expect((await fx.call('kill', { jobId: 30 })).returnT.code).toBe(200);
    expect(await fx.server.callbackFor(logId)).toMatchObject({
      handleCode: 500,
      handleMsg: WireMessages.killRunning,
    });
    await sleep(200);
    const after = await cpuMsOver(1_000);
    expect(after).toBeLessThan(Math.min(250, busy / 2));
  });

  it('a CPU-bound worker handler over its timeout is reported 502 and stops using the CPU', async () => {
    const fx = await startWithWorkers(['spin.mjs']);
    const logId = freshLogId();
    await fx.call('run', trigger({ jobId: 31, logId, executorHandler: 'spin', executorTimeout: 1 }));
    expect(await fx.server.callbackFor(logId)).toMatchObject({
      handleCode: 502,
      handleMsg: WireMessages.timeout,
    });
    await sleep(400);
    expect(await cpuMsOver(1_000)).toBeLessThan(250);
  });

  it('a warm worker serves the lane between runs and a fresh one replaces a terminated worker', async () => {
    const fx = await startWithWorkers(['counter.mjs']);
    const run = async (fields: Record<string, unknown> = {}) => {
      const logId = freshLogId();
      await fx.call('run', trigger({ jobId: 32, logId, executorHandler: 'counter', ...fields }));
      return fx.server.callbackFor(logId);
    };
    expect((await run()).handleMsg).toBe('run 1');
    expect((await run()).handleMsg).toBe('run 2');
    expect(await run({ executorParams: 'spin', executorTimeout: 1 })).toMatchObject({ handleCode: 502 });
    expect((await run()).handleMsg).toBe('run 1');
  });

  it('an error thrown in a worker handler fails the run with its message', async () => {
    const fx = await startWithWorkers(['throws.mjs']);
    const logId = freshLogId();
    await fx.call('run', trigger({ logId, executorHandler: 'throws' }));
    expect(await fx.server.callbackFor(logId)).toMatchObject({
      handleCode: 500,
      handleMsg: 'worker handler broke',
    });
  });

  it('a handler module that fails to load fails the run saying so', async () => {
    const fx = await startWithWorkers(['broken.mjs']);
    const logId = freshLogId();
    await fx.call('run', trigger({ logId, executorHandler: 'broken' }));
    const result = await fx.server.callbackFor(logId);
    expect(result.handleCode).toBe(500);
    expect(result.handleMsg).toMatch(/^job handler \[broken\] module file:.*broken\.mjs failed to load: /);
  });
});

describe('in-process isolation', () => {
  it('the lane reports a timeout and runs the next trigger without waiting for a handler that ignores the signal', async () => {
    let stuckFinished = false;
    fx = await startExecutor((ex) =>
      ex.handle('stubborn', async (ctx) => {
        if (ctx.param === 'stuck') {
          await sleep(3_000);
          stuckFinished = true;
        }
        return `finished ${ctx.param}`;
      }),
    );
    const [stuck, next] = [freshLogId(), freshLogId()];
    const sentAt = Date.now();
    await fx.call(
      'run',
      trigger({
        jobId: 33,
        logId: stuck,
        executorHandler: 'stubborn',
        executorParams: 'stuck',
        executorTimeout: 1,
      }),
    );
    await fx.call(
      'run',
      trigger({ jobId: 33, logId: next, executorHandler: 'stubborn', executorParams: 'next' }),
    );
    expect(await fx.server.callbackFor(stuck)).toMatchObject({
      handleCode: 502,
      handleMsg: WireMessages.timeout,
    });
    expect(await fx.server.callbackFor(next)).toMatchObject({ handleCode: 200, handleMsg: 'finished next' });
    expect(Date.now() - sentAt).toBeLessThan(2_500);
    expect(stuckFinished).toBe(false);
  });
});
