/**
 * The server's side of the `redis` transport (protocol redis-transport.ts): the calls to
 * executors at `stream://<instance>/` addresses, written to that instance's Redis streams.
 *
 * - `run`: one `XADD tickwheel:run:<instance> MAXLEN ~ RUN_STREAM_MAX_LEN * logId <id> body
 *   <TriggerParam>` and an `EXPIRE` (auto-pipelined with every other command of the turn). Once
 *   Redis took it the run is queued: the answer is `{code: 200, msg: 'queued on Redis stream …'}`
 *   at once, and what the executor does with it comes back as its result. No `runBatch`: runs go
 *   one by one, which auto-pipelining makes as cheap.
 * - `beat`, `idleBeat`, `kill`, `log`: a PullCallFrame (id unique on this node, `replyTo` this
 *   node's channel) in `tickwheel:call:<instance>`, answered by the executor's PullAnswerFrame
 *   published to `tickwheel:reply:<node id>`, which a second connection subscribes to.
 *
 * `call()` never throws: an answer frame, or a failure — `connection` when Redis did not take the
 * command (it is unreachable: no offline queue, so nothing waits in the client for it to come
 * back; or it did not answer within the call timeout), with Redis' error in the message;
 * `timeout` when a call's answer did not come in time. The dispatcher keeps a run that failed as
 * `connection` pending (nothing was sent), to be sent once Redis answers again.
 */
import {
  CALL_STREAM_MAX_LEN,
  callStreamKey,
  type PullCall,
  parsePullFrame,
  RUN_STREAM_MAX_LEN,
  replyChannel,
  runStreamKey,
  STREAM_TTL_SECONDS,
  streamInstanceOf,
} from '@tickwheel/protocol';
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { CallDeadlines } from './call-deadlines.js';
import type { PullCallResult, PullTransport } from './pull-connections.js';

export interface RedisStreamsOptions {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://`). */
  url: string;
  /** This node's id: the connections' name and the channel answers come back on. */
  nodeId: string;
  /** The executor call timeout: a Redis command that takes longer fails (Redis is away). */
  callTimeoutMs: number;
  logger: Pick<Logger, 'info' | 'warn' | 'debug'>;
}

/** A call waiting for its answer on the reply channel. */
interface WaitingCall {
  instance: string;
  settle: (result: PullCallResult) => void;
}

/** Longest pause between two reconnect attempts. */
const RECONNECT_MAX_MS = 2_000;
/** A command is sent again at most this often after its connection broke, then fails. */
const MAX_RETRIES_PER_REQUEST = 1;

