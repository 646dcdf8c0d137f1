/**
 * The script (GLUE) runner: writes a job's script source to
 * `<logDir>/gluesource/<jobId>_<glueUpdatetime><suffix>` and runs the interpreter on it as a
 * child process with the arguments `executorParams shardIndex shardTotal` (PROTOCOL.md). The
 * script's stdout and stderr go into the run's log as they come; exit code 0 is success.
 *
 * Each run is its own process group (`detached: true`), so stopping a run (timeout, kill,
 * cover-early, shutdown) stops everything the script started, not only the interpreter.
 *
 * A script gets a minimal environment (script-environment.ts), never the executor's, and runs
 * as another OS user when the executor is given one (`uid`/`gid`): then the script file and its
 * folder belong to that user's group, read-only, so the user can read the script but nothing
 * else the executor keeps.
 */
import { type ChildProcess, type ChildProcessByStdio, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmod, chown, mkdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { HandleCode, isScriptGlueType, SCRIPT_GLUE, WireMessages } from '@tickwheel/protocol';
import type { Logger } from 'pino';
import { GLUE_SOURCE_FOLDER, type JobLogWriter } from '../job-log.js';
import type { Runner, RunOutcome, RunRequest, StopReason } from '../runner.js';
import { groupIsRunning, stopProcessGroup, trackGroup, untrackGroup } from './process-group.js';
import { scriptEnvironment } from './script-environment.js';
import type { ScriptAccount } from './script-user.js';

export interface ScriptRunnerOptions {
  jobId: number;
  glueType: string;
  glueSource: string;
  /** Epoch ms of the script version; part of the script file's name. */
  glueUpdatetime: number;
  /** The executor's log directory; scripts are written under `<logDir>/gluesource/`. */
  logDir: string;
  logger?: Pick<Logger, 'warn'>;
  /** The user scripts run as when it is not the executor's (the `uid`/`gid` options). */
  account?: ScriptAccount | undefined;
  /** Extra environment variables for the script (the `scriptEnv` option). */
  scriptEnv?: Readonly<Record<string, string>>;
  /** Time a stopped process group gets between SIGTERM and SIGKILL. Default 2,000 ms. */
  killGraceMs?: number;
  /**
   * Time to wait, after the interpreter exits, for its output pipes to close. Past it the run
   * settles anyway: a background process the script left behind may hold the pipes open for
   * ever. Default 500 ms.
   */
  drainMs?: number;
}

const DEFAULT_KILL_GRACE_MS = 2_000;
const DEFAULT_DRAIN_MS = 500;

/**
 * Creates the runner of one script version of one job. Groovy and unknown glue types get a
 * runner whose every run fails with a message saying why, so the lane reports it like any result.
 *
 * @example
 * const runner = createScriptRunner({ jobId: 7, glueType: 'GLUE_SHELL', glueSource: 'echo hi',
 *   glueUpdatetime: 1700000000000, logDir: '/var/log/tickwheel' });
 * const outcome = await runner.run({ trigger, log, signal });
 */
export function createScriptRunner(options: ScriptRunnerOptions): Runner {
  const description = `${options.glueType} #${options.jobId}@${options.glueUpdatetime}`;
  const refusal = refusalOf(options.glueType);
  if (refusal !== undefined) {
    return { description, run: async () => refusal, destroy: async () => {} };
  }
  return new ScriptRunner(options, description);
}

function refusalOf(glueType: string): RunOutcome | undefined {
  if (glueType === 'GLUE_GROOVY') {
    return {
      code: HandleCode.FAIL,
      msg: 'GLUE_GROOVY scripts are not supported by Tickwheel executors; use GLUE_NODEJS or a BEAN handler',
    };
  }
  if (!isScriptGlueType(glueType)) {
    return { code: HandleCode.FAIL, msg: WireMessages.glueTypeInvalid(glueType) };
  }
  return undefined;
}

class ScriptRunner implements Runner {
  private readonly command: string;
  private readonly scriptPath: string;
  private readonly killGraceMs: number;
  private readonly drainMs: number;
  /** Interpreters of runs still going, and the group stops in progress, for `destroy`. */
  private readonly running = new Set<ChildProcess>();
  private readonly stopping = new Map<ChildProcess, Promise<void>>();

  constructor(
    private readonly options: ScriptRunnerOptions,
    readonly description: string,
  ) {
    const glue = SCRIPT_GLUE[options.glueType as keyof typeof SCRIPT_GLUE];
    this.command = glue.command;
    this.scriptPath = path.join(
      options.logDir,
      GLUE_SOURCE_FOLDER,
      `${options.jobId}_${options.glueUpdatetime}${glue.suffix}`,
    );
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    this.drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
  }

  async run({ trigger, log, signal }: RunRequest): Promise<RunOutcome> {
    if (signal.aborted) return outcomeOfStop(signal.reason);
    try {
      await ensureScriptFile(this.scriptPath, this.options.glueSource, this.options.account);
    } catch (err) {
      return {
        code: HandleCode.FAIL,
        msg: `cannot write the script file ${this.scriptPath}: ${messageOf(err)}`,
      };
    }
    if (signal.aborted) return outcomeOfStop(signal.reason);
    const args = [
      this.scriptPath,
      trigger.executorParams,
      String(trigger.broadcastIndex),
      String(trigger.broadcastTotal),
    ];
    log.log(`${this.options.glueType}: ${this.command} ${args.map(quoteForLog).join(' ')}`);
    return this.runProcess(args, log, signal);
  }

  async destroy(): Promise<void> {
    for (const child of this.running) this.stopGroup(child);
    await Promise.all(this.stopping.values());
  }

  private runProcess(args: string[], log: JobLogWriter, signal: AbortSignal): Promise<RunOutcome> {
    const { account, scriptEnv } = this.options;
    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      child = spawn(this.command, args, {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: scriptEnvironment(process.env, { account, ...(scriptEnv ? { extra: scriptEnv } : {}) }),
        ...(account === undefined ? {} : { uid: account.uid, gid: account.gid, cwd: account.workDir }),
      });
    } catch (err) {
      // Arguments Node refuses before spawning, such as a parameter holding a NUL character.
      return Promise.resolve({ code: HandleCode.FAIL, msg: `cannot start the script: ${messageOf(err)}` });
    }
    return new Promise<RunOutcome>((resolve) => {
      let stopReason: unknown;
      let settled = false;
      const settle = (outcome: RunOutcome) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        this.running.delete(child);
        // A group still being stopped stays tracked until the stop ends.
        if (child.pid !== undefined && !this.stopping.has(child)) untrackGroup(child.pid);
        resolve(stopReason === undefined ? outcome : outcomeOfStop(stopReason));
      };
      const onAbort = () => {
        stopReason = signal.reason ?? { kind: 'kill', msg: WireMessages.killRunning };
        this.stopGroup(child);
      };

      child.on('error', (err: NodeJS.ErrnoException) => {
        // A spawn failure (no exit follows); errors after spawn come with an exit and are logged.
        if (child.pid !== undefined) {
          this.options.logger?.warn({ err, jobId: this.options.jobId }, 'script process error');
          return;
        }
        settle({ code: HandleCode.FAIL, msg: this.spawnFailureMessage(err) });
      });
      if (child.pid === undefined) return;
      this.running.add(child);
      trackGroup(child.pid);
      signal.addEventListener('abort', onAbort, { once: true });

      for (const stream of [child.stdout, child.stderr]) {
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => log.write(chunk));
      }
      child.once('exit', (code, exitSignal) => {
        void this.afterExit(child, log).then(() => settle(exitOutcome(code, exitSignal)));
      });
    });
  }

  /**
   * Runs once the interpreter has exited: waits a little for the rest of its output, then stops
   * whatever it left running in its process group. A background process that outlives the run
   * would escape the timeout and kill, overlap the next run and hold the log pipes; a script that
   * means to start a daemon detaches it (`setsid`), which takes it out of the group.
   */
  private async afterExit(child: ChildProcess, log: JobLogWriter): Promise<void> {
    const drained = once(child, 'close').then(
      () => true,
      () => false,
    );
    const late = new Promise<boolean>((resolve) => setTimeout(resolve, this.drainMs, false).unref());
    if (!(await Promise.race([drained, late]))) {
      child.stdout?.destroy();
      child.stderr?.destroy();
    }
    if (child.pid !== undefined && groupIsRunning(child.pid) && !this.stopping.has(child)) {
      log.log('the script left processes running in its process group; stopping them');
      this.stopGroup(child);
    }
  }

  /** Stops the child's whole process group; a call while a stop is in progress does nothing. */
  private stopGroup(child: ChildProcess): void {
    if (child.pid === undefined || this.stopping.has(child)) return;
    const pgid = child.pid;
    const stop = stopProcessGroup(pgid, this.killGraceMs).finally(() => {
      this.stopping.delete(child);
      if (!this.running.has(child)) untrackGroup(pgid);
    });
    this.stopping.set(child, stop);
  }

  private spawnFailureMessage(err: NodeJS.ErrnoException): string {
    if (err.code === 'ENOENT') {
      return `${this.options.glueType} needs the "${this.command}" interpreter, which is not installed on this executor`;
    }
    return `cannot start the "${this.command}" interpreter: ${err.message}`;
  }
}

