import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type TriggerParam, WireMessages } from '@tickwheel/protocol';
import { isRunning, waitUntilStopped } from '@tickwheel/test-fixtures/processes';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobLogs, type JobLogWriter } from '../src/job-log.js';
import type { Runner, StopReason } from '../src/runner.js';
import { createScriptRunner, type ScriptRunnerOptions } from '../src/runners/script.js';

let logDir: string;
let logs: JobLogs;
let runners: Runner[];
let nextLogId = 1;

beforeEach(async () => {
  logDir = await mkdtemp(path.join(os.tmpdir(), 'tw-script-'));
  logs = new JobLogs({ logDir, retentionDays: 0 });
  runners = [];
});

afterEach(async () => {
  await Promise.all(runners.map((r) => r.destroy()));
  await rm(logDir, { recursive: true, force: true });
});

function scriptRunner(
  glueType: string,
  glueSource: string,
  extra: Partial<ScriptRunnerOptions> = {},
): Runner {
  const runner = createScriptRunner({
    jobId: 7,
    glueType,
    glueSource,
    glueUpdatetime: 1_700_000_000_000,
    logDir,
    ...extra,
  });
  runners.push(runner);
  return runner;
}

function trigger(overrides: Partial<TriggerParam> = {}): TriggerParam {
  return {
    jobId: 7,
    executorHandler: '',
    executorParams: '',
    executorBlockStrategy: 'SERIAL_EXECUTION',
    executorTimeout: 0,
    logId: 1,
    logDateTime: Date.now(),
    glueType: 'GLUE_SHELL',
    glueSource: '',
    glueUpdatetime: 1_700_000_000_000,
    broadcastIndex: 0,
    broadcastTotal: 1,
    ...overrides,
  };
}

function openLog(): JobLogWriter {
  return logs.open(nextLogId++, Date.now());
}

async function logText(log: JobLogWriter): Promise<string> {
  return readFile(log.path, 'utf8').catch(() => '');
}

async function runOnce(runner: Runner, overrides: Partial<TriggerParam> = {}) {
  const log = openLog();
  const outcome = await runner.run({
    trigger: trigger(overrides),
    log,
    signal: new AbortController().signal,
  });
  await log.close();
  return { outcome, log: await logText(log) };
}

