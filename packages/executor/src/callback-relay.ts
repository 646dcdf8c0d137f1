/**
 * Sends run results to the servers' `api/callback` in batches and keeps what no server accepted
 * in spill files that are re-sent at start and every 30 s, so no result is lost across a server
 * outage or an executor restart.
 *
 * Spill format: one file per batch no server accepted, `<spillDir>/callback-<epochMs>-<uuid>.json`,
 * holding `{"version":1,"results":[HandleCallbackParam, ...]}` (normalised, so a restart with
 * another `protocol` re-encodes them; a workflow node's `output` is kept with its result). Crash safety: the batch is written to `<name>.tmp`, fsynced,
 * renamed to its final name and the folder fsynced, so a spill file is either whole or absent (a
 * whole temp file left by a crash before its rename is adopted at start); a file is deleted only
 * after a server accepted its results. A crash between that acceptance and
 * the delete re-sends the batch once more, which is harmless: the server does not change a record
 * that is already finished (delivery is at least once).
 */
import { randomUUID } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  CALLBACK_ADDRESS_HEADER,
  encodeCallbackBody,
  type HandleCallbackParam,
  type ProtocolGeneration,
} from '@tickwheel/protocol';
import { type Logger, pino } from 'pino';
import { type Clock, repeatEvery, systemClock } from './clock.js';
import type { ServerClient } from './server-client.js';

export interface CallbackRelayOptions {
  client: ServerClient;
  /** How results are encoded for the servers (G4: `{callbackList}` with `logDateTime`). */
  protocol: ProtocolGeneration;
  /** Folder of the spill files; created when first needed. Give each executor process its own. */
  spillDir: string;
  /** Period of the re-send of spilled results (the executor's `internal.callbackRetryIntervalMs`). */
  retryIntervalMs: number;
  /** How long a result waits for others to share its request; default 10 ms. */
  batchDelayMs?: number;
  /**
   * Requests in flight at once at most; default 4. Beside one in flight, another starts for a
   * whole batch, or once its oldest result has waited `overlapDelayMs`: a result does not wait
   * for a slow answer to the results before it (the server answers once they are stored).
   */
  maxBatchesInFlight?: number;
  /** See `maxBatchesInFlight`; default 50 ms. */
  overlapDelayMs?: number;
  /** Most results in one request; default 500. */
  maxBatch?: number;
  /** Rough cap on one request's body, under the servers' 5 MiB limit; default 4 MiB. */
  maxBatchBytes?: number;
  /**
   * This executor's registered address, sent with its results (`Tickwheel-Address`) so a server
   * takes them only for runs it sent here. Not sent with results spilled to disk: those may be
   * a previous process's, at another address.
   */
  selfAddress?: string;
  /**
   * The clock of the periodic re-send and of the spill files' names. Default the system clock.
   * The batch delay stays on Node's timers: it is on every result's path.
   */
  clock?: Clock;
  logger?: Logger;
}

/** The outcome of a result's first delivery attempt. */
export type CallbackDelivery =
  | { delivered: true; address: string }
  /** `spilled` is false only when the spill file could not be written; the result is then kept in memory. */
  | { delivered: false; spilled: boolean; reason: string };

export const DEFAULT_CALLBACK_BATCH_DELAY_MS = 10;
export const DEFAULT_CALLBACK_BATCHES_IN_FLIGHT = 4;
export const DEFAULT_CALLBACK_OVERLAP_DELAY_MS = 50;
export const DEFAULT_CALLBACK_MAX_BATCH = 500;
export const DEFAULT_CALLBACK_MAX_BATCH_BYTES = 4 * 1024 * 1024;

const CALLBACK_CALL = 'api/callback';
const SPILL_PREFIX = 'callback-';
const SPILL_SUFFIX = '.json';
const TEMP_SUFFIX = '.tmp';
const CORRUPT_SUFFIX = '.corrupt';
const SPILL_VERSION = 1;
/** A temp file this old is left over from a crash mid-spill, not a spill in progress. */
const TEMP_GRACE_MS = 60 * 1000;

interface QueuedResult {
  result: HandleCallbackParam;
  bytes: number;
  /** `performance.now()` when it was queued. */
  at: number;
  settle: (delivery: CallbackDelivery) => void;
}

/**
 * @example
 * const relay = new CallbackRelay({ client, protocol: 'G2', spillDir: path.join(logDir, 'callbacklog'),
 *   retryIntervalMs: 30_000 });
 * relay.start();
 * const delivery = await relay.push({ logId, logDateTim, handleCode: 200, handleMsg: null });
 * await relay.stop();
 */
