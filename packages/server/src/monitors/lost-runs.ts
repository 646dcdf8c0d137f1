/**
 * The lost-run monitor (XXL-JOB's JobCompleteHelper, made faster): a run whose executor no
 * longer has it will never call back, so its record is failed with a message saying why. Three
 * rules, each sure the run is gone:
 *
 * - restarted: a Tickwheel executor answers each `run` with its instance id (new at each start),
 *   stored on the record. When a registration at the run's address carries another instance, the
 *   process that had the run is gone. The executor API calls {@link LostRunMonitor.failRestartedRuns}
 *   as that registration arrives (on whichever node receives it); each sweep also catches a run
 *   whose dispatch mark was written after the new instance registered.
 * - idle: an executor that announced no instance (XXL-JOB's) is asked `idleBeat` for the job of
 *   each run still dispatched `idleGraceMs` after its dispatch. An answer of idle (code 200: the
 *   job has no run running nor queued) in two sweeps in a row fails the run. The grace covers a
 *   run still on its way into the executor's queue, and the second answer the instant between an
 *   XXL-JOB job thread taking a queued run and marking itself running.
 * - not registered: a run dispatched `lostAfterMs` ago whose executor is no longer registered.
 *
 * The sweeps run on the node holding the maintenance lease. Records are failed through the
 * result recorder like any result (handle code 500), marked lost, so the recorder's hook (after-runs.ts) sees
 * them (retries and alarms follow as for any failure), several nodes failing the same record
 * change it once, and the run's real result, should it come after all (a callback that was in
 * flight or spilled), replaces the failure (store/hot/finish.ts).
 */
import { HandleCode, type ProtocolGeneration } from '@tickwheel/protocol';
import type { Logger } from 'pino';
import type { CallOutcome, ExecutorAddress } from '../dispatch/executor-client.js';
import type { ResultRecorder } from '../executor-api/result-recorder.js';
import type { Clock } from '../scheduling/clock.js';
import type { DispatchedRun, FireRepository, FireResult, RegistryRepository } from '../store/index.js';
import { holdMaintenanceLease, type MaintenanceLeaseOptions } from './maintenance-lease.js';
import { Periodic } from './periodic.js';

/** Asks an executor whether a job has a run running or queued (`idleBeat`; code 200 = idle). */
export type IdleBeat = (
  target: ExecutorAddress,
  jobId: number,
) => Promise<Pick<CallOutcome, 'code' | 'failure'>>;

export interface LostRunMonitorOptions {
  fires: Pick<
    FireRepository,
    'findLostRuns' | 'findRestartedRuns' | 'findUnconfirmedRuns' | 'findRunsOfOtherInstances'
  >;
  recorder: Pick<ResultRecorder, 'record' | 'settleBroadcasts'>;
  lease: MaintenanceLeaseOptions;
  clock: Clock;
  logger: Pick<Logger, 'error' | 'warn' | 'info'>;
  /** The registrations, to address the idle checks (protocol, app name). Without it (or `idleBeat`), no idle checks. */
  registry?: Pick<RegistryRepository, 'listAlive'>;
  /** The `idleBeat` call. Without it (or `registry`), no idle checks. */
  idleBeat?: IdleBeat;
  /** A run still without a result this long after its dispatch, on an executor no longer registered, is lost. */
  lostAfterMs: number;
  /** Runs on executors without an instance id are checked with `idleBeat` this long after their dispatch; 0: never. */
  idleGraceMs: number;
  /** Time between two sweeps. */
  intervalMs: number;
  /** An executor unseen this long is offline. */
  deadTimeoutMs: number;
  /** Records read per round trip; a sweep goes on until none is left. */
  batchSize: number;
  /** `idleBeat` calls in flight at once. */
  idleBeatConcurrency: number;
}

/** What one sweep did; `held` false when another node holds the maintenance lease. */
export interface LostRunSweep {
  held: boolean;
  /** Records this sweep failed (all three rules). */
  failed: number;
  /** Broadcast records this sweep finished from their settled shards. */
  settledBroadcasts: number;
}

/**
 * @example
 * const monitor = new LostRunMonitor({ fires: store.fires, recorder, lease: { leases: store.leases, nodeId }, clock, logger,
 *   registry: store.registry, idleBeat: (target, jobId) => dispatcher.idleBeat(target, jobId) });
 * monitor.start();
 */
