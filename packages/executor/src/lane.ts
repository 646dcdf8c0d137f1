/**
 * One job's lane: runs the job's accepted triggers one at a time with the lane's runner,
 * enforces the timeout, and reports each run's outcome. Block strategies are decided by the
 * lane table (lanes.ts) before a trigger reaches `enqueue`.
 *
 * The lane never waits for a runner after the run's signal fired: it reports the stop (timeout
 * 502, killed 500) at once and goes on with the next trigger. Worker and script runners stop
 * their code for real; an in-process handler that ignores the signal keeps running unobserved.
 */
import { capHandleMsg, HandleCode, type TriggerParam, WireMessages } from '@tickwheel/protocol';
import type { Clock, TimerHandle } from './clock.js';
import { errorMessage } from './context.js';
import type { JobLogWriter } from './job-log.js';
import type { Runner, RunOutcome, RunRequest, StopReason } from './runner.js';

export interface LaneDeps {
  /**
   * The write of the run's logId to the accepted logIds file, while it is going (undefined once
   * done): a run starts only once it resolves true, and is dropped unreported when false (its
   * `run` was answered as refused).
   */
  recording(logId: number): Promise<boolean> | undefined;
  /** Opens the log file of one run. */
  openLog(trigger: TriggerParam): JobLogWriter;
  /** Reports a finished (or never started) run; takes over the log and closes it. */
  report(trigger: TriggerParam, outcome: RunOutcome, log: JobLogWriter): void;
  /** Called when the lane has had nothing to do for `idleMs`. */
  onIdle(lane: Lane): void;
  idleMs: number;
  /** The clock the idle release is timed on. */
  clock: Clock;
}

export class Lane {
  private readonly queue: TriggerParam[] = [];
  private current: LaneRun | undefined;
  private idleTimer: TimerHandle | undefined;
  private closed = false;
  /** True while the next trigger waits for its logId to be on disk. */
  private waitingForRecord = false;
  private idleWaiters: Array<() => void> = [];

  /**
   * @param identity what the runner runs (`BEAN:<handler>`, `<glueType>:<glueUpdatetime>`); a
   *   trigger with another identity for the same job replaces the lane.
   */
  constructor(
    readonly jobId: number,
    readonly identity: string,
    private readonly runner: Runner,
    private readonly deps: LaneDeps,
  ) {}

  /** True while a run is going or triggers are queued. */
  get busy(): boolean {
    return this.current !== undefined || this.queue.length > 0;
  }

  /** Queues a trigger; it starts at once when the lane is free. */
  enqueue(trigger: TriggerParam): void {
    this.clearIdleTimer();
    this.queue.push(trigger);
    this.startNext();
  }

  /**
   * Stops the running run with `running` as its reason and reports every queued trigger as not
   * executed with `queuedMsg`. The lane stays usable.
   */
  stopAll(running: StopReason, queuedMsg: string): void {
    for (const trigger of this.queue.splice(0)) this.reportNotExecuted(trigger, queuedMsg);
    this.current?.stop(running);
  }

  /**
   * Stops the one run `logId`: the running run with `running` as its reason, or a queued one
   * reported as not executed with `queuedMsg`. False when the lane has no such run.
   */
  stopRun(logId: number, running: StopReason, queuedMsg: string): boolean {
    if (this.current?.trigger.logId === logId) {
      this.current.stop(running);
      return true;
    }
    const index = this.queue.findIndex((trigger) => trigger.logId === logId);
    if (index < 0) return false;
    const [trigger] = this.queue.splice(index, 1);
    this.reportNotExecuted(trigger as TriggerParam, queuedMsg);
    if (!this.busy) this.becomeIdle();
    return true;
  }

  /** Stops everything (see {@link stopAll}), takes no more triggers and releases the runner. */
  async close(running: StopReason, queuedMsg: string): Promise<void> {
    this.closed = true;
    this.clearIdleTimer();
    this.stopAll(running, queuedMsg);
    await this.runner.destroy();
  }

  /** Resolves once the lane has no running run and nothing queued. */
  whenIdle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private startNext(): void {
    if (this.current || this.closed || this.waitingForRecord) return;
    const trigger = this.queue[0];
    if (!trigger) return;
    const recording = this.deps.recording(trigger.logId);
    if (recording !== undefined) {
      // The trigger stays queued (the lane is busy) while its logId is being written.
      this.waitingForRecord = true;
      void recording.then((recorded) => {
        this.waitingForRecord = false;
        const index = recorded ? -1 : this.queue.indexOf(trigger);
        if (index >= 0) this.queue.splice(index, 1);
        this.startNext();
        if (index >= 0 && !this.busy) this.becomeIdle();
      });
      return;
    }
    this.queue.shift();
    void this.execute(trigger);
  }

  private execute(trigger: TriggerParam): void {
    const log = this.deps.openLog(trigger);
    log.log(startLine(trigger, this.runner.description));
    const run = new LaneRun(trigger, log, this);
    this.current = run;
    run.start(this.runner);
  }

