/**
 * The server's HTTP client for executors: the calls of PROTOCOL.md (`beat`, `idleBeat`, `run`
 * / `trigger`, `kill`, `log`) in the generation each executor speaks. One undici `Agent` keeps a
 * keep-alive pool per executor origin (dropped once its connections have all closed), so calls
 * to one executor are in flight concurrently and a slow executor only holds its own sockets.
 *
 * No call throws: an HTTP error status, a timeout, a refused connection or an answer that is not
 * a ReturnT comes back as a failed {@link CallOutcome} whose message says which.
 *
 * Runs are batched per executor: the `run` calls of one turn of the event loop to one address
 * go out together at the end of the turn. One alone, or to an executor that has not announced
 * Tickwheel's `runBatch` (the `Tickwheel-Run-Batch` header on its answers; no XXL-JOB executor
 * does), goes as its own `run`; several to a Tickwheel executor go as one `runBatch` request, and
 * each still gets the outcome its own `run` would have had. An aligned burst or a busy server
 * then costs both sides one HTTP request per batch instead of one per run.
 *
 * Every answer's `Tickwheel-Instance` header (a Tickwheel executor's instance id) is kept on its
 * outcome, a `run` in a `runBatch` included: the fire record stores which instance accepted it.
 *
 * Likewise an executor whose answers carry `Tickwheel-Kill: logId` kills one run when asked
 * with a `logId`; `killScope` asks the executor itself (a `beat`) right before a kill, so the
 * answer holds for whatever process serves the address now, on any server node.
 *
 * A pull executor (`pull://<instance>/`, the `http-pull` transport) opens no port: its calls go
 * over the WebSocket it keeps to some server node ({@link PullTransport}, pull-connections.ts),
 * with the same outcomes: the same timeout, its answer frame's `answer` read as the HTTP body
 * would be (a log page within the same limits), `runBatch` and `killByLogId` read as the
 * headers, and its instance the connection's. Nothing is dialled, so no network rule applies.
 *
 * A Redis-stream executor (`stream://<instance>/`, the `redis` transport) is called the same way
 * through its streams ({@link PullTransport} again, redis-streams.ts): a `run` is answered as soon
 * as Redis took it, and it never gets `runBatch` (runs go one by one, auto-pipelined); the other
 * calls' answer frames are read as a pull executor's. Its instance is the stream's.
 */
import { performance } from 'node:perf_hooks';
import {
  ACCESS_TOKEN_HEADER,
  APP_NAME_HEADER,
  callUrl,
  encodeLogParam,
  INSTANCE_HEADER,
  isInstanceId,
  JSON_CONTENT_TYPE,
  KILL_RUN_BY_LOG_ID,
  KILL_RUN_HEADER,
  type LogParam,
  MAX_BODY_BYTES,
  type ProtocolGeneration,
  type PullAnswerFrame,
  type PullCall,
  parseReturnT,
  pullInstanceOf,
  type ReturnT,
  RUN_BATCH_CALL,
  RUN_BATCH_HEADER,
  streamInstanceOf,
  type TriggerParam,
} from '@tickwheel/protocol';
import { Agent, type Dispatcher as UndiciDispatcher } from 'undici';
import { guardedConnector } from '../security/guarded-connector.js';
import { NetworkRules } from '../security/network-rules.js';
import { CallDeadlines } from './call-deadlines.js';
import { LogAnswerError, type LogPage, type LogPageLimits, readLogPage } from './log-page.js';
import type { PullTransport } from './pull-connections.js';

/** One executor as the registry knows it. */
export interface ExecutorAddress {
  /** Registered base URL, e.g. `http://10.0.0.5:9999/` (a missing trailing slash is added). */
  address: string;
  /** Generation the executor speaks: G4 gets `trigger` and the `XXL-JOB-APPNAME` header. */
  protocol: ProtocolGeneration;
  /** App name it registered under (sent as `XXL-JOB-APPNAME` to G4 executors). */
  appName: string;
  /** The token to call it with (its app's); absent: `ExecutorClientOptions.tokenFor` decides. */
  accessToken?: string;
}

export type ExecutorCall = 'beat' | 'idleBeat' | 'run' | 'kill' | 'log';

/**
 * Why a call failed below the protocol: `status` an HTTP error status, `timeout` no complete
 * answer in time, `connection` the connection failed or broke, `body` the answer is not a
 * ReturnT (not JSON, no integer `code`, too large), `address` the address is not a URL.
 */
export type CallFailure = 'status' | 'timeout' | 'connection' | 'body' | 'address';

