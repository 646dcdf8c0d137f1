/**
 * The alarm queue: the `AlarmSink` the engine raises failures into. `raise` returns at once;
 * the sending happens here, on the node that raised the alarm, apart from everything else:
 *
 * - one lane per channel, each with its own concurrency limit, so a channel that hangs fills
 *   only its own lane — other channels' alarms, and scheduling, go on;
 * - every send has a timeout (an AbortSignal the channel passes to its socket);
 * - a failed send is tried again after a back-off that doubles, up to `maxAttempts` tries,
 *   waiting on a timer, not in the lane, and only when the error says a retry may help;
 * - once every channel of an alarm has settled, the fire record gets the result:
 *   `alarm_status` SENT (all took it) or FAILED, and `alarm_msg` with each channel's outcome.
 *
 * The queue lives in memory, but an owed alarm (`alarm.owed`: the failure decision recorded it
 * as PENDING on the fire record) is not lost with it: the queue holds it — renewing the record's
 * hold every third of `holdMs` — until it records the outcome, and when its node dies the hold
 * runs out and the owed-alarm sweep of a live node sends it again (monitors/owed-alarms.ts).
 * `stop()` lets the sends in flight and waiting finish within a bound, then aborts the rest and
 * records them as failed.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { toFire } from '../api/fires.js';
import { toJob } from '../api/jobs.js';
import type { Clock, TimerHandle } from '../scheduling/clock.js';
import { NetworkRules } from '../security/network-rules.js';
import type { AlarmChannelRow, Store, WorkflowRow, WorkflowRunRow } from '../store/index.js';
import { type AlarmMessage, buildAlarmMessage, buildWorkflowAlarmMessage } from './alarm-message.js';
import { AlarmSendError, toAlarmSendError } from './alarm-send-error.js';
import type { Alarm, AlarmSink } from './alarm-sink.js';
import { ALARM_STATUS } from './alarm-status.js';
import { CHANNEL_KINDS, type ChannelConfig, isAlarmChannelType } from './channel-registry.js';
import { channelsForJob } from './job-channels.js';
import { type AlarmQueueLimits, type ResolvedAlarmQueueLimits, resolveAlarmQueueLimits } from './options.js';

/** `alarm_msg` is TEXT; a storm of long errors is cut well before that. */
const ALARM_MSG_MAX_CHARS = 4_000;
/** Owed alarms whose hold one statement renews. */
const RENEWALS_PER_STATEMENT = 500;

export interface AlarmQueueOptions {
  store: Pick<Store, 'alarmChannels' | 'apps' | 'fires' | 'owedAlarms'>;
  clock: Clock;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  limits?: AlarmQueueLimits;
  /** Where channels may connect (the server's `allowedNetworks`). Default: the rules' defaults. */
  networkRules?: NetworkRules;
}

/** What one channel did with one alarm. */
export interface DeliveryOutcome {
  channelId: number;
  channelName: string;
  type: string;
  sent: boolean;
  attempts: number;
  error: string | null;
}

/** One alarm on its way: the fire it is about and how its channels did. */
interface AlarmRun {
  fireId: number;
  /** A workflow run's alarm: its outcome goes to the log (the run's alarm status was taken before it was raised). */
  workflowRunId?: number;
  /** Held by this queue until recorded (see `Alarm.owed`). */
  owed: boolean;
  waiting: number;
  outcomes: DeliveryOutcome[];
}

interface Delivery {
  run: AlarmRun;
  channel: AlarmChannelRow;
  config: ChannelConfig;
  message: AlarmMessage;
  deliveryId: string;
  attempts: number;
}

interface Lane {
  active: number;
  waiting: Delivery[];
}

export class AlarmQueue implements AlarmSink {
  private readonly options: AlarmQueueOptions;
  private readonly limits: ResolvedAlarmQueueLimits;
  private readonly networkRules: NetworkRules;
  private readonly lanes = new Map<number, Lane>();
  /** Deliveries waiting out a back-off before their next try, and how to end the wait early. */
  private readonly backingOff = new Map<Delivery, { timer: TimerHandle; end(): void }>();
  /** Everything under way (preparing an alarm, a send, writing a result): what `idle()` waits for. */
  private readonly underWay = new Set<Promise<unknown>>();
  private readonly aborter = new AbortController();
  private stopping = false;
  /** Owed alarms this queue holds, by fire id (an alarm sent again while the first is still here counts twice). */
  private readonly held = new Map<number, number>();
  private renewTimer: TimerHandle | undefined;

