/**
 * The Executor: holds the registered handlers, takes the servers' calls (on its endpoint, on its
 * own port or mounted on another server; with the http-pull transport, over the connection it
 * keeps to a server; with the redis transport, from its Redis streams), runs triggers through
 * the lane table, reports results through the callback relay and keeps itself registered with
 * the servers.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  GLUE_TYPES,
  type HandleCallbackParam,
  type LogResult,
  pullAddress,
  type ReturnT,
  returnFail,
  returnSuccess,
  streamAddress,
  TickwheelError,
  type Transport,
  type TriggerParam,
  WireMessages,
} from '@tickwheel/protocol';
import { type CallbackDelivery, CallbackRelay } from './callback-relay.js';
import { type CallAnswerer, createCallAnswerer } from './calls.js';
import type { JobHandler } from './context.js';
import { createEndpoint, type Endpoint } from './endpoint.js';
import { JobLogs, type JobLogWriter } from './job-log.js';
import { Lanes, type RunnerChoice } from './lanes.js';
import { prepareLogDir } from './log-dir.js';
import { callPathUnder, normalizeMountPrefix } from './mount-path.js';
import { type ExecutorOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { PullConnection } from './pull-connection.js';
import { RedisStreamReader } from './redis-stream-reader.js';
import { RegistryHeartbeat } from './registry-heartbeat.js';
import type { Runner, RunOutcome } from './runner.js';
import { type HandlerHooks, InProcessRunner } from './runners/in-process.js';
import { createScriptRunner } from './runners/script.js';
import { assertCanRunAs, type ScriptAccount, scriptAccountOf } from './runners/script-user.js';
import { WorkerRunner } from './runners/worker.js';
import { ServerClient } from './server-client.js';

/** How a handler runs; see {@link Executor.handle}. */
export interface HandleOptions extends HandlerHooks {
  /**
   * `in-process` (default): the function runs on the executor's event loop; stopping is
   * cooperative through `ctx.signal`. `worker`: `module` runs in a worker thread that is
   * terminated on timeout, kill and cover-early, so even CPU-bound code really stops.
   */
  isolation?: 'in-process' | 'worker';
  /**
   * For `isolation: 'worker'`: a path (relative to the working directory) or file URL of an ES
   * module whose export named like the handler, or else its default export, is the handler.
   */
  module?: string | URL;
}

/** Options of {@link Executor.stop}. */
export interface StopOptions {
  /** Time to wait for accepted runs before stopping them; default the `stopTimeoutMs` option. */
  timeoutMs?: number;
}

/** A request listener for `http.createServer`, or a middleware for Express/Connect (`next` is called for other paths). */
export type ExecutorRequestListener = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  next?: (err?: unknown) => void,
) => void;

interface RegisteredHandler {
  name: string;
  handler: JobHandler | undefined;
  hooks: HandlerHooks;
  /** Set for worker isolation. */
  moduleUrl: string | undefined;
  /** Its runs' runner choice, made at its first run. */
  choice?: RunnerChoice;
}

type State = 'new' | 'starting' | 'running' | 'stopping' | 'stopped';

const NOT_RUNNING = 'executor is not running, run refused.';
const STOPPING = 'executor is stopping, run refused.';

/**
 * A Tickwheel executor. Create it with {@link createExecutor}.
 *
 * @example
 * const ex = createExecutor({ appName: 'orders', serverAddresses: ['http://scheduler:8080/'], accessToken: process.env.TW_TOKEN });
 * ex.handle('syncOrders', async (ctx) => {
 *   ctx.log('param', ctx.param);
 *   return 'synced';
 * });
 * await ex.start();
 * process.on('SIGTERM', () => void ex.stop());
 */