/** The outcome of one call; `ok` only when the executor answered code 200. */
export interface CallOutcome<T = unknown> {
  call: ExecutorCall;
  address: string;
  ok: boolean;
  /** The answer's `code`, or 500 when the call failed below the protocol. */
  code: number;
  /** The answer's `msg`, or what went wrong when `failure` is set. */
  msg: string | null;
  /** Payload from `content` or `data`. */
  content: T | null;
  failure: CallFailure | null;
  /** Wall time of the call, request start to the last body byte. */
  latencyMs: number;
  /**
   * The executor instance that answered (its `Tickwheel-Instance` header, a Tickwheel executor's
   * id for this start of its process); absent when it announced none or the call failed below
   * the protocol.
   */
  instance?: string;
}

/** What {@link ExecutorClientOptions.onCall} sees of every call (for metrics). */
export type CallRecord = Pick<CallOutcome, 'call' | 'address' | 'ok' | 'code' | 'failure' | 'latencyMs'>;

export interface ExecutorClientOptions {
  /** The token for a target that carries none and that `tokenFor` does not know. */
  accessToken: string;
  /** The token for a target that carries none (its app's, from the directory). */
  tokenFor?: (target: ExecutorAddress) => string;
  timeoutMs: number;
  connectionsPerExecutor: number;
  pipelining: number;
  /** Called after every call with its latency and result. */
  onCall?: (record: CallRecord) => void;
  /** Where executors may be connected to (the server's `allowedNetworks`). Default: the rules' defaults. */
  networkRules?: NetworkRules;
  /** The calls to pull executors (`pull://` addresses). Default none: such calls fail as `connection`. */
  pull?: PullTransport;
  /**
   * The calls to Redis-stream executors (`stream://` addresses). Default none: such calls fail as
   * `connection` (the server has no `--redis`).
   */
  stream?: PullTransport;
}

interface Endpoint {
  origin: string;
  /** Path of the base address, ending with `/` (a context path is kept). */
  basePath: string;
}

/** Parsed addresses kept at most; past this the cache starts over (addresses churn slowly). */
const ENDPOINT_CACHE_LIMIT = 10_000;
const BODY_SNIPPET_CHARS = 120;
/**
 * Characters of trigger bodies in one `runBatch` at most (3 MiB of UTF-8 at worst): far under the executor's 5 MiB body limit,
 * so a batch of script jobs with large sources is split rather than refused.
 */
const RUN_BATCH_MAX_BYTES = 1024 * 1024;
const RUN_BATCH_HEADER_LOWER = RUN_BATCH_HEADER.toLowerCase();
const KILL_RUN_HEADER_LOWER = KILL_RUN_HEADER.toLowerCase();
const INSTANCE_HEADER_LOWER = INSTANCE_HEADER.toLowerCase();

/** The well-formed instance id an answer announced, if any. */
function instanceOf(headers: UndiciDispatcher.ResponseData['headers']): string | undefined {
  const announced = headers[INSTANCE_HEADER_LOWER];
  return isInstanceId(announced) ? announced : undefined;
}

/**
 * The transports whose calls go as frames instead of HTTP requests: `pull://` (http-pull) and
 * `stream://` (redis). What differs between them is here; the calls share one path.
 */
interface FrameScheme {
  /** The instance id of an address of the scheme; undefined when it is not well-formed. */
  instanceOf(address: string): string | undefined;
  /** Why a call fails when the server has no such transport. */
  missing: string;
  /** Whether its executors may be sent `runBatch` (as announced in their answers). */
  batches: boolean;
  /** Whether a `run`'s answer comes from the executor (else from the transport: it says nothing of the executor). */
  runAnsweredByExecutor: boolean;
}

const PULL_SCHEME: FrameScheme = {
  instanceOf: pullInstanceOf,
  missing: 'no pull transport on this server',
  batches: true,
  runAnsweredByExecutor: true,
};

const STREAM_SCHEME: FrameScheme = {
  instanceOf: streamInstanceOf,
  missing: 'this server has no --redis',
  batches: false,
  runAnsweredByExecutor: false,
};

/** The frame scheme of an address (`pull://…`, `stream://…`, well-formed or not); undefined for HTTP. */
function frameSchemeOf(address: string): FrameScheme | undefined {
  const first = address.charCodeAt(0);
  if (first === 112 /* p */ && address.startsWith('pull://')) return PULL_SCHEME;
  if (first === 115 /* s */ && address.startsWith('stream://')) return STREAM_SCHEME;
  return undefined;
}

/** What a `kill` stops: only the run asked for (a Tickwheel executor), or the job's lane (XXL-JOB). */
export type KillScope = 'run' | 'job';