export class LostRunMonitor {
  private readonly options: LostRunMonitorOptions;
  private readonly lostAfterMs: number;
  private readonly idleGraceMs: number;
  private readonly deadTimeoutMs: number;
  private readonly batchSize: number;
  private readonly loop: Periodic;
  /** Runs whose executor answered idle in the last sweep: a second idle answer fails them. */
  private idleOnce = new Set<number>();
  /** Where the idle checks go on from in the next sweep (they take at most one page per sweep). */
  private idleCursor = 0;

  constructor(options: LostRunMonitorOptions) {
    this.options = options;
    this.lostAfterMs = options.lostAfterMs;
    this.idleGraceMs = options.idleGraceMs;
    this.deadTimeoutMs = options.deadTimeoutMs;
    this.batchSize = options.batchSize;
    this.loop = new Periodic({
      name: 'lost-run sweep',
      intervalMs: options.intervalMs,
      clock: options.clock,
      logger: options.logger,
      run: () => this.sweep(),
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /**
   * Fails the runs still dispatched to `address` that another instance than `instance` accepted:
   * a registration of `instance` arrived there, so their process is gone. Needs no lease (any
   * node may receive the registration; failing a record twice changes it once). Returns how many
   * records it failed.
   */
  async failRestartedRuns(address: string, instance: string): Promise<number> {
    let failed = 0;
    for (;;) {
      const runs = await this.options.fires.findRunsOfOtherInstances({
        address,
        instance,
        limit: this.batchSize,
      });
      if (runs.length === 0) return failed;
      const now = this.options.clock.now();
      const changed = await this.options.recorder.record(
        runs.map((run) => this.restartedResult(run, instance, now)),
      );
      failed += changed.length;
      this.logFailed('restarted', changed.length, address);
      // The recorder changed none of them (another node failed them first, a result came): done.
      if (runs.length < this.batchSize || changed.length === 0) return failed;
    }
  }

  /** One sweep, if this node holds the maintenance lease. */
  async sweep(): Promise<LostRunSweep> {
    const sweep: LostRunSweep = { held: false, failed: 0, settledBroadcasts: 0 };
    if (!(await holdMaintenanceLease(this.options.lease, this.options.clock.now()))) return sweep;
    sweep.held = true;
    await this.sweepUnregistered(sweep);
    sweep.failed += await this.sweepRestarted();
    sweep.failed += await this.sweepIdle();
    return sweep;
  }

  /** Runs dispatched `lostAfterMs` ago to an executor no longer registered. */
  private async sweepUnregistered(sweep: LostRunSweep): Promise<void> {
    const seen = new Set<number>();
    for (;;) {
      const now = this.options.clock.now();
      const lost = await this.options.fires.findLostRuns({
        dispatchedBefore: now - this.lostAfterMs,
        aliveSince: now - this.deadTimeoutMs,
        limit: this.batchSize,
      });
      // A broadcast's own record has no address and stays listed until its shards settle: stop
      // once a page brings nothing new rather than reading it again.
      const fresh = lost.filter((fire) => !seen.has(fire.id));
      for (const fire of fresh) seen.add(fire.id);
      if (fresh.length === 0) return;
      const results: FireResult[] = [];
      const broadcasts: number[] = [];
      for (const fire of fresh) {
        if (fire.executor_address === null) broadcasts.push(fire.id);
        else results.push(this.unregisteredResult(fire.id, fire.executor_address, now));
      }
      const failed = (await this.options.recorder.record(results)).length;
      sweep.failed += failed;
      this.logFailed('unregistered', failed);
      if (broadcasts.length > 0) {
        sweep.settledBroadcasts += (await this.options.recorder.settleBroadcasts(broadcasts)).length;
      }
      if (lost.length < this.batchSize) return;
    }
  }

  /** Runs whose address now has a registration of another instance, made after their dispatch. */
  private async sweepRestarted(): Promise<number> {
    let failed = 0;
    for (;;) {
      const now = this.options.clock.now();
      const runs = await this.options.fires.findRestartedRuns({
        aliveSince: now - this.deadTimeoutMs,
        limit: this.batchSize,
      });
      if (runs.length === 0) return failed;
      const changed = await this.options.recorder.record(
        runs.map((run) => this.restartedResult(run, null, now)),
      );
      failed += changed.length;
      this.logFailed('restarted', changed.length);
      if (runs.length < this.batchSize || changed.length === 0) return failed;
    }
  }

  /**
   * Runs on executors without an instance id, dispatched `idleGraceMs` ago: one `idleBeat` per
   * (address, job); a run whose executor answers idle now and answered idle in the last sweep is
   * failed. One page per sweep; the next sweep goes on from there.
   */
  private async sweepIdle(): Promise<number> {
    const { registry, idleBeat } = this.options;
    if (registry === undefined || idleBeat === undefined || this.idleGraceMs <= 0) return 0;
    const now = this.options.clock.now();
    const aliveSince = now - this.deadTimeoutMs;
    const runs = await this.options.fires.findUnconfirmedRuns({
      dispatchedBefore: now - this.idleGraceMs,
      aliveSince,
      afterId: this.idleCursor,
      limit: this.batchSize,
    });
    this.idleCursor = runs.length < this.batchSize ? 0 : (runs[runs.length - 1] as DispatchedRun).id;
    if (runs.length === 0) {
      this.idleOnce.clear();
      return 0;
    }
    const targets = new Map<string, { protocol: ProtocolGeneration; appName: string }>();
    for (const row of await registry.listAlive(aliveSince)) {
      if (!targets.has(row.registry_value)) {
        targets.set(row.registry_value, {
          protocol: row.protocol as ProtocolGeneration,
          appName: row.registry_key,
        });
      }
    }
    const groups = new Map<string, DispatchedRun[]>();
    for (const run of runs) {
      const key = `${run.job_id} ${run.executor_address}`;
      const group = groups.get(key);
      if (group === undefined) groups.set(key, [run]);
      else group.push(run);
    }
    const idleRuns: DispatchedRun[] = [];
    const queue = [...groups.values()];
    const probe = async () => {
      for (let group = queue.shift(); group !== undefined; group = queue.shift()) {
        const first = group[0] as DispatchedRun;
        const target = targets.get(first.executor_address);
        if (target === undefined) continue;
        const answer = await idleBeat({ address: first.executor_address, ...target }, first.job_id);
        if (answer.failure === null && answer.code === HandleCode.SUCCESS) idleRuns.push(...group);
      }
    };
    const concurrency = this.options.idleBeatConcurrency;
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, probe));
    // Idle twice in a row: lost. Idle once: asked again next sweep. Runs of this page not idle now
    // start over; those of other pages keep their first answer.
    const page = new Set(runs.map((run) => run.id));
    const confirmed = idleRuns.filter((run) => this.idleOnce.has(run.id));
    for (const id of page) this.idleOnce.delete(id);
    for (const run of idleRuns) if (!confirmed.includes(run)) this.idleOnce.add(run.id);
    if (this.idleOnce.size > 100_000) this.idleOnce.clear();
    if (confirmed.length === 0) return 0;
    const at = this.options.clock.now();
    const changed = await this.options.recorder.record(confirmed.map((run) => this.idleResult(run, at)));
    this.logFailed('idle', changed.length);
    return changed.length;
  }

  private logFailed(rule: 'restarted' | 'idle' | 'unregistered', count: number, address?: string): void {
    if (count === 0) return;
    this.options.logger.info(
      { rule, count, ...(address === undefined ? {} : { address }) },
      'lost runs failed',
    );
  }

  private unregisteredResult(fireId: number, address: string, now: number): FireResult {
    return {
      fireId,
      handleCode: HandleCode.FAIL,
      handleMsg: `executor ${address} went offline while the run was in progress; no result arrived within ${duration(this.lostAfterMs)}`,
      handleAt: now,
      lost: true,
    };
  }

  /** `instance`: the one now registered, when known. */
  private restartedResult(run: DispatchedRun, instance: string | null, now: number): FireResult {
    const registered = instance === null ? 'another instance registered' : `instance ${instance} registered`;
    return {
      fireId: run.id,
      handleCode: HandleCode.FAIL,
      handleMsg: `executor ${run.executor_address} restarted while the run was in progress (instance ${run.executor_instance} that accepted it is gone, ${registered}); the run was lost`,
      handleAt: now,
      lost: true,
    };
  }

  private idleResult(run: DispatchedRun, now: number): FireResult {
    return {
      fireId: run.id,
      handleCode: HandleCode.FAIL,
      handleMsg: `executor ${run.executor_address} has no run of job ${run.job_id} running or queued (idleBeat answered idle twice, ${Math.round((now - run.trigger_at) / 1_000)} s after the dispatch) and no result arrived; the run was lost (the executor restarted or dropped it)`,
      handleAt: now,
      lost: true,
    };
  }
}

/** `10 min`, `90 s` or `250 ms`. */
function duration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms} ms`;
}
