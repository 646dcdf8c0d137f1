/**
 * At-most-once per logId across restarts: the accepted logIds are kept in
 * `<logDir>/callbacklog/accepted-logids.log`, so an executor started on the same log dir refuses
 * a `run` its predecessor accepted, whether that one stopped or was killed (SIGKILL).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { WireMessages } from '@tickwheel/protocol';
import { callExecutor, freshLogId, trigger } from '@tickwheel/test-fixtures/executor-client';
import {
  type ExecutorFixture,
  sleep,
  startExecutor,
  TOKEN,
  tempDir,
} from '@tickwheel/test-fixtures/executor-fixture';
import { afterEach, describe, expect, it } from 'vitest';

const fixtures: ExecutorFixture[] = [];
const dirs: string[] = [];
let child: ChildProcess | undefined;

afterEach(async () => {
  child?.kill('SIGKILL');
  child = undefined;
  for (const fx of fixtures.splice(0)) await fx.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function sharedLogDir(): Promise<string> {
  const dir = await tempDir();
  dirs.push(dir);
  return dir;
}

/** An executor on `logDir`; `close()` leaves the log dir in place for the next one. */
async function executorOn(logDir: string, internal: Record<string, number> = {}) {
  const fx = await startExecutor((ex) => ex.handle('hello', async (ctx) => `hello ${ctx.param}`), {
    logDir,
    internal,
  });
  const keepDir = { ...fx, close: () => fx.ex.stop({ timeoutMs: 0 }).then(() => fx.server.stop()) };
  fixtures.push(keepDir);
  return keepDir;
}

function journalLines(logDir: string): Promise<string[]> {
  return readFile(path.join(logDir, 'callbacklog', 'accepted-logids.log'), 'utf8').then((text) =>
    text.split('\n').filter((line) => line !== ''),
  );
}

describe('accepted logIds survive a restart', () => {
  it('an executor on the same log dir refuses a logId its stopped predecessor accepted, and runs a new one', async () => {
    const logDir = await sharedLogDir();
    const first = await executorOn(logDir);
    const x = freshLogId();
    expect((await first.call('run', trigger({ jobId: 31, logId: x }))).returnT.code).toBe(200);
    await first.server.callbackFor(x);
    await first.close();

    const second = await executorOn(logDir);
    const again = await second.call('run', trigger({ jobId: 31, logId: x }));
    expect(again.returnT).toMatchObject({ code: 500, msg: WireMessages.repeatTrigger(x) });
    const y = freshLogId();
    expect((await second.call('run', trigger({ jobId: 31, logId: y }))).returnT.code).toBe(200);
    expect((await second.server.callbackFor(y)).handleCode).toBe(200);
    expect(second.server.callbacks.filter((c) => c.logId === x)).toHaveLength(0);
  });

  it('runs accepted through runBatch are remembered across a restart too', async () => {
    const logDir = await sharedLogDir();
    const first = await executorOn(logDir);
    const [x, y] = [freshLogId(), freshLogId()];
    const batch = [trigger({ jobId: 36, logId: x }), trigger({ jobId: 37, logId: y })];
    const answers = (await first.call('runBatch', batch)).returnT.content as Array<{ code: number }>;
    expect(answers.map((a) => a.code)).toEqual([200, 200]);
    await first.close();

    const second = await executorOn(logDir);
    const again = (await second.call('runBatch', batch)).returnT.content as Array<{ msg: string }>;
    expect(again.map((a) => a.msg)).toEqual([WireMessages.repeatTrigger(x), WireMessages.repeatTrigger(y)]);
  });

  it('an executor killed with SIGKILL right after answering run: its successor refuses that logId', async () => {
    const logDir = await sharedLogDir();
    const { address, process: proc } = await spawnExecutor(logDir);
    child = proc;
    const x = freshLogId();
    const answer = await callExecutor(address, 'run', trigger({ jobId: 32, logId: x }), { token: TOKEN });
    proc.kill('SIGKILL');
    expect(answer.returnT.code).toBe(200);
    await once(proc, 'exit');

    const next = await executorOn(logDir);
    const again = await next.call('run', trigger({ jobId: 32, logId: x }));
    expect(again.returnT).toMatchObject({ code: 500, msg: WireMessages.repeatTrigger(x) });
    const y = freshLogId();
    expect((await next.call('run', trigger({ jobId: 32, logId: y }))).returnT.code).toBe(200);
  });

  it('the file stays bounded: it is rewritten with the remembered ids once it holds twice the limit', async () => {
    const logDir = await sharedLogDir();
    const fx = await executorOn(logDir, { acceptedLogIdLimit: 10 });
    const ids: number[] = [];
    for (let i = 0; i < 100; i++) {
      const logId = freshLogId();
      ids.push(logId);
      expect((await fx.call('run', trigger({ jobId: 33, logId }))).returnT.code).toBe(200);
    }
    expect((await journalLines(logDir)).length).toBeLessThanOrEqual(20);
    await fx.close();

    const next = await executorOn(logDir, { acceptedLogIdLimit: 10 });
    const last = ids.at(-1)!;
    expect((await next.call('run', trigger({ jobId: 33, logId: last }))).returnT.code).toBe(500);
    expect((await next.call('run', trigger({ jobId: 33, logId: ids[0] }))).returnT.code).toBe(200);
  });

  it('a torn last line (a crash mid-append) is skipped at start, and the ids before it are kept', async () => {
    const logDir = await sharedLogDir();
    const x = freshLogId();
    const torn = freshLogId();
    await mkdir(path.join(logDir, 'callbacklog'), { recursive: true });
    const now = Date.now();
    await writeFile(
      path.join(logDir, 'callbacklog', 'accepted-logids.log'),
      `${x} ${now}\n${torn} ${String(now).slice(0, 5)}`,
    );
    const fx = await executorOn(logDir);
    expect(fx.logLines.some((l) => String(l.msg).includes('unreadable lines'))).toBe(true);
    expect((await fx.call('run', trigger({ jobId: 34, logId: x }))).returnT.code).toBe(500);
    expect((await fx.call('run', trigger({ jobId: 34, logId: torn }))).returnT.code).toBe(200);
    // The rewrite at start dropped the torn line: the new append is read back whole.
    await fx.close();
    const next = await executorOn(logDir);
    expect((await next.call('run', trigger({ jobId: 34, logId: torn }))).returnT.code).toBe(500);
  });
});

