/**
 * The dispatcher: delivers one fire to an executor of its app (or, for a broadcast, to each) and
 * reports the outcome. It writes nothing: the caller turns outcomes into fire records. The
 * interface is transport-neutral — a fire and the app's executors in, outcomes out — so a pull
 * transport can sit beside this HTTP push one.
 *
 * A SHARDING_BROADCAST's shard records are the caller's too: it creates one per executor of
 * `broadcastTargets(fire, addresses)` before the dispatch and passes their ids in the fire
 * (`shardFireIds`), since each shard is a run of its own on the wire.
 *
 * @example
 * const dispatcher = new Dispatcher({ accessToken, fence: (send) => sendFence.admit(send) });
 * const addresses = directory.addressesOf(fire.appName);
 * const shards = broadcastTargets(fire, addresses); // empty unless a whole broadcast
 * if (shards.length > 0) fire.shardFireIds = await createShardRecords(fire, shards);
 * const outcomes = await dispatcher.dispatch(fire, addresses);
 * // One outcome, or one per shard of a broadcast: triggerCode 200 → `dispatched`, else
 * // `dispatch_failed`, with triggerMsg in the record; one with `notSent` leaves its record as it is.
 * await dispatcher.close();
 */
import { performance } from 'node:perf_hooks';
import {
  type BlockStrategy,
  isStreamAddress,
  ROUTE_STRATEGIES,
  type RouteStrategy,
  type TriggerParam,
  type TriggerType,
} from '@tickwheel/protocol';
import { type CallOutcome, type ExecutorAddress, ExecutorClient } from './executor-client.js';
import { type KillOutcome, type KillScopeAnswer, killRun, killScopeOf, type RecordedRun } from './kill.js';
import { DispatchLanes, type LaneName, type LaneStats } from './lanes.js';
import { type LogRead, readRunLog } from './logs.js';
import { type DispatchOptions, type ResolvedDispatchOptions, resolveDispatchOptions } from './options.js';
import { createRoutes, type RoutePick, type Routes } from './routes/index.js';
import type { FenceVerdict, SendToFence } from './send-fence.js';

/** What the dispatcher needs of one claimed fire. */
export interface FireToDispatch {
  /** The fire record's id, sent as `logId`. */
  fireId: number;
  jobId: number;
  /** App the job runs on (named when no executor is online). */
  appName: string;
  /** Epoch ms the fire was due; sent as `logDateTime`, so the run's log folder follows from the record. */
  scheduledAt: number;
  triggerType: TriggerType;
  executorHandler: string;
  executorParam: string;
  executorBlockStrategy: BlockStrategy;
  /** Seconds; 0 = none. */
  executorTimeout: number;
  glueType: string;
  glueSource: string;
  /** Epoch ms of the script version (`glueUpdatetime`). */
  glueUpdatedAt: number;
  routeStrategy: RouteStrategy;
  /**
   * Addresses to choose from instead of the online ones (a manual trigger's address list), in
   * the order given; the caller has checked them against the app's known addresses.
   */
  addressOverride?: string[];
  /**
   * Send only this shard of a broadcast, under the fire's own record (a retry of one failed
   * shard): to the executor at the shard's index among the candidates in address order, as
   * XXL-JOB does, or — when fewer are online now — to the one the index wraps around to.
   */
  shard?: { index: number; total: number };
  /**
   * A fire of the planner: its runs are sent only while this node holds the fire's shard lease
   * (the `fence` option checks it right before each send). Trigger-once fires are not leased.
   */
  leased?: boolean;
  /**
   * A fire sent as its claim read it, not loaded again: the `updated_at` its job and app were
   * read at, which the fence must still find (a `stale` outcome otherwise, and the caller loads
   * the fire again).
   */
  readAt?: { jobId: number; jobUpdatedAt: number; appId: number; appUpdatedAt: number };
  /**
   * The executor the record was sent to before, without a recorded outcome (its sender died or
   * lost the shard): the run goes there again, unrouted, so that executor's logId check refuses
   * it if it had arrived.
   */
  resendTo?: ExecutorAddress;
  /**
   * A SHARDING_BROADCAST's shard records, created by the caller before the dispatch: one id per
   * target of `broadcastTargets(fire, addresses)`, in that order. Each shard is a run of its own
   * on the wire (its id is the `logId` the executor reports back), so the records must exist
   * before the runs are sent. Without them a broadcast fails with a message saying so.
   */
  shardFireIds?: readonly number[];
  /** A workflow node's run: its run, node, the run's param and its upstream nodes' outputs (Tickwheel executors read them). */
  workflow?: WorkflowRunContext;
}

