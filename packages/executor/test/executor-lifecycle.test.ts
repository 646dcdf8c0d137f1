/**
 * The executor's life: options, start (token rule, address, registration), results in each
 * protocol generation, and graceful stop.
 */
import { readlinkSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExecutor, type ExecutorOptions } from '@tickwheel/executor';
import {
  ACCESS_TOKEN_HEADER,
  APP_NAME_HEADER,
  INSTANCE_HEADER,
  isInstanceId,
  isTickwheelError,
  type TickwheelError,
} from '@tickwheel/protocol';
import { callExecutor, freshLogId, trigger } from '@tickwheel/test-fixtures/executor-client';
import {
  capturingLogger,
  type ExecutorFixture,
  sleep,
  startExecutor,
  TOKEN,
  tempDir,
  until,
} from '@tickwheel/test-fixtures/executor-fixture';
import { ManualClock } from '@tickwheel/test-fixtures/manual-clock';
import { startTestServer } from '@tickwheel/test-fixtures/test-server';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';

let fx: ExecutorFixture | undefined;

afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const silent = pino({ level: 'silent' });
const valid: ExecutorOptions = { appName: 'app', accessToken: TOKEN, logger: silent };

function optionError(options: ExecutorOptions): TickwheelError {
  try {
    createExecutor(options);
  } catch (err) {
    if (isTickwheelError(err, 'TW_ERR_INVALID_OPTION')) return err;
    throw err;
  }
  throw new Error('createExecutor accepted the options');
}

describe('options', () => {
  it('an executor without an access token is refused unless insecure', () => {
    const err = optionError({ appName: 'app', logger: silent });
    expect(err.field).toBe('accessToken');
    expect(err.message).toMatch(/^accessToken: is required; set insecure: true/);
    expect(optionError({ appName: 'app', accessToken: '   ', logger: silent }).field).toBe('accessToken');
  });

  it.each<[string, Partial<ExecutorOptions>]>([
    ['appName', { appName: '' }],
    ['appName', { appName: 'has space' }],
    ['port', { port: 70_000 }],
    ['port', { port: 1.5 }],
    ['protocol', { protocol: 'G9' as 'G2' }],
    ['serverAddresses[1]', { serverAddresses: ['http://ok:8080/', 'ftp://nope/'] }],
    ['serverAddresses', { serverAddresses: 'http://a/' as unknown as string[] }],
    ['advertisedAddress', { advertisedAddress: 'not a url' }],
    ['logRetentionDays', { logRetentionDays: -1 }],
    ['logLayout', { logLayout: 'one-file' as 'file-per-day' }],
    ['enableScripts', { enableScripts: 'yes' as unknown as boolean }],
    ['logger', { logger: {} as typeof silent }],
    ['internal.laneIdleMs', { internal: { laneIdleMs: 0 } }],
  ])('an invalid %s is refused with the option named', (field, override) => {
    const err = optionError({ ...valid, ...override });
    expect(err.field).toBe(field);
    expect(err.message.startsWith(`${field}: `)).toBe(true);
  });

  it('handle() refuses a second handler of the same name and a worker without a module', () => {
    const ex = createExecutor(valid);
    ex.handle('a', async () => {});
    expect(() => ex.handle('a', async () => {})).toThrow(/job handler \[a\] is already registered/);
    expect(() => ex.handle('w', async () => {}, { isolation: 'worker' })).toThrow(
      expect.objectContaining({ code: 'TW_ERR_INVALID_OPTION', field: 'module' }),
    );
    expect(() => ex.handle('m', { isolation: 'worker', module: '/does/not/exist.mjs' })).toThrow(
      /module: file not found/,
    );
  });
});