/** A `run` waiting for the end of the turn, to go out alone or in its executor's batch. */
interface QueuedRun {
  target: ExecutorAddress;
  body: string;
  started: number;
  /** Settles its call: with the outcome alone (`run`), or into its place among a `runMany`'s. */
  settle: (outcome: CallOutcome<null>, index: number) => void;
  /** Its place among the runs of its `runMany` call (0 for a `run`). */
  index: number;
}

export class ExecutorClient {
  private readonly agent: Agent;
  private readonly deadlines: CallDeadlines;
  private readonly endpoints = new Map<string, Endpoint | null>();
  /** The headers of every call, by the access token they carry. */
  private readonly headersByToken = new Map<string, Record<string, string>>();
  private readonly slots: OriginSlots;
  /** Most runs per `runBatch` each address announced; absent or below 2: it gets `run` calls only. */
  private readonly batchLimits = new Map<string, number>();
  /** Addresses whose last answer announced `Tickwheel-Kill: logId`. */
  private readonly runKillers = new Set<string>();
  /** Runs of this turn by address, sent at its end (`flushRuns`). */
  private queuedRuns = new Map<string, QueuedRun[]>();
  private flushScheduled = false;

  constructor(private readonly options: ExecutorClientOptions) {
    this.deadlines = new CallDeadlines(options.timeoutMs);
    this.slots = new OriginSlots(options.connectionsPerExecutor * options.pipelining);
    this.agent = new Agent({
      connections: options.connectionsPerExecutor,
      pipelining: options.pipelining,
      // A denied address (cloud metadata, link-local, …) fails the call before anything is sent.
      connect: guardedConnector(options.networkRules ?? new NetworkRules()),
    });
  }

  /** Liveness (route FAILOVER). */
  beat(target: ExecutorAddress): Promise<CallOutcome<null>> {
    return this.post(target, 'beat', '{}') as Promise<CallOutcome<null>>;
  }

  /** Code 500 when the job's lane is running or has queued runs (route BUSYOVER). */
  idleBeat(target: ExecutorAddress, jobId: number): Promise<CallOutcome<null>> {
    return this.post(target, 'idleBeat', JSON.stringify({ jobId })) as Promise<CallOutcome<null>>;
  }

  /**
   * Queues one run; G4 executors get it on `trigger`. It goes out at the end of the turn, in one
   * `runBatch` with the other runs of the turn to the same executor when the executor takes
   * batches.
   */
  run(target: ExecutorAddress, trigger: TriggerParam): Promise<CallOutcome<null>> {
    const started = performance.now();
    const body = JSON.stringify(trigger);
    return new Promise((settle) => this.queueRun({ target, body, started, settle, index: 0 }));
  }

  /**
   * Queues several runs to one executor, as `run` each would, with one promise for them all: their
   * outcomes in their order (a batch of fires routed to the same executor together).
   */
  runMany(target: ExecutorAddress, triggers: readonly TriggerParam[]): Promise<CallOutcome<null>[]> {
    const started = performance.now();
    return new Promise((resolve) => {
      const outcomes: CallOutcome<null>[] = new Array(triggers.length);
      let remaining = triggers.length;
      if (remaining === 0) resolve(outcomes);
      const settle = (outcome: CallOutcome<null>, index: number) => {
        outcomes[index] = outcome;
        if (--remaining === 0) resolve(outcomes);
      };
      for (let index = 0; index < triggers.length; index++) {
        this.queueRun({ target, body: JSON.stringify(triggers[index]), started, settle, index });
      }
    });
  }