  constructor(options: AlarmQueueOptions) {
    this.options = options;
    this.limits = resolveAlarmQueueLimits(options.limits);
    this.networkRules = options.networkRules ?? new NetworkRules();
  }

  /** Takes the alarm and returns at once; sending and recording happen in the background. */
  raise(alarm: Alarm): void {
    const owed = alarm.owed === true;
    if (this.stopping) {
      this.options.logger.warn(
        { fireId: alarm.fire.id },
        owed
          ? 'alarm raised while the server stops; left owed, another node (or the next start) sends it'
          : 'alarm raised while the server stops; not sent',
      );
      return;
    }
    if (owed) this.hold(alarm.fire.id);
    // Even reading the job's channels waits for the next microtask: the caller goes on at once.
    this.track(
      Promise.resolve()
        .then(() => this.enqueue(alarm))
        .catch((err: unknown) => {
          // Let go of it: an owed alarm is sent again by the sweep once its hold runs out.
          if (owed) this.release(alarm.fire.id);
          this.options.logger.error(
            { err, fireId: alarm.fire.id },
            owed
              ? 'preparing an alarm failed; the owed-alarm sweep sends it later'
              : 'preparing an alarm failed; it is not sent',
          );
        }),
    );
  }

  /**
   * Sends the alarm of a failed workflow run through the workflow's channels (its alarm channels
   * and e-mail addresses, as a job's). Returns at once, like `raise`. The engine raises it once
   * per run (a compare-and-set of the run's alarm status), so nothing is held here.
   */
  raiseWorkflowRun(workflow: WorkflowRow, run: WorkflowRunRow, reason: string): void {
    if (this.stopping) {
      this.options.logger.warn(
        { workflowRunId: run.id },
        'workflow alarm raised while the server stops; not sent',
      );
      return;
    }
    this.track(
      Promise.resolve()
        .then(async () => {
          const channels = await channelsForJob(this.options.store.alarmChannels, workflow);
          this.options.logger.warn(
            {
              workflowId: workflow.id,
              workflowRunId: run.id,
              channels: channels.map((channel) => channel.name),
            },
            `alarm: ${reason}`,
          );
          if (channels.length === 0) return;
          const message = buildWorkflowAlarmMessage({
            workflow,
            run,
            reason,
            app: await this.options.store.apps.findAppById(workflow.app_id),
            raisedAt: this.options.clock.now(),
          });
          const alarmRun: AlarmRun = {
            fireId: 0,
            workflowRunId: run.id,
            owed: false,
            waiting: channels.length,
            outcomes: [],
          };
          for (const channel of channels) {
            const config = parseStoredConfig(channel);
            const delivery: Delivery = {
              run: alarmRun,
              channel,
              config: config ?? {},
              message,
              deliveryId: randomUUID(),
              attempts: 0,
            };
            if (config === undefined) this.settle(delivery, 'the stored config is not valid JSON');
            else this.push(delivery);
          }
        })
        .catch((err: unknown) => {
          this.options.logger.error(
            { err, workflowRunId: run.id },
            'preparing a workflow alarm failed; it is not sent',
          );
        }),
    );
  }

  /** Resolves once nothing is queued, sending, backing off or being recorded. */
  async idle(): Promise<void> {
    while (this.underWay.size > 0) await Promise.allSettled([...this.underWay]);
  }