export class Executor {
  private readonly options: ResolvedOptions;
  private readonly handlers = new Map<string, RegisteredHandler>();
  private readonly jobLogs: JobLogs;
  private readonly lanes: Lanes;
  /** Answers the servers' calls, whichever transport brought them. */
  private readonly answerCall: CallAnswerer;
  private readonly endpoint: Endpoint;
  private readonly reports = new Set<Promise<void>>();
  /** Runs whose results are being reported, and who waits for them to be (`reported`). */
  private reporting = 0;
  private reportWaiters: Array<() => void> = [];
  private readonly logHolds = new LogHolds(LOG_HOLD_FOR_CALLBACK_MS);
  private state: State = 'new';
  private ownServer: http.Server | undefined;
  private mountPrefix: string | undefined;
  private mountedServer: { server: http.Server; unmount: () => void } | undefined;
  private relay: CallbackRelay | undefined;
  private serverClient: ServerClient | undefined;
  private heartbeat: RegistryHeartbeat | undefined;
  /** The connection to a server that http-pull calls come over. */
  private pull: PullConnection | undefined;
  /** The reader of the Redis streams that redis-transport runs and calls come from. */
  private streams: RedisStreamReader | undefined;
  private stopping: Promise<void> | undefined;
  private boundAddress: string | undefined;
  /** The user scripts run as, looked up at start; undefined for the executor's own. */
  private scriptAccount: ScriptAccount | undefined;
  /**
   * This executor's instance id: a random UUID made when the executor is created, so new each
   * time its process starts. Sent in every registration and announced on every answer
   * (`Tickwheel-Instance`): a server seeing another id at this address knows the runs the previous
   * process had are lost, and fails them at once.
   */
  readonly instanceId: string = randomUUID();

  constructor(options: ExecutorOptions) {
    this.options = resolveOptions(options);
    const { logger } = this.options;
    this.jobLogs = new JobLogs({
      logDir: this.options.logDir,
      layout: this.options.logLayout,
      retentionDays: this.options.logRetentionDays,
      clock: this.options.clock,
      logger,
    });
    this.lanes = new Lanes({
      chooseRunner: (trigger) => this.chooseRunner(trigger),
      openLog: (trigger) => this.jobLogs.open(trigger.logId, trigger.logDateTime),
      report: (trigger, outcome, log) => this.report(trigger, outcome, log),
      idleMs: this.options.laneIdleMs,
      acceptedLogIdTtlMs: this.options.acceptedLogIdTtlMs,
      acceptedLogIdLimit: this.options.acceptedLogIdLimit,
      acceptedLogIdDir: path.join(this.options.logDir, 'callbacklog'),
      clock: this.options.clock,
      logger,
    });
    this.answerCall = createCallAnswerer(
      {
        run: (trigger) => this.acceptRun(trigger),
        idleBeat: (param) => this.lanes.idleBeat(param),
        kill: (param) => this.lanes.kill(param),
        log: (param) => this.readLog(param.logId, param.logDateTim, param.fromLineNum),
      },
      logger,
    );
    this.endpoint = createEndpoint({
      accessToken: this.options.accessToken,
      requireAppName: this.options.protocol === 'G4',
      instance: this.instanceId,
      logger,
      answerCall: this.answerCall,
    });
  }

  /**
   * The address registered with the servers, known once started: the endpoint's base URL
   * (`http://127.0.0.1:9999/`, with `port: 0` carrying the port picked), with the http-pull
   * transport the pull address `pull://<instanceId>/`, with the redis transport the stream
   * address `stream://<instanceId>/`.
   */
  get address(): string | undefined {
    return this.boundAddress;
  }

  /**
   * How the servers reach this executor: `http` (it listens), `http-pull` (it connects out) or
   * `redis` (it reads its Redis streams).
   */
  get transport(): Transport {
    return this.options.transport;
  }

  /**
   * Registers a handler for BEAN jobs whose `executorHandler` is `name`. Handlers may be added
   * before or after `start()`; a name can be registered once. With `isolation: 'worker'` the
   * module's export runs (a function passed as well is not called) and the `init`/`destroy`
   * hooks run on the executor's thread when the job's lane opens and is released.
   *
   * @example
   * ex.handle('hello', async (ctx) => `hello ${ctx.param}`);
   * ex.handle('crunch', { isolation: 'worker', module: new URL('./crunch.js', import.meta.url) });
   */
  handle(name: string, handler: JobHandler, options?: HandleOptions): this;
  handle(name: string, options: HandleOptions & { isolation: 'worker'; module: string | URL }): this;
  handle(name: string, handlerOrOptions: JobHandler | HandleOptions, maybeOptions?: HandleOptions): this {
    const handler = typeof handlerOrOptions === 'function' ? handlerOrOptions : undefined;
    const options = (typeof handlerOrOptions === 'function' ? maybeOptions : handlerOrOptions) ?? {};
    this.handlers.set(name, registeredHandler(name, handler, options, this.handlers));
    return this;
  }