/** What a workflow node's run request carries besides the job's fields (the `workflow` field of `run`). */
export interface WorkflowRunContext {
  runId: number;
  nodeKey: string;
  param: string | null;
  upstream: Record<string, { status: string; output: unknown }>;
}

/** One shard of a broadcast, before its fire record exists. */
export interface ShardTarget {
  address: string;
  shardIndex: number;
  shardTotal: number;
}

/**
 * The outcome of delivering a fire to one executor. A broadcast gives one per executor, in shard
 * order: `fireId` is then that shard's own record (the `logId` it was sent with, from
 * `shardFireIds`) and `parentFireId` the claimed fire; otherwise `fireId` is the fire's own id and
 * `parentFireId` null.
 */
export interface DispatchOutcome {
  fireId: number;
  parentFireId: number | null;
  /** The executor the run was sent to; null when none could be picked. */
  address: string | null;
  shardIndex: number;
  shardTotal: number;
  /** Epoch ms the run was sent (or the dispatch gave up). */
  triggerAt: number;
  /** 200 when the executor accepted the run, else 500. */
  triggerCode: 200 | 500;
  /** Trigger type, route message and the executor's answer, one per line. */
  triggerMsg: string;
  /**
   * The executor instance that answered `run` (its `Tickwheel-Instance` header); null when it
   * announced none (XXL-JOB executors) or did not answer.
   */
  executorInstance: string | null;
  /** Time of the `run` call (0 when none was made). */
  latencyMs: number;
  lane: LaneName;
  /**
   * Set when no run was sent and the record must be left as it is (no mark): `not-pending` — it
   * was marked, finished or skipped meanwhile; `not-owner` — this node no longer holds its shard;
   * `fence-failed` — the fence could not be asked (the database is away); `transport-down` — the
   * executor's transport could not take the run (Redis is unreachable for a `stream://` executor);
   * `stale` — the fire was sent as its claim read it and its job or app changed since (`readAt`).
   */
  notSent?: 'not-pending' | 'not-owner' | 'fence-failed' | 'transport-down' | 'stale';
}

/** One `run` to send: where, under which fire id, as which shard. */
interface RunSend {
  target: ExecutorAddress;
  routeMessage: string;
  fireId: number;
  parentFireId: number | null;
  shardIndex: number;
  shardTotal: number;
}

/** A fire of a batch (`dispatchMany`) routed to its run, until its outcome is known. */
interface BatchedRun {
  /** Its place among the batch's fires. */
  index: number;
  delivery: Delivery;
  run: RunSend;
  settled: boolean;
}

interface Delivery {
  fire: FireToDispatch;
  /** The executors the fire could go to (a record sent before goes back to its own). */
  candidates: readonly ExecutorAddress[];
  lane: LaneName;
  /** Lines of the trigger message so far. */
  header: string;
}

export class Dispatcher {
  private readonly options: ResolvedDispatchOptions;
  private readonly client: ExecutorClient;
  private readonly routes: Partial<Routes>;
  private readonly lanes: DispatchLanes;
  /** The fence for one run (`fence`, or `fenceMany` of one); undefined: runs go unfenced. */
  private readonly fenceOne: ((send: SendToFence) => Promise<FenceVerdict>) | undefined;
  /** The fence for a batch's runs (`fenceMany`, or `fence` for each). */
  private readonly fenceBatch: ((sends: readonly SendToFence[]) => Promise<FenceVerdict[]>) | undefined;

  constructor(options: DispatchOptions) {
    this.options = resolveDispatchOptions(options);
    const o = this.options;
    const { fence, fenceMany } = o;
    this.fenceOne =
      fence ?? (fenceMany === undefined ? undefined : (send) => fenceMany([send]).then((v) => v[0]!));
    this.fenceBatch =
      fenceMany ?? (fence === undefined ? undefined : (sends) => Promise.all(sends.map((s) => fence(s))));
    this.client = new ExecutorClient({
      accessToken: o.accessToken,
      ...(o.tokenFor === undefined ? {} : { tokenFor: o.tokenFor }),
      timeoutMs: o.callTimeoutMs,
      connectionsPerExecutor: o.connectionsPerExecutor,
      pipelining: o.pipelining,
      onCall: o.onCall,
      networkRules: o.networkRules,
      ...(o.pull === undefined ? {} : { pull: o.pull }),
      ...(o.stream === undefined ? {} : { stream: o.stream }),
    });
    this.routes = createRoutes({
      client: this.client,
      now: o.now,
      random: o.random,
      maxTrackedJobs: o.maxTrackedJobs,
    });
    this.lanes = new DispatchLanes(o);
  }