  /**
   * The end of the lane's current run, with the runner's outcome or the stop's, whichever came
   * first (LaneRun): the run's log gets its end line and goes to the report, and the lane goes on.
   */
  finished(run: LaneRun, outcome: RunOutcome): void {
    // A handler still running after its stop must not write into a log that is being closed.
    run.log.detach();
    const capped: RunOutcome = { code: outcome.code, msg: capHandleMsg(outcome.msg) };
    if (outcome.output !== undefined) capped.output = outcome.output;
    run.target.log(endLine(capped));
    if (this.current === run) this.current = undefined;
    this.deps.report(run.trigger, capped, run.target);
    this.startNext();
    if (!this.busy) this.becomeIdle();
  }

  private reportNotExecuted(trigger: TriggerParam, msg: string): void {
    const log = this.deps.openLog(trigger);
    const outcome = { code: HandleCode.FAIL, msg };
    log.log(`run not executed: ${msg}`);
    log.log(endLine(outcome));
    this.deps.report(trigger, outcome, log);
  }

  private becomeIdle(): void {
    for (const wake of this.idleWaiters.splice(0)) wake();
    if (this.closed) return;
    this.clearIdleTimer();
    this.idleTimer = this.deps.clock.setTimer(() => {
      this.idleTimer = undefined;
      if (!this.busy) this.deps.onIdle(this);
    }, this.deps.idleMs);
  }

  private clearIdleTimer(): void {
    if (this.idleTimer === undefined) return;
    this.deps.clock.clearTimer(this.idleTimer);
    this.idleTimer = undefined;
  }
}

/** What a stopped run reports: 502 for a timeout, 500 with the stop's message otherwise. */
function outcomeOfStop(reason: StopReason): RunOutcome {
  if (reason.kind === 'timeout') return { code: HandleCode.TIMEOUT, msg: WireMessages.timeout };
  return { code: HandleCode.FAIL, msg: reason.msg };
}

function startLine(t: TriggerParam, runner: string): string {
  return (
    `----------- tickwheel run start: jobId=${t.jobId} logId=${t.logId} runner=${runner} glueType=${t.glueType}` +
    ` param=${JSON.stringify(t.executorParams)} shard=${t.broadcastIndex}/${t.broadcastTotal}` +
    ` blockStrategy=${t.executorBlockStrategy} timeout=${t.executorTimeout}s` +
    (t.workflow ? ` workflowRun=${t.workflow.runId} node=${t.workflow.nodeKey}` : '')
  );
}

function endLine(outcome: RunOutcome): string {
  return `----------- tickwheel run end: handleCode=${outcome.code} handleMsg=${outcome.msg ?? 'null'}`;
}

/**
 * The lane's current run: the runner's request (the run's log, through a RunLog, and its signal)
 * and its stop. It ends once, with the runner's outcome or with the stop's as soon as the run is
 * stopped, whatever the runner does then. Only the lane stops its runs (kill, cover-early and
 * shutdown through `stop`, the timeout through its timer), so a stop settles the run directly
 * rather than through a listener on the signal. Its AbortController is made only when someone
 * reads the signal (most runs never do): a signal read after the stop is made already aborted,
 * with the stop's reason.
 */
class LaneRun implements RunRequest {
  readonly log: RunLog;
  private controller: AbortController | undefined;
  private reason: StopReason | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    readonly trigger: TriggerParam,
    /** The run's log file, which the lane writes the end line to and hands to the report. */
    readonly target: JobLogWriter,
    private readonly lane: Lane,
  ) {
    this.log = new RunLog(target);
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.reason !== undefined) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  start(runner: Runner): void {
    // A timer only for runs that have a timeout: most runs have none.
    if (this.trigger.executorTimeout > 0) {
      this.timer = setTimeout(() => this.stop({ kind: 'timeout' }), this.trigger.executorTimeout * 1000);
    }
    let running: Promise<RunOutcome>;
    try {
      running = runner.run(this);
    } catch (err) {
      // A runner that throws before it returns its promise fails the run like one that rejects.
      running = Promise.reject(err);
    }
    running.then(
      (outcome) => this.end(outcome),
      (err: unknown) => this.end({ code: HandleCode.FAIL, msg: errorMessage(err) }),
    );
  }

  /** Aborts the run's signal and ends the run with the outcome of `reason`, whatever the runner does. */
  stop(reason: StopReason): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller?.abort(reason);
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    // The lane goes on a moment later, as after a settled promise: the caller (a kill, a
    // cover-early, the shutdown) finishes what it does first.
    queueMicrotask(() => this.lane.finished(this, outcomeOfStop(reason)));
  }

  private end(outcome: RunOutcome): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.lane.finished(this, outcome);
  }
}

/** The log a runner writes through; detached once the lane has settled the run. */
class RunLog implements JobLogWriter {
  readonly path: string;
  private target: JobLogWriter | undefined;

  constructor(target: JobLogWriter) {
    this.path = target.path;
    this.target = target;
  }

  log(...args: unknown[]): void {
    this.target?.log(...args);
  }

  write(chunk: string): void {
    this.target?.write(chunk);
  }

  /** The lane closes the real log; a runner's close is a no-op. */
  async close(): Promise<void> {}

  detach(): void {
    this.target = undefined;
  }
}