  /**
   * A listener serving the endpoint under `prefix` (`/xxl-job` → `/xxl-job/run`), for
   * `http.createServer(listener)` or as Express middleware (`app.use(ex.requestListener('/xxl-job'))`;
   * other paths go to `next`). An executor served this way opens no port of its own at `start()`
   * and needs `advertisedAddress` when it has servers to register with.
   */
  requestListener(prefix = ''): ExecutorRequestListener {
    const normalized = this.claimMount(prefix);
    return (req, res, next) => {
      const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '';
      const callPath = callPathUnder(normalized, url);
      if (callPath !== undefined) this.endpoint(req, res, callPath);
      else if (next) next();
      else this.endpoint(req, res, url);
    };
  }

  /**
   * Serves the endpoint under `prefix` on an existing server (plain `http`, Express's
   * `app.listen()` result, Fastify's `fastify.server`): requests under the prefix are answered
   * here, all others go to the server's own request listeners. The registered address is
   * `http://<host>:<server's port><prefix>/` unless `advertisedAddress` is set; call `start()`
   * after `server.listen()` (it waits for the server to listen).
   */
  mount(server: http.Server, prefix = ''): void {
    const listener = this.requestListener(prefix);
    const others = server.listeners('request') as Array<
      (req: http.IncomingMessage, res: http.ServerResponse) => void
    >;
    server.removeAllListeners('request');
    const route = (req: http.IncomingMessage, res: http.ServerResponse) => {
      listener(req, res, () => {
        for (const other of others) other.call(server, req, res);
      });
    };
    server.on('request', route);
    this.mountedServer = {
      server,
      unmount: () => {
        server.off('request', route);
        for (const other of others) server.on('request', other);
      },
    };
  }

  /**
   * Opens the endpoint (unless mounted; with http-pull or redis, none), re-sends spilled results,
   * registers with the servers and starts taking runs (with http-pull, connects to a server for
   * them; with redis, creates its streams' consumer group first and then reads them). Rejects
   * when the port cannot be opened, or Redis not reached within `serverCallTimeoutMs`.
   */
  async start(): Promise<void> {
    if (this.state !== 'new') {
      throw new TickwheelError(
        'TW_ERR_ALREADY_STARTED',
        'start: the executor was already started; create a new one',
      );
    }
    this.state = 'starting';
    try {
      await this.prepareScripts();
      await this.lanes.open();
      this.boundAddress = await this.openWayIn();
    } catch (err) {
      this.state = 'new';
      throw err;
    }
    this.jobLogs.startRetention();
    this.startServerLinks(this.boundAddress);
    this.state = 'running';
    // Once running, so the first calls over the connection are not refused as too early.
    this.startPull();
    this.streams?.start();
    this.warnAboutChoices();
    this.options.logger.info(
      {
        appName: this.options.appName,
        address: this.boundAddress,
        transport: this.options.transport,
        handlers: [...this.handlers.keys()],
      },
      'tickwheel executor started',
    );
  }

  /**
   * Checks the script user before anything listens, and closes the log directory to other users
   * (opening to that user only the way to its script files).
   */
  private async prepareScripts(): Promise<void> {
    const { scriptUser, enableScripts, logDir, logger } = this.options;
    if (scriptUser !== undefined) {
      assertCanRunAs(scriptUser);
      this.scriptAccount = scriptAccountOf(scriptUser);
    }
    await prepareLogDir(logDir, enableScripts && scriptUser !== undefined, logger);
  }