describe('when the accepted logIds cannot be written', () => {
  it('the run is refused and does not run; once the disk takes writes again the same logId runs', async () => {
    const logDir = await sharedLogDir();
    const ran: number[] = [];
    const fx = await startExecutor((ex) => ex.handle('hello', async (ctx) => ran.push(ctx.logId)), {
      logDir,
    });
    fixtures.push(fx);
    const callbacklog = path.join(logDir, 'callbacklog');
    await rm(callbacklog, { recursive: true, force: true });
    await writeFile(callbacklog, 'a file where the folder should be');
    const x = freshLogId();
    const refused = await fx.call('run', trigger({ jobId: 35, logId: x }));
    expect(refused.returnT.code).toBe(500);
    expect(refused.returnT.msg).toContain('could not record the logId on disk');
    await sleep(100);
    expect(ran).not.toContain(x);

    await rm(callbacklog);
    expect((await fx.call('run', trigger({ jobId: 35, logId: x }))).returnT.code).toBe(200);
    await fx.server.callbackFor(x);
    expect(ran).toContain(x);
  });
});

/** Starts an executor in a child process on `logDir`; resolves with its address once it listens. */
async function spawnExecutor(logDir: string): Promise<{ address: string; process: ChildProcess }> {
  const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
  const script = `
    const { createExecutor } = await import(${JSON.stringify(entry)});
    const ex = createExecutor({ appName: 'test-app', accessToken: ${JSON.stringify(TOKEN)}, port: 0,
      host: '127.0.0.1', logDir: ${JSON.stringify(logDir)}, logger: (await import('pino')).pino({ level: 'silent' }) });
    ex.handle('hello', async () => 'hello');
    await ex.start();
    console.log(ex.address);
  `;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout! });
  const [address] = (await once(lines, 'line')) as [string];
  return { address, process: proc };
}
