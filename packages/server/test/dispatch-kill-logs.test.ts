import { afterEach, describe, expect, it } from 'vitest';
import { Dispatcher } from '../src/dispatch/dispatcher.js';
import type { RecordedRun } from '../src/dispatch/kill.js';
import { closeAll, fire, gate, startExecutors, TOKEN, target } from './helpers/dispatch-fixtures.js';
import { MIMIC_APP, startMimic } from './helpers/xxl-mimic.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

function dispatcher(): Dispatcher {
  const d = new Dispatcher({ accessToken: TOKEN });
  cleanups.push(() => d.close());
  return d;
}

describe('kill', () => {
  it('stops the running run on the executor the fire was sent to', async () => {
    const started = gate();
    const executors = await startExecutors(1, (ex) =>
      ex.handle('hello', (ctx) => {
        started.open();
        return new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        );
      }),
    );
    cleanups.push(() => closeAll(executors));
    const d = dispatcher();
    const f = fire({ jobId: 21 });
    const [outcome] = await d.dispatch(f, [target(executors[0]!.address)]);
    await started.promise;
    const run: RecordedRun = {
      fireId: f.fireId,
      jobId: 21,
      logDateTime: f.scheduledAt,
      executor: target(outcome!.address!),
    };
    expect(await d.kill(run)).toEqual({ ok: true, msg: 'Success', scope: 'run' });
    expect(await executors[0]!.server.callbackFor(f.fireId)).toMatchObject({
      handleCode: 500,
      handleMsg: expect.stringContaining('scheduling center kill job. [job running, killed]'),
    });
  });

  it('says a fire never delivered has nothing to kill, without calling any executor', async () => {
    const result = await dispatcher().kill({ fireId: 5, jobId: 1, logDateTime: 0, executor: null });
    expect(result).toEqual({ ok: false, msg: 'fire 5 was not delivered to any executor; nothing to kill' });
  });
});

describe('run logs', () => {
  it("reads a run's log lines from the executor it was sent to, page by page", async () => {
    const executors = await startExecutors(1, (ex) =>
      ex.handle('hello', (ctx) => {
        for (let i = 1; i <= 3; i++) ctx.log(`step ${i}`);
      }),
    );
    cleanups.push(() => closeAll(executors));
    const d = dispatcher();
    const f = fire({ jobId: 22 });
    const [outcome] = await d.dispatch(f, [target(executors[0]!.address)]);
    await executors[0]!.server.callbackFor(f.fireId);
    const run: RecordedRun = {
      fireId: f.fireId,
      jobId: 22,
      logDateTime: f.scheduledAt,
      executor: target(outcome!.address!),
    };
    const first = await d.readLog(run, 1);
    expect(first.ok).toBe(true);
    expect(first.result!.logContent).toContain('step 3');
    const next = await d.readLog(run, first.result!.toLineNum + 1);
    expect(next).toMatchObject({ ok: true, result: { logContent: '' } });
  });

  it('reads the log of a 3.5 executor with the G4 spelling logDateTime', async () => {
    const m = await startMimic({ generation: '3.5', accessToken: TOKEN });
    cleanups.push(() => m.stop());
    const run: RecordedRun = {
      fireId: 31,
      jobId: 1,
      logDateTime: 1_700_000_000_000,
      executor: target(m.address, 'G4', MIMIC_APP),
    };
    const read = await dispatcher().readLog(run, 2);
    expect(read).toEqual({
      ok: true,
      msg: null,
      more: false,
      result: { fromLineNum: 2, toLineNum: 2, logContent: 'line two\n', isEnd: false },
    });
    expect(m.requests[0]!.body).toEqual({ logDateTime: 1_700_000_000_000, logId: 31, fromLineNum: 2 });
  });

  it('says a fire never delivered has no log', async () => {
    const read = await dispatcher().readLog({ fireId: 6, jobId: 1, logDateTime: 0, executor: null }, 1);
    expect(read).toEqual({
      ok: false,
      result: null,
      more: false,
      msg: 'fire 6 was not delivered to any executor; it has no log',
    });
  });
});
