/**
 * The lane table: one lane per job, created on a job's first run and released after it has been
 * idle for a while. Here the `run`, `kill` and `idleBeat` calls are decided: which runner, a
 * repeated logId, the block strategy, a changed handler or script version.
 */
import {
  type IdleBeatParam,
  type KillParam,
  type ReturnT,
  returnFail,
  returnSuccess,
  type TriggerParam,
  WireMessages,
} from '@tickwheel/protocol';
import type { Logger } from 'pino';
import { AcceptedLogIdJournal } from './accepted-log-id-journal.js';
import { AcceptedLogIds } from './accepted-log-ids.js';
import type { Clock } from './clock.js';
import type { JobLogWriter } from './job-log.js';
import { Lane, type LaneDeps } from './lane.js';
import type { Runner, RunOutcome } from './runner.js';

/** The runner a trigger needs, or why it cannot run here. */
export type RunnerChoice = { identity: string; create: () => Runner } | { refusal: string };

export interface LanesOptions {
  chooseRunner(trigger: TriggerParam): RunnerChoice;
  openLog(trigger: TriggerParam): JobLogWriter;
  report(trigger: TriggerParam, outcome: RunOutcome, log: JobLogWriter): void;
  idleMs: number;
  acceptedLogIdTtlMs: number;
  acceptedLogIdLimit: number;
  /** Folder of the accepted logIds file; without it the ids are remembered in memory only. */
  acceptedLogIdDir?: string;
  /** The clock of the idle release and of the accepted logIds' time to be remembered. */
  clock: Clock;
  logger: Logger;
}

/** XXL-JOB's wording, kept for the console and for peers that show it. */
export const LaneMessages = {
  busy: 'job thread is running or has trigger queue.',
  replacedRunning: 'change jobhandler or glue type, and terminate the old job thread. [job running, killed]',
  replacedQueued:
    'change jobhandler or glue type, and terminate the old job thread. [job not executed, in the job queue, killed.]',
  coverEarlyQueued: 'block strategy effect：Cover Early [job not executed, in the job queue, killed.]',
  shutdownRunning: 'executor stopped. [job running, killed]',
  shutdownQueued: 'executor stopped. [job not executed, in the job queue, killed.]',
} as const;

const NOT_RECORDED =
  'the executor could not record the logId on disk (see its log), run refused: it could not refuse a repeat after a restart.';

export class Lanes {
  private readonly lanes = new Map<number, Lane>();
  private readonly accepted: AcceptedLogIds;
  private readonly journal: AcceptedLogIdJournal | undefined;
  private lastRecorded: Promise<boolean> | undefined;
  private lastAnswer: Promise<ReturnT<null>> | undefined;
  private readonly laneDeps: LaneDeps;
  /** Lanes being closed (their runner released), awaited by `closeAll`. */
  private readonly closing = new Set<Promise<void>>();

  constructor(private readonly options: LanesOptions) {
    const { clock } = options;
    this.accepted = new AcceptedLogIds(options.acceptedLogIdTtlMs, options.acceptedLogIdLimit, () =>
      clock.now(),
    );
    const dir = options.acceptedLogIdDir;
    this.journal =
      dir === undefined
        ? undefined
        : new AcceptedLogIdJournal({
            dir,
            accepted: this.accepted,
            maxLines: 2 * options.acceptedLogIdLimit,
            onLost: (logIds) => {
              for (const logId of logIds) this.accepted.forget(logId);
            },
            logger: options.logger,
          });
    this.laneDeps = {
      recording: (logId) => this.journal?.recording(logId),
      openLog: options.openLog,
      report: options.report,
      idleMs: options.idleMs,
      clock,
      onIdle: (lane) => this.release(lane, 'idle'),
    };
  }

  /** Reads the logIds accepted before a restart; call before the first `run`. */
  async open(): Promise<void> {
    await this.journal?.open();
  }

  /** Waits for the accepted logIds being written; call after `closeAll`. */
  async close(): Promise<void> {
    await this.journal?.close();
  }