  private queueRun(run: QueuedRun): void {
    const queue = this.queuedRuns.get(run.target.address);
    if (queue === undefined) this.queuedRuns.set(run.target.address, [run]);
    else queue.push(run);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flushRuns());
    }
  }

  /**
   * Stops the job's running run and drops its queue; with `logId`, an executor that announced
   * `Tickwheel-Kill: logId` stops only that run (see {@link killScope}). XXL-JOB executors ignore
   * the field, so send it only where `killScope` said `run`.
   */
  kill(target: ExecutorAddress, jobId: number, logId?: number): Promise<CallOutcome<null>> {
    const body = logId === undefined ? { jobId } : { jobId, logId };
    return this.post(target, 'kill', JSON.stringify(body)) as Promise<CallOutcome<null>>;
  }

  /**
   * What a kill with a logId would stop on this executor now, asked with a `beat`: `run` when its
   * answer announces `Tickwheel-Kill: logId`, `job` otherwise. The failed beat when it did not answer.
   */
  async killScope(target: ExecutorAddress): Promise<KillScope | CallOutcome<null>> {
    const beat = await this.beat(target);
    if (beat.failure !== null) return beat;
    return this.runKillers.has(target.address) ? 'run' : 'job';
  }

  /**
   * Reads one page of log lines from `param.fromLineNum`, within `limits` whatever the executor
   * sends: the answer is read as it streams and dropped once the page is full (log-page.ts), so
   * an XXL-JOB executor answering the whole rest of a huge file costs one page of memory.
   */
  logPage(target: ExecutorAddress, param: LogParam, limits: LogPageLimits): Promise<CallOutcome<LogPage>> {
    const body = JSON.stringify(encodeLogParam(param, target.protocol));
    const read: AnswerReader = (address, response) =>
      readLogPageAnswer(address, response, param.fromLineNum, limits);
    const readPull: PullAnswerReader = (address, answer) =>
      pullLogPageAnswer(address, answer, param.fromLineNum, limits);
    return this.post(target, 'log', body, performance.now(), read, readPull) as Promise<CallOutcome<LogPage>>;
  }

  /** Waits for calls in flight (each ends by its timeout at the latest), then closes every connection. */
  async close(): Promise<void> {
    // Runs queued for the end of this turn go out first, so they are in flight, not refused.
    if (this.flushScheduled) this.flushRuns();
    await this.agent.close();
    this.deadlines.stop();
  }

  /** Sends the runs of the turn: per address one `runBatch` per batch, or `run` calls. */
  private flushRuns(): void {
    this.flushScheduled = false;
    const queued = this.queuedRuns;
    this.queuedRuns = new Map();
    for (const [address, runs] of queued) {
      const limit = this.batchLimits.get(address) ?? 0;
      if (runs.length === 1 || limit < 2) {
        for (const run of runs) void this.sendRun(run);
        continue;
      }
      for (const batch of batchesOf(runs, limit)) {
        if (batch.length === 1) void this.sendRun(batch[0] as QueuedRun);
        else void this.sendBatch(address, batch);
      }
    }
  }

  /** One run on its own: `run` (G4 `trigger`). */
  private async sendRun(run: QueuedRun): Promise<void> {
    run.settle((await this.post(run.target, 'run', run.body, run.started)) as CallOutcome<null>, run.index);
  }

  /**
   * Several runs to one executor in one `runBatch`. A timeout or a broken connection fails each
   * as it would have failed its own call. An answer that is no batch answer (an executor that
   * no longer takes batches: replaced, or downgraded) means none of them was taken: the address
   * is sent `run` calls from now on, these included, until it announces batches again.
   */
  private async sendBatch(address: string, runs: readonly QueuedRun[]): Promise<void> {
    const target = (runs[0] as QueuedRun).target;
    let batch: { answers: RunAnswerOrFailure[]; instance?: string } | undefined;
    const scheme = frameSchemeOf(address);
    if (scheme !== undefined) {
      batch = await this.requestFrameBatch(scheme, target, runs);
    } else {
      const endpoint = this.endpointOf(address);
      if (endpoint === null) {
        for (const run of runs) void this.sendRun(run);
        return;
      }
      batch = await this.requestBatch(target, endpoint, runs);
    }
    const answers = batch?.answers;
    if (answers === undefined) {
      this.batchLimits.delete(address);
      for (const run of runs) void this.sendRun(run);
      return;
    }
    const ended = performance.now();
    for (let i = 0; i < runs.length; i++) {
      const run = runs[i] as QueuedRun;
      const answer = answers[i] as RunAnswerOrFailure;
      const outcome: CallOutcome<null> =
        'failure' in answer
          ? { ...answer, latencyMs: ended - run.started }
          : {
              call: 'run',
              address,
              ok: answer.code === 200,
              code: answer.code,
              msg: answer.msg,
              content: null,
              failure: null,
              latencyMs: ended - run.started,
              ...(batch?.instance === undefined ? {} : { instance: batch.instance }),
            };
      this.options.onCall?.(outcome);
      run.settle(outcome, run.index);
    }
  }

  /**
   * The `runBatch` request: per run its answer or the failure shared by all (timeout,
   * connection), or undefined when the executor gave no batch answer.
   */
  private async requestBatch(
    target: ExecutorAddress,
    endpoint: Endpoint,
    runs: readonly QueuedRun[],
  ): Promise<{ answers: RunAnswerOrFailure[]; instance?: string } | undefined> {
    const failAll = (failure: CallFailure, msg: string) => ({
      answers: runs.map(() => failed('run', target.address, failure, msg) as RunAnswerOrFailure),
    });
    const waitForSlot = this.slots.acquire(endpoint.origin);
    if (waitForSlot !== undefined && !(await waitForSlot)) {
      return failAll('timeout', `timeout after ${this.options.timeoutMs} ms`);
    }
    const deadline = this.deadlines.start();
    try {
      const response = await this.agent.request({
        origin: endpoint.origin,
        path: endpoint.basePath + RUN_BATCH_CALL,
        method: 'POST',
        headers: this.headersFor(target),
        body: `[${runs.map((run) => run.body).join(',')}]`,
        signal: deadline.signal,
      });
      this.noteBatchLimit(target.address, response.headers);
      if (response.statusCode < 200 || response.statusCode > 299) {
        await response.body.dump();
        return undefined;
      }
      const text = await readCapped(response.body);
      const answers = text === null ? undefined : batchAnswers(parseJson(text), runs.length);
      if (answers === undefined) return undefined;
      const instance = instanceOf(response.headers);
      return instance === undefined ? { answers } : { answers, instance };
    } catch (err) {
      if (deadline.timedOut) return failAll('timeout', `timeout after ${this.options.timeoutMs} ms`);
      return failAll('connection', connectionMessage(err));
    } finally {
      deadline.settle();
      this.slots.release(endpoint.origin, deadline.timedOut);
    }
  }

  /**
   * The `runBatch` call over a frame transport: as {@link requestBatch}, the answer frame's
   * `answer` in place of the HTTP body.
   */
  private async requestFrameBatch(
    scheme: FrameScheme,
    target: ExecutorAddress,
    runs: readonly QueuedRun[],
  ): Promise<{ answers: RunAnswerOrFailure[]; instance?: string } | undefined> {
    const result = await this.callFrame(
      scheme,
      target.address,
      'runBatch',
      `[${runs.map((run) => run.body).join(',')}]`,
    );
    if (!result.ok) {
      const failure = failed('run', target.address, result.failure, result.msg) as RunAnswerOrFailure;
      return { answers: runs.map(() => failure) };
    }
    this.noteFrameAnswer(scheme, target.address, 'runBatch', result.frame);
    const answers = batchAnswers(result.frame.answer, runs.length);
    if (answers === undefined) return undefined;
    const instance = scheme.instanceOf(target.address);
    return instance === undefined ? { answers } : { answers, instance };
  }

  /** A call over a frame transport (a failure `connection` when the server has none of its kind). */
  private callFrame(
    scheme: FrameScheme,
    address: string,
    call: PullCall,
    body: string,
  ): Promise<{ ok: true; frame: PullAnswerFrame } | { ok: false; failure: CallFailure; msg: string }> {
    const transport = scheme === STREAM_SCHEME ? this.options.stream : this.options.pull;
    if (transport === undefined) {
      return Promise.resolve({ ok: false, failure: 'connection', msg: scheme.missing });
    }
    return transport.call(address, call, body, this.options.timeoutMs);
  }

  /**
   * What an answer frame says in place of the HTTP headers: `runBatch` and `killByLogId`. A run
   * the transport answered itself (queued on a stream) says nothing of the executor.
   */
  private noteFrameAnswer(
    scheme: FrameScheme,
    address: string,
    call: PullCall,
    frame: PullAnswerFrame,
  ): void {
    if (call === 'run' && !scheme.runAnsweredByExecutor) return;
    const batchLimit =
      scheme.batches && Number.isSafeInteger(frame.runBatch) ? (frame.runBatch as number) : 0;
    this.setBatchLimit(address, batchLimit);
    this.setRunKill(address, frame.killByLogId === true);
  }

  /** Remembers whether the executor at `address` takes `runBatch`, and how many runs at most. */
  private noteBatchLimit(address: string, headers: UndiciDispatcher.ResponseData['headers']): void {
    const announced = headers[RUN_BATCH_HEADER_LOWER];
    this.setBatchLimit(address, typeof announced === 'string' ? Number.parseInt(announced, 10) : 0);
  }

  private setBatchLimit(address: string, limit: number): void {
    if (limit >= 2) {
      if (this.batchLimits.get(address) !== limit) this.batchLimits.set(address, limit);
    } else if (this.batchLimits.has(address)) {
      this.batchLimits.delete(address);
    }
  }

  /** Remembers whether the executor at `address` kills one run by logId. */
  private noteRunKill(address: string, headers: UndiciDispatcher.ResponseData['headers']): void {
    this.setRunKill(address, headers[KILL_RUN_HEADER_LOWER] === KILL_RUN_BY_LOG_ID);
  }

  private setRunKill(address: string, byLogId: boolean): void {
    if (byLogId) {
      if (!this.runKillers.has(address)) this.runKillers.add(address);
    } else if (this.runKillers.has(address)) {
      this.runKillers.delete(address);
    }
  }

  private async post(
    target: ExecutorAddress,
    call: ExecutorCall,
    body: string,
    started = performance.now(),
    read: AnswerReader = (address, response) => readAnswer(call, address, response),
    readPull: PullAnswerReader = (address, answer) => pullAnswer(call, address, answer),
  ): Promise<CallOutcome> {
    let outcome: CallOutcome;
    const scheme = frameSchemeOf(target.address);
    if (scheme !== undefined) {
      outcome = await this.sendFrame(scheme, target, call, body, readPull);
    } else {
      const endpoint = this.endpointOf(target.address);
      outcome =
        endpoint === null
          ? failed(
              call,
              target.address,
              'address',
              `invalid executor address ${JSON.stringify(target.address)}`,
            )
          : await this.send(target, endpoint, call, body, read);
    }
    outcome.latencyMs = performance.now() - started;
    this.options.onCall?.(outcome);
    return outcome;
  }

  /** One call over a frame transport; the answer frame's `answer` is read as the HTTP body. */
  private async sendFrame(
    scheme: FrameScheme,
    target: ExecutorAddress,
    call: ExecutorCall,
    body: string,
    read: PullAnswerReader,
  ): Promise<CallOutcome> {
    const instance = scheme.instanceOf(target.address);
    if (instance === undefined) {
      return failed(
        call,
        target.address,
        'address',
        `invalid executor address ${JSON.stringify(target.address)}`,
      );
    }
    const result = await this.callFrame(scheme, target.address, call, body);
    if (!result.ok) return failed(call, target.address, result.failure, result.msg);
    this.noteFrameAnswer(scheme, target.address, call, result.frame);
    const outcome = await read(target.address, result.frame.answer);
    if (outcome.failure === null) outcome.instance = instance;
    return outcome;
  }

  private async send(
    target: ExecutorAddress,
    endpoint: Endpoint,
    call: ExecutorCall,
    body: string,
    read: AnswerReader,
  ): Promise<CallOutcome> {
    const waitForSlot = this.slots.acquire(endpoint.origin);
    if (waitForSlot !== undefined && !(await waitForSlot)) {
      return failed(call, target.address, 'timeout', `timeout after ${this.options.timeoutMs} ms`);
    }
    const deadline = this.deadlines.start();
    try {
      const response = await this.agent.request({
        origin: endpoint.origin,
        path: endpoint.basePath + wirePath(call, target.protocol),
        method: 'POST',
        headers: this.headersFor(target),
        body,
        signal: deadline.signal,
      });
      this.noteBatchLimit(target.address, response.headers);
      this.noteRunKill(target.address, response.headers);
      const outcome = await read(target.address, response);
      const instance = instanceOf(response.headers);
      if (instance !== undefined && outcome.failure === null) outcome.instance = instance;
      return outcome;
    } catch (err) {
      if (deadline.timedOut) {
        return failed(call, target.address, 'timeout', `timeout after ${this.options.timeoutMs} ms`);
      }
      return failed(call, target.address, 'connection', connectionMessage(err));
    } finally {
      deadline.settle();
      this.slots.release(endpoint.origin, deadline.timedOut);
    }
  }

  private headersFor(target: ExecutorAddress): Record<string, string> {
    const token = target.accessToken ?? this.options.tokenFor?.(target) ?? this.options.accessToken;
    let headers = this.headersByToken.get(token);
    if (headers === undefined) {
      // Bounded: tokens are one per app (two while a rotation overlaps).
      if (this.headersByToken.size >= ENDPOINT_CACHE_LIMIT) this.headersByToken.clear();
      headers = { 'Content-Type': JSON_CONTENT_TYPE, [ACCESS_TOKEN_HEADER]: token };
      this.headersByToken.set(token, headers);
    }
    if (target.protocol !== 'G4') return headers;
    // XXL-JOB 3.5 executors refuse calls without the app name header.
    return { ...headers, [APP_NAME_HEADER]: target.appName };
  }

  private endpointOf(address: string): Endpoint | null {
    const cached = this.endpoints.get(address);
    if (cached !== undefined) return cached;
    if (this.endpoints.size >= ENDPOINT_CACHE_LIMIT) this.endpoints.clear();
    const endpoint = parseEndpoint(address);
    this.endpoints.set(address, endpoint);
    return endpoint;
  }
}

