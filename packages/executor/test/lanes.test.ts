/**
 * Per-job lanes over real HTTP: block strategies, repeated logIds, kill, idleBeat, timeouts,
 * lane replacement and release, and how a handler sets its result.
 */

import type { JobContext, StopReason } from '@tickwheel/executor';
import { MAX_HANDLE_MSG_LENGTH, WireMessages } from '@tickwheel/protocol';
import { freshLogId, trigger } from '@tickwheel/test-fixtures/executor-client';
import { type ExecutorFixture, sleep, startExecutor, until } from '@tickwheel/test-fixtures/executor-fixture';
import { ManualClock } from '@tickwheel/test-fixtures/manual-clock';
import { afterEach, describe, expect, it } from 'vitest';

let fx: ExecutorFixture | undefined;

afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

/** A handler that runs until the test opens its gate, and records how it was stopped. */
class Gates {
  readonly started: number[] = [];
  readonly stopReasons = new Map<number, StopReason>();
  private readonly open = new Map<number, () => void>();

  readonly handler = (ctx: JobContext) =>
    new Promise<string>((resolve, reject) => {
      this.started.push(ctx.logId);
      this.open.set(ctx.logId, () => resolve(`done ${ctx.logId}`));
      ctx.signal.addEventListener('abort', () => {
        this.stopReasons.set(ctx.logId, ctx.signal.reason as StopReason);
        reject(new Error('aborted'));
      });
    });

  release(logId: number): void {
    const open = this.open.get(logId);
    if (!open) throw new Error(`run ${logId} has not started`);
    open();
  }

  async waitStarted(logId: number): Promise<void> {
    await until(() => this.started.includes(logId), 5_000, `run ${logId} to start`);
  }
}

async function startWithGates(options = {}) {
  const gates = new Gates();
  fx = await startExecutor((ex) => {
    ex.handle('gated', gates.handler);
    ex.handle('hello', async (ctx) => `hello ${ctx.param}`);
  }, options);
  return { gates, fx };
}

function gatedRun(jobId: number, logId: number, fields: Record<string, unknown> = {}) {
  return trigger({ jobId, logId, executorHandler: 'gated', ...fields });
}

