/**
 * The composition of one server node, each part made after everything it calls, in the order a
 * fire travels:
 *
 *   store → secrets → metrics → shard leases → executor directory → send fence → dispatcher
 *   → fire pipeline → scheduler → result recorder → failure decisions, child jobs, workflows
 *   → monitors → HTTP (executor API, REST API, ops) → listen
 *
 * Two hops go back, each through one explicit call made once the later part exists: the metrics
 * read the gauges of the scheduler and the pipeline (`metrics.readFrom`), and the result recorder
 * announces finished records to what follows them (`recorder.announceTo`), which itself finishes
 * records through the recorder (a workflow stop) — the loop of a fire's life, not of the build.
 *
 * Starting runs the registry monitor first (the directory is filled before the first dispatch),
 * then the scheduler and the lost-run, retry, reports, retention, owed-children and owed-alarm
 * monitors, and opens HTTP last. With `deferScheduling` what sends fires (the scheduler, the
 * retries, the owed child jobs) waits for `startScheduling()`, so executors of the embedder's
 * own process can register over HTTP first (`tickwheel start --demo`).
 *
 * `stop()` undoes it in reverse: stop taking HTTP, stop the scheduler (fires still waiting in
 * the wheel stay `pending` for the next start), drain the dispatches in flight (bounded),
 * write the results in flight, stop the monitors, close the executor connections and the store.
 */
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { type Logger, pino } from 'pino';
import { afterRuns } from './after-runs.js';
import { AlarmQueue } from './alarms/alarm-queue.js';
import type { AlarmSink } from './alarms/alarm-sink.js';
import { Auth, registerRestApi, sendUnknownRoute } from './api/index.js';
import { ChildTrigger } from './child-jobs/child-trigger.js';
import { registerConsole } from './console-static.js';
import { Dispatcher } from './dispatch/dispatcher.js';
import { FirePipeline } from './dispatch/fire-pipeline.js';
import { PullConnections } from './dispatch/pull-connections.js';
import { RedisStreams } from './dispatch/redis-streams.js';
import { SendFence } from './dispatch/send-fence.js';
import { AppCredentials } from './executor-api/app-credentials.js';
import { ResultRecorder, registerExecutorApi } from './executor-api/index.js';
import { registerPullEndpoint } from './executor-api/pull-endpoint.js';
import { ExecutorDirectory, manualAddresses } from './executors/directory.js';
import type { ExecutorMetrics } from './executors/metrics.js';
import { LostRunMonitor } from './monitors/lost-runs.js';
import { OwedAlarmMonitor } from './monitors/owed-alarms.js';
import { OwedChildrenMonitor } from './monitors/owed-children.js';
import { RegistryMonitor } from './monitors/registry.js';
import { ReportsMonitor } from './monitors/reports.js';
import { RetentionMonitor } from './monitors/retention.js';
import { RetryMonitor } from './monitors/retries.js';
import { createMetrics, type Metrics, registerOps } from './ops/index.js';
import { type ResolvedServerOptions, resolveServerOptions, type ServerOptions } from './options.js';
import { FailureDecisions } from './retries/failure-decisions.js';
import { type Clock, DatabaseClock, shiftedClock } from './scheduling/clock.js';
import { InFlightFires } from './scheduling/in-flight.js';
import { resolveSchedulingOptions } from './scheduling/options.js';
import { createScheduler, createShardLeases } from './scheduling/scheduler.js';
import { registerSecurityHeaders } from './security/http-headers.js';
import {
  forgetInitialSecretsOf,
  keepInitialSecretsWhileValid,
  narrowInitialSecretsFile,
  writeInitialSecrets,
} from './security/initial-secrets-file.js';
import { NetworkRules } from './security/network-rules.js';
import { warnLooseModes } from './security/owner-only-files.js';
import { type EnsuredSecrets, ensureSecrets } from './security/secrets.js';
import { registerServerStore } from './server-store.js';
import { openStore } from './store/connect.js';
import { warnConnectionErrors } from './store/connection-faults.js';
import type { SettingRepository, Store } from './store/index.js';
import { waitForDatabase } from './store/wait-for-database.js';
import { fireOnce, type TriggeredFire, type TriggerJobRequest, triggerJob } from './trigger.js';
import { WorkflowEngine } from './workflows/engine.js';
import { WorkflowSweep } from './workflows/monitor.js';
import { WorkflowScheduler } from './workflows/scheduler.js';
import { stopFire } from './workflows/stop-fire.js';

