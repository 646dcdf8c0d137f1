/**
 * The executor's side of the `redis` transport (`@tickwheel/protocol`'s redis-transport.ts holds
 * the contract): it reads its run stream and its call stream through the consumer group, hands
 * each run to the lanes and each call to the same answerer as the HTTP endpoint, publishes call
 * answers on the channel the call names, and acknowledges every entry once it is dealt with.
 *
 * A run read from a stream has no caller waiting for a refusal: a refused run (DISCARD_LATER, an
 * unknown handler) is reported as a failed result instead, so its record fails at once with the
 * reason. A repeat of a logId already taken is only acknowledged: the accepted-logId journal
 * keeps a run at most once, and the first run's result stands.
 *
 * Two connections: the reader blocks in `XREADGROUP`, so acknowledgements, answers and group
 * creation go over the other one and are never queued behind a read.
 */
import {
  callStreamKey,
  type HandleCallbackParam,
  MAX_RUN_BATCH,
  type PullAnswerFrame,
  type PullCallFrame,
  parsePullFrame,
  parseTriggerParam,
  RUN_GROUP,
  returnFail,
  runStreamKey,
  STREAM_TTL_SECONDS,
  type TriggerParam,
  WireMessages,
} from '@tickwheel/protocol';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { CallAnswerer } from './calls.js';

export interface RedisStreamReaderOptions {
  /** The Redis URL (`redis://host:6379`); validated by the options. */
  url: string;
  /** The executor's instance id: its streams' names, its consumer name, its connections' name. */
  instance: string;
  answerCall: CallAnswerer;
  /** Sends a run refused on arrival back as a failed result (there is no caller to refuse). */
  reportRefusal(result: HandleCallbackParam): void;
  /** Time `open()` waits for Redis before the start is given up. */
  connectTimeoutMs: number;
  logger: Logger;
}

/** Entries asked for in one read. */
const READ_COUNT = 200;
/** How long one read waits for entries; also the longest a stop waits for the read under way. */
const READ_BLOCK_MS = 1_000;
/**
 * Entries read and not yet answered at most: past it reading pauses, so a slow disk (acceptances
 * wait for the logId journal) cannot pile up unbounded work. Far above what answers in time.
 */
const MAX_IN_FLIGHT = 2_000;
/** Back-off after a read that failed for something else than the connection (ioredis handles that). */
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;
/** How long `stop()` gives the last acknowledgements to leave before the connection is cut. */
const QUIT_GRACE_MS = 1_000;

/** Read an entry from the stream's beginning: this consumer's pending entries (delivered, not acknowledged). */
const PENDING_FROM_START = '0';
/** Read entries never delivered to the group. */
const NEW_ENTRIES = '>';

/** The announcements of every answer, the HTTP endpoint's `Tickwheel-Run-Batch` and `Tickwheel-Kill`. */
const ANNOUNCEMENTS = { runBatch: MAX_RUN_BATCH, killByLogId: true } as const;

type StreamEntry = [id: string, fields: string[] | null];
type ReadReply = Array<[key: string, entries: StreamEntry[]]> | null;

/**
 * @example
 * const reader = new RedisStreamReader({ url: 'redis://127.0.0.1:6379', instance, answerCall,
 *   reportRefusal: (result) => relay.push(result), connectTimeoutMs: 3_000, logger });
 * await reader.open(); // the consumer groups exist: the server may be told the address
 * reader.start();
 * await reader.stopReadingRuns();
 * await reader.stop();
 */
export class RedisStreamReader {
  private readonly options: RedisStreamReaderOptions;
  private readonly runKey: string;
  private readonly callKey: string;
  private readonly reader: Redis;
  private readonly writer: Redis;
  /**
   * Where each stream is read from next: `>` for new entries, or after a connection was lost an
   * id, starting at `0`, walking this consumer's pending entries (the reply of a read cut off by
   * the loss delivered entries nobody saw; `>` never gives them again).
   */
  private readonly cursors = new Map<string, string>();
  /** `<key> <entry id>` of the entries being answered, not yet acknowledged. */
  private readonly inFlight = new Set<string>();
  private readonly answers = new Set<Promise<void>>();
  private loop: Promise<void> | undefined;
  /** The read under way and the handing-out of what it brought. */
  private iteration: Promise<void> | undefined;
  /** The reader connection's CLIENT ID while connected, to unblock its read at stop. */
  private readerClientId: number | undefined;
  private readingRuns = true;
  private stopped = false;
  private needGroups = false;
  /** Set while Redis is unreachable: an outage is logged once, and its end once. */
  private downSince: number | undefined;
  private lastConnectionError: string | undefined;
  private lastLoopError: string | undefined;