  /**
   * Routes the fire among `addresses` (the app's online executors; sorted here by address) and
   * sends `run`. Never rejects: every failure is an outcome with `triggerCode` 500 and a message.
   */
  dispatch(fire: FireToDispatch, addresses: readonly ExecutorAddress[]): Promise<DispatchOutcome[]> {
    return this.lanes.run(fire.jobId, (lane) => this.deliver(fire, addresses, lane));
  }

  /**
   * Dispatches several fires, each among its `addresses` as `dispatch` would, and resolves with
   * their outcomes in their order; `onOutcomes`, when given, is called with each fire's outcomes
   * as soon as they are known (the runs to one executor are answered together, those to another
   * on their own time). The common fire — a fast-lane job routed by a route that asks no
   * executor, to one executor, no override, no re-send, no shard — goes as part of a batch: its
   * route picked here, the batch's runs fenced together and sent per executor together (one
   * promise a statement and a `runBatch`, where a fire of its own costs a chain of them). A
   * batched fire holds a fast-lane slot until its outcome is known; the other fires, and those
   * past the fast lane's free slots, go as `dispatch`. Never rejects.
   */
  dispatchMany(
    items: readonly { fire: FireToDispatch; addresses: readonly ExecutorAddress[] }[],
    onOutcomes?: (index: number, outcomes: DispatchOutcome[]) => void,
  ): Promise<DispatchOutcome[][]> {
    const results: DispatchOutcome[][] = new Array(items.length);
    const settle = (index: number, outcomes: DispatchOutcome[]) => {
      results[index] = outcomes;
      onOutcomes?.(index, outcomes);
    };
    const batchable = items.map(({ fire }) => this.batchable(fire));
    let count = 0;
    for (const b of batchable) if (b) count++;
    let slots = count === 0 ? 0 : this.lanes.takeFast(count);
    const batch: BatchedRun[] = [];
    const pending: Promise<unknown>[] = [];
    for (let index = 0; index < items.length; index++) {
      const { fire, addresses } = items[index]!;
      if (slots === 0 || !batchable[index]) {
        pending.push(this.dispatch(fire, addresses).then((outcomes) => settle(index, outcomes)));
        continue;
      }
      slots--;
      const candidates = sortedByAddress(addresses);
      const delivery: Delivery = { fire, candidates, lane: 'fast', header: triggerHeader(fire.triggerType) };
      const routed = this.routeInBatch(delivery);
      if ('triggerCode' in routed) {
        this.lanes.releaseFast(fire.jobId, 0);
        settle(index, [routed]);
      } else {
        batch.push({ index, delivery, run: routed, settled: false });
      }
    }
    if (batch.length > 0) pending.push(this.sendBatch(batch, settle));
    return Promise.all(pending).then(() => results);
  }

  /**
   * Whether `fire` may go in a batch (`dispatchMany`): routed by a route that answers at once, to
   * one executor, in the fast lane, with nothing of a trigger's or a retry's to it.
   */
  private batchable(fire: FireToDispatch): boolean {
    return (
      BATCH_ROUTES.has(fire.routeStrategy) &&
      fire.resendTo === undefined &&
      fire.shard === undefined &&
      (fire.addressOverride === undefined || fire.addressOverride.length === 0) &&
      this.lanes.laneOf(fire.jobId) === 'fast'
    );
  }