/** Secrets generated at this start; print them once (only hashes are kept of some). */
export interface FirstStartSecrets {
  adminUsername: string;
  adminPassword?: string;
  /** The executor access token, when this start generated it. */
  accessToken?: string;
  apiToken?: string;
}

/** A running server node. */
export interface TickwheelServer {
  /** Base URL of the HTTP API, e.g. `http://127.0.0.1:8080/` (executors register under `api/registry`). */
  readonly url: string;
  readonly port: number;
  /** The executor access token in force (give it to executors). */
  readonly accessToken: string;
  /** What this start generated (empty `generated` fields at every later start). */
  readonly firstStartSecrets: FirstStartSecrets;
  /**
   * The file keeping the first start's secrets (`<dataDir>/initial-secrets.txt`), while it
   * exists: until the admin's first password is changed. Undefined once it is gone.
   */
  readonly initialSecretsFile: string | undefined;
  /**
   * The server-wide settings, for `readRetentionSettings(server.settings)` and
   * `writeRetentionSettings(server.settings, …)` (the REST API is the stable way to the rest).
   */
  readonly settings: Pick<SettingRepository, 'getSetting' | 'setSetting'>;
  readonly logger: Logger;
  /**
   * Starts scheduling on a server created with `deferScheduling` (see the option); does
   * nothing when it runs already.
   */
  startScheduling(): Promise<void>;
  /** The addresses of the app's executors this node sees online (registered and not yet dead). */
  executorsOnline(appName: string): string[];
  /** Fires a job once, now (what the REST API's `triggerJob` does). */
  triggerJob(request: TriggerJobRequest): Promise<TriggeredFire>;
  /** Graceful stop; see the module comment for what happens to fires in flight. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Opens the store (applying migrations), makes the first-start secrets, starts scheduling and
 * listens. Resolves once the server accepts requests.
 *
 * @example
 * const server = await createServer({ port: 8080, dataDir: './data' });
 * console.log(`executors: serverAddresses ['${server.url}'], accessToken '${server.accessToken}'`);
 * process.once('SIGTERM', () => void server.stop());
 */
export async function createServer(options: ServerOptions = {}): Promise<TickwheelServer> {
  const resolved = resolveServerOptions(options);
  const logger = resolved.logger ?? pino({ level: resolved.logLevel, base: { nodeId: resolved.nodeId } });
  const store = await waitForDatabase(
    () =>
      openStore({
        database: resolved.database,
        dataDir: resolved.dataDir,
        poolSize: resolved.databasePoolSize,
        connectTimeoutMs: resolved.databaseConnectTimeoutMs,
        statementTimeoutMs: resolved.databaseStatementTimeoutMs,
        applicationName: `tickwheel:${resolved.nodeId}`,
        onConnectionError: warnConnectionErrors(logger.child({ part: 'store' })),
      }),
    { waitMs: resolved.databaseWaitMs, logger: logger.child({ part: 'store' }) },
  );
  try {
    return await startOnStore(store, resolved, logger);
  } catch (err) {
    await store.close();
    throw err;
  }
}

async function startOnStore(
  store: Store,
  o: ResolvedServerOptions,
  logger: Logger,
): Promise<TickwheelServer> {
  // Once a start: what an earlier version left open to other users is owner-only from now on.
  warnLooseModes(logger, [
    ...(store.connection.dialect === 'sqlite' ? (store.connection.looseModes ?? []) : []),
    ...narrowInitialSecretsFile(o.initialSecretsFile),
  ]);
  // One clock: the database's. The local clock (shifted by `internal.clockOffsetMs` in tests)
  // corrected by the offset measured from the database, before anything reads the time.
  const localClock = shiftedClock(o.clock, o.clockOffsetMs);
  const databaseClock = o.databaseClock ? new DatabaseClock(localClock) : undefined;
  await databaseClock?.sync(() => store.leases.databaseNow());
  const clock: Clock = databaseClock ?? localClock;
  const secrets = await ensureSecrets(
    store,
    {
      adminPassword: o.adminPassword,
      executorAccessToken: o.accessToken,
      apiToken: o.apiToken,
      generateApiToken: o.generateApiToken,
    },
    clock.now(),
  );
  const accessToken = secrets.executorAccessToken;
  let initialSecretsFile = await keepInitialSecrets(
    o.initialSecretsFile,
    secrets,
    store,
    clock.now(),
    logger,
  );

  const metrics: Metrics = createMetrics({
    databaseClockOffsetSeconds: () => (databaseClock?.offsetMs ?? 0) / 1000,
    sqliteHotWaiting: () =>
      store.connection.dialect === 'sqlite' ? (store.connection.hot?.waiting ?? 0) : 0,
  });
  store.fires.observeHotStatements({
    statement: (stage, ms, records) => metrics.stageDone(stage, ms, records),
    claimed: (result, nowMs) => {
      for (const fire of result.fires) metrics.fireClaimed(fire.scheduledAt - nowMs);
    },
  });
  // SQLite: the WAL is folded back into the file on a thread of its own, never on the server's;
  // the hot statements run on another (store/sqlite-hot-thread.ts).
  if (store.connection.dialect === 'sqlite') {
    const storeLogger = logger.child({ part: 'store' });
    const checkpointing = await store.connection.checkpointer?.start(storeLogger, (checkpoint) =>
      metrics.walCheckpointed(checkpoint),
    );
    if (o.sqliteHotThread) {
      await store.connection.hot?.start(storeLogger, { checkpointing: checkpointing === true });
    }
  }
  const executorMetrics: ExecutorMetrics = {
    // Results are counted once per record finalised (the recorder's hook), not per callback sent.
    callbackResult: () => {},
    fireFinished: () => {},
    executorsOnline: (count) => metrics.setExecutorsOnline(count),
    authFailure: (path) => metrics.executorAuthFailed(path),
  };

  // Where the server connects on someone else's say-so: executors and alarm channels.
  const networkRules = new NetworkRules({ allowedNetworks: o.allowedNetworks });
  // This node's base URL for the other nodes (pull relays); with port 0 known once it listens.
  let advertiseUrl = o.advertiseUrl ?? `http://${urlHost(o.host)}:${o.port}/`;
  // The scheduling engine's options, resolved once for the leases and the planner.
  const schedulingOptions = resolveSchedulingOptions({
    nodeId: o.nodeId,
    lookAheadMs: o.lookAheadMs,
    misfireWindowMs: o.misfireWindowMs,
    clock,
    databaseClock: databaseClock !== undefined,
    logger: logger.child({ part: 'scheduler' }),
    shardCount: o.shardCount,
    leaseRenewalIntervalMs: o.leaseRenewalIntervalMs,
    tickIntervalMs: o.tickIntervalMs,
    claimBatchSize: o.claimBatchSize,
    recordAheadMs: o.recordAheadMs,
    prepareAheadMs: o.prepareAheadMs,
    wheelResolutionMs: o.wheelResolutionMs,
    leaseTtlMs: o.leaseTtlMs,
  });
  // The shard leases: which jobs this node schedules, and the fencing token of every send.
  const leases = createShardLeases(store, schedulingOptions, () => advertiseUrl);
  // Pull executors' connections to this node, and the calls to those connected elsewhere.
  const pulls = new PullConnections({
    nodeId: o.nodeId,
    relayToken: accessToken,
    store: store.pullConnections,
    clock,
    // Rows of nodes that stopped heartbeating are ignored (with a margin over the leases' rule).
    nodeAliveWindowMs: () => Math.max(leases.nodeLiveWindowMs, PULL_NODE_ALIVE_MIN_MS),
    logger: logger.child({ part: 'pull' }),
    pingIntervalMs: o.pullPingIntervalMs,
  });
  // Redis-stream executors' streams (--redis): connected now; a Redis that is down is logged and
  // tried again, and runs to those executors wait pending meanwhile.
  const streams =
    o.redis === undefined
      ? undefined
      : new RedisStreams({
          url: o.redis,
          nodeId: o.nodeId,
          callTimeoutMs: o.executorCallTimeoutMs,
          logger: logger.child({ part: 'redis' }),
        });
  streams?.start();
  const credentials = new AppCredentials({ installationToken: accessToken, apps: store.apps, clock });
  const directory = new ExecutorDirectory({
    apps: store.apps,
    registry: store.registry,
    clock,
    installationToken: accessToken,
    deadTimeoutMs: o.executorDeadAfterMs,
    metrics: executorMetrics,
  });
  // Right before each run goes out: the fire is still pending and, for a planner's fire, this
  // node holds its shard lease.
  const sendFence = new SendFence({
    fenceSends: (nowMs, sends) => store.fires.fenceSends(o.nodeId, nowMs, sends),
    leases,
    now: () => clock.now(),
    batchSize: o.pipelineBatchSize,
    // The claim's share of the database comes first while it is behind (send-fence.ts).
    claimBehind: () => scheduler.planner.claimBehind,
  });
  const dispatcher = new Dispatcher({
    accessToken,
    // Each app's executors are called with the app's token.
    tokenFor: (target) => directory.tokenFor(target.appName, target.address),
    callTimeoutMs: o.executorCallTimeoutMs,
    now: () => clock.now(),
    fence: (send) => sendFence.admit(send),
    fenceMany: (sends) => sendFence.admitMany(sends),
    networkRules,
    pull: pulls,
    ...(streams === undefined ? {} : { stream: streams }),
  });

  // The records this process is dispatching: the planner's hand-overs and the trigger paths' records.
  const inFlight = new InFlightFires(clock);
  const firePipeline = new FirePipeline({
    store,
    dispatcher,
    executors: {
      addressesOf: (app) => directory.addressesOfApp(app),
      generationOf: (app, address) => directory.generationOf(app.app_name, address),
    },
    clock,
    logger: logger.child({ part: 'pipeline' }),
    batchSize: o.pipelineBatchSize,
    dispatchesInFlight: dispatcher.capacity + 100,
    markHoldMs: o.dispatchMarkHoldMs,
    sendAsClaimed: o.sendAsClaimed,
    batchSends: o.batchSends,
    onMarksWritten: (count, withResults) => metrics.marksWritten(withResults, count),
    onLoaded: (ms, records) => metrics.stageDone('load', ms, records),
    // What this process is dispatching, which the planner's recovery leaves alone; the pipeline
    // takes out what it left pending and keeps in what it goes on trying to send.
    inFlight,
    onDispatched: (fire, outcome) => {
      metrics.fireDispatched({
        triggerType: fire.trigger_type,
        dueAt: fire.trigger_type === 'MISFIRE' ? fire.created_at : fire.scheduled_at,
        triggerAt: outcome.triggerAt,
        latencyMs: outcome.latencyMs,
        triggerCode: outcome.triggerCode,
        lane: outcome.lane,
      });
    },
  });
  const scheduler = createScheduler(store, firePipeline, schedulingOptions, {
    leases,
    onHeldBack: behindReport(metrics, logger.child({ part: 'scheduler' }), clock),
    inFlight,
  });
  metrics.readFrom({
    wheelSize: () => scheduler.planner.waiting,
    shardsOwned: () => leases.ownedShards().length,
    pipelineBacklog: () => firePipeline.backlog,
    claimBehind: () => (scheduler.planner.claimBehind ? 1 : 0),
  });

  // Results: every finished record is announced to what follows it (after-runs.ts, FIX_DELAY).
  // What follows is made after the recorder and given it (a failure's decision may settle a
  // broadcast, a workflow stop finishes fires), so the recorder is told it last, below.
  const recorder = new ResultRecorder({
    fires: store.fires,
    clock,
    logger: logger.child({ part: 'results' }),
    metrics: executorMetrics,
    // While a burst of due fires is being sent, results wait (at most a second, 20,000 of them).
    giveWay: firePipeline.giveWay(RESULTS_GIVE_WAY_CAP),
    // A short run's dispatch mark is written with its result (one write of the record fewer).
    heldMarks: firePipeline.heldMarks,
  });
  // Failures raise alarms into the alarm queue, which sends them through the job's channels.
  const alarmQueue = new AlarmQueue({
    store,
    clock,
    logger: logger.child({ part: 'alarms' }),
    limits: o.alarmLimits,
    networkRules,
  });
  const alarmSink: AlarmSink = o.alarmSink ?? alarmQueue;
  const decisions = new FailureDecisions({
    store,
    alarms: alarmSink,
    clock,
    logger: logger.child({ part: 'retries' }),
    // Owed alarms are held and renewed by the alarm queue; a sink of the embedder's keeps no record.
    ...(o.alarmSink === undefined ? { alarmHoldMs: o.alarmLimits.holdMs } : {}),
  });
  const childTrigger = new ChildTrigger({
    store,
    pipeline: firePipeline,
    inFlight,
    clock,
    logger: logger.child({ part: 'child-jobs' }),
  });
  // Workflows: runs move on when their nodes' records finish (the result hook below).
  const workflowEngine = new WorkflowEngine({
    store,
    pipeline: firePipeline,
    inFlight,
    clock,
    logger: logger.child({ part: 'workflows' }),
    stopFire: stopFire({
      store,
      dispatcher,
      finishFires: (results) => recorder.record(results),
      clock,
      logger: logger.child({ part: 'workflows' }),
    }),
    alarmRunFailed: (workflow, run, reason) => alarmQueue.raiseWorkflowRun(workflow, run, reason),
  });
  const retriesAlarmsChildren = afterRuns({ decisions, children: childTrigger, workflows: workflowEngine });
  recorder.announceTo(async (finished) => {
    for (const fire of finished) metrics.resultRecorded(fire.handleCode);
    await firePipeline.onFiresFinished(finished);
    return retriesAlarmsChildren(finished);
  });
  const retries = new RetryMonitor({
    store,
    pipeline: firePipeline,
    leases,
    decisions,
    recorder,
    clock,
    logger: logger.child({ part: 'retry-monitor' }),
    ...o.monitors.retries,
  });

  const triggerDeps = {
    store,
    pipeline: firePipeline,
    inFlight,
    clock,
    knownAddresses: (app: { app_name: string; address_list: string | null }) => [
      ...directory.registeredOf(app.app_name).map((e) => e.address),
      ...manualAddresses(app.address_list),
    ],
  };

  const lease = { leases: store.leases, nodeId: o.nodeId, databaseClock: databaseClock !== undefined };
  const registryMonitor = new RegistryMonitor({
    registry: store.registry,
    apps: store.apps,
    directory,
    lease,
    clock,
    logger: logger.child({ part: 'registry-monitor' }),
    ...o.monitors.registry,
  });
  const lostRunMonitor = new LostRunMonitor({
    fires: store.fires,
    recorder,
    lease,
    clock,
    logger: logger.child({ part: 'lost-run-monitor' }),
    ...o.monitors.lostRuns,
    registry: store.registry,
    idleBeat: (target, jobId) => dispatcher.idleBeat(target, jobId),
  });
  const reportsMonitor = new ReportsMonitor({
    reports: store.reports,
    settings: store.settings,
    lease,
    clock,
    logger: logger.child({ part: 'reports-monitor' }),
    ...o.monitors.reports,
  });
  const retentionMonitor = new RetentionMonitor({
    fires: store.fires,
    settings: store.settings,
    lease,
    clock,
    logger: logger.child({ part: 'retention-monitor' }),
    ...o.monitors.retention,
  });

  const owedChildrenMonitor = new OwedChildrenMonitor({
    childFires: store.childFires,
    children: childTrigger,
    lease,
    clock,
    logger: logger.child({ part: 'owed-children-monitor' }),
    ...o.monitors.owedChildren,
  });
  const workflowScheduler = new WorkflowScheduler({
    store,
    engine: workflowEngine,
    clock,
    logger: logger.child({ part: 'workflows' }),
    pollIntervalMs: o.workflowPollIntervalMs,
    misfireWindowMs: o.misfireWindowMs,
  });
  const workflowSweep = new WorkflowSweep({
    store,
    engine: workflowEngine,
    lease,
    clock,
    logger: logger.child({ part: 'workflow-sweep' }),
    intervalMs: o.workflowSweepIntervalMs,
    graceMs: o.workflowSweepGraceMs,
  });
  // Only the alarm queue holds owed alarms: with an embedder's sink, nothing is owed to sweep.
  const owedAlarmMonitor =
    o.alarmSink === undefined
      ? new OwedAlarmMonitor({
          owedAlarms: store.owedAlarms,
          fires: store.fires,
          jobs: store.jobs,
          alarms: alarmQueue,
          holdMs: o.alarmLimits.holdMs,
          lease,
          clock,
          logger: logger.child({ part: 'owed-alarm-monitor' }),
          ...o.monitors.owedAlarms,
        })
      : undefined;

  const app = buildHttpApp(logger, o.trustProxy);
  registerExecutorApi(app, {
    credentials,
    registry: store.registry,
    fires: store.fires,
    directory,
    recorder,
    onInstanceRegistered: (address, instance) => lostRunMonitor.failRestartedRuns(address, instance),
    clock,
    logger: logger.child({ part: 'executor-api' }),
    metrics: executorMetrics,
  });
  registerPullEndpoint(app, {
    credentials,
    pulls,
    clock,
    logger: logger.child({ part: 'pull' }),
    metrics: executorMetrics,
  });
  // Before the HTTP server closes (it would wait for the upgraded sockets): the calls in flight
  // on pull connections get their answers, then the connections close and the executors go to
  // another node.
  app.addHook('preClose', async () => pulls.close(o.executorCallTimeoutMs));
  const auth = new Auth({ store, now: () => clock.now() });
  registerRestApi(app, {
    store,
    clock,
    auth,
    dispatcher,
    // The REST API checked the addresses against the app's, with the same rule as triggerJob.
    triggerJob: async (job, request) => {
      const created = await fireOnce(triggerDeps, job, {
        triggerType: request.triggerType,
        executorParam: request.param,
        addressOverride: request.addresses,
      });
      return [created.fireId];
    },
    finishFires: (results) => recorder.record(results),
    executorDeadAfterMs: o.executorDeadAfterMs,
    alarmSendTimeoutMs: o.alarmLimits.sendTimeoutMs,
    networkRules,
    onAppCredentialsChanged: async () => {
      credentials.forget();
      await directory.refresh();
    },
    passwordChanged: async (username) => {
      if (initialSecretsFile === undefined) return;
      if (await forgetInitialSecretsOf(initialSecretsFile, username)) initialSecretsFile = undefined;
    },
    workflows: workflowEngine,
  });
  let schedulerRunning = false;
  registerOps(app, { store, auth, metrics, schedulerRunning: () => schedulerRunning });
  if (o.consoleDir !== undefined) await registerConsole(app, o.consoleDir);

  // What sends fires: the scheduler, the retries and the owed child jobs (deferScheduling holds them).
  let scheduling: Promise<void> | undefined;
  const startScheduling = () => {
    scheduling ??= (async () => {
      await scheduler.start();
      schedulerRunning = true;
      retries.start();
      owedChildrenMonitor.start();
      workflowScheduler.start();
      workflowSweep.start();
    })();
    return scheduling;
  };
  /** Stops what `startScheduling` started (nothing when it never ran); the fires left in the wheel. */
  const stopScheduling = async () => {
    if (scheduling === undefined) return [];
    await scheduling.catch(() => undefined);
    schedulerRunning = false;
    const waiting = await scheduler.stop();
    await Promise.all([
      retries.stop(),
      owedChildrenMonitor.stop(),
      workflowScheduler.stop(),
      workflowSweep.stop(),
    ]);
    await workflowEngine.idle();
    return waiting;
  };
  const started: Array<() => Promise<unknown>> = [];
  try {
    // The directory is filled before the first dispatch, and the scheduler runs before HTTP
    // opens, so nothing reaches a half-built node.
    await registryMonitor.start();
    started.push(() => registryMonitor.stop());
    if (!o.deferScheduling) {
      await startScheduling();
      started.push(stopScheduling);
    }
    lostRunMonitor.start();
    started.push(() => lostRunMonitor.stop());
    reportsMonitor.start();
    started.push(() => reportsMonitor.stop());
    retentionMonitor.start();
    started.push(() => retentionMonitor.stop());
    if (owedAlarmMonitor !== undefined) {
      owedAlarmMonitor.start();
      started.push(() => owedAlarmMonitor.stop());
    }
    await app.listen({ port: o.port, host: o.host });
  } catch (err) {
    for (const stopPart of started.reverse()) await stopPart();
    await app.close();
    await dispatcher.close();
    await streams?.close();
    throw err;
  }
  const port = listeningPort(app);
  const url = `http://${urlHost(o.host)}:${port}/`;
  advertiseUrl = o.advertiseUrl ?? url;
  logger.info({ url, database: store.dialect, nodeId: o.nodeId }, 'tickwheel server started');

  let stopping: Promise<void> | undefined;
  const stop = async () => {
    await app.close();
    // Retries and owed child jobs are sent through the pipeline: stop sending before it drains
    // (unsent ones stay pending).
    const waiting = await stopScheduling();
    firePipeline.stopAccepting();
    const drained = await firePipeline.drain(o.stopTimeoutMs);
    await Promise.all([
      lostRunMonitor.stop(),
      registryMonitor.stop(),
      reportsMonitor.stop(),
      retentionMonitor.stop(),
      owedAlarmMonitor?.stop(),
    ]);
    await recorder.idle();
    // Alarms raised by the last results get the rest of the stop time, then are recorded as not sent.
    await alarmQueue.stop(o.stopTimeoutMs);
    await dispatcher.close();
    await streams?.close();
    await store.close();
    logger.info(
      { leftPending: waiting.length, drained },
      drained
        ? 'tickwheel server stopped; fires not yet due stay pending for the next start'
        : 'tickwheel server stopped before every dispatch in flight finished; those records stay pending',
    );
  };

  const server: TickwheelServer = {
    url,
    port,
    accessToken,
    firstStartSecrets: {
      adminUsername: secrets.adminUsername,
      adminPassword: secrets.generated.adminPassword,
      accessToken: secrets.generated.executorAccessToken,
      apiToken: secrets.generated.apiToken,
    },
    get initialSecretsFile() {
      return initialSecretsFile;
    },
    settings: { getSetting: store.settings.getSetting, setSetting: store.settings.setSetting },
    logger,
    startScheduling,
    executorsOnline: (appName) => directory.registeredOf(appName).map((e) => e.address),
    triggerJob: (request) => triggerJob(triggerDeps, request),
    stop() {
      stopping ??= stop();
      return stopping;
    },
  };
  return registerServerStore(server, store);
}

/**
 * Keeps the first start's secrets in `file` when this start generated the admin password; at a
 * later start, keeps the file only while its password still works. Returns the file while it
 * exists. A file that cannot be written is logged, not fatal: the secrets are still shown.
 */
async function keepInitialSecrets(
  file: string | undefined,
  secrets: EnsuredSecrets,
  store: Store,
  nowMs: number,
  logger: Logger,
): Promise<string | undefined> {
  if (file === undefined) return undefined;
  const { generated } = secrets;
  try {
    if (generated.adminPassword === undefined) {
      return (await keepInitialSecretsWhileValid(file, store)) ? file : undefined;
    }
    await writeInitialSecrets(
      file,
      {
        adminUsername: secrets.adminUsername,
        adminPassword: generated.adminPassword,
        accessToken: generated.executorAccessToken,
        apiToken: generated.apiToken,
      },
      nowMs,
    );
    return file;
  } catch (err) {
    logger.warn({ file, err }, 'the initial secrets file could not be written or checked');
    return undefined;
  }
}

function buildHttpApp(logger: Logger, trustProxy: boolean | string[]): FastifyInstance {
  const app = Fastify({
    // The client's address (the sign-in rate limit counts by it) from X-Forwarded-For only when set.
    trustProxy,
    loggerInstance: logger.child({ part: 'http' }),
    // One line per executor callback would drown the log at thousands of fires a second.
    logController: new LogController({ disableRequestLogging: true }),
    // Executors keep connections alive; on close the idle ones are ended so stop() does not wait for them.
    forceCloseConnections: 'idle',
  }) as unknown as FastifyInstance;
  // Before any route, so every answer inherits them (HSTS follows trustProxy's protocol).
  registerSecurityHeaders(app);
  app.setNotFoundHandler(sendUnknownRoute);
  return app;
}

function listeningPort(app: FastifyInstance): number {
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the server is not listening on TCP');
  return address.port;
}

/** The host part of the server's own URL: a wildcard address is reached on loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** A node whose heartbeat is at most this old is alive for pull relays (at least). */
const PULL_NODE_ALIVE_MIN_MS = 5_000;

/** Results queued past which they are written even while a burst of due fires is being sent. */
const RESULTS_GIVE_WAY_CAP = 20_000;

/** How often at most the planner says it is holding claims back. */
const BEHIND_LOG_INTERVAL_MS = 10_000;

/**
 * The planner's `onHeldBack`: counts each claim held back and says so in the log at most every
 * BEHIND_LOG_INTERVAL_MS, with the claims held back since its previous line. The node is behind: the
 * fires wait as job rows, are claimed once it catches up and go out late; none is dropped.
 */
function behindReport(metrics: Metrics, logger: Logger, clock: Clock): (backlog: number) => void {
  let lastAt = Number.NEGATIVE_INFINITY;
  let since = 0;
  return (backlog) => {
    metrics.claimsHeldBack();
    since++;
    const now = clock.now();
    if (now - lastAt < BEHIND_LOG_INTERVAL_MS) return;
    logger.warn(
      { backlog, claimsHeldBack: since },
      'dispatch is behind: claims held back until the backlog of due fires goes down; fires go out late',
    );
    lastAt = now;
    since = 0;
  };
}
