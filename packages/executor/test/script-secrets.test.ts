/**
 * Scripts cannot read the executor's secrets: the token comes from a file, never the executor's
 * environment or command line; scripts get a minimal environment; with `uid`/`gid` they run as
 * another user who can read neither the token file nor the executor's data; and weak tokens
 * are refused.
 */
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  createExecutor,
  type ExecutorOptions,
  isTickwheelError,
  type TickwheelError,
} from '@tickwheel/executor';
import { MIN_ACCESS_TOKEN_LENGTH } from '@tickwheel/protocol';
import { freshLogId, trigger } from '@tickwheel/test-fixtures/executor-client';
import {
  capturingLogger,
  type ExecutorFixture,
  startExecutor,
  TOKEN,
  until,
} from '@tickwheel/test-fixtures/executor-fixture';
import { waitUntilStopped } from '@tickwheel/test-fixtures/processes';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const NOBODY = 65_534;
const silent = pino({ level: 'silent' });

let fx: ExecutorFixture | undefined;
let secretsDir: string;
let tokenFile: string;

beforeEach(async () => {
  secretsDir = await mkdtemp(path.join(os.tmpdir(), 'tw-secrets-'));
  tokenFile = path.join(secretsDir, 'token');
  await writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
});

afterEach(async () => {
  await fx?.close();
  fx = undefined;
  await rm(secretsDir, { recursive: true, force: true });
});

/**
 * Runs a GLUE_SHELL job over HTTP and returns its result and its whole log. `glueSource` may be
 * a function of the run's logId.
 */
async function runScript(glueSource: string | ((logId: number) => string), jobId = 1) {
  const f = fx!;
  const logId = freshLogId();
  const source = typeof glueSource === 'string' ? glueSource : glueSource(logId);
  const logDateTime = Date.now();
  const accepted = await f.call(
    'run',
    trigger({
      jobId,
      logId,
      logDateTime,
      executorHandler: '',
      glueType: 'GLUE_SHELL',
      glueSource: source,
      glueUpdatetime: logId,
    }),
  );
  expect(accepted.returnT.code).toBe(200);
  const result = await f.server.callbackFor(logId);
  const page = await f.call('log', { logDateTim: logDateTime, logId, fromLineNum: 1 });
  return { result, log: (page.returnT.content as { logContent: string }).logContent, logId };
}

function optionError(options: Partial<ExecutorOptions>): TickwheelError {
  try {
    createExecutor({ appName: 'app', logger: silent, ...options });
  } catch (err) {
    if (isTickwheelError(err, 'TW_ERR_INVALID_OPTION')) return err;
    throw err;
  }
  throw new Error('createExecutor accepted the options');
}