  constructor(options: RedisStreamReaderOptions) {
    this.options = options;
    this.runKey = runStreamKey(options.instance);
    this.callKey = callStreamKey(options.instance);
    this.resetCursors();
    const common = {
      connectionName: `tickwheel-executor:${options.instance}`,
      lazyConnect: true,
      // A command waits through an outage instead of failing after 20 retries: the loop resumes
      // where it was when Redis answers again, and acknowledgements are not lost.
      maxRetriesPerRequest: null,
    };
    this.reader = new Redis(options.url, common);
    this.writer = new Redis(options.url, common);
    this.reader.on('error', (err: Error) => {
      this.lastConnectionError = err.message;
      this.noteDown(err.message);
    });
    this.reader.on('close', () => {
      this.readerClientId = undefined;
      this.resetCursors();
      if (!this.stopped) this.noteDown(this.lastConnectionError ?? 'connection closed');
    });
    this.reader.on('ready', () => this.noteBack());
    this.writer.on('error', (err: Error) => {
      this.lastConnectionError = err.message;
      options.logger.debug({ err }, 'redis connection for answers: error');
    });
  }

  /**
   * Connects and creates the consumer groups of both streams (from their beginning, the streams
   * made when missing), so that no run written once the servers know the address is missed.
   * Rejects when Redis does not answer within `connectTimeoutMs`, closing the connections.
   */
  async open(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const reason = this.lastConnectionError ?? `no answer in ${this.options.connectTimeoutMs} ms`;
        reject(new Error(`cannot reach Redis at ${redactedUrl(this.options.url)}: ${reason}`));
      }, this.options.connectTimeoutMs);
    });
    try {
      await Promise.race([this.createGroups(), timedOut]);
    } catch (err) {
      this.stopped = true;
      this.reader.disconnect();
      this.writer.disconnect();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Starts reading; entries are handed out as they come until `stop()`. */
  start(): void {
    this.loop ??= this.readLoop();
  }

  /**
   * Reads no more runs (calls are still read and answered: a kill during the drain must reach
   * its run). Resolves once the read under way is handed out and its runs are answered.
   */
  async stopReadingRuns(): Promise<void> {
    this.readingRuns = false;
    await this.unblockRead();
    await Promise.all([...this.answers]);
  }

  /** Stops reading, waits for the answers under way, then closes both connections. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.readingRuns = false;
    // Only calls are read by now: a call whose reply is cut off here is timed out by its server.
    this.reader.disconnect();
    await this.loop;
    await Promise.all([...this.answers]);
    await quitWithin(this.writer, QUIT_GRACE_MS);
  }

  private async readLoop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      this.iteration = this.readOnce();
      try {
        await this.iteration;
        failures = 0;
        this.lastLoopError = undefined;
      } catch (err) {
        if (this.stopped) break;
        failures += 1;
        this.noteLoopError(err);
        await sleep(Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** (failures - 1)));
      }
    }
  }

  /** One read, its entries handed to the answerer; their answers go on without it. */
  private async readOnce(): Promise<void> {
    await this.waitForRoom();
    if (this.needGroups) {
      await this.createGroups();
      this.needGroups = false;
    }
    const keys = this.readingRuns ? [this.runKey, this.callKey] : [this.callKey];
    const ids = keys.map((key) => this.cursors.get(key)!);
    this.readerClientId ??= await this.reader.client('ID');
    const reply = (await this.reader.call(
      'XREADGROUP',
      'GROUP',
      RUN_GROUP,
      this.options.instance,
      'COUNT',
      READ_COUNT,
      'BLOCK',
      READ_BLOCK_MS,
      'STREAMS',
      ...keys,
      ...ids,
    )) as ReadReply;
    this.handOut(keys, ids, reply);
  }

  private handOut(keys: readonly string[], ids: readonly string[], reply: ReadReply): void {
    const entriesOf = new Map(reply ?? []);
    for (const [i, key] of keys.entries()) {
      const entries = entriesOf.get(key) ?? [];
      // A walk through the pending entries goes on after the last one seen, and ends when none is left.
      if (ids[i] !== NEW_ENTRIES) this.cursors.set(key, entries.at(-1)?.[0] ?? NEW_ENTRIES);
      for (const [id, fields] of entries) {
        if (this.inFlight.has(`${key} ${id}`)) continue;
        if (fields === null) {
          // Delivered, then trimmed away (MAXLEN) before it was acknowledged: nothing to answer.
          void this.acknowledge(key, id);
        } else if (key === this.runKey) {
          this.takeRun(id, fieldsOf(fields));
        } else {
          this.takeCall(id, fieldsOf(fields));
        }
      }
    }
  }

  /**
   * Hands a run to the lanes as a `run` call would, and acknowledges it once accepted or refused.
   * The decision is taken now, in stream order; only the acceptance's disk write is waited for.
   */
  private takeRun(id: string, fields: Record<string, string>): void {
    let trigger: TriggerParam;
    try {
      trigger = parseTriggerParam(parseBody(fields.body));
    } catch (err) {
      this.refuseUnreadable(id, fields, (err as Error).message);
      return;
    }
    const answered = this.options
      .answerCall('run', () => trigger)
      .then((answer) => {
        if (answer.code === 200 || answer.msg === WireMessages.repeatTrigger(trigger.logId)) return;
        const reason = answer.msg ?? 'run refused';
        this.options.logger.info(
          { logId: trigger.logId, reason },
          'run from Redis refused; reported as failed',
        );
        this.options.reportRefusal({
          logId: trigger.logId,
          logDateTim: trigger.logDateTime,
          handleCode: 500,
          handleMsg: reason,
        });
      });
    this.track(this.runKey, id, answered);
  }

  /** A run entry that is no run: acknowledged, logged, and failed when its logId can be read. */
  private refuseUnreadable(id: string, fields: Record<string, string>, reason: string): void {
    const logId = logIdOf(fields);
    this.options.logger.warn(
      { entryId: id, logId, reason },
      logId === undefined
        ? 'run entry unreadable and without a logId; acknowledged'
        : 'run entry unreadable; acknowledged and reported as failed',
    );
    if (logId !== undefined) {
      this.options.reportRefusal({
        logId,
        logDateTim: logDateTimeOf(fields) ?? Date.now(),
        handleCode: 500,
        handleMsg: `run entry unreadable: ${reason}`,
      });
    }
    void this.acknowledge(this.runKey, id);
  }

  /** Answers a call as the HTTP endpoint would, on the channel it names; calls do not wait for each other. */
  private takeCall(id: string, fields: Record<string, string>): void {
    const call = readCallFrame(fields.frame);
    if (call === undefined) {
      this.options.logger.warn(
        { entryId: id, frame: fields.frame?.slice(0, 200) },
        'call entry ignored (not a call frame with replyTo); acknowledged',
      );
      void this.acknowledge(this.callKey, id);
      return;
    }
    const answered =
      'unknown' in call
        ? // As the HTTP endpoint answers a path it does not serve, so the server's call does not hang.
          Promise.resolve(returnFail(WireMessages.uriNotFound(`/${call.unknown}`)))
        : this.options.answerCall(call.frame.call, () => call.frame.body);
    // Published before the acknowledgement is sent, over the same connection: in that order.
    this.track(
      this.callKey,
      id,
      answered.then((answer) => void this.publish(call.replyTo, call.id, answer)),
    );
  }

  private async publish(channel: string, id: number, answer: unknown): Promise<void> {
    const frame: PullAnswerFrame = {
      t: 'answer',
      id,
      answer,
      ...ANNOUNCEMENTS,
      instance: this.options.instance,
    };
    try {
      await this.writer.publish(channel, JSON.stringify(frame));
    } catch (err) {
      this.options.logger.debug({ err, id, channel }, 'call answer not published');
    }
  }

  /** Acknowledges an entry; one not acknowledged is read again after a reconnect, and met as a repeat. */
  private acknowledge(key: string, id: string): Promise<void> {
    return this.writer.xack(key, RUN_GROUP, id).then(
      () => undefined,
      (err: unknown) => {
        this.options.logger.debug({ err, key, id }, 'XACK failed; the entry is read again as pending');
      },
    );
  }

  /**
   * Acknowledges the entry once answered. It counts as in flight until acknowledged, so a walk
   * through the pending entries does not answer it twice; `stop()` waits for the answers only
   * (an acknowledgement waits for Redis, which may be away).
   */
  private track(key: string, id: string, answered: Promise<void>): void {
    const entry = `${key} ${id}`;
    this.inFlight.add(entry);
    const done: Promise<void> = answered.catch((err: unknown) =>
      this.options.logger.error({ err, key, id }, 'answering an entry failed'),
    );
    this.answers.add(done);
    void done
      .then(() => {
        this.answers.delete(done);
        return this.acknowledge(key, id);
      })
      .finally(() => this.inFlight.delete(entry));
  }

  private async waitForRoom(): Promise<void> {
    while (this.inFlight.size >= MAX_IN_FLIGHT && !this.stopped) await sleep(10);
  }

  /** Both groups, from the beginning of their streams, which expire a day after it as the server's writes do. */
  private async createGroups(): Promise<void> {
    for (const key of [this.runKey, this.callKey]) {
      try {
        await this.writer.xgroup('CREATE', key, RUN_GROUP, PENDING_FROM_START, 'MKSTREAM');
      } catch (err) {
        if (!(err as Error).message.startsWith('BUSYGROUP')) throw err;
      }
      // The streams of an instance that never got a run would otherwise stay forever; a stream
      // that expires under a living executor is made again at its next read (NOGROUP).
      await this.writer.expire(key, STREAM_TTL_SECONDS);
    }
  }

  /** Ends the read under way now (CLIENT UNBLOCK answers it as a timeout) and waits for its entries to be handed out. */
  private async unblockRead(): Promise<void> {
    const iteration = this.iteration;
    if (iteration === undefined) return;
    if (this.readerClientId !== undefined && this.reader.status === 'ready') {
      // Not awaited: with the other connection away it would wait as long; the race below bounds it.
      this.writer.client('UNBLOCK', this.readerClientId).catch(() => undefined);
    }
    // Bounded: with Redis away the read waits for its return.
    await Promise.race([iteration.catch(() => undefined), sleep(READ_BLOCK_MS + 500)]);
  }

  private resetCursors(): void {
    this.cursors.set(this.runKey, PENDING_FROM_START);
    this.cursors.set(this.callKey, PENDING_FROM_START);
  }

  private noteDown(reason: string): void {
    if (this.downSince !== undefined || this.stopped) return;
    this.downSince = Date.now();
    this.options.logger.warn(
      { redis: redactedUrl(this.options.url), reason },
      'redis unreachable; reconnecting with back-off, reading resumes when Redis answers',
    );
  }

  private noteBack(): void {
    this.lastConnectionError = undefined;
    if (this.downSince === undefined) return;
    const downMs = Date.now() - this.downSince;
    this.downSince = undefined;
    this.options.logger.info(
      { redis: redactedUrl(this.options.url), downMs },
      'redis connection back; reading resumes with the entries delivered before the loss',
    );
  }

  /** A read that failed with Redis answering: logged once per reason; a missing group is made again. */
  private noteLoopError(err: unknown): void {
    const reason = (err as Error)?.message ?? String(err);
    if (/^(NOGROUP|UNBLOCKED)/.test(reason)) {
      this.needGroups = true;
      this.options.logger.info({ reason }, 'redis stream or group gone (expired?); making them again');
      return;
    }
    if (this.downSince !== undefined || reason === this.lastLoopError) {
      this.options.logger.debug({ reason }, 'reading from redis failed; retrying');
      return;
    }
    this.lastLoopError = reason;
    this.options.logger.warn({ reason }, 'reading from redis failed; retrying with back-off');
  }
}