export class CallbackRelay {
  private readonly client: ServerClient;
  private readonly protocol: ProtocolGeneration;
  private readonly spillDir: string;
  private readonly retryIntervalMs: number;
  private readonly batchDelayMs: number;
  private readonly maxBatchesInFlight: number;
  private readonly overlapDelayMs: number;
  private readonly maxBatch: number;
  private readonly maxBatchBytes: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private queue: QueuedResult[] = [];
  private inFlight = 0;
  /** The requests in flight. */
  private readonly sends = new Set<Promise<void>>();
  /** Wakes the drain waiting beside requests in flight (a first result or a whole batch came in, or the relay stops). */
  private wake: (() => void) | undefined;
  private stopping = false;
  /** Results neither delivered nor spilled (the spill write failed); retried with the spill. */
  private held: HandleCallbackParam[] = [];
  private batchTimer: NodeJS.Timeout | undefined;
  private stopRetrying: (() => void) | undefined;
  private draining: Promise<void> | undefined;
  private resending: Promise<void> | undefined;

  /** `Tickwheel-Address` with this executor's address, when it has one. */
  private readonly senderHeaders: Record<string, string> | undefined;

  constructor(options: CallbackRelayOptions) {
    this.client = options.client;
    this.protocol = options.protocol;
    this.spillDir = options.spillDir;
    this.retryIntervalMs = options.retryIntervalMs;
    this.batchDelayMs = options.batchDelayMs ?? DEFAULT_CALLBACK_BATCH_DELAY_MS;
    this.maxBatchesInFlight = Math.max(1, options.maxBatchesInFlight ?? DEFAULT_CALLBACK_BATCHES_IN_FLIGHT);
    this.overlapDelayMs = options.overlapDelayMs ?? DEFAULT_CALLBACK_OVERLAP_DELAY_MS;
    this.maxBatch = options.maxBatch ?? DEFAULT_CALLBACK_MAX_BATCH;
    this.maxBatchBytes = options.maxBatchBytes ?? DEFAULT_CALLBACK_MAX_BATCH_BYTES;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? pino({ name: 'tickwheel-executor' });
    this.senderHeaders =
      options.selfAddress === undefined ? undefined : { [CALLBACK_ADDRESS_HEADER]: options.selfAddress };
  }

  /**
   * Queues one result. Resolves once its first attempt is settled: delivered to a server, or
   * spilled for the periodic re-send. Never rejects.
   */
  push(result: HandleCallbackParam): Promise<CallbackDelivery> {
    return new Promise((settle) => this.send(result, settle));
  }

  /**
   * Queues one result, and calls `settled` once its first attempt is settled, as `push` resolves
   * (without a promise a result: a run's result takes this path). `settled` must not throw.
   */
  send(result: HandleCallbackParam, settled: (delivery: CallbackDelivery) => void): void {
    this.queue.push({ result, bytes: encodedBytes(result), settle: settled, at: performance.now() });
    // The drain waiting beside requests in flight: a first result sets its overlap timer, a whole batch goes.
    if (this.queue.length === 1 || this.queue.length >= this.maxBatch) this.wake?.();
    this.scheduleDrain();
  }

  /** Re-sends the spilled results now, then every `retryIntervalMs`; the timer does not keep the process alive. */
  start(): void {
    if (this.stopRetrying) return;
    this.stopping = false;
    void this.recoverTempFiles().then(() => this.resendSpilled());
    this.stopRetrying = repeatEvery(this.clock, this.retryIntervalMs, () => void this.resendSpilled());
  }

  /** Sends what is queued (spilling what no server takes), waits for a running re-send, stops the timer. */
  async stop(): Promise<void> {
    this.stopRetrying?.();
    this.stopRetrying = undefined;
    this.stopping = true;
    this.wake?.();
    this.drainNow();
    await this.draining;
    await this.resending;
    if (this.held.length > 0) await this.spill(this.held.splice(0));
  }

  /**
   * One re-send round: results kept in memory, then the spill files oldest first. A round stops
   * at the first batch no server accepts (the others would fare the same). Rounds never overlap.
   */
  resendSpilled(): Promise<void> {
    this.resending ??= this.resendRound();
    return this.resending;
  }

  /** Results queued, in flight or held in memory: not yet delivered nor on disk. */
  pending(): number {
    return this.queue.length + this.inFlight + this.held.length;
  }

  /** Results waiting in spill files. Reads the files; meant for tests and metrics. */
  async spilledCount(): Promise<number> {
    let count = 0;
    for (const file of await this.spillFiles()) {
      try {
        count += (await this.readSpillFile(file)).length;
      } catch {
        // A file being deleted by a concurrent round or corrupt: not counted.
      }
    }
    return count;
  }