/** Starts a run, waits until its log shows `pid=<n>`, returns that pid and the controls. */
async function startRunPrintingPid(runner: Runner) {
  const log = openLog();
  const controller = new AbortController();
  const result = runner.run({ trigger: trigger(), log, signal: controller.signal });
  const deadline = Date.now() + 5_000;
  let text = '';
  while (!/pid=\d+/.test(text)) {
    if (Date.now() > deadline) throw new Error(`the script printed no pid; log so far:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    text = await logText(log);
  }
  const pid = Number(text.match(/pid=(\d+)/)?.[1]);
  return { pid, controller, result, log };
}

function installed(command: string): boolean {
  try {
    execFileSync('which', [command], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('script runner', () => {
  it('runs a GLUE_SHELL script with bash and puts its output in the run log', async () => {
    const { outcome, log } = await runOnce(scriptRunner('GLUE_SHELL', 'echo "hello from $BASH_VERSION"'));
    expect(outcome).toEqual({ code: 200, msg: null });
    expect(log).toMatch(/hello from \d/);
  });

  it("gives a script a minimal environment: none of the executor's variables but PATH, LANG and the like", async () => {
    process.env.TICKWHEEL_ACCESS_TOKEN = 'secret-token-value';
    process.env.TW_TEST_ORDINARY = 'ordinary-value';
    try {
      const { outcome, log } = await runOnce(
        scriptRunner(
          'GLUE_SHELL',
          'echo "token=[$TICKWHEEL_ACCESS_TOKEN] other=[$TW_TEST_ORDINARY] extra=[$TW_EXTRA] path=[$PATH]"',
          { scriptEnv: { TW_EXTRA: 'passed-on-purpose' } },
        ),
      );
      expect(outcome.code).toBe(200);
      expect(log).toContain(`token=[] other=[] extra=[passed-on-purpose] path=[${process.env.PATH}]`);
    } finally {
      delete process.env.TICKWHEEL_ACCESS_TOKEN;
      delete process.env.TW_TEST_ORDINARY;
    }
  });

  it('runs a GLUE_NODEJS script with node', async () => {
    const { outcome, log } = await runOnce(scriptRunner('GLUE_NODEJS', 'console.log("node says", 6 * 7);'));
    expect(outcome.code).toBe(200);
    expect(log).toContain('node says 42');
  });

  it('runs a GLUE_PYTHON script with python3', async () => {
    const { outcome, log } = await runOnce(
      scriptRunner('GLUE_PYTHON', 'import sys\nprint("python", sys.version_info[0])'),
    );
    expect(outcome.code).toBe(200);
    expect(log).toContain('python 3');
  });

  it.skipIf(!installed('php'))('runs a GLUE_PHP script with php', async () => {
    const { outcome, log } = await runOnce(
      scriptRunner('GLUE_PHP', '<?php echo "php says " . (6 * 7) . "\\n";'),
    );
    expect(outcome.code).toBe(200);
    expect(log).toContain('php says 42');
  });

  it('passes the job parameter, shard index and shard total as arguments', async () => {
    const runner = scriptRunner('GLUE_SHELL', 'echo "argc=$# param=[$1] shard=$2/$3"');
    const { log } = await runOnce(runner, {
      executorParams: 'a b "c"',
      broadcastIndex: 2,
      broadcastTotal: 5,
    });
    expect(log).toContain('argc=3 param=[a b "c"] shard=2/5');
  });

  it('fails a run whose parameter cannot be passed to a process', async () => {
    const { outcome } = await runOnce(scriptRunner('GLUE_SHELL', 'echo ran'), { executorParams: 'a\u0000b' });
    expect(outcome.code).toBe(500);
    expect(outcome.msg).toMatch(/^cannot start the script: /);
  });

  it('captures stderr in the run log', async () => {
    const { outcome, log } = await runOnce(scriptRunner('GLUE_SHELL', 'echo "to stderr" >&2'));
    expect(outcome.code).toBe(200);
    expect(log).toContain('to stderr');
  });

  it('reports a non-zero exit code as a failure naming the code', async () => {
    const { outcome, log } = await runOnce(scriptRunner('GLUE_SHELL', 'echo before; exit 3'));
    expect(outcome).toEqual({ code: 500, msg: 'script exited with code 3' });
    expect(log).toContain('before');
  });

  it('reports a script ended by a signal as a failure naming the signal', async () => {
    const { outcome } = await runOnce(scriptRunner('GLUE_SHELL', 'kill -USR1 $$'));
    expect(outcome).toEqual({ code: 500, msg: 'script was stopped by signal SIGUSR1' });
  });

  it('writes the script once per version, owner-only, under gluesource', async () => {
    await runOnce(scriptRunner('GLUE_SHELL', 'echo first'));
    const file = path.join(logDir, 'gluesource', '7_1700000000000.sh');
    expect(await readFile(file, 'utf8')).toBe('echo first');
    expect((await stat(file)).mode & 0o777).toBe(0o700);

    const { log } = await runOnce(scriptRunner('GLUE_SHELL', 'echo second'));
    expect(log).toContain('first');

    const { log: newVersionLog } = await runOnce(
      scriptRunner('GLUE_SHELL', 'echo third', { glueUpdatetime: 2 }),
    );
    expect(newVersionLog).toContain('third');
  });

  it('on timeout stops the whole process group, grandchildren included, and reports 502', async () => {
    const runner = scriptRunner('GLUE_SHELL', 'sleep 30 &\necho "pid=$!"\nwait');
    const { pid, controller, result } = await startRunPrintingPid(runner);
    const abortedAt = Date.now();
    controller.abort({ kind: 'timeout' } satisfies StopReason);
    expect(await result).toEqual({ code: 502, msg: WireMessages.timeout });
    expect(Date.now() - abortedAt).toBeLessThan(1_500);
    expect(await waitUntilStopped(pid)).toBe(true);
  });

  it('on kill stops a foreground child of the script and reports the kill message', async () => {
    const runner = scriptRunner('GLUE_SHELL', 'echo "pid=$$"\nsleep 30\necho never');
    const { pid, controller, result, log } = await startRunPrintingPid(runner);
    controller.abort({ kind: 'kill', msg: WireMessages.killRunning } satisfies StopReason);
    expect(await result).toEqual({ code: 500, msg: WireMessages.killRunning });
    expect(await waitUntilStopped(pid)).toBe(true);
    await log.close();
    expect(await logText(log)).not.toContain('never');
  });

  it('on cover-early reports the cover-early message', async () => {
    const runner = scriptRunner('GLUE_SHELL', 'echo "pid=$$"\nsleep 30');
    const { controller, result } = await startRunPrintingPid(runner);
    controller.abort({ kind: 'cover-early', msg: WireMessages.coverEarly } satisfies StopReason);
    expect(await result).toEqual({ code: 500, msg: WireMessages.coverEarly });
  });

  it('sends SIGKILL to a script that ignores SIGTERM after the grace time', async () => {
    const runner = scriptRunner(
      'GLUE_SHELL',
      'trap "" TERM\necho "pid=$$"\nwhile true; do sleep 0.05; done',
      {
        killGraceMs: 300,
      },
    );
    const { pid, controller, result } = await startRunPrintingPid(runner);
    controller.abort({ kind: 'timeout' } satisfies StopReason);
    expect((await result).code).toBe(502);
    expect(await waitUntilStopped(pid, 2_000)).toBe(true);
  });

  it('settles when the script exits even if a background process still holds its output', async () => {
    const runner = scriptRunner('GLUE_SHELL', 'sleep 30 &\necho "pid=$!"\nexit 0');
    const { pid, result, log } = await startRunPrintingPid(runner);
    expect(await result).toEqual({ code: 200, msg: null });
    expect(await waitUntilStopped(pid)).toBe(true);
    await log.close();
    expect(await logText(log)).toContain('the script left processes running in its process group');
  });

  it('destroy stops a script that is still running', async () => {
    const runner = scriptRunner('GLUE_SHELL', 'echo "pid=$$"\nsleep 30');
    const { pid, result } = await startRunPrintingPid(runner);
    await runner.destroy();
    expect((await result).code).toBe(500);
    expect(isRunning(pid)).toBe(false);
  });

  it('does not start a run whose signal has already been aborted', async () => {
    const runner = scriptRunner('GLUE_SHELL', 'echo ran');
    const log = openLog();
    const outcome = await runner.run({
      trigger: trigger(),
      log,
      signal: AbortSignal.abort({ kind: 'timeout' } satisfies StopReason),
    });
    expect(outcome).toEqual({ code: 502, msg: WireMessages.timeout });
    await log.close();
    expect(await logText(log)).not.toContain('ran');
  });

  it('says which interpreter is missing', async () => {
    const savedPath = process.env.PATH;
    process.env.PATH = logDir; // an empty directory: no interpreter at all, pwsh included
    try {
      const { outcome } = await runOnce(scriptRunner('GLUE_POWERSHELL', 'Write-Output "hi"'));
      expect(outcome).toEqual({
        code: 500,
        msg: 'GLUE_POWERSHELL needs the "pwsh" interpreter, which is not installed on this executor',
      });
    } finally {
      process.env.PATH = savedPath;
    }
  });

  it('refuses GLUE_GROOVY with a message saying it is not supported', async () => {
    const { outcome } = await runOnce(scriptRunner('GLUE_GROOVY', 'class X {}'));
    expect(outcome.code).toBe(500);
    expect(outcome.msg).toMatch(/GLUE_GROOVY scripts are not supported by Tickwheel executors/);
  });
});