/**
 * Calls in flight per executor origin, at most what its connections carry at once; the others
 * wait here in arrival order. A call's timeout starts once it has a connection, so a backlog of
 * dispatches to a busy executor is not timed out by its wait in the queue. When a call times out
 * the executor is not answering, and the calls waiting for it fail as timed out at once: a hung
 * executor still costs them one timeout, not one per turn in the queue.
 */
class OriginSlots {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, ((granted: boolean) => void)[]>();

  constructor(private readonly limit: number) {}

  /** Takes a slot: undefined when one was free, else a promise of whether one was handed over. */
  acquire(origin: string): Promise<boolean> | undefined {
    const running = this.running.get(origin) ?? 0;
    if (running < this.limit) {
      this.running.set(origin, running + 1);
      return undefined;
    }
    return new Promise((grant) => {
      const queue = this.waiting.get(origin);
      if (queue === undefined) this.waiting.set(origin, [grant]);
      else queue.push(grant);
    });
  }

  /** Hands the slot to the next waiting call of the origin (none after a timeout), or frees it. */
  release(origin: string, timedOut: boolean): void {
    const queue = this.waiting.get(origin);
    if (queue !== undefined && timedOut) {
      this.waiting.delete(origin);
      for (const grant of queue) grant(false);
    } else {
      const next = queue?.shift();
      if (next !== undefined) {
        if (queue!.length === 0) this.waiting.delete(origin);
        next(true);
        return;
      }
    }
    const running = (this.running.get(origin) ?? 1) - 1;
    if (running === 0) this.running.delete(origin);
    else this.running.set(origin, running);
  }
}