  private scheduleDrain(): void {
    if (this.draining || this.batchTimer) return;
    this.batchTimer = setTimeout(() => this.drainNow(), this.batchDelayMs);
  }

  private drainNow(): void {
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    if (this.queue.length > 0) this.draining ??= this.drain();
  }

  /**
   * Sends batches until the queue is empty and every request has been answered; results pushed
   * while a request is in flight join the next batch, which starts when the answer comes, or
   * beside it (`maxBatchesInFlight`) for a whole batch or a result that has waited `overlapDelayMs`.
   */
  private async drain(): Promise<void> {
    while (this.queue.length > 0 || this.sends.size > 0) {
      const waitMs = this.queue.length === 0 ? Number.POSITIVE_INFINITY : this.startsIn();
      if (waitMs <= 0) {
        this.startSend();
        continue;
      }
      await this.nextChange(waitMs);
    }
    // Cleared in the same turn as the emptiness check, so a later push always starts a new drain.
    this.draining = undefined;
  }

  /** In how many ms the next batch may start (0: now; infinite: when a request in flight ends). */
  private startsIn(): number {
    if (this.sends.size === 0) return 0;
    if (this.sends.size >= this.maxBatchesInFlight) return Number.POSITIVE_INFINITY;
    if (this.stopping || this.queue.length >= this.maxBatch) return 0;
    return this.queue[0]!.at + this.overlapDelayMs - performance.now();
  }

  private startSend(): void {
    const batch = this.takeBatch();
    this.inFlight += batch.length;
    const send: Promise<void> = this.sendBatch(batch).finally(() => {
      this.inFlight -= batch.length;
      this.sends.delete(send);
    });
    this.sends.add(send);
  }