function fieldsOf(list: readonly string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < list.length; i += 2) fields[list[i]!] = list[i + 1]!;
  return fields;
}

function parseBody(body: string | undefined): unknown {
  if (body === undefined) throw new Error('body: the entry has no body field');
  try {
    return JSON.parse(body);
  } catch (err) {
    throw new Error(`body: not JSON (${(err as Error).message})`);
  }
}

/** The logId of an unreadable run entry, from its `logId` field or else its body. */
function logIdOf(fields: Record<string, string>): number | undefined {
  const fromField = Number(fields.logId);
  if (fields.logId !== undefined && Number.isSafeInteger(fromField) && fromField >= 0) return fromField;
  const fromBody = bodyField(fields, 'logId');
  return Number.isSafeInteger(fromBody) && (fromBody as number) >= 0 ? (fromBody as number) : undefined;
}

function logDateTimeOf(fields: Record<string, string>): number | undefined {
  const value = bodyField(fields, 'logDateTime');
  return Number.isSafeInteger(value) ? (value as number) : undefined;
}

function bodyField(fields: Record<string, string>, name: string): unknown {
  try {
    const body = JSON.parse(fields.body ?? '') as Record<string, unknown> | null;
    return typeof body === 'object' && body !== null ? body[name] : undefined;
  } catch {
    return undefined;
  }
}

type CallEntry = { id: number; replyTo: string } & ({ frame: PullCallFrame } | { unknown: string });

/** A call frame with a channel to answer on; `unknown` names a call this executor does not know. */
function readCallFrame(text: string | undefined): CallEntry | undefined {
  if (text === undefined) return undefined;
  const frame = parsePullFrame(text);
  if (frame?.t === 'call') {
    return typeof frame.replyTo === 'string' && frame.replyTo !== ''
      ? { id: frame.id, replyTo: frame.replyTo, frame }
      : undefined;
  }
  try {
    const value = JSON.parse(text) as Record<string, unknown> | null;
    if (
      value?.t === 'call' &&
      Number.isSafeInteger(value.id) &&
      typeof value.call === 'string' &&
      typeof value.replyTo === 'string' &&
      value.replyTo !== ''
    ) {
      return { id: value.id as number, replyTo: value.replyTo, unknown: value.call };
    }
  } catch {
    // Not JSON: not a call.
  }
  return undefined;
}

/** The URL without its password, for logs and errors. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.href;
  } catch {
    return 'redis URL';
  }
}

async function quitWithin(redis: Redis, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    redis.quit().catch(() => undefined),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
  redis.disconnect();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