  /**
   * Takes no more alarms and no more retries (a delivery backing off is recorded as failed), lets
   * what is queued and in flight finish for up to `timeoutMs`, then aborts the rest. Resolves
   * once every result is written, so the store may close after it.
   */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    for (const [delivery, wait] of this.backingOff) {
      this.options.clock.clearTimer(wait.timer);
      this.backingOff.delete(delivery);
      wait.end();
      this.settle(delivery, `not retried: the server stopped (after ${tries(delivery.attempts)})`);
    }
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([this.idle(), deadline]);
    clearTimeout(timer);
    this.aborter.abort(new AlarmSendError('the server stopped', { retryable: false }));
    for (const lane of this.lanes.values()) {
      for (const delivery of lane.waiting.splice(0)) this.settle(delivery, 'not sent: the server stopped');
    }
    await this.idle();
    if (this.renewTimer !== undefined) this.options.clock.clearTimer(this.renewTimer);
    this.renewTimer = undefined;
  }

  private async enqueue(alarm: Alarm): Promise<void> {
    const { store, clock } = this.options;
    const channels = await channelsForJob(store.alarmChannels, alarm.job);
    // Every alarm reaches the log too, so a node with no channel configured still shows them.
    this.options.logger.warn(
      { jobId: alarm.job.id, fireId: alarm.fire.id, channels: channels.map((channel) => channel.name) },
      `alarm: ${alarm.reason}`,
    );
    if (channels.length === 0) {
      // Owed: the job names channels (or e-mail addresses), but none is enabled. Settle it as
      // not alarmed, saying why, so no node sends it again.
      if (alarm.owed === true) this.track(this.recordUnsent(alarm));
      return;
    }
    const message = buildAlarmMessage({
      ...alarm,
      app: await store.apps.findAppById(alarm.job.app_id),
      raisedAt: clock.now(),
      jobResource: toJob(alarm.job),
      fireResource: toFire(alarm.fire),
    });
    const run: AlarmRun = {
      fireId: alarm.fire.id,
      owed: alarm.owed === true,
      waiting: channels.length,
      outcomes: [],
    };
    for (const channel of channels) {
      const delivery: Delivery = {
        run,
        channel,
        config: {},
        message,
        deliveryId: randomUUID(),
        attempts: 0,
      };
      const config = parseStoredConfig(channel);
      if (config === undefined) {
        this.settle(delivery, 'the stored config is not valid JSON');
        continue;
      }
      delivery.config = config;
      this.push(delivery);
    }
  }

  private push(delivery: Delivery): void {
    const lane = this.laneOf(delivery.channel.id);
    if (lane.waiting.length >= this.limits.maxWaitingPerChannel) {
      this.settle(delivery, `not sent: ${lane.waiting.length} alarms were already waiting for this channel`);
      return;
    }
    lane.waiting.push(delivery);
    this.pump(lane);
  }

  private laneOf(channelId: number): Lane {
    let lane = this.lanes.get(channelId);
    if (lane === undefined) {
      lane = { active: 0, waiting: [] };
      this.lanes.set(channelId, lane);
    }
    return lane;
  }

  private pump(lane: Lane): void {
    while (lane.active < this.limits.concurrencyPerChannel && lane.waiting.length > 0) {
      const delivery = lane.waiting.shift()!;
      lane.active += 1;
      this.track(
        this.attempt(delivery).finally(() => {
          lane.active -= 1;
          this.pump(lane);
        }),
      );
    }
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const { channel } = delivery;
    delivery.attempts += 1;
    if (!isAlarmChannelType(channel.type)) {
      this.settle(delivery, `unknown channel type ${channel.type}`);
      return;
    }
    const signal = AbortSignal.any([AbortSignal.timeout(this.limits.sendTimeoutMs), this.aborter.signal]);
    try {
      await CHANNEL_KINDS[channel.type].send(delivery.message, delivery.config, {
        signal,
        now: () => this.options.clock.now(),
        deliveryId: delivery.deliveryId,
        networkRules: this.networkRules,
      });
      this.settle(delivery, null);
    } catch (err) {
      this.failed(
        delivery,
        this.aborter.signal.aborted ? stoppedError(err) : sendError(err, signal, this.limits),
      );
    }
  }

  private failed(delivery: Delivery, error: AlarmSendError): void {
    const { attempts, channel } = delivery;
    const retry = error.retryable && attempts < this.limits.maxAttempts && !this.stopping;
    this.options.logger.warn(
      { channel: channel.name, fireId: delivery.run.fireId, attempts, err: error.message, retry },
      'alarm channel did not take the alarm',
    );
    if (!retry) {
      this.settle(delivery, attempts > 1 ? `${error.message} (after ${tries(attempts)})` : error.message);
      return;
    }
    const delayMs = Math.min(this.limits.retryDelayMs * 2 ** (attempts - 1), this.limits.maxRetryDelayMs);
    // The wait is tracked like a send, so idle() and stop() see a delivery between two tries.
    this.track(
      new Promise<void>((end) => {
        const timer = this.options.clock.setTimer(() => {
          this.backingOff.delete(delivery);
          end();
          this.push(delivery);
        }, delayMs);
        this.backingOff.set(delivery, { timer, end });
      }),
    );
  }

  /** Records one channel's outcome (`error` null: sent); the last one writes the fire's result. */
  private settle(delivery: Delivery, error: string | null): void {
    const { run, channel } = delivery;
    run.outcomes.push({
      channelId: channel.id,
      channelName: channel.name,
      type: channel.type,
      sent: error === null,
      attempts: delivery.attempts,
      error,
    });
    run.waiting -= 1;
    if (run.waiting > 0) return;
    this.track(this.record(run));
  }

  private async record(run: AlarmRun): Promise<void> {
    const sent = run.outcomes.every((outcome) => outcome.sent);
    if (run.workflowRunId !== undefined) {
      this.options.logger.info(
        { workflowRunId: run.workflowRunId, sent, outcome: describeOutcomes(run.outcomes) },
        'workflow run alarm sent',
      );
      return;
    }
    try {
      await this.options.store.fires.recordAlarmResult(
        run.fireId,
        sent ? ALARM_STATUS.SENT : ALARM_STATUS.FAILED,
        describeOutcomes(run.outcomes),
      );
    } catch (err) {
      this.options.logger.error({ err, fireId: run.fireId }, 'recording the alarm result failed');
    } finally {
      if (run.owed) this.release(run.fireId);
    }
  }

  /** An owed alarm of a job none of whose channels is enabled: recorded as not alarmed. */
  private async recordUnsent(alarm: Alarm): Promise<void> {
    const fireId = alarm.fire.id;
    try {
      await this.options.store.fires.recordAlarmResult(
        fireId,
        ALARM_STATUS.NONE,
        'not sent: none of the job’s alarm channels is enabled (the alarm went to the log only)',
      );
    } catch (err) {
      this.options.logger.error({ err, fireId }, 'recording the alarm result failed');
    } finally {
      this.release(fireId);
    }
  }

  private hold(fireId: number): void {
    this.held.set(fireId, (this.held.get(fireId) ?? 0) + 1);
    this.scheduleRenewal();
  }

  private release(fireId: number): void {
    const count = this.held.get(fireId) ?? 0;
    if (count <= 1) this.held.delete(fireId);
    else this.held.set(fireId, count - 1);
  }

  /** While the queue holds owed alarms, their holds are renewed every third of `holdMs`. */
  private scheduleRenewal(): void {
    if (this.renewTimer !== undefined || this.held.size === 0) return;
    this.renewTimer = this.options.clock.setTimer(
      () => {
        this.renewTimer = undefined;
        this.track(this.renewHolds().finally(() => this.scheduleRenewal()));
      },
      Math.max(1, Math.floor(this.limits.holdMs / 3)),
    );
  }

  private async renewHolds(): Promise<void> {
    const ids = [...this.held.keys()];
    const heldUntil = this.options.clock.now() + this.limits.holdMs;
    try {
      for (let i = 0; i < ids.length; i += RENEWALS_PER_STATEMENT) {
        await this.options.store.owedAlarms.renewAlarmHolds(
          ids.slice(i, i + RENEWALS_PER_STATEMENT),
          heldUntil,
        );
      }
    } catch (err) {
      this.options.logger.error(
        { err, count: ids.length },
        'renewing the holds of queued alarms failed; another node may send them again once they run out',
      );
    }
  }

  private track(promise: Promise<unknown>): void {
    this.underWay.add(promise);
    void promise.finally(() => this.underWay.delete(promise));
  }
}