export class RedisStreams implements PullTransport {
  private readonly commands: Redis;
  private readonly subscriber: Redis;
  private readonly channel: string;
  private readonly waiting = new Map<number, WaitingCall>();
  /** Per call timeout, the deadlines (one timer each; calls of one timeout expire in order). */
  private readonly deadlines = new Map<number, CallDeadlines>();
  /** Connections that are not ready now: while any is, Redis counts as down (logged once). */
  private readonly down = new Set<string>();
  private outageLogged = false;
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: RedisStreamsOptions) {
    this.channel = replyChannel(options.nodeId);
    const common: RedisOptions = {
      connectionName: `tickwheel-server:${options.nodeId}`,
      // Connects in start(), so a Redis that is down at construction logs nothing yet.
      lazyConnect: true,
      retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 10), RECONNECT_MAX_MS),
    };
    this.commands = new Redis(options.url, {
      ...common,
      enableAutoPipelining: true,
      // A command while Redis is away fails at once instead of waiting in the client: a run
      // then stays pending in the database, not in this process' memory.
      enableOfflineQueue: false,
      maxRetriesPerRequest: MAX_RETRIES_PER_REQUEST,
      commandTimeout: options.callTimeoutMs,
    });
    // The subscription waits for Redis (and is made again after every reconnect).
    this.subscriber = new Redis(options.url, { ...common, maxRetriesPerRequest: null });
    this.watch(this.commands, 'commands');
    this.watch(this.subscriber, 'subscriber');
    this.subscriber.on('message', (channel: string, message: string) => this.onAnswer(channel, message));
  }

  /**
   * Connects both connections and subscribes to this node's reply channel. Never fails: a Redis
   * that is down now is logged, and the connections keep trying.
   */
  start(): void {
    this.down.add('commands');
    this.down.add('subscriber');
    this.commands.connect().catch(() => undefined);
    this.subscriber.connect().catch(() => undefined);
    this.subscriber.subscribe(this.channel).catch((err: Error) => {
      if (!this.closed) this.options.logger.warn({ err }, 'could not subscribe to the Redis reply channel');
    });
  }

  /** Whether both connections are up (else a call fails as `connection`). */
  get available(): boolean {
    return this.down.size === 0 && !this.closed;
  }

  call(address: string, call: PullCall, body: string, timeoutMs: number): Promise<PullCallResult> {
    const instance = streamInstanceOf(address);
    if (instance === undefined) {
      return Promise.resolve(failure('connection', `${JSON.stringify(address)} is not a stream address`));
    }
    if (this.closed) return Promise.resolve(failure('connection', 'server stopping'));
    if (call === 'run') return this.run(instance, body);
    if (call === 'runBatch') {
      return Promise.resolve(failure('connection', 'runBatch is not sent to stream executors'));
    }
    return this.callOverStream(instance, call, body, timeoutMs);
  }

  /** Closes both connections; calls waiting for answers fail as `connection`. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const call of [...this.waiting.values()]) {
      call.settle(failure('connection', 'server stopping'));
    }
    for (const deadlines of this.deadlines.values()) deadlines.stop();
    await Promise.all([quit(this.commands), quit(this.subscriber)]);
  }

  private async run(instance: string, body: string): Promise<PullCallResult> {
    const key = runStreamKey(instance);
    const logId = logIdOf(body);
    try {
      await Promise.all([
        this.commands.xadd(key, 'MAXLEN', '~', RUN_STREAM_MAX_LEN, '*', 'logId', logId, 'body', body),
        this.commands.expire(key, STREAM_TTL_SECONDS),
      ]);
    } catch (err) {
      return failure('connection', redisMessage(err));
    }
    return {
      ok: true,
      frame: { t: 'answer', id: 0, answer: { code: 200, msg: `queued on Redis stream ${key}` } },
    };
  }

  private callOverStream(
    instance: string,
    call: PullCall,
    body: string,
    timeoutMs: number,
  ): Promise<PullCallResult> {
    const id = ++this.nextId;
    const key = callStreamKey(instance);
    const frame = `{"t":"call","id":${id},"call":"${call}","body":${body},"replyTo":${JSON.stringify(this.channel)}}`;
    return new Promise<PullCallResult>((resolve) => {
      const deadline = this.deadlinesOf(timeoutMs).start();
      const settle = (result: PullCallResult) => {
        if (!this.waiting.delete(id)) return;
        deadline.settle();
        resolve(result);
      };
      this.waiting.set(id, { instance, settle });
      deadline.on('abort', () => settle(failure('timeout', `timeout after ${timeoutMs} ms`)));
      Promise.all([
        this.commands.xadd(key, 'MAXLEN', '~', CALL_STREAM_MAX_LEN, '*', 'frame', frame),
        this.commands.expire(key, STREAM_TTL_SECONDS),
      ]).catch((err: unknown) => settle(failure('connection', redisMessage(err))));
    });
  }

  private onAnswer(channel: string, message: string): void {
    if (channel !== this.channel) return;
    const frame = parsePullFrame(message);
    if (frame === undefined || frame.t !== 'answer') {
      this.options.logger.debug({ channel }, 'a message on the Redis reply channel is no answer; ignored');
      return;
    }
    const call = this.waiting.get(frame.id);
    if (call === undefined) return;
    if (frame.instance !== undefined && frame.instance !== call.instance) {
      this.options.logger.debug(
        { id: frame.id, expected: call.instance, instance: frame.instance },
        'an answer on the Redis reply channel names another instance; ignored',
      );
      return;
    }
    call.settle({ ok: true, frame });
  }

  private deadlinesOf(timeoutMs: number): CallDeadlines {
    let deadlines = this.deadlines.get(timeoutMs);
    if (deadlines === undefined) {
      deadlines = new CallDeadlines(timeoutMs);
      this.deadlines.set(timeoutMs, deadlines);
    }
    return deadlines;
  }

  /** Tracks whether the connection is up, and logs an outage once, and its end. */
  private watch(redis: Redis, name: string): void {
    redis.on('ready', () => {
      this.down.delete(name);
      if (this.down.size === 0 && this.outageLogged) {
        this.outageLogged = false;
        this.options.logger.info('Redis answers again; runs to stream executors are sent');
      }
    });
    redis.on('error', (err: Error) => {
      this.down.add(name);
      if (this.outageLogged || this.closed) return;
      this.outageLogged = true;
      this.options.logger.warn(
        { err: redisMessage(err) },
        'Redis is unreachable; runs to stream executors stay pending until it answers (trying again)',
      );
    });
    redis.on('close', () => {
      if (!this.closed) this.down.add(name);
    });
  }
}

function failure(kind: 'timeout' | 'connection', msg: string): PullCallResult {
  return { ok: false, failure: kind, msg };
}

/**
 * The `logId` of a TriggerParam's JSON text. A `"logId":` with unescaped quotes can only be a
 * key (inside a JSON string every quote is escaped), and a TriggerParam has no nested objects.
 */
function logIdOf(body: string): string {
  const match = /"logId":(-?\d+)/.exec(body);
  if (match !== null) return match[1] as string;
  try {
    return String((JSON.parse(body) as { logId?: unknown }).logId ?? '');
  } catch {
    return '';
  }
}

function redisMessage(err: unknown): string {
  const message = (err as { message?: unknown })?.message;
  return `Redis: ${typeof message === 'string' ? message : String(err)}`;
}

/** Closes a connection: QUIT when it is up, else disconnects (no waiting for a Redis that is away). */
async function quit(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    try {
      await Promise.race([redis.quit(), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
    } catch {
      // Closed meanwhile.
    }
  }
  redis.disconnect();
}