describe('start', () => {
  it('an insecure executor starts without a token, logs a warning and answers any caller', async () => {
    const { logger, lines } = capturingLogger();
    fx = await startExecutor(() => {}, { accessToken: undefined, insecure: true, logger });
    expect(lines.some((l) => l.level === 40 && String(l.msg).includes('without an access token'))).toBe(true);
    expect((await callExecutor(fx.address, 'beat', {})).returnT.code).toBe(200);
  });

  it('with port 0 the executor listens on a free port and exposes its address', async () => {
    fx = await startExecutor();
    expect(fx.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(fx.address).not.toBe('http://127.0.0.1:0/');
    expect((await fx.call('beat')).returnT.code).toBe(200);
  });

  it('start rejects when the port is taken', async () => {
    const taken = http.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const ex = createExecutor({ ...valid, port: (taken.address() as AddressInfo).port });
    await expect(ex.start()).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await new Promise<void>((resolve) => taken.close(() => resolve()));
  });

  it('the executor registers its address at start and keeps beating', async () => {
    fx = await startExecutor(() => {}, { internal: { heartbeatIntervalMs: 100 } });
    await fx.server.waitFor(() => fx!.server.registrations.length >= 3);
    expect(fx.server.registrations[0]).toEqual({
      registryGroup: 'EXECUTOR',
      registryKey: 'test-app',
      registryValue: fx.address,
      instance: fx.ex.instanceId,
    });
  });

  it('each executor registers its own instance id and announces it on every answer (Tickwheel-Instance)', async () => {
    fx = await startExecutor(() => {});
    const other = createExecutor({ ...valid, port: 0 });
    expect(fx.ex.instanceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(isInstanceId(fx.ex.instanceId)).toBe(true);
    expect(other.instanceId).not.toBe(fx.ex.instanceId);
    await fx.server.waitFor(() => fx!.server.registrations.length >= 1);
    expect(fx.server.registrations[0]?.instance).toBe(fx.ex.instanceId);
    const beat = await fetch(`${fx.address}beat`, {
      method: 'POST',
      headers: { [ACCESS_TOKEN_HEADER]: TOKEN },
    });
    expect(beat.headers.get(INSTANCE_HEADER)).toBe(fx.ex.instanceId);
    const run = await fetch(`${fx.address}run`, {
      method: 'POST',
      headers: { [ACCESS_TOKEN_HEADER]: TOKEN },
      body: JSON.stringify(trigger({ logId: freshLogId(), executorHandler: 'missing' })),
    });
    expect(run.headers.get(INSTANCE_HEADER)).toBe(fx.ex.instanceId);
  });

  it("the executor registers the names of its handlers (Tickwheel's handlers field)", async () => {
    fx = await startExecutor((ex) => ex.handle('sync', async () => {}).handle('audit', async () => {}));
    await fx.server.waitFor(() => fx!.server.registrations.length >= 1);
    expect(fx.server.registrations[0]).toEqual({
      registryGroup: 'EXECUTOR',
      registryKey: 'test-app',
      registryValue: fx.address,
      handlers: ['audit', 'sync'],
      instance: fx.ex.instanceId,
    });
  });

  it('advertisedAddress is what the executor registers', async () => {
    fx = await startExecutor(() => {}, { advertisedAddress: 'http://10.1.2.3:9999/jobs' });
    await fx.server.waitFor(() => fx!.server.registrations.length >= 1);
    expect(fx.server.registrations[0]?.registryValue).toBe('http://10.1.2.3:9999/jobs/');
  });
});

describe('results by protocol generation', () => {
  it('a G2 executor sends results as an array with logDateTim', async () => {
    fx = await startExecutor((ex) => ex.handle('hello', async () => 'hi'));
    const logId = freshLogId();
    await fx.call('run', trigger({ logId, logDateTime: 1_700_000_000_000 }));
    await fx.server.callbackFor(logId);
    const request = fx.server.requests.find((r) => r.path === '/api/callback')!;
    expect(request.body).toEqual([
      { logId, logDateTim: 1_700_000_000_000, handleCode: 200, handleMsg: 'hi' },
    ]);
    expect(request.headers['xxl-job-access-token']).toBe(TOKEN);
    expect(request.headers['xxl-job-appname']).toBeUndefined();
  });

  it('a G4 executor sends results as {callbackList} with logDateTime and the app name header', async () => {
    fx = await startExecutor((ex) => ex.handle('hello', async () => 'hi'), { protocol: 'G4' });
    const logId = freshLogId();
    // As a 3.5 admin calls it: with the app name header (a G4 executor refuses a call without it).
    await fx.call('trigger', trigger({ logId, logDateTime: 1_700_000_000_000 }), {
      headers: { [APP_NAME_HEADER]: 'test-app' },
    });
    await fx.server.callbackFor(logId);
    const request = fx.server.requests.find((r) => r.path === '/api/callback')!;
    expect(request.body).toEqual({
      callbackList: [{ logId, logDateTime: 1_700_000_000_000, handleCode: 200, handleMsg: 'hi' }],
    });
    expect(request.headers['xxl-job-appname']).toBe('test-app');
  });

  it('a result no server accepted is kept and re-sent, and the run log says so', async () => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    fx = await startExecutor((ex) => ex.handle('hello', async () => 'late'), {
      internal: { callbackRetryIntervalMs: 200, clock },
    });
    fx.server.refuseCallbacks = true;
    const logId = freshLogId();
    const logDateTime = Date.now();
    await fx.call('run', trigger({ logId, logDateTime }));
    const readLog = async () =>
      (
        (await fx!.call('log', { logDateTim: logDateTime, logId, fromLineNum: 1 })).returnT.content as {
          logContent: string;
        }
      ).logContent;
    for (let i = 0; i < 200 && !(await readLog()).includes('callback not delivered'); i++) await sleep(20);
    expect(await readLog()).toMatch(/callback not delivered \(.*refused by test.*\); kept in the spill file/);
    fx.server.refuseCallbacks = false;
    await clock.advance(200);
    expect(await fx.server.callbackFor(logId)).toMatchObject({ handleCode: 200, handleMsg: 'late' });
  });

  it('a slow callback still ends the run log with its delivery line, written after the file was let go', async () => {
    fx = await startExecutor((ex) => ex.handle('hello', async () => 'slow server'));
    fx.server.answerDelayMs = 800;
    const logId = freshLogId();
    const logDateTime = Date.now();
    await fx.call('run', trigger({ logId, logDateTime }));
    // The run is over long before the server answers: its file must not be held open meanwhile.
    await sleep(500);
    const openFiles = (await readdir('/proc/self/fd')).map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    });
    expect(openFiles.filter((file) => file.endsWith(`/${logId}.log`))).toEqual([]);
    await fx.server.callbackFor(logId);
    const readLog = async () =>
      (
        (await fx!.call('log', { logDateTim: logDateTime, logId, fromLineNum: 1 })).returnT.content as {
          logContent: string;
        }
      ).logContent;
    for (let i = 0; i < 100 && !(await readLog()).includes('callback delivered'); i++) await sleep(20);
    const lines = (await readLog()).trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/callback delivered to http:\/\/127\.0\.0\.1:\d+\//);
    expect(lines.filter((line) => line.includes('callback delivered'))).toHaveLength(1);
  });
});