describe('a script and the executor token', () => {
  it('a script cannot read the executor token', async () => {
    // Stands for whatever else the executor's environment holds (a database password).
    process.env.TW_TEST_DATABASE_PASSWORD = 'canary-database-password';
    try {
      fx = await startExecutor(() => {}, {
        accessToken: undefined,
        accessTokenFile: tokenFile,
        enableScripts: true,
      });
      const executorPid = process.pid;
      const { result, log } = await runScript((logId) =>
        [
          'echo "executor=$PPID"',
          `echo "--- environ"; tr '\\0' '\\n' < /proc/${executorPid}/environ`,
          `echo "--- cmdline"; tr '\\0' ' ' < /proc/${executorPid}/cmdline; echo`,
          `echo "--- parent"; tr '\\0' '\\n' < /proc/$PPID/environ; tr '\\0' ' ' < /proc/$PPID/cmdline; echo`,
          'echo "--- env"; env',
          `echo "--- data"; find ${fx.logDir} -type f ! -name '${logId}.log' -print -exec cat {} +`,
          'echo "--- end"',
        ].join('\n'),
      );
      expect(result.handleCode).toBe(200);
      // The script really read the executor's /proc files and its data, and found no token.
      expect(log).toContain(`executor=${executorPid}`);
      expect(log).toMatch(/--- environ\n(.*\n)*.*PATH=/);
      expect(log).toMatch(/--- cmdline\n.*node/);
      expect(log).toContain('callbacklog/accepted-logids');
      expect(log).toContain('--- end');
      expect(log).not.toContain(TOKEN);
      // The executor's own environment stays out of the script's.
      const env = log.slice(log.indexOf('--- env'), log.indexOf('--- data'));
      expect(env).toMatch(/^PATH=/m);
      expect(env).not.toContain('TW_TEST_DATABASE_PASSWORD');
    } finally {
      delete process.env.TW_TEST_DATABASE_PASSWORD;
    }
  });

  it('scripts get the variables of scriptEnv, and HOME and USER of their user', async () => {
    fx = await startExecutor(() => {}, {
      enableScripts: true,
      scriptEnv: { TW_PROXY: 'http://proxy.internal:3128' },
    });
    const { result, log } = await runScript('echo "proxy=[$TW_PROXY] home=[$HOME] user=[$USER]"');
    expect(result.handleCode).toBe(200);
    expect(log).toContain(
      `proxy=[http://proxy.internal:3128] home=[${os.homedir()}] user=[${os.userInfo().username}]`,
    );
  });

  it('the executor keeps its run logs, journal and script files owner-only', async () => {
    fx = await startExecutor(() => {}, { enableScripts: true });
    const { logId } = await runScript('echo hi');
    const dateFolder = (await readdir(fx.logDir)).find((name) => /^\d{4}-\d{2}-\d{2}$/.test(name))!;
    const modes = {
      logDir: (await stat(fx.logDir)).mode & 0o777,
      dateFolder: (await stat(path.join(fx.logDir, dateFolder))).mode & 0o777,
      runLog: (await stat(path.join(fx.logDir, dateFolder, `${logId}.log`))).mode & 0o777,
      callbacklog: (await stat(path.join(fx.logDir, 'callbacklog'))).mode & 0o777,
      journal: (await stat(path.join(fx.logDir, 'callbacklog', 'accepted-logids.log'))).mode & 0o777,
      gluesource: (await stat(path.join(fx.logDir, 'gluesource'))).mode & 0o777,
    };
    expect(modes).toEqual({
      logDir: 0o700,
      dateFolder: 0o700,
      runLog: 0o600,
      callbacklog: 0o700,
      journal: 0o600,
      gluesource: 0o700,
    });
  });
  it('folders an earlier version left open to other users are made owner-only at start, with a warning', async () => {
    const logDir = await mkdtemp(path.join(os.tmpdir(), 'tw-old-logs-'));
    try {
      await mkdir(path.join(logDir, '2020-01-01'), { mode: 0o755 });
      await chmod(path.join(logDir, '2020-01-01'), 0o755);
      fx = await startExecutor(() => {}, { logDir });
      expect((await stat(path.join(logDir, '2020-01-01'))).mode & 0o777).toBe(0o700);
      expect(fx.logLines).toContainEqual(expect.objectContaining({ level: 40, folders: ['2020-01-01'] }));
    } finally {
      await rm(logDir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(process.getuid?.() !== 0)('scripts run as another user (uid/gid, needs root)', () => {
  beforeEach(async () => {
    // Only the token file's own mode keeps other users out: its folder lets them in.
    await chmod(secretsDir, 0o755);
  });

  it('a script runs as nobody and can read neither the token file nor the executor environment', async () => {
    fx = await startExecutor(() => {}, {
      accessToken: undefined,
      accessTokenFile: tokenFile,
      enableScripts: true,
      uid: NOBODY,
      gid: NOBODY,
    });
    const { result, log } = await runScript(
      [
        'echo "ids=$(id -u):$(id -g) home=[$HOME] user=[$USER]"',
        `cat ${tokenFile} || echo "token file: denied"`,
        `cat /proc/${process.pid}/environ || echo "environ: denied"`,
        `ls ${fx.logDir}/callbacklog || echo "callbacklog: denied"`,
        `cat ${fx.logDir}/callbacklog/accepted-logids.log || echo "journal: denied"`,
        `ls ${fx.logDir} || echo "log dir listing: denied"`,
      ].join('\n'),
    );
    expect(result.handleCode).toBe(200);
    expect(log).toContain(`ids=${NOBODY}:${NOBODY} home=[/nonexistent] user=[nobody]`);
    expect(log).toContain('token file: denied');
    expect(log).toContain('environ: denied');
    expect(log).toContain('callbacklog: denied');
    expect(log).toContain('journal: denied');
    expect(log).toContain('log dir listing: denied');
    expect(log).not.toContain(TOKEN);
    const scriptFolder = await stat(path.join(fx.logDir, 'gluesource'));
    expect({ mode: scriptFolder.mode & 0o777, gid: scriptFolder.gid }).toEqual({ mode: 0o750, gid: NOBODY });
  });

  it('a kill still stops a script running as nobody, with what it started', async () => {
    fx = await startExecutor(() => {}, { enableScripts: true, uid: NOBODY, gid: NOBODY });
    const logId = freshLogId();
    const logDateTime = Date.now();
    await fx.call(
      'run',
      trigger({
        jobId: 2,
        logId,
        logDateTime,
        executorHandler: '',
        glueType: 'GLUE_SHELL',
        glueSource: 'sleep 30 &\necho "child=$! uid=$(id -u)"\nwait',
        glueUpdatetime: 1,
      }),
    );
    let child = 0;
    const deadline = Date.now() + 5_000;
    while (child === 0 && Date.now() < deadline) {
      const page = await fx.call('log', { logDateTim: logDateTime, logId, fromLineNum: 1 });
      const match = /child=(\d+) uid=(\d+)/.exec((page.returnT.content as { logContent: string }).logContent);
      if (match) {
        expect(Number(match[2])).toBe(NOBODY);
        child = Number(match[1]);
      } else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(child).toBeGreaterThan(0);
    expect((await fx.call('kill', { jobId: 2 })).returnT.code).toBe(200);
    expect(await fx.server.callbackFor(logId)).toMatchObject({ handleCode: 500 });
    expect(await waitUntilStopped(child)).toBe(true);
  });
});

describe('weak and badly given tokens', () => {
  it.each([
    ['a single character', 'a'],
    ['a published default', 'default_token'],
    ['31 characters', 'x'.repeat(30) + 'y'],
  ])('an access token of %s is refused, naming accessToken', (_what, token) => {
    const err = optionError({ accessToken: token });
    expect(err.field).toBe('accessToken');
    expect(err.message).toMatch(/^accessToken: /);
    expect(err.message).toContain('openssl rand');
  });

  it(`a token of ${MIN_ACCESS_TOKEN_LENGTH} characters is accepted`, () => {
    expect(() => createExecutor({ appName: 'app', logger: silent, accessToken: TOKEN })).not.toThrow();
  });

  it('the token file is read once, without its trailing newline', async () => {
    fx = await startExecutor(() => {}, { accessToken: undefined, accessTokenFile: tokenFile });
    await writeFile(tokenFile, 'changed-afterwards-0123456789abcdefghij\n');
    expect((await fx.call('beat')).returnT.code).toBe(200);
  });

  it('a missing, empty or weak token file is refused, naming accessTokenFile', async () => {
    expect(optionError({ accessTokenFile: path.join(secretsDir, 'missing') }).message).toMatch(
      /^accessTokenFile: cannot read .*missing/,
    );
    await writeFile(tokenFile, '\n');
    expect(optionError({ accessTokenFile: tokenFile }).message).toMatch(/^accessTokenFile: .* is empty/);
    await writeFile(tokenFile, 'default_token\n');
    const weak = optionError({ accessTokenFile: tokenFile });
    expect(weak.field).toBe('accessTokenFile');
    expect(weak.message).toContain('published default');
  });

  it('accessToken and accessTokenFile together are refused', () => {
    expect(optionError({ accessToken: TOKEN, accessTokenFile: tokenFile }).field).toBe('accessTokenFile');
  });

  it('a token file other users may read is accepted with a warning', async () => {
    await chmod(tokenFile, 0o644);
    const { logger, lines } = capturingLogger();
    createExecutor({ appName: 'app', accessTokenFile: tokenFile, logger });
    await until(() => lines.length > 0, 2_000, 'a warning');
    expect(lines[0]).toMatchObject({ level: 40, mode: '0644' });
    expect(String(lines[0]?.msg)).toContain('chmod 600');
  });
});

describe('script options', () => {
  it('uid and gid are numeric ids given together', () => {
    expect(optionError({ accessToken: TOKEN, uid: NOBODY }).field).toBe('gid');
    expect(optionError({ accessToken: TOKEN, gid: NOBODY }).field).toBe('uid');
    expect(optionError({ accessToken: TOKEN, uid: -1, gid: 0 }).field).toBe('uid');
    expect(optionError({ accessToken: TOKEN, uid: 0, gid: 1.5 }).field).toBe('gid');
  });

  it("scriptEnv refuses the executor's own secrets and bad names", () => {
    expect(optionError({ accessToken: TOKEN, scriptEnv: { TICKWHEEL_ACCESS_TOKEN: 'x' } }).message).toMatch(
      /^scriptEnv: TICKWHEEL_ACCESS_TOKEN is the executor's own secret/,
    );
    expect(optionError({ accessToken: TOKEN, scriptEnv: { 'A=B': 'x' } }).field).toBe('scriptEnv');
  });
});