  /**
   * `run` / `trigger`: queues the trigger or refuses it. The decision is taken at once, in call
   * order; an acceptance is answered once its logId is on disk (the run waits for that too).
   */
  run(trigger: TriggerParam): ReturnT<null> | Promise<ReturnT<null>> {
    const choice = this.options.chooseRunner(trigger);
    if ('refusal' in choice) return returnFail(choice.refusal);
    if (this.accepted.has(trigger.logId)) return returnFail(WireMessages.repeatTrigger(trigger.logId));
    let lane = this.lanes.get(trigger.jobId);
    if (lane && lane.identity !== choice.identity) {
      this.closeLane(lane, { kind: 'kill', msg: LaneMessages.replacedRunning }, LaneMessages.replacedQueued);
      lane = undefined;
    }
    if (lane?.busy) {
      if (trigger.executorBlockStrategy === 'DISCARD_LATER') return returnFail(WireMessages.discardLater);
      if (trigger.executorBlockStrategy === 'COVER_EARLY') {
        lane.stopAll({ kind: 'cover-early', msg: WireMessages.coverEarly }, LaneMessages.coverEarlyQueued);
      }
    }
    lane ??= this.openLane(trigger.jobId, choice.identity, choice.create());
    const at = this.accepted.add(trigger.logId);
    // Recorded before it is queued: the lane sees the write under way and waits for it.
    const recorded = this.journal?.record(trigger.logId, at);
    lane.enqueue(trigger);
    return recorded === undefined ? returnSuccess(null) : this.answerOf(recorded);
  }

  /** The answer of the runs of one write batch, made once per batch (the hot path takes thousands a second). */
  private answerOf(recorded: Promise<boolean>): Promise<ReturnT<null>> {
    if (this.lastRecorded !== recorded) {
      this.lastRecorded = recorded;
      this.lastAnswer = recorded.then((ok) => (ok ? returnSuccess(null) : returnFail(NOT_RECORDED)));
    }
    return this.lastAnswer!;
  }

  /**
   * `kill`: stops the running run, reports the queued ones as killed, releases the lane. With a
   * `logId` (Tickwheel's extension) only that run is stopped, running or queued, and the lane
   * goes on with the others.
   */
  kill({ jobId, logId }: KillParam): ReturnT<null> {
    const lane = this.lanes.get(jobId);
    if (!lane) return { ...returnSuccess(null), msg: WireMessages.threadAlreadyKilled };
    if (logId !== undefined) {
      const killed = lane.stopRun(
        logId,
        { kind: 'kill', msg: WireMessages.killRunning },
        WireMessages.killQueued,
      );
      return killed ? returnSuccess(null) : { ...returnSuccess(null), msg: WireMessages.threadAlreadyKilled };
    }
    this.closeLane(lane, { kind: 'kill', msg: WireMessages.killRunning }, WireMessages.killQueued);
    return returnSuccess(null);
  }

  /** `idleBeat`: fails while the job's lane is running or has queued runs. */
  idleBeat({ jobId }: IdleBeatParam): ReturnT<null> {
    return this.lanes.get(jobId)?.busy ? returnFail(LaneMessages.busy) : returnSuccess(null);
  }

  /** True while any lane has a run going or queued. */
  get busy(): boolean {
    return [...this.lanes.values()].some((lane) => lane.busy);
  }

  /** Resolves true once no lane is busy, or false after `timeoutMs`. */
  async whenIdle(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.busy) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, left);
      });
      await Promise.race([Promise.all([...this.lanes.values()].map((lane) => lane.whenIdle())), timedOut]);
      clearTimeout(timer);
    }
    return true;
  }

  /** Stops every lane (running runs and queues reported as killed by shutdown) and releases every runner. */
  async closeAll(): Promise<void> {
    for (const lane of [...this.lanes.values()]) {
      this.closeLane(
        lane,
        { kind: 'shutdown', msg: LaneMessages.shutdownRunning },
        LaneMessages.shutdownQueued,
      );
    }
    await Promise.all([...this.closing]);
  }

  private openLane(jobId: number, identity: string, runner: Runner): Lane {
    const lane = new Lane(jobId, identity, runner, this.laneDeps);
    this.lanes.set(jobId, lane);
    this.options.logger.debug({ jobId, runner: runner.description }, 'lane opened');
    return lane;
  }

  private release(lane: Lane, why: string): void {
    if (this.lanes.get(lane.jobId) !== lane) return;
    this.options.logger.debug({ jobId: lane.jobId, why }, 'lane released');
    this.closeLane(
      lane,
      { kind: 'shutdown', msg: LaneMessages.shutdownRunning },
      LaneMessages.shutdownQueued,
    );
  }

  private closeLane(lane: Lane, running: Parameters<Lane['close']>[0], queuedMsg: string): void {
    if (this.lanes.get(lane.jobId) === lane) this.lanes.delete(lane.jobId);
    const closed = lane.close(running, queuedMsg).catch((err: unknown) => {
      this.options.logger.error({ err, jobId: lane.jobId }, 'releasing a lane failed');
    });
    this.closing.add(closed);
    void closed.finally(() => this.closing.delete(closed));
  }
}