/** A run's answer within a `runBatch`, or the failure of the whole request. */
type RunAnswerOrFailure = { code: number; msg: string | null } | CallOutcome<null>;

/** The runs split into batches of at most `limit` runs and about RUN_BATCH_MAX_BYTES characters of bodies. */
function batchesOf(runs: readonly QueuedRun[], limit: number): QueuedRun[][] {
  const batches: QueuedRun[][] = [];
  let batch: QueuedRun[] = [];
  let bytes = 0;
  for (const run of runs) {
    if (batch.length > 0 && (batch.length >= limit || bytes + run.body.length > RUN_BATCH_MAX_BYTES)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(run);
    bytes += run.body.length + 1;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * The answers of a `runBatch` answer: a ReturnT with code 200 whose payload lists `count`
 * `{code, msg}`. Anything else is no batch answer (undefined).
 */
function batchAnswers(json: unknown, count: number): RunAnswerOrFailure[] | undefined {
  if (json === undefined) return undefined;
  const answer = readReturnT(json);
  if (answer === null || answer.code !== 200) return undefined;
  const items = answer.content;
  if (!Array.isArray(items) || items.length !== count) return undefined;
  const answers: RunAnswerOrFailure[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const item = items[i] as { code?: unknown; msg?: unknown } | null;
    if (typeof item !== 'object' || item === null || !Number.isInteger(item.code)) return undefined;
    const msg = item.msg;
    if (msg != null && typeof msg !== 'string') return undefined;
    answers[i] = { code: item.code as number, msg: (msg as string | null | undefined) ?? null };
  }
  return answers;
}

/** The path of a call: G4 executors take a run on `trigger`. */
function wirePath(call: ExecutorCall, protocol: ProtocolGeneration): string {
  return call === 'run' && protocol === 'G4' ? 'trigger' : call;
}

function parseEndpoint(address: string): Endpoint | null {
  let url: URL;
  try {
    // callUrl adds the trailing slash a registered address may lack, so `<base>/<call>` has one slash.
    url = new URL(callUrl(address, ''));
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.search !== '' || url.hash !== '') return null;
  return { origin: url.origin, basePath: url.pathname };
}

/** Turns an executor's HTTP answer into a call outcome. */
type AnswerReader = (address: string, response: UndiciDispatcher.ResponseData) => Promise<CallOutcome>;

/** Turns a pull executor's answer (an answer frame's `answer`) into a call outcome. */
type PullAnswerReader = (address: string, answer: unknown) => CallOutcome | Promise<CallOutcome>;

/** The JSON value of a text; undefined when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A pull answer read as `readAnswer` reads an HTTP body. */
function pullAnswer(call: ExecutorCall, address: string, json: unknown): CallOutcome {
  const answer = readReturnT(json);
  if (answer === null) {
    return failed(
      call,
      address,
      'body',
      `answer is not a ReturnT: ${snippet(JSON.stringify(json) ?? 'undefined')}`,
    );
  }
  return {
    call,
    address,
    ok: answer.code === 200,
    code: answer.code,
    msg: answer.msg,
    content: answer.content,
    failure: null,
    latencyMs: 0,
  };
}

/**
 * A pull executor's `log` answer cut into one page by the rules of an HTTP answer (log-page.ts):
 * the same limits and the same cut lines, whatever the executor sent.
 */
async function pullLogPageAnswer(
  address: string,
  json: unknown,
  fromLineNum: number,
  limits: LogPageLimits,
): Promise<CallOutcome<LogPage>> {
  const bytes = Buffer.from(JSON.stringify(json) ?? '', 'utf8');
  return logPageOutcome(
    address,
    (async function* () {
      yield bytes;
    })(),
    fromLineNum,
    limits,
  );
}

/**
 * A `log` answer read as far as its page needs; the rest of the body is dropped (which closes
 * the connection when the executor was still sending).
 */
async function readLogPageAnswer(
  address: string,
  response: UndiciDispatcher.ResponseData,
  fromLineNum: number,
  limits: LogPageLimits,
): Promise<CallOutcome<LogPage>> {
  if (response.statusCode < 200 || response.statusCode > 299) {
    await response.body.dump();
    return failed('log', address, 'status', `HTTP ${response.statusCode}`) as CallOutcome<LogPage>;
  }
  try {
    return await logPageOutcome(address, response.body as AsyncIterable<Uint8Array>, fromLineNum, limits);
  } finally {
    if (!response.body.readableEnded) response.body.destroy();
  }
}

/** One page of a `log` answer's body as a call outcome; a body that is no log answer fails as `body`. */
async function logPageOutcome(
  address: string,
  body: AsyncIterable<Uint8Array>,
  fromLineNum: number,
  limits: LogPageLimits,
): Promise<CallOutcome<LogPage>> {
  try {
    const answer = await readLogPage(body, fromLineNum, limits);
    return {
      call: 'log',
      address,
      ok: answer.code === 200,
      code: answer.code,
      msg: answer.msg,
      content: answer.page,
      failure: null,
      latencyMs: 0,
    };
  } catch (err) {
    if (!(err instanceof LogAnswerError)) throw err;
    return failed('log', address, 'body', err.message) as CallOutcome<LogPage>;
  }
}

async function readAnswer(
  call: ExecutorCall,
  address: string,
  response: UndiciDispatcher.ResponseData,
): Promise<CallOutcome> {
  const { statusCode } = response;
  if (statusCode < 200 || statusCode > 299) {
    await response.body.dump();
    return failed(call, address, 'status', `HTTP ${statusCode}`);
  }
  const text = await readCapped(response.body);
  if (text === null) return failed(call, address, 'body', `answer larger than ${MAX_BODY_BYTES} bytes`);
  // Real XXL-JOB executors answer `text/html`: the content type is ignored, the body is JSON.
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return failed(call, address, 'body', `answer is not JSON: ${snippet(text)}`);
  }
  const answer = readReturnT(json);
  if (answer === null) return failed(call, address, 'body', `answer is not a ReturnT: ${snippet(text)}`);
  return {
    call,
    address,
    ok: answer.code === 200,
    code: answer.code,
    msg: answer.msg,
    content: answer.content,
    failure: null,
    latencyMs: 0,
  };
}

/**
 * The answer as a ReturnT, or null when it is not one. The usual shape (an integer `code`, a
 * string or no `msg`) is read directly, by `parseReturnT`'s rules, because its schema validation
 * costs 2–3 µs per call; anything unusual is left to `parseReturnT`, which decides.
 */
function readReturnT(json: unknown): ReturnT<unknown> | null {
  if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
    const { code, msg, content, data } = json as Record<string, unknown>;
    if (Number.isInteger(code) && (msg == null || typeof msg === 'string')) {
      const payload = content ?? data ?? null;
      return {
        code: code as number,
        msg: (msg as string | null | undefined) ?? null,
        content: payload,
        data: payload,
      };
    }
  }
  try {
    return parseReturnT(json);
  } catch {
    return null;
  }
}

/** Reads the body as UTF-8, or null once it passes the protocol's body limit. */
async function readCapped(body: UndiciDispatcher.ResponseData['body']): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  return chunks.length === 1
    ? (chunks[0] as Buffer).toString('utf8')
    : Buffer.concat(chunks).toString('utf8');
}

function failed(call: ExecutorCall, address: string, failure: CallFailure, msg: string): CallOutcome {
  return { call, address, ok: false, code: 500, msg, content: null, failure, latencyMs: 0 };
}

function connectionMessage(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  // Node's own socket errors already read "connect ECONNREFUSED 127.0.0.1:9999".
  if (message.startsWith('connect ')) return message;
  return typeof e?.code === 'string'
    ? `connection failed (${e.code}): ${message}`
    : `connection failed: ${message}`;
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > BODY_SNIPPET_CHARS ? `${flat.slice(0, BODY_SNIPPET_CHARS)}…` : flat);
}