/** `EMAIL ops-mail: sent; DINGTALK dev: DingTalk refused the message: …`, capped. */
export function describeOutcomes(outcomes: readonly DeliveryOutcome[]): string {
  const text = [...outcomes]
    .sort((a, b) => a.channelId - b.channelId)
    .map((o) => `${o.type} ${o.channelName}: ${o.sent ? 'sent' : o.error}`)
    .join('; ');
  return text.length <= ALARM_MSG_MAX_CHARS ? text : `${text.slice(0, ALARM_MSG_MAX_CHARS)}…`;
}

function tries(count: number): string {
  return count === 1 ? '1 try' : `${count} tries`;
}

function parseStoredConfig(channel: AlarmChannelRow): ChannelConfig | undefined {
  try {
    const config: unknown = JSON.parse(channel.config);
    return typeof config === 'object' && config !== null ? (config as ChannelConfig) : undefined;
  } catch {
    return undefined;
  }
}

/** A send cut by the queue's timeout says so, whatever the channel's client made of the abort. */
function sendError(err: unknown, signal: AbortSignal, limits: ResolvedAlarmQueueLimits): AlarmSendError {
  if (!signal.aborted) return toAlarmSendError(err);
  return new AlarmSendError(`no answer within ${limits.sendTimeoutMs} ms`, { retryable: true, cause: err });
}

function stoppedError(err: unknown): AlarmSendError {
  return new AlarmSendError('not sent: the server stopped while it was sending', {
    retryable: false,
    cause: err,
  });
}