  /**
   * Graceful stop: refuses new runs, unregisters (`registryRemove`), waits up to `timeoutMs` for
   * accepted runs to finish, stops the rest (reported as killed), flushes results to the servers
   * (or the spill file) and closes the endpoint (or the pull connection). With redis it first
   * stops reading runs (calls are still answered during the drain) and closes its Redis
   * connections last. Calling it again returns the same promise.
   */
  stop(options: StopOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? this.options.stopTimeoutMs;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 0) {
      return Promise.reject(
        new TickwheelError('TW_ERR_INVALID_OPTION', 'timeoutMs: must be an integer >= 0', 'timeoutMs'),
      );
    }
    this.stopping ??= this.shutdown(timeoutMs);
    return this.stopping;
  }

  private async shutdown(timeoutMs: number): Promise<void> {
    if (this.state === 'new') {
      this.state = 'stopped';
      this.mountedServer?.unmount();
      return;
    }
    if (this.state === 'starting') await waitUntil(() => this.state !== 'starting');
    this.state = 'stopping';
    await this.streams?.stopReadingRuns();
    await this.heartbeat?.stop();
    if (!(await this.lanes.whenIdle(timeoutMs))) {
      this.options.logger.warn({ timeoutMs }, 'runs still going at stop; stopping them');
    }
    await this.lanes.closeAll();
    // Stopped runs settle a moment after their abort; their results must be among the flushed ones.
    await this.lanes.whenIdle(1_000);
    await Promise.all([...this.reports]);
    await this.reported();
    await this.lanes.close();
    await this.relay?.stop();
    this.serverClient?.close();
    this.jobLogs.stopRetention();
    await this.jobLogs.close();
    await this.closeEndpoint();
    this.state = 'stopped';
    this.options.logger.info({ appName: this.options.appName }, 'tickwheel executor stopped');
  }

  private claimMount(prefix: string): string {
    if (this.options.transport === 'http-pull') {
      throw new TickwheelError(
        'TW_ERR_INVALID_OPTION',
        'transport: an http-pull executor serves no HTTP endpoint, so it cannot be mounted; its calls come over its connection to a server',
        'transport',
      );
    }
    if (this.options.transport === 'redis') {
      throw new TickwheelError(
        'TW_ERR_INVALID_OPTION',
        'transport: a redis executor serves no HTTP endpoint, so it cannot be mounted; its calls come from its Redis streams',
        'transport',
      );
    }
    const normalized = normalizeMountPrefix(prefix);
    if (this.mountPrefix !== undefined && this.mountPrefix !== normalized) {
      throw new TickwheelError(
        'TW_ERR_INVALID_OPTION',
        `prefix: the endpoint is already mounted under ${JSON.stringify(this.mountPrefix || '/')}`,
        'prefix',
      );
    }
    if (this.state !== 'new') {
      throw new TickwheelError('TW_ERR_ALREADY_STARTED', 'mount: mount the endpoint before start()');
    }
    this.mountPrefix = normalized;
    return normalized;
  }

  /**
   * The way the servers' calls come in, and the address it gives: the pull address, the stream
   * address once its consumer groups exist (a run written after registration is never missed),
   * or the endpoint.
   */
  private async openWayIn(): Promise<string | undefined> {
    const { transport, redis, serverCallTimeoutMs, logger } = this.options;
    if (transport === 'http-pull') return pullAddress(this.instanceId);
    if (transport === 'redis') {
      const streams = new RedisStreamReader({
        url: redis!,
        instance: this.instanceId,
        answerCall: this.answerCall,
        reportRefusal: (result) => this.reportRefusal(result),
        connectTimeoutMs: serverCallTimeoutMs,
        logger,
      });
      await streams.open();
      this.streams = streams;
      return streamAddress(this.instanceId);
    }
    return this.openEndpoint();
  }

  /** Listens on the own port, or works out the address of the mounted endpoint. */
  private async openEndpoint(): Promise<string | undefined> {
    const { advertisedAddress, host, port, serverAddresses } = this.options;
    if (this.mountPrefix === undefined) {
      const server = http.createServer((req, res) => this.endpoint(req, res, req.url ?? ''));
      server.listen(port, host);
      await Promise.race([
        once(server, 'listening'),
        once(server, 'error').then(([err]) => Promise.reject(err)),
      ]);
      this.ownServer = server;
      return advertisedAddress ?? baseUrl(reachableHost(host), (server.address() as AddressInfo).port, '');
    }
    if (advertisedAddress) return advertisedAddress;
    if (this.mountedServer) {
      const { server } = this.mountedServer;
      if (!server.listening) await once(server, 'listening');
      return baseUrl(reachableHost(host), (server.address() as AddressInfo).port, this.mountPrefix);
    }
    if (serverAddresses.length > 0) {
      throw new TickwheelError(
        'TW_ERR_INVALID_OPTION',
        'advertisedAddress: is required when the endpoint is served through requestListener() (its port is not known here)',
        'advertisedAddress',
      );
    }
    return undefined;
  }

  private async closeEndpoint(): Promise<void> {
    await this.pull?.stop();
    await this.streams?.stop();
    this.mountedServer?.unmount();
    const server = this.ownServer;
    if (!server) return;
    this.ownServer = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const timer = setTimeout(() => server.closeAllConnections(), 1_000);
    await closed;
    clearTimeout(timer);
  }

  private startServerLinks(address: string | undefined): void {
    const { serverAddresses, accessToken, appName, protocol, logger } = this.options;
    if (serverAddresses.length === 0) return;
    const client = new ServerClient({
      serverAddresses,
      accessToken,
      appName,
      protocol,
      timeoutMs: this.options.serverCallTimeoutMs,
      logger,
    });
    this.serverClient = client;
    this.relay = new CallbackRelay({
      client,
      protocol,
      spillDir: path.join(this.options.logDir, 'callbacklog'),
      retryIntervalMs: this.options.callbackRetryIntervalMs,
      clock: this.options.clock,
      ...(address === undefined ? {} : { selfAddress: address }),
      logger,
    });
    this.relay.start();
    if (address === undefined) return;
    this.heartbeat = new RegistryHeartbeat({
      client,
      appName,
      address,
      handlerNames: () => this.handlers.keys(),
      instance: this.instanceId,
      intervalMs: this.options.heartbeatIntervalMs,
      clock: this.options.clock,
      logger,
    });
    this.heartbeat.start();
  }

  /** With http-pull, opens the connection the servers' calls come over. */
  private startPull(): void {
    const { transport, serverAddresses, accessToken, appName, logger } = this.options;
    if (transport !== 'http-pull') return;
    this.pull = new PullConnection({
      serverAddresses,
      accessToken,
      appName,
      instance: this.instanceId,
      answerCall: this.answerCall,
      handshakeTimeoutMs: this.options.serverCallTimeoutMs,
      silenceMs: this.options.pullSilenceMs,
      logger,
    });
    this.pull.start();
  }

  private warnAboutChoices(): void {
    const { logger, accessToken, serverAddresses, transport } = this.options;
    if (accessToken === undefined && transport === 'http-pull') {
      logger.warn(
        'executor running without an access token (insecure: true): it connects and registers with an empty token, which a server holding tokens refuses',
      );
    } else if (accessToken === undefined && transport === 'redis') {
      logger.warn(
        'executor running without an access token (insecure: true): it registers with an empty token, which a server holding tokens refuses; anyone who can write to its Redis streams can run its jobs',
      );
    } else if (accessToken === undefined) {
      logger.warn(
        { address: this.boundAddress },
        'executor running without an access token (insecure: true): anyone who can reach the endpoint can run its jobs',
      );
    }
    if (serverAddresses.length === 0) {
      logger.warn(
        'no serverAddresses: the executor registers nowhere and results are only written to the run logs',
      );
    }
  }

  private acceptRun(trigger: TriggerParam): ReturnT<null> | Promise<ReturnT<null>> {
    if (this.state === 'stopping' || this.state === 'stopped') return returnFail(STOPPING);
    if (this.state !== 'running') return returnFail(NOT_RUNNING);
    return this.lanes.run(trigger);
  }

  private async readLog(logId: number, logDateTim: number, fromLineNum: number): Promise<ReturnT<LogResult>> {
    return returnSuccess(await this.jobLogs.read(logId, logDateTim, fromLineNum));
  }

  private chooseRunner(trigger: TriggerParam): RunnerChoice {
    const { glueType } = trigger;
    if (!(GLUE_TYPES as readonly string[]).includes(glueType))
      return { refusal: WireMessages.glueTypeInvalid(glueType) };
    if (glueType === 'BEAN') {
      const registered = this.handlers.get(trigger.executorHandler);
      if (!registered) return { refusal: WireMessages.handlerNotFound(trigger.executorHandler) };
      // One choice a handler, not one a run.
      registered.choice ??= {
        identity: `BEAN:${registered.name}`,
        create: () => this.handlerRunner(registered),
      };
      return registered.choice;
    }
    if (!this.options.enableScripts) {
      return {
        refusal: `glueType[${glueType}] is not enabled: this executor does not run scripts (enableScripts is off).`,
      };
    }
    return {
      identity: `${glueType}:${trigger.glueUpdatetime}`,
      create: () =>
        createScriptRunner({
          jobId: trigger.jobId,
          glueType,
          glueSource: trigger.glueSource,
          glueUpdatetime: trigger.glueUpdatetime,
          logDir: this.options.logDir,
          logger: this.options.logger,
          account: this.scriptAccount,
          scriptEnv: this.options.scriptEnv,
        }),
    };
  }

  private handlerRunner(registered: RegisteredHandler): Runner {
    if (registered.moduleUrl !== undefined) {
      return new WorkerRunner({
        name: registered.name,
        moduleUrl: registered.moduleUrl,
        hooks: registered.hooks,
        stopGraceMs: this.options.workerStopGraceMs,
        logger: this.options.logger,
      });
    }
    // registeredHandler() guarantees a function for in-process handlers.
    return new InProcessRunner(registered.name, registered.handler!, registered.hooks);
  }

  /**
   * Sends the failed result of a run refused as it was read from Redis (no caller waits for the
   * refusal), so its record fails at once with the reason. Flushed at stop like the others.
   */
  private reportRefusal(result: HandleCallbackParam): void {
    const relay = this.relay;
    if (!relay) return;
    const done: Promise<void> = relay
      .push(result)
      .then((delivery) => {
        if (!delivery.delivered) {
          this.options.logger.debug(
            { logId: result.logId, reason: delivery.reason },
            'refusal result kept to re-send',
          );
        }
      })
      .catch((err: unknown) =>
        this.options.logger.error({ err, logId: result.logId }, 'reporting a refusal failed'),
      )
      .finally(() => this.reports.delete(done));
    this.reports.add(done);
  }

  /**
   * Sends a run's result; the run's log gets a line saying whether it was delivered, then closes.
   * While the servers answer quickly the run's file stays open for that line (one open a run);
   * when they are slow or down, thousands of runs could each hold a descriptor for the whole call
   * timeout, so a log still waiting after LOG_HOLD_FOR_CALLBACK_MS is closed then, and the line is
   * appended when the delivery settles. No promise or timer a run: the relay calls back, and one
   * timer closes the logs held too long.
   */
  private report(trigger: TriggerParam, outcome: RunOutcome, log: JobLogWriter): void {
    const relay = this.relay;
    if (!relay) {
      log.log('----------- result not reported: no serverAddresses configured');
      void log.close();
      return;
    }
    const result: HandleCallbackParam = {
      logId: trigger.logId,
      logDateTim: trigger.logDateTime,
      handleCode: outcome.code,
      handleMsg: outcome.msg,
    };
    if (outcome.output !== undefined) result.output = outcome.output;
    const hold = this.logHolds.hold(log);
    this.reporting++;
    relay.send(result, (delivery) => {
      hold.settled = true;
      try {
        log.log(deliveryLine(delivery, this.options.callbackRetryIntervalMs));
        void log.close();
      } catch (err) {
        this.options.logger.error({ err, logId: trigger.logId }, 'reporting a result failed');
      }
      if (--this.reporting === 0) for (const wake of this.reportWaiters.splice(0)) wake();
    });
  }

  /** Resolves once every run's result reported so far has had its first attempt (delivered or kept). */
  private reported(): Promise<void> {
    if (this.reporting === 0) return Promise.resolve();
    return new Promise((resolve) => this.reportWaiters.push(resolve));
  }
}