describe('block strategies', () => {
  it('SERIAL_EXECUTION queues runs and runs them one after the other', async () => {
    const { gates, fx } = await startWithGates();
    const [a, b, c] = [freshLogId(), freshLogId(), freshLogId()];
    for (const logId of [a, b, c]) expect((await fx.call('run', gatedRun(10, logId))).returnT.code).toBe(200);
    await gates.waitStarted(a);
    expect(gates.started).toEqual([a]);
    gates.release(a);
    await gates.waitStarted(b);
    expect(gates.started).toEqual([a, b]);
    gates.release(b);
    await gates.waitStarted(c);
    gates.release(c);
    await fx.server.callbackFor(c);
    expect(fx.server.callbacks.map((cb) => [cb.logId, cb.handleCode, cb.handleMsg])).toEqual([
      [a, 200, `done ${a}`],
      [b, 200, `done ${b}`],
      [c, 200, `done ${c}`],
    ]);
  });

  it('DISCARD_LATER refuses a run while one is running and accepts one when the lane is free', async () => {
    const { gates, fx } = await startWithGates();
    const a = freshLogId();
    await fx.call('run', gatedRun(11, a));
    await gates.waitStarted(a);
    const refused = await fx.call(
      'run',
      gatedRun(11, freshLogId(), { executorBlockStrategy: 'DISCARD_LATER' }),
    );
    expect(refused.returnT).toMatchObject({ code: 500, msg: WireMessages.discardLater });
    gates.release(a);
    await fx.server.callbackFor(a);
    await until(() => fx.server.callbacks.length === 1);
    const c = freshLogId();
    const accepted = await fx.call('run', gatedRun(11, c, { executorBlockStrategy: 'DISCARD_LATER' }));
    expect(accepted.returnT.code).toBe(200);
    await gates.waitStarted(c);
    gates.release(c);
    await fx.server.callbackFor(c);
  });

  it('COVER_EARLY stops the running run, reports it killed and starts the new one', async () => {
    const { gates, fx } = await startWithGates();
    const [a, b] = [freshLogId(), freshLogId()];
    await fx.call('run', gatedRun(12, a));
    await gates.waitStarted(a);
    expect(
      (await fx.call('run', gatedRun(12, b, { executorBlockStrategy: 'COVER_EARLY' }))).returnT.code,
    ).toBe(200);
    expect(await fx.server.callbackFor(a)).toMatchObject({
      handleCode: 500,
      handleMsg: WireMessages.coverEarly,
    });
    expect(gates.stopReasons.get(a)).toEqual({ kind: 'cover-early', msg: WireMessages.coverEarly });
    await gates.waitStarted(b);
    gates.release(b);
    expect(await fx.server.callbackFor(b)).toMatchObject({ handleCode: 200 });
  });

  it('COVER_EARLY reports the queued runs it drops as killed', async () => {
    const { gates, fx } = await startWithGates();
    const [a, queued, c] = [freshLogId(), freshLogId(), freshLogId()];
    await fx.call('run', gatedRun(13, a));
    await gates.waitStarted(a);
    await fx.call('run', gatedRun(13, queued));
    await fx.call('run', gatedRun(13, c, { executorBlockStrategy: 'COVER_EARLY' }));
    expect(await fx.server.callbackFor(queued)).toMatchObject({
      handleCode: 500,
      handleMsg: 'block strategy effect：Cover Early [job not executed, in the job queue, killed.]',
    });
    expect(gates.started).not.toContain(queued);
    await gates.waitStarted(c);
    gates.release(c);
    await fx.server.callbackFor(c);
  });
});

describe('repeated logIds', () => {
  it('a logId already accepted is refused, also after its run finished', async () => {
    const { fx } = await startWithGates();
    const logId = freshLogId();
    expect((await fx.call('run', trigger({ jobId: 14, logId }))).returnT.code).toBe(200);
    await fx.server.callbackFor(logId);
    const again = await fx.call('run', trigger({ jobId: 14, logId }));
    expect(again.returnT).toMatchObject({ code: 500, msg: WireMessages.repeatTrigger(logId) });
    expect(fx.server.callbacks.filter((c) => c.logId === logId)).toHaveLength(1);
  });

  it('the memory of accepted logIds is bounded: the oldest is forgotten past the limit', async () => {
    const { fx } = await startWithGates({ internal: { acceptedLogIdLimit: 2 } });
    const [a, b, c] = [freshLogId(), freshLogId(), freshLogId()];
    for (const logId of [a, b, c]) await fx.call('run', trigger({ jobId: 15, logId }));
    expect((await fx.call('run', trigger({ jobId: 15, logId: c }))).returnT.code).toBe(500);
    expect((await fx.call('run', trigger({ jobId: 15, logId: a }))).returnT.code).toBe(200);
  });

  it('an accepted logId is forgotten after its time to be remembered', async () => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const { fx } = await startWithGates({ internal: { acceptedLogIdTtlMs: 100, clock } });
    const logId = freshLogId();
    await fx.call('run', trigger({ jobId: 24, logId }));
    expect((await fx.call('run', trigger({ jobId: 24, logId }))).returnT.code).toBe(500);
    await clock.advance(99);
    expect((await fx.call('run', trigger({ jobId: 24, logId }))).returnT.code).toBe(500);
    await clock.advance(1);
    expect((await fx.call('run', trigger({ jobId: 24, logId }))).returnT.code).toBe(200);
  });
});