describe('restart', () => {
  it('a result spilled before a restart is delivered by the next executor on the same log directory', async () => {
    const server = await startTestServer({ accessToken: TOKEN });
    const logDir = await tempDir();
    const options = {
      appName: 'restart',
      accessToken: TOKEN,
      port: 0,
      serverAddresses: [server.address],
      logDir,
      logger: silent,
    };
    try {
      server.refuseCallbacks = true;
      const first = createExecutor(options);
      first.handle('hello', async () => 'survived');
      await first.start();
      const logId = freshLogId();
      await callExecutor(first.address!, 'run', trigger({ logId }), { token: TOKEN });
      await until(() => server.requests.some((r) => r.path === '/api/callback'));
      await first.stop();
      expect(server.callbacks).toEqual([]);

      server.refuseCallbacks = false;
      const second = createExecutor(options);
      await second.start();
      expect(await server.callbackFor(logId)).toMatchObject({ handleCode: 200, handleMsg: 'survived' });
      await second.stop();
    } finally {
      await server.stop();
      await rm(logDir, { recursive: true, force: true });
    }
  });
});

describe('stop', () => {
  it('graceful stop waits for a running run, flushes its result and unregisters', async () => {
    fx = await startExecutor((ex) =>
      ex.handle('slow', async () => {
        await sleep(400);
        return 'finished before stop';
      }),
    );
    const logId = freshLogId();
    await fx.call('run', trigger({ logId, executorHandler: 'slow' }));
    await sleep(50);
    await fx.ex.stop({ timeoutMs: 5_000 });
    expect(fx.server.callbacks).toContainEqual(
      expect.objectContaining({ logId, handleCode: 200, handleMsg: 'finished before stop' }),
    );
    expect(fx.server.removals).toEqual([
      { registryGroup: 'EXECUTOR', registryKey: 'test-app', registryValue: fx.address },
    ]);
    await expect(fetch(`${fx.address}beat`, { method: 'POST' })).rejects.toThrow();
  });

  it('a run still going at the stop limit is stopped and reported as killed', async () => {
    fx = await startExecutor((ex) =>
      ex.handle(
        'forever',
        (ctx) =>
          new Promise((_, reject) =>
            ctx.signal.addEventListener('abort', () => reject(new Error('stopped'))),
          ),
      ),
    );
    const [running, queued] = [freshLogId(), freshLogId()];
    await fx.call('run', trigger({ jobId: 40, logId: running, executorHandler: 'forever' }));
    await fx.call('run', trigger({ jobId: 40, logId: queued, executorHandler: 'forever' }));
    const stoppedAt = Date.now();
    await fx.ex.stop({ timeoutMs: 300 });
    expect(Date.now() - stoppedAt).toBeLessThan(3_000);
    expect(fx.server.callbacks).toContainEqual({
      logId: running,
      logDateTim: expect.any(Number),
      handleCode: 500,
      handleMsg: 'executor stopped. [job running, killed]',
    });
    expect(fx.server.callbacks).toContainEqual(
      expect.objectContaining({
        logId: queued,
        handleCode: 500,
        handleMsg: 'executor stopped. [job not executed, in the job queue, killed.]',
      }),
    );
  });

  it('a run sent while the executor is stopping is refused', async () => {
    fx = await startExecutor((ex) => {
      ex.handle('slow', async () => sleep(500));
      ex.handle('hello', async () => 'hi');
    });
    await fx.call('run', trigger({ jobId: 41, logId: freshLogId(), executorHandler: 'slow' }));
    const stopping = fx.ex.stop({ timeoutMs: 5_000 });
    await until(() => fx!.server.removals.length === 1);
    const refused = await fx.call('run', trigger({ jobId: 42, logId: freshLogId() }));
    expect(refused.returnT).toMatchObject({ code: 500, msg: 'executor is stopping, run refused.' });
    await stopping;
  });
});