  /** Resolves when a request in flight ends, `waitMs` passed, or `wake` is called. */
  private nextChange(waitMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      for (const send of this.sends) void send.then(resolve, resolve);
      if (Number.isFinite(waitMs)) timer = setTimeout(resolve, waitMs);
    }).finally(() => {
      this.wake = undefined;
      clearTimeout(timer);
    });
  }

  private takeBatch(): QueuedResult[] {
    let count = 0;
    let bytes = 0;
    for (const item of this.queue) {
      if (count >= this.maxBatch || (count > 0 && bytes + item.bytes > this.maxBatchBytes)) break;
      count++;
      bytes += item.bytes;
    }
    return this.queue.splice(0, count);
  }

  private async sendBatch(batch: QueuedResult[]): Promise<void> {
    const results = batch.map((q) => q.result);
    let delivery: CallbackDelivery;
    try {
      const { address } = await this.client.callFirst(
        CALLBACK_CALL,
        encodeCallbackBody(results, this.protocol),
        this.senderHeaders,
      );
      delivery = { delivered: true, address };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const spilled = await this.spill(results);
      this.logger.warn(
        { count: results.length, spilled, reason },
        'no server accepted the callback; kept for re-send',
      );
      delivery = { delivered: false, spilled, reason };
    }
    for (const q of batch) q.settle(delivery);
  }

  private async resendRound(): Promise<void> {
    try {
      if (this.held.length > 0 && !(await this.resendHeld())) return;
      for (const file of await this.spillFiles()) {
        if (!(await this.resendFile(file))) return;
      }
    } catch (err) {
      this.logger.error({ err, spillDir: this.spillDir }, 'callback re-send round failed');
    } finally {
      this.resending = undefined;
    }
  }

  /** Sends the in-memory results; on failure tries to put them on disk. True when delivered. */
  private async resendHeld(): Promise<boolean> {
    const results = this.held.splice(0);
    try {
      await this.client.callFirst(
        CALLBACK_CALL,
        encodeCallbackBody(results, this.protocol),
        this.senderHeaders,
      );
      return true;
    } catch (err) {
      this.logger.warn(
        { count: results.length, reason: (err as Error).message },
        'callback re-send not accepted',
      );
      await this.spill(results);
      return false;
    }
  }

  /** Sends one spill file's results and deletes the file once accepted. True when accepted. */
  private async resendFile(file: string): Promise<boolean> {
    let results: HandleCallbackParam[];
    try {
      results = await this.readSpillFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
      // Renamed files only ever hold whole batches, so this one was damaged outside the relay:
      // keep it for a human rather than retrying it forever or deleting results.
      this.logger.error({ err, file }, 'spill file is unreadable; set aside as .corrupt');
      await rename(file, file + CORRUPT_SUFFIX);
      return true;
    }
    try {
      const { address } = await this.client.callFirst(
        CALLBACK_CALL,
        encodeCallbackBody(results, this.protocol),
      );
      await unlink(file);
      this.logger.info({ count: results.length, address }, 'spilled callback results delivered');
      return true;
    } catch (err) {
      this.logger.warn(
        { count: results.length, reason: (err as Error).message },
        'spilled callback re-send not accepted',
      );
      return false;
    }
  }

  /** Writes one batch to its own spill file, atomically. False (and the results held in memory) when it cannot. */
  private async spill(results: HandleCallbackParam[]): Promise<boolean> {
    const name = `${SPILL_PREFIX}${this.clock.now()}-${randomUUID()}${SPILL_SUFFIX}`;
    const file = path.join(this.spillDir, name);
    const temp = file + TEMP_SUFFIX;
    try {
      await mkdir(this.spillDir, { recursive: true, mode: 0o700 });
      const handle = await open(temp, 'w', 0o600);
      try {
        await handle.writeFile(JSON.stringify({ version: SPILL_VERSION, results }), 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, file);
      await syncFolder(this.spillDir);
      return true;
    } catch (err) {
      this.logger.error(
        { err, file, count: results.length },
        'could not spill callback results; kept in memory',
      );
      await unlink(temp).catch(() => undefined);
      this.held.push(...results);
      return false;
    }
  }

  private async readSpillFile(file: string): Promise<HandleCallbackParam[]> {
    const doc = JSON.parse(await readFile(file, 'utf8')) as { version?: unknown; results?: unknown };
    if (doc.version !== SPILL_VERSION || !Array.isArray(doc.results)) {
      throw new Error(`not a version ${SPILL_VERSION} spill file`);
    }
    return doc.results as HandleCallbackParam[];
  }

  /** Spill files, oldest first (the name starts with the epoch ms of the spill). */
  private async spillFiles(): Promise<string[]> {
    const names = await this.spillDirEntries();
    return names
      .filter((n) => n.startsWith(SPILL_PREFIX) && n.endsWith(SPILL_SUFFIX))
      .sort()
      .map((n) => path.join(this.spillDir, n));
  }

  private async spillDirEntries(): Promise<string[]> {
    try {
      return await readdir(this.spillDir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  /**
   * Temp files left by a crash mid-spill: one that parses is whole (the crash came between its
   * fsync and its rename) and is adopted; one that does not is a torn write whose results died
   * with that process, and is removed. Young temp files are left alone, since another writer
   * may be mid-spill (adopting one twice would only re-send it, which the server tolerates).
   */
  private async recoverTempFiles(): Promise<void> {
    try {
      for (const name of await this.spillDirEntries()) {
        if (!name.startsWith(SPILL_PREFIX) || !name.endsWith(SPILL_SUFFIX + TEMP_SUFFIX)) continue;
        const temp = path.join(this.spillDir, name);
        // Against the real time, not the clock: the file's age is the file system's.
        if (Date.now() - (await stat(temp)).mtimeMs < TEMP_GRACE_MS) continue;
        try {
          await this.readSpillFile(temp);
          await rename(temp, temp.slice(0, -TEMP_SUFFIX.length));
          this.logger.info({ file: temp }, 'adopted a callback spill file left by a crash');
        } catch {
          await unlink(temp);
          this.logger.warn({ file: temp }, 'removed a torn callback spill temp file left by a crash');
        }
      }
    } catch (err) {
      this.logger.warn({ err, spillDir: this.spillDir }, 'could not recover callback spill temp files');
    }
  }
}

/**
 * A result's size in a callback body, without encoding the whole result (every result passes
 * here): the fixed fields take at most 128 bytes, and a message its UTF-8 length plus quotes
 * unless it has characters JSON escapes, which are rare and are then counted exactly. A workflow
 * node's output (up to 64 KiB) is counted exactly.
 */
function encodedBytes(result: HandleCallbackParam): number {
  const msg = result.handleMsg;
  const outputBytes = result.output === undefined ? 0 : Buffer.byteLength(JSON.stringify(result.output));
  if (msg === null) return FIXED_FIELDS_BYTES + outputBytes;
  const text = JSON_ESCAPED.test(msg) ? JSON.stringify(msg) : msg;
  return FIXED_FIELDS_BYTES + Buffer.byteLength(text) + 2 + outputBytes;
}

const FIXED_FIELDS_BYTES = 128;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters JSON escapes
const JSON_ESCAPED = /["\\\u0000-\u001f]/;

/**
 * Makes the rename itself durable. Opening a folder to fsync it works on Linux and macOS; where
 * the platform refuses (Windows), the rename is as durable as the platform makes it.
 */
async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, 'r');
    await handle.sync();
  } catch {
    // Not supported on this platform; see above.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