/** How long a run's log file is kept open waiting for its callback to settle. */
const LOG_HOLD_FOR_CALLBACK_MS = 250;

/** A run's log held open for its delivery line. */
interface LogHold {
  log: JobLogWriter;
  /** `performance.now()` when the hold began. */
  at: number;
  /** The delivery settled (its line written, the log closed): nothing left to do. */
  settled: boolean;
}

/**
 * The logs held for their delivery lines, oldest first (all are held equally long), with one
 * timer for the oldest: a log whose delivery has not settled by then is closed.
 */
class LogHolds {
  private holds: LogHold[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly holdMs: number) {}

  hold(log: JobLogWriter): LogHold {
    const hold: LogHold = { log, at: performance.now(), settled: false };
    this.holds.push(hold);
    if (this.timer === undefined) this.schedule(this.holdMs);
    return hold;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => this.expire(), ms);
    this.timer.unref();
  }

  private expire(): void {
    this.timer = undefined;
    const now = performance.now();
    const holds = this.holds;
    let head = this.head;
    for (; head < holds.length; head++) {
      const hold = holds[head]!;
      if (hold.settled) continue;
      if (now - hold.at < this.holdMs) break;
      void hold.log.close();
    }
    if (head === holds.length) {
      this.holds = [];
      this.head = 0;
      return;
    }
    if (head > 1024 && head * 2 > holds.length) {
      this.holds = holds.slice(head);
      head = 0;
    }
    this.head = head;
    this.schedule(Math.max(1, this.holds[head]!.at + this.holdMs - now));
  }
}