describe('kill', () => {
  it('kill stops the running run and reports every queued run as killed', async () => {
    const { gates, fx } = await startWithGates();
    const [a, b, c] = [freshLogId(), freshLogId(), freshLogId()];
    for (const logId of [a, b, c]) await fx.call('run', gatedRun(16, logId));
    await gates.waitStarted(a);
    expect((await fx.call('kill', { jobId: 16 })).returnT).toMatchObject({ code: 200 });
    expect(await fx.server.callbackFor(a)).toMatchObject({
      handleCode: 500,
      handleMsg: WireMessages.killRunning,
    });
    expect(await fx.server.callbackFor(b)).toMatchObject({
      handleCode: 500,
      handleMsg: WireMessages.killQueued,
    });
    expect(await fx.server.callbackFor(c)).toMatchObject({
      handleCode: 500,
      handleMsg: WireMessages.killQueued,
    });
    expect(gates.stopReasons.get(a)).toEqual({ kind: 'kill', msg: WireMessages.killRunning });
    expect(gates.started).toEqual([a]);
  });

  it('kill with the logId of a queued run drops only that run; the running run goes on and succeeds', async () => {
    const { gates, fx } = await startWithGates();
    const [a, b, c] = [freshLogId(), freshLogId(), freshLogId()];
    for (const logId of [a, b, c]) await fx.call('run', gatedRun(26, logId));
    await gates.waitStarted(a);
    expect((await fx.call('kill', { jobId: 26, logId: b })).returnT).toMatchObject({ code: 200 });
    expect(await fx.server.callbackFor(b)).toMatchObject({
      handleCode: 500,
      handleMsg: WireMessages.killQueued,
    });
    expect(gates.stopReasons.has(a)).toBe(false);
    gates.release(a);
    expect(await fx.server.callbackFor(a)).toMatchObject({ handleCode: 200, handleMsg: `done ${a}` });
    await gates.waitStarted(c);
    gates.release(c);
    expect(await fx.server.callbackFor(c)).toMatchObject({ handleCode: 200 });
    expect(gates.started).toEqual([a, c]);
  });

  it('kill with the logId of the running run stops only it; the queue goes on', async () => {
    const { gates, fx } = await startWithGates();
    const [a, b] = [freshLogId(), freshLogId()];
    for (const logId of [a, b]) await fx.call('run', gatedRun(27, logId));
    await gates.waitStarted(a);
    expect((await fx.call('kill', { jobId: 27, logId: a })).returnT).toMatchObject({ code: 200 });
    expect(await fx.server.callbackFor(a)).toMatchObject({
      handleCode: 500,
      handleMsg: WireMessages.killRunning,
    });
    await gates.waitStarted(b);
    gates.release(b);
    expect(await fx.server.callbackFor(b)).toMatchObject({ handleCode: 200 });
  });

  it('kill with a logId the lane does not hold stops nothing and says so', async () => {
    const { gates, fx } = await startWithGates();
    const a = freshLogId();
    await fx.call('run', gatedRun(28, a));
    await gates.waitStarted(a);
    const answer = await fx.call('kill', { jobId: 28, logId: freshLogId() });
    expect(answer.returnT).toMatchObject({ code: 200, msg: WireMessages.threadAlreadyKilled });
    gates.release(a);
    expect(await fx.server.callbackFor(a)).toMatchObject({ handleCode: 200 });
  });

  it('kill of a job without a lane answers that it is already killed', async () => {
    const { fx } = await startWithGates();
    const answer = await fx.call('kill', { jobId: 999 });
    expect(answer.returnT).toMatchObject({ code: 200, msg: WireMessages.threadAlreadyKilled });
  });
});

describe('idleBeat', () => {
  it('idleBeat fails while the lane runs or has queued runs and succeeds once it is idle', async () => {
    const { gates, fx } = await startWithGates();
    expect((await fx.call('idleBeat', { jobId: 17 })).returnT.code).toBe(200);
    const [a, b] = [freshLogId(), freshLogId()];
    await fx.call('run', gatedRun(17, a));
    await fx.call('run', gatedRun(17, b));
    await gates.waitStarted(a);
    expect((await fx.call('idleBeat', { jobId: 17 })).returnT).toMatchObject({
      code: 500,
      msg: 'job thread is running or has trigger queue.',
    });
    gates.release(a);
    await gates.waitStarted(b);
    expect((await fx.call('idleBeat', { jobId: 17 })).returnT.code).toBe(500);
    gates.release(b);
    await fx.server.callbackFor(b);
    expect((await fx.call('idleBeat', { jobId: 17 })).returnT.code).toBe(200);
    expect((await fx.call('idleBeat', { jobId: 18 })).returnT.code).toBe(200);
  });
});