/**
 * Writes the script once per (jobId, glueUpdatetime): through a temporary file and a rename, so
 * an interpreter never sees a half-written script. Owner-only permissions, since scripts often
 * carry credentials; when scripts run as another user, see {@link shareWithScriptGroup}.
 */
async function ensureScriptFile(
  scriptPath: string,
  source: string,
  account: ScriptAccount | undefined,
): Promise<void> {
  if (!(await fileExists(scriptPath))) {
    await mkdir(path.dirname(scriptPath), { recursive: true, mode: 0o700 });
    const temporary = `${scriptPath}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, source, { mode: 0o700 });
    await rename(temporary, scriptPath);
  }
  if (account !== undefined) await shareWithScriptGroup(scriptPath, account.gid);
}

/**
 * Lets the script's group read (not change) the script and its folder; other users get nothing.
 * Done on every run, as the file may have been written owner-only before `uid`/`gid` were set.
 */
async function shareWithScriptGroup(scriptPath: string, gid: number): Promise<void> {
  const folder = path.dirname(scriptPath);
  await chown(folder, -1, gid);
  await chmod(folder, 0o750);
  await chown(scriptPath, -1, gid);
  await chmod(scriptPath, 0o640);
}

async function fileExists(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

function exitOutcome(code: number | null, signal: NodeJS.Signals | null): RunOutcome {
  if (code === 0) return { code: HandleCode.SUCCESS, msg: null };
  if (code !== null) return { code: HandleCode.FAIL, msg: `script exited with code ${code}` };
  return { code: HandleCode.FAIL, msg: `script was stopped by signal ${signal ?? 'unknown'}` };
}

/** The result a stopped run reports, from the abort reason the lane gave. */
function outcomeOfStop(reason: unknown): RunOutcome {
  const stop = reason as Partial<StopReason> | undefined;
  if (stop?.kind === 'timeout') return { code: HandleCode.TIMEOUT, msg: WireMessages.timeout };
  if (stop !== undefined && 'msg' in stop && typeof stop.msg === 'string') {
    return { code: HandleCode.FAIL, msg: stop.msg };
  }
  return { code: HandleCode.FAIL, msg: WireMessages.killRunning };
}

function quoteForLog(arg: string): string {
  return /^[\w./:=@%+-]+$/.test(arg) ? arg : JSON.stringify(arg);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