function deliveryLine(delivery: CallbackDelivery, retryIntervalMs: number): string {
  if (delivery.delivered) return `----------- callback delivered to ${delivery.address}`;
  const kept = delivery.spilled
    ? 'kept in the spill file'
    : 'kept in memory (the spill file could not be written)';
  return `----------- callback not delivered (${delivery.reason}); ${kept}, re-sent every ${Math.round(retryIntervalMs / 1000)} s`;
}

/** Validates a `handle()` registration; errors name the option at fault. */
function registeredHandler(
  name: string,
  handler: JobHandler | undefined,
  options: HandleOptions,
  existing: ReadonlyMap<string, RegisteredHandler>,
): RegisteredHandler {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new TickwheelError(
      'TW_ERR_INVALID_OPTION',
      'name: a handler name must be a non-blank string',
      'name',
    );
  }
  if (existing.has(name)) {
    throw new TickwheelError(
      'TW_ERR_DUPLICATE_HANDLER',
      `name: job handler [${name}] is already registered`,
      'name',
    );
  }
  for (const hook of ['init', 'destroy'] as const) {
    if (options[hook] !== undefined && typeof options[hook] !== 'function') {
      throw new TickwheelError('TW_ERR_INVALID_OPTION', `${hook}: must be a function`, hook);
    }
  }
  const hooks: HandlerHooks = { init: options.init, destroy: options.destroy };
  const isolation = options.isolation ?? 'in-process';
  if (isolation === 'in-process') {
    if (typeof handler !== 'function') {
      throw new TickwheelError(
        'TW_ERR_INVALID_OPTION',
        'handler: an in-process handler must be a function',
        'handler',
      );
    }
    return { name, handler, hooks, moduleUrl: undefined };
  }
  if (isolation !== 'worker') {
    throw new TickwheelError(
      'TW_ERR_INVALID_OPTION',
      "isolation: must be 'in-process' or 'worker'",
      'isolation',
    );
  }
  return { name, handler, hooks, moduleUrl: moduleUrlOf(options.module) };
}