describe('timeouts', () => {
  it('a run over executorTimeout is aborted with a timeout reason and reported 502', async () => {
    const { gates, fx } = await startWithGates();
    const logId = freshLogId();
    const sentAt = Date.now();
    await fx.call('run', gatedRun(19, logId, { executorTimeout: 1 }));
    expect(await fx.server.callbackFor(logId)).toMatchObject({
      handleCode: 502,
      handleMsg: WireMessages.timeout,
    });
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(950);
    expect(gates.stopReasons.get(logId)).toEqual({ kind: 'timeout' });
  });

  it('a handler that reads ctx.signal only after its run was stopped finds it aborted with the reason', async () => {
    let readLater: (() => void) | undefined;
    const seen: Array<{ aborted: boolean; reason: unknown }> = [];
    fx = await startExecutor((ex) => {
      ex.handle('late-reader', (ctx) => {
        readLater = () => seen.push({ aborted: ctx.signal.aborted, reason: ctx.signal.reason });
        return new Promise(() => {});
      });
    });
    const logId = freshLogId();
    await fx.call('run', trigger({ jobId: 20, logId, executorHandler: 'late-reader', executorTimeout: 1 }));
    expect(await fx.server.callbackFor(logId)).toMatchObject({ handleCode: 502 });
    readLater?.();
    expect(seen).toEqual([{ aborted: true, reason: { kind: 'timeout' } }]);
  });
});

describe('lane lifecycle', () => {
  it('a changed handler for the same job stops the old lane first', async () => {
    const { gates, fx } = await startWithGates();
    const [a, b] = [freshLogId(), freshLogId()];
    await fx.call('run', gatedRun(20, a));
    await gates.waitStarted(a);
    expect((await fx.call('run', trigger({ jobId: 20, logId: b, executorParams: 'new' }))).returnT.code).toBe(
      200,
    );
    expect(await fx.server.callbackFor(a)).toMatchObject({
      handleCode: 500,
      handleMsg: 'change jobhandler or glue type, and terminate the old job thread. [job running, killed]',
    });
    expect(await fx.server.callbackFor(b)).toMatchObject({ handleCode: 200, handleMsg: 'hello new' });
  });

  it('an idle lane is released (destroy hook) and a later run opens a new one (init hook)', async () => {
    const hooks: string[] = [];
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    fx = await startExecutor(
      (ex) =>
        ex.handle('hooked', async () => 'ok', {
          init: () => void hooks.push('init'),
          destroy: () => void hooks.push('destroy'),
        }),
      { internal: { laneIdleMs: 200, clock } },
    );
    const first = freshLogId();
    await fx.call('run', trigger({ jobId: 21, logId: first, executorHandler: 'hooked' }));
    await fx.server.callbackFor(first);
    expect(hooks).toEqual(['init']);
    // The lane's idle timer is one of the clock's; it must still be set just before it is due.
    const timers = clock.pendingTimers;
    await clock.advance(199);
    expect(clock.pendingTimers).toBe(timers);
    expect(hooks).toEqual(['init']);
    await clock.advance(1);
    expect(clock.pendingTimers).toBe(timers - 1);
    await until(() => hooks.length === 2, 3_000, 'the lane to be released');
    expect(hooks).toEqual(['init', 'destroy']);
    const second = freshLogId();
    await fx.call('run', trigger({ jobId: 21, logId: second, executorHandler: 'hooked' }));
    await fx.server.callbackFor(second);
    expect(hooks).toEqual(['init', 'destroy', 'init']);
  });
});