  /** The run a batched fire goes out as, or its outcome when it goes nowhere. */
  private routeInBatch(delivery: Delivery): RunSend | DispatchOutcome {
    const { fire, candidates } = delivery;
    if (candidates.length === 0) return this.unrouted(delivery, `no executor online for app ${fire.appName}`);
    if (this.options.stream?.available === false && candidates.every((c) => isStreamAddress(c.address))) {
      return this.keptUnrouted(delivery, `not sent: ${NOT_SENT_MESSAGES['transport-down']}`);
    }
    try {
      const pick = this.routes[fire.routeStrategy]!.pick({ jobId: fire.jobId, candidates }) as RoutePick;
      if (pick.picked.length === 0) return this.unrouted(delivery, pick.message);
      return runOfPick(fire, pick);
    } catch (err) {
      return this.unrouted(delivery, `dispatch failed: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  /**
   * Fences the batch's runs together and sends the admitted ones per executor together, settling
   * each fire with its outcomes as they are known and giving back its fast-lane slot then (a
   * re-send to where a record went before goes on its own). Never rejects.
   */
  private async sendBatch(
    batch: readonly BatchedRun[],
    settle: (index: number, outcomes: DispatchOutcome[]) => void,
  ): Promise<void> {
    const started = performance.now();
    const finish = (entry: BatchedRun, outcome: DispatchOutcome, since = started) => {
      if (entry.settled) return;
      entry.settled = true;
      this.lanes.releaseFast(entry.delivery.fire.jobId, performance.now() - since);
      settle(entry.index, [outcome]);
    };
    try {
      const fence = this.fenceBatch;
      let verdicts: readonly FenceVerdict[] | undefined;
      if (fence !== undefined) {
        const sends = batch.map(({ delivery, run }) => ({
          fireId: run.fireId,
          jobId: delivery.fire.jobId,
          address: run.target.address,
          leased: delivery.fire.leased === true,
          readAt: delivery.fire.readAt,
        }));
        try {
          verdicts = await fence(sends);
        } catch (err) {
          const message = `not sent: the send fence failed (${(err as Error)?.message ?? String(err)})`;
          for (const entry of batch)
            finish(entry, this.notSent(entry.delivery, entry.run, 'fence-failed', message));
          return;
        }
      }
      // The admitted runs by the time they may go (0: now) and executor address, in the batch's order.
      const byRelease = new Map<number, Map<string, BatchedRun[]>>();
      const sends: Promise<unknown>[] = [];
      const now = this.options.now();
      for (let i = 0; i < batch.length; i++) {
        const entry = batch[i]!;
        const verdict = verdicts?.[i];
        if (verdict !== undefined && !verdict.admitted) {
          const outcome = this.notAdmitted(entry.delivery, entry.run, verdict, false);
          if (outcome instanceof Promise) sends.push(outcome.then((o) => finish(entry, o)));
          else finish(entry, outcome);
          continue;
        }
        const at = this.releaseAt(entry.delivery.fire.scheduledAt, now);
        let byAddress = byRelease.get(at);
        if (byAddress === undefined) {
          byAddress = new Map();
          byRelease.set(at, byAddress);
        }
        const address = entry.run.target.address;
        const runs = byAddress.get(address);
        if (runs === undefined) byAddress.set(address, [entry]);
        else runs.push(entry);
      }
      for (const [at, byAddress] of byRelease) {
        sends.push(
          at === 0
            ? this.sendReleased(byAddress, finish)
            : this.until(at).then(() => this.sendReleased(byAddress, finish)),
        );
      }
      await Promise.all(sends);
    } catch (err) {
      // Still an outcome for each, never a rejection.
      const message = `dispatch failed: ${(err as Error)?.message ?? String(err)}`;
      for (const entry of batch) finish(entry, this.unrouted(entry.delivery, message));
    }
  }

  /** Sends fenced runs per executor together, each settled with its answer once it comes. */
  private sendReleased(
    byAddress: ReadonlyMap<string, BatchedRun[]>,
    finish: (entry: BatchedRun, outcome: DispatchOutcome, since: number) => void,
  ): Promise<unknown> {
    const triggerAt = this.options.now();
    const sent = performance.now();
    const sends: Promise<void>[] = [];
    for (const runs of byAddress.values()) {
      const triggers = runs.map(({ delivery, run }) => triggerParamOf(delivery.fire, run.fireId, 0, 1));
      sends.push(
        this.client.runMany(runs[0]!.run.target, triggers).then((answers) => {
          const latencyMs = performance.now() - sent;
          for (let i = 0; i < runs.length; i++) {
            const entry = runs[i]!;
            finish(
              entry,
              this.runOutcome(entry.delivery, entry.run, answers[i]!, triggerAt, latencyMs),
              sent,
            );
          }
        }),
      );
    }
    return Promise.all(sends);
  }

  /**
   * When a fenced run of a fire due at `scheduledAt` may go, the clock reading `now` (read once
   * for a batch): 0 (now) once it is due; a fire handed over ahead of its time (the planner's
   * `prepareAheadMs`) waits, fenced, until its time rounded up to RELEASE_GRID_MS, so the runs of
   * a batch due within a few milliseconds go out together and none goes early. One due further
   * ahead than MAX_HOLD_MS goes at once: no path hands such a fire over.
   */
  private releaseAt(scheduledAt: number, now = this.options.now()): number {
    const ahead = scheduledAt - now;
    if (ahead <= 0 || ahead > MAX_HOLD_MS) return 0;
    return Math.ceil(scheduledAt / RELEASE_GRID_MS) * RELEASE_GRID_MS;
  }

  /** Resolves once the clock reads `at` or later (a timer may wake a millisecond early). */
  private until(at: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const check = () => {
        const left = at - this.options.now();
        if (left <= 0) resolve();
        else setTimeout(check, left);
      };
      check();
    });
  }

  /** Dispatches the two lanes run at once: what a caller keeps in flight to keep them busy. */
  get capacity(): number {
    return this.options.fastConcurrency + this.options.slowConcurrency;
  }

  /** Asks the executor whether the job has a run running or queued (`idleBeat`: code 200 idle, 500 busy). */
  idleBeat(target: ExecutorAddress, jobId: number): Promise<CallOutcome<null>> {
    return this.client.idleBeat(target, jobId);
  }

  /** Stops the recorded run on the executor it was sent to: the run alone, or its job's lane (see `killRun`). */
  kill(run: RecordedRun): Promise<KillOutcome> {
    return killRun(this.client, run);
  }

  /** What a kill of the recorded run would stop on its executor now (see `killScopeOf`). */
  killScope(run: RecordedRun): Promise<KillScopeAnswer> {
    return killScopeOf(this.client, run);
  }

  /** Reads the recorded run's log lines from the executor it was sent to (see `readRunLog`). */
  readLog(run: RecordedRun, fromLineNum: number): Promise<LogRead> {
    return readRunLog(this.client, run, fromLineNum);
  }

  /** The lane a job's next dispatch runs in. */
  laneOf(jobId: number): LaneName {
    return this.lanes.laneOf(jobId);
  }

  laneStats(): { fast: LaneStats; slow: LaneStats } {
    return this.lanes.stats();
  }

  /** Closes the kept-alive executor connections. */
  close(): Promise<void> {
    return this.client.close();
  }

  private async deliver(
    fire: FireToDispatch,
    addresses: readonly ExecutorAddress[],
    lane: LaneName,
  ): Promise<DispatchOutcome[]> {
    const overridden = fire.addressOverride !== undefined && fire.addressOverride.length > 0;
    const candidates = candidatesOf(fire, addresses);
    let header = triggerHeader(fire.triggerType);
    if (overridden) header += `\naddress override: ${candidates.map((c) => c.address).join(', ')}`;
    const delivery: Delivery = { fire, candidates, lane, header };
    if (fire.resendTo !== undefined) {
      const target = fire.resendTo;
      return [
        await this.sendRun(delivery, {
          target,
          routeMessage: `re-sent to ${target.address}, where it was sent before without a recorded outcome`,
          fireId: fire.fireId,
          parentFireId: null,
          shardIndex: fire.shard?.index ?? 0,
          shardTotal: fire.shard?.total ?? 1,
        }),
      ];
    }
    if (candidates.length === 0) {
      return [this.unrouted(delivery, `no executor online for app ${fire.appName}`)];
    }
    if (this.options.stream?.available === false && candidates.every((c) => isStreamAddress(c.address))) {
      // Nothing could reach them (not even a route's beat): the fire waits for Redis, unrouted.
      return [this.keptUnrouted(delivery, `not sent: ${NOT_SENT_MESSAGES['transport-down']}`)];
    }
    const route = this.routes[fire.routeStrategy];
    if (route === undefined) return [this.unrouted(delivery, `unknown route strategy ${fire.routeStrategy}`)];
    try {
      if (fire.shard !== undefined) return [await this.sendOneShard(delivery, candidates, fire.shard)];
      // Only the routes that ask executors first answer with a promise: the others are not awaited.
      const picking = route.pick({ jobId: fire.jobId, candidates });
      const pick = picking instanceof Promise ? await picking : picking;
      if (pick.picked.length === 0) return [this.unrouted(delivery, pick.message)];
      if (fire.routeStrategy === 'SHARDING_BROADCAST') return await this.sendShards(delivery, pick);
      return [await this.sendRun(delivery, runOfPick(fire, pick))];
    } catch (err) {
      // A route failed unexpectedly: still an outcome, never a rejection.
      return [this.unrouted(delivery, `dispatch failed: ${(err as Error)?.message ?? String(err)}`)];
    }
  }

  private async sendShards(delivery: Delivery, pick: RoutePick): Promise<DispatchOutcome[]> {
    const { fire } = delivery;
    const total = pick.picked.length;
    const ids = fire.shardFireIds;
    if (ids === undefined || ids.length !== total) {
      return [
        this.unrouted(
          delivery,
          `${pick.message}\nSHARDING_BROADCAST needs its ${total} shard records (shardFireIds), created before the dispatch`,
        ),
      ];
    }
    return Promise.all(
      pick.picked.map((target, i) =>
        this.sendRun(delivery, {
          target,
          routeMessage: `${pick.message}\nshard ${i}/${total} → ${target.address}`,
          fireId: ids[i]!,
          parentFireId: fire.fireId,
          shardIndex: i,
          shardTotal: total,
        }),
      ),
    );
  }

  private sendOneShard(
    delivery: Delivery,
    candidates: readonly ExecutorAddress[],
    shard: { index: number; total: number },
  ): Promise<DispatchOutcome> {
    const target = candidates[shard.index % candidates.length]!;
    return this.sendRun(delivery, {
      target,
      routeMessage: `retry of shard ${shard.index}/${shard.total} → ${target.address}`,
      fireId: delivery.fire.fireId,
      parentFireId: null,
      shardIndex: shard.index,
      shardTotal: shard.total,
    });
  }

  private async sendRun(delivery: Delivery, run: RunSend, refenced = false): Promise<DispatchOutcome> {
    const fence = this.fenceOne;
    if (fence !== undefined) {
      let verdict: FenceVerdict;
      try {
        verdict = await fence({
          fireId: run.fireId,
          jobId: delivery.fire.jobId,
          address: run.target.address,
          leased: delivery.fire.leased === true,
          readAt: delivery.fire.readAt,
        });
      } catch (err) {
        return this.notSent(
          delivery,
          run,
          'fence-failed',
          `not sent: the send fence failed (${(err as Error)?.message ?? String(err)})`,
        );
      }
      if (!verdict.admitted) return this.notAdmitted(delivery, run, verdict, refenced);
    }
    const at = this.releaseAt(delivery.fire.scheduledAt);
    if (at !== 0) await this.until(at);
    const triggerAt = this.options.now();
    const started = performance.now();
    const trigger = triggerParamOf(delivery.fire, run.fireId, run.shardIndex, run.shardTotal);
    const answer = await this.client.run(run.target, trigger);
    return this.runOutcome(delivery, run, answer, triggerAt, performance.now() - started);
  }

  /** The outcome of a run sent at `triggerAt` and answered `answer` after `latencyMs`. */
  private runOutcome(
    delivery: Delivery,
    run: RunSend,
    answer: CallOutcome<null>,
    triggerAt: number,
    latencyMs: number,
  ): DispatchOutcome {
    if (answer.failure === 'connection' && this.isTransportDown(run.target.address)) {
      return this.notSent(
        delivery,
        run,
        'transport-down',
        `not sent: ${NOT_SENT_MESSAGES['transport-down']} (${answer.msg})`,
      );
    }
    const repeat = !answer.ok && isRepeatOf(answer.msg, run.fireId);
    return {
      fireId: run.fireId,
      parentFireId: run.parentFireId,
      address: run.target.address,
      shardIndex: run.shardIndex,
      shardTotal: run.shardTotal,
      triggerAt,
      // A repeat refused means the executor took this very run before: it is running or ran there.
      triggerCode: answer.ok || repeat ? 200 : 500,
      triggerMsg: `${delivery.header}\n${run.routeMessage}\n${runLine(run.target, answer)}${repeat ? REPEAT_NOTE : ''}`,
      // A repeat was taken by whichever process served the address then, maybe not this one.
      executorInstance: repeat ? null : (answer.instance ?? null),
      latencyMs,
      lane: delivery.lane,
    };
  }

  /**
   * A run the fence did not admit: one sent before by a node that died or lost the shard goes
   * there again (fenced again, once); any other is not sent.
   */
  private notAdmitted(
    delivery: Delivery,
    run: RunSend,
    verdict: Exclude<FenceVerdict, { admitted: true }>,
    refenced: boolean,
  ): DispatchOutcome | Promise<DispatchOutcome> {
    if ('sentTo' in verdict && !refenced) {
      // Sent there before (by a node that died or lost the shard): only there may it go again.
      const target = delivery.candidates.find((c) => sameAddress(c.address, verdict.sentTo)) ?? {
        address: verdict.sentTo,
        protocol: 'G2' as const,
        appName: delivery.fire.appName,
      };
      const routeMessage = `${run.routeMessage}\nre-sent to ${target.address}, where it was sent before without a recorded outcome`;
      return this.sendRun(delivery, { ...run, target, routeMessage }, true);
    }
    const reason = 'reason' in verdict ? verdict.reason : 'not-pending';
    return this.notSent(delivery, run, reason, `not sent: ${NOT_SENT_MESSAGES[reason]}`);
  }

  /** The outcome of a run the fence kept back: nothing was sent, and the record is left as it is. */
  private notSent(
    delivery: Delivery,
    run: RunSend,
    reason: NonNullable<DispatchOutcome['notSent']>,
    message: string,
  ): DispatchOutcome {
    return {
      fireId: run.fireId,
      parentFireId: run.parentFireId,
      address: run.target.address,
      shardIndex: run.shardIndex,
      shardTotal: run.shardTotal,
      triggerAt: this.options.now(),
      triggerCode: 500,
      triggerMsg: `${delivery.header}\n${run.routeMessage}\n${message}`,
      latencyMs: 0,
      lane: delivery.lane,
      executorInstance: null,
      notSent: reason,
    };
  }

  /**
   * Whether a run that failed as `connection` to `address` was not sent for want of its transport:
   * a stream executor's, on a server that has one (Redis is unreachable). Without `--redis` it is
   * a failed dispatch like any other, which says why.
   */
  private isTransportDown(address: string): boolean {
    return this.options.stream !== undefined && isStreamAddress(address);
  }

  /** The outcome of a fire kept back before it was routed: nothing was sent, the record is left as it is. */
  private keptUnrouted(delivery: Delivery, message: string): DispatchOutcome {
    return { ...this.unrouted(delivery, message), notSent: 'transport-down' };
  }

  /** The one failed outcome of a fire no executor could be picked for. */
  private unrouted(delivery: Delivery, message: string): DispatchOutcome {
    return {
      fireId: delivery.fire.fireId,
      parentFireId: null,
      address: null,
      shardIndex: 0,
      shardTotal: 1,
      triggerAt: this.options.now(),
      triggerCode: 500,
      triggerMsg: `${delivery.header}\n${message}`,
      executorInstance: null,
      latencyMs: 0,
      lane: delivery.lane,
    };
  }
}

/**
 * The routes that pick without asking an executor (all but FAILOVER's and BUSYOVER's beats and a
 * broadcast's shards): a fire of one may go in a batch (`dispatchMany`).
 */
const BATCH_ROUTES: ReadonlySet<RouteStrategy> = new Set(
  ROUTE_STRATEGIES.filter((s) => s !== 'FAILOVER' && s !== 'BUSYOVER' && s !== 'SHARDING_BROADCAST'),
);

/** The one run of a fire routed to the first executor of `pick`, under the fire's own record. */
function runOfPick(fire: FireToDispatch, pick: RoutePick): RunSend {
  return {
    target: pick.picked[0]!,
    routeMessage: pick.message,
    fireId: fire.fireId,
    parentFireId: null,
    shardIndex: 0,
    shardTotal: 1,
  };
}

/**
 * The grid a fire handed over ahead of its time is released on (`releaseAt`): the runs of a few
 * milliseconds go out together, as they did when the wheel handed them over on this grid at
 * their time.
 */
const RELEASE_GRID_MS = 5;
/** The longest a fenced run waits for its time; one due later goes at once (`releaseAt`). */
const MAX_HOLD_MS = 1_000;

const NOT_SENT_MESSAGES = {
  'not-pending': 'the record was marked, finished or skipped meanwhile',
  'not-owner': 'this server node no longer holds the fire’s shard; its holder sends it',
  'fence-failed': 'the send fence could not be asked',
  'transport-down': 'Redis is unreachable; the record stays pending and goes out once Redis answers',
  stale: 'its job or app changed since it was claimed; it is read again and sent as they are now',
} as const;

const REPEAT_NOTE = '\n(the executor had accepted this run before: it runs or ran there once)';

/**
 * Whether an executor's refusal says it took this logId before: Tickwheel's and XXL-JOB's
 * `repeat trigger job, logId:N` (XXL-JOB 2.x spells it `repeate`).
 */
function isRepeatOf(msg: string | null, logId: number): boolean {
  const match = msg === null ? null : /^repeate? trigger job, logId:\s*(\d+)/.exec(msg);
  return match !== null && Number(match[1]) === logId;
}

/** The TriggerParam of one run of the fire. */
function triggerParamOf(
  fire: FireToDispatch,
  logId: number,
  shardIndex: number,
  shardTotal: number,
): TriggerParam {
  const trigger: TriggerParam = {
    jobId: fire.jobId,
    executorHandler: fire.executorHandler,
    executorParams: fire.executorParam,
    executorBlockStrategy: fire.executorBlockStrategy,
    executorTimeout: fire.executorTimeout,
    logId,
    logDateTime: fire.scheduledAt,
    glueType: fire.glueType,
    glueSource: fire.glueSource,
    glueUpdatetime: fire.glueUpdatedAt,
    broadcastIndex: shardIndex,
    broadcastTotal: shardTotal,
  };
  if (fire.workflow !== undefined) trigger.workflow = fire.workflow;
  return trigger;
}

/** `trigger <type>`, the first line of every trigger message: one string a type, not one a fire. */
const TRIGGER_HEADERS = new Map<string, string>();
function triggerHeader(type: TriggerType): string {
  let header = TRIGGER_HEADERS.get(type);
  if (header === undefined) {
    header = `trigger ${type}`;
    TRIGGER_HEADERS.set(type, header);
  }
  return header;
}

/** `run http://a/: code 200` / `run http://a/: code 500, <msg>` / `run http://a/: timeout after 3000 ms`. */
function runLine(target: ExecutorAddress, answer: CallOutcome<unknown>): string {
  const prefix = `run ${target.address}:`;
  if (answer.failure !== null) return `${prefix} ${answer.msg}`;
  return answer.msg ? `${prefix} code ${answer.code}, ${answer.msg}` : `${prefix} code ${answer.code}`;
}

/** The app's addresses in address order (XXL-JOB sorts its registry list); copies only when unsorted. */
/**
 * The shards a SHARDING_BROADCAST fire goes out as over `addresses`: one per candidate executor,
 * shard i to the i-th (by address, or in the override's order), as the dispatch will send them.
 * Empty for a fire that is not a whole broadcast (another route, one shard's retry, a re-send to
 * where it went before) and when no executor is there.
 */
export function broadcastTargets(fire: FireToDispatch, addresses: readonly ExecutorAddress[]): ShardTarget[] {
  if (
    fire.routeStrategy !== 'SHARDING_BROADCAST' ||
    fire.shard !== undefined ||
    fire.resendTo !== undefined
  ) {
    return [];
  }
  const candidates = candidatesOf(fire, addresses);
  return candidates.map((candidate, shardIndex) => ({
    address: candidate.address,
    shardIndex,
    shardTotal: candidates.length,
  }));
}

/** The executors a fire may go to: the override's, in its order, or the app's, sorted by address. */
function candidatesOf(
  fire: FireToDispatch,
  addresses: readonly ExecutorAddress[],
): readonly ExecutorAddress[] {
  const overridden = fire.addressOverride !== undefined && fire.addressOverride.length > 0;
  return overridden ? overrideCandidates(fire, addresses) : sortedByAddress(addresses);
}

function sortedByAddress(addresses: readonly ExecutorAddress[]): readonly ExecutorAddress[] {
  for (let i = 1; i < addresses.length; i++) {
    if (addresses[i - 1]!.address > addresses[i]!.address) {
      return [...addresses].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
    }
  }
  return addresses;
}

/**
 * The override list as executors: an address the app knows online keeps its generation; one it
 * does not (a manual address) is spoken to in G2, which every Tickwheel and pre-3.5 XXL-JOB executor takes.
 */
function overrideCandidates(fire: FireToDispatch, addresses: readonly ExecutorAddress[]): ExecutorAddress[] {
  return (fire.addressOverride ?? []).map(
    (address) =>
      addresses.find((a) => sameAddress(a.address, address)) ?? {
        address,
        protocol: 'G2',
        appName: fire.appName,
      },
  );
}

function sameAddress(a: string, b: string): boolean {
  return a === b || (a.endsWith('/') ? a === `${b}/` : `${a}/` === b);
}