function moduleUrlOf(module: string | URL | undefined): string {
  if (module === undefined) {
    throw new TickwheelError(
      'TW_ERR_INVALID_OPTION',
      "module: is required with isolation: 'worker'",
      'module',
    );
  }
  let url: URL;
  if (module instanceof URL) url = module;
  else if (typeof module === 'string' && module.startsWith('file:')) url = new URL(module);
  else if (typeof module === 'string' && module.trim() !== '') url = pathToFileURL(path.resolve(module));
  else throw new TickwheelError('TW_ERR_INVALID_OPTION', 'module: must be a path or a file URL', 'module');
  if (url.protocol !== 'file:') {
    throw new TickwheelError(
      'TW_ERR_INVALID_OPTION',
      `module: must be a file URL, got ${url.href}`,
      'module',
    );
  }
  if (!existsSync(fileURLToPath(url))) {
    throw new TickwheelError(
      'TW_ERR_INVALID_OPTION',
      `module: file not found: ${fileURLToPath(url)}`,
      'module',
    );
  }
  return url.href;
}

/**
 * The host to register for a listening host: a wildcard (`0.0.0.0`, `::`) cannot be called, so
 * the machine's first external IPv4 address stands in for it, as XXL-JOB does
 * (`advertisedAddress` overrides this when that is not the right one).
 */
function reachableHost(host: string): string {
  if (host !== '0.0.0.0' && host !== '::') return host;
  for (const addresses of Object.values(os.networkInterfaces())) {
    const external = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (external) return external.address;
  }
  return '127.0.0.1';
}

function baseUrl(host: string, port: number, prefix: string): string {
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return `http://${hostPart}:${port}${prefix}/`;
}

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}