describe('script jobs', () => {
  function script(jobId: number, logId: number, glueSource: string, glueUpdatetime: number, fields = {}) {
    return trigger({
      jobId,
      logId,
      executorHandler: '',
      glueType: 'GLUE_SHELL',
      glueSource,
      glueUpdatetime,
      ...fields,
    });
  }

  it('a GLUE_SHELL job runs as a script with its parameter and shard as arguments', async () => {
    fx = await startExecutor(() => {}, { enableScripts: true });
    const logId = freshLogId();
    const logDateTime = Date.now();
    await fx.call('run', script(22, logId, 'echo "args: $1 $2 $3"', 1, { executorParams: 'p', logDateTime }));
    expect(await fx.server.callbackFor(logId)).toMatchObject({ handleCode: 200 });
    const log = await fx.call('log', { logDateTim: logDateTime, logId, fromLineNum: 1 });
    expect((log.returnT.content as { logContent: string }).logContent).toContain('args: p 0 1');
  });

  it('a new script version for the same job stops the old version first', async () => {
    fx = await startExecutor(() => {}, { enableScripts: true });
    const [old, current] = [freshLogId(), freshLogId()];
    await fx.call('run', script(23, old, 'sleep 5', 1));
    await sleep(200);
    await fx.call('run', script(23, current, 'echo new', 2));
    expect(await fx.server.callbackFor(old)).toMatchObject({
      handleCode: 500,
      handleMsg: 'change jobhandler or glue type, and terminate the old job thread. [job running, killed]',
    });
    expect(await fx.server.callbackFor(current)).toMatchObject({ handleCode: 200 });
  });
});

describe('results', () => {
  async function resultOf(handler: (ctx: JobContext) => unknown, fields: Record<string, unknown> = {}) {
    fx ??= await startExecutor();
    const name = `h${freshLogId()}`;
    fx.ex.handle(name, handler);
    const logId = freshLogId();
    await fx.call('run', trigger({ jobId: logId, logId, executorHandler: name, ...fields }));
    return fx.server.callbackFor(logId);
  }

  it('a handler that returns nothing succeeds with no message', async () => {
    expect(await resultOf(async () => {})).toMatchObject({ handleCode: 200, handleMsg: null });
  });

  it('a returned object becomes the JSON message of a success', async () => {
    expect(await resultOf(async () => ({ rows: 3 }))).toMatchObject({
      handleCode: 200,
      handleMsg: '{"rows":3}',
    });
  });

  it('a thrown error fails the run with its message', async () => {
    expect(
      await resultOf(async () => {
        throw new Error('database down');
      }),
    ).toMatchObject({ handleCode: 500, handleMsg: 'database down' });
  });

  it('fail() sets a failure even when the handler returns a value', async () => {
    expect(
      await resultOf(async (ctx) => {
        ctx.fail('bad input');
        return 'ignored';
      }),
    ).toMatchObject({ handleCode: 500, handleMsg: 'bad input' });
  });

  it('the context carries the job, the run, the parameter and the shard', async () => {
    const result = await resultOf(
      async (ctx) => {
        ctx.success(
          [ctx.jobId === ctx.logId, ctx.param, ctx.shardIndex, ctx.shardTotal, ctx.logDateTime].join(','),
        );
      },
      { executorParams: 'p=1', broadcastIndex: 2, broadcastTotal: 3, logDateTime: 1_700_000_000_000 },
    );
    expect(result).toMatchObject({ handleCode: 200, handleMsg: 'true,p=1,2,3,1700000000000' });
  });

  it('a long message is capped', async () => {
    const result = await resultOf(async () => 'x'.repeat(MAX_HANDLE_MSG_LENGTH + 10));
    expect(result.handleMsg).toBe(`${'x'.repeat(MAX_HANDLE_MSG_LENGTH)}...`);
  });
});
