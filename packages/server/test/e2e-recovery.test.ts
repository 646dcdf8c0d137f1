/**
 * Recovery of fires a server left pending when it was killed with SIGKILL mid-dispatch: trigger-
 * once records (MANUAL/API, no claim key) are recovered like claimed fires, and each record is
 * dispatched once after the restart, following its job's misfire policy. The executor sits behind
 * a relay that holds every `run` until the crash, so no first attempt ever reaches it.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createExecutor, type Executor } from '@tickwheel/executor';
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FireRow, openStore, type Store } from '../src/store/index.js';
import {
  ChildProcess,
  createApp,
  createJob,
  E2E_TOKEN,
  freePort,
  sleep,
  tempDir,
  waitFor,
} from './helpers/e2e.js';

const CLI_BIN = fileURLToPath(new URL('../../cli/bin/tickwheel.js', import.meta.url));
const CLI_MAIN = fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url));
const API_TOKEN = 'e2e-recovery-api-token-0123456789';
const APP = 'e2e-recovery';
/** The server's default misfire window (`tickwheel start` has no flag for it). */
const MISFIRE_WINDOW_MS = 5_000;

let dataDir: string;
let store: Store | undefined;
let executor: Executor | undefined;
let relay: Relay | undefined;
/** More executors and relays of a test, stopped after it. */
const extraExecutors: Executor[] = [];
const extraRelays: Relay[] = [];
const processes: ChildProcess[] = [];

beforeAll(() => {
  if (!existsSync(CLI_MAIN)) throw new Error(`${CLI_MAIN} is missing: run \`npx tsc -b\` first`);
});

afterEach(async () => {
  for (const child of processes.splice(0)) await child.kill();
  await executor?.stop({ timeoutMs: 0 });
  await relay?.close();
  for (const extra of extraExecutors.splice(0)) await extra.stop({ timeoutMs: 0 });
  for (const extra of extraRelays.splice(0)) await extra.close();
  await store?.close();
  executor = undefined;
  relay = undefined;
  store = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

/**
 * The address the executor registers: passes every call on to it, except that while `holding`
 * a `run` is held unanswered (and never passed on), as a dispatch stuck on the network would be.
 */
class Relay {
  holding = true;
  /** logIds of the `run` calls held. */
  readonly held: number[] = [];
  readonly url: string;

  private constructor(
    private readonly server: Server,
    port: number,
  ) {
    this.url = `http://127.0.0.1:${port}/`;
  }

  static async start(target: string): Promise<Relay> {
    const server = createHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const relay = new Relay(server, (server.address() as AddressInfo).port);
    server.on('request', (req, res) => {
      void readBody(req).then(async (body) => {
        if (relay.holding && req.url === '/run') {
          relay.held.push((JSON.parse(body) as { logId: number }).logId);
          return;
        }
        const answer = await fetch(new URL(req.url ?? '/', target), {
          method: req.method ?? 'POST',
          headers: Object.fromEntries(
            ['content-type', 'xxl-job-access-token']
              .filter((name) => typeof req.headers[name] === 'string')
              .map((name) => [name, req.headers[name] as string]),
          ),
          body,
        });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
        res.end(await answer.text());
      });
    });
    return relay;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/** `tickwheel start` on the data dir; resolves once it listens. */
async function startCli(port: number): Promise<ChildProcess> {
  const cli = new ChildProcess(
    [
      CLI_BIN,
      'start',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--data-dir',
      dataDir,
      '--token',
      E2E_TOKEN,
      '--api-token',
      API_TOKEN,
      '--log-level',
      'warn',
    ],
    {},
  );
  processes.push(cli);
  await cli.waitForOutput(/listening on/);
  return cli;
}

/**
 * Fires a job once through the REST API (a script's trigger: type API), on `addressList` when
 * given; returns its record's id.
 */
async function triggerOnce(url: string, jobId: number, addressList?: string[]): Promise<number> {
  const response = await fetch(`${url}api/v1/jobs/${jobId}/trigger`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(addressList === undefined ? {} : { addressList }),
  });
  expect(response.status).toBe(200);
  const { fireIds } = (await response.json()) as { fireIds: number[] };
  return fireIds[0]!;
}

async function record(id: number): Promise<FireRow> {
  return (await store!.fires.findFireById(id)) as FireRow;
}

describe('recovery of pending fires end to end', () => {
  it('re-sends each fire a SIGKILLed server had sent to its executor once after the restart, however late, and applies the misfire policy to one it had not sent', async () => {
    dataDir = await tempDir();
    store = await openStore({ database: `sqlite:${path.join(dataDir, 'tickwheel.db')}` });
    const appId = await createApp(store, APP);
    const noSchedule = { schedule_type: 'NONE', schedule_conf: '', executor_handler: 'count' };
    const fireNowJob = await createJob(store, {
      ...noSchedule,
      app_id: appId,
      name: 'trigger-once, fire now when late',
      misfire_strategy: 'FIRE_ONCE_NOW',
    });
    const doNothingJob = await createJob(store, {
      ...noSchedule,
      app_id: appId,
      name: 'trigger-once, skip when late',
      misfire_strategy: 'DO_NOTHING',
    });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const first = await startCli(port);

    const runs = new Map<number, number>();
    const executorPort = await freePort();
    relay = await Relay.start(`http://127.0.0.1:${executorPort}/`);
    executor = createExecutor({
      appName: APP,
      serverAddresses: [url],
      accessToken: E2E_TOKEN,
      host: '127.0.0.1',
      port: executorPort,
      advertisedAddress: relay.url,
      logDir: path.join(dataDir, 'executor-logs'),
      logger: pino({ level: 'silent' }),
      internal: { heartbeatIntervalMs: 500, callbackRetryIntervalMs: 500 },
    });
    executor.handle('count', async (ctx) => {
      runs.set(ctx.logId, (runs.get(ctx.logId) ?? 0) + 1);
    });
    await executor.start();
    await waitFor(
      async () => (await store!.registry.listAlive(0, APP)).some((r) => r.registry_value === relay!.url),
      { what: 'the executor registered at the relay' },
    );

    // A scheduled fire claimed and handed over, and two trigger-once records: all stuck at the relay.
    const onceJob = await createJob(store, {
      app_id: appId,
      name: 'once, fire now when late',
      schedule_type: 'ONCE',
      schedule_conf: String(Date.now() + 1_500),
      executor_handler: 'count',
      misfire_strategy: 'FIRE_ONCE_NOW',
    });
    await waitFor(() => relay!.held.length === 1, { what: 'the scheduled fire dispatched' });
    const scheduled = relay.held[0]!;
    const fireNow = await triggerOnce(url, fireNowJob.id);
    const doNothing = await triggerOnce(url, doNothingJob.id);
    await waitFor(() => relay!.held.length === 3, { what: 'both trigger-once records dispatched' });
    // Killed well within the 3 s the dispatcher waits for an answer: nothing is marked.
    await first.kill();
    const pendingAtCrash = await Promise.all([scheduled, fireNow, doNothing].map(record));
    // Each passed the send fence before its run went out: pending, with the executor it went to.
    expect(pendingAtCrash.map((f) => [f.status, f.trigger_type, f.claim_job_id === null, f.sent_to])).toEqual(
      [
        ['pending', 'CRON', false, relay.url],
        ['pending', 'API', true, relay.url],
        ['pending', 'API', true, relay.url],
      ],
    );
    expect(pendingAtCrash[0]!.job_id).toBe(onceJob.id);
    // And one the server had recorded but not sent yet when it died (no executor chosen).
    const [unsent] = await store.fires.createFires(
      [
        {
          jobId: doNothingJob.id,
          appId,
          scheduledAt: pendingAtCrash[2]!.scheduled_at,
          triggerType: 'API',
          executorHandler: 'count',
          executorParam: '',
        },
      ],
      Date.now(),
    );

    // Down for longer than the misfire window: every record is late when the server comes back.
    relay.holding = false;
    await sleep(
      Math.max(...pendingAtCrash.map((f) => f.scheduled_at)) + MISFIRE_WINDOW_MS + 100 - Date.now(),
    );
    await startCli(port);
    await waitFor(
      async () =>
        (await record(scheduled)).status === 'succeeded' &&
        (await record(fireNow)).status === 'succeeded' &&
        (await record(doNothing)).status === 'succeeded' &&
        (await record(unsent!)).status === 'skipped',
      { what: 'the recovered records settled' },
    );
    // Anything sent twice would have reached the executor by now.
    await sleep(500);

    // The runs held at the relay never reached the executor: each ran once, from the re-send,
    // DO_NOTHING's too (a sent run may be running, so it is never skipped as a misfire).
    expect(Object.fromEntries(runs)).toEqual({ [scheduled]: 1, [fireNow]: 1, [doNothing]: 1 });
    const [scheduledRecord, fireNowRecord, doNothingRecord, unsentRecord] = await Promise.all(
      [scheduled, fireNow, doNothing, unsent!].map(record),
    );
    // The scheduled fire had gone out on time: re-sent, it is still the CRON fire it was.
    expect(scheduledRecord.trigger_type).toBe('CRON');
    // A trigger-once record keeps its trigger type whatever the policy did with it.
    expect(fireNowRecord.trigger_type).toBe('API');
    expect(doNothingRecord.trigger_type).toBe('API');
    expect(doNothingRecord.trigger_msg).toMatch(/re-sent to .*where it was sent before/);
    expect(unsentRecord.handle_msg).toMatch(/server stopped before dispatching/);
  }, 30_000);

  it('sends a trigger-once record a SIGKILLed server left pending to the executor its address list named', async () => {
    dataDir = await tempDir();
    store = await openStore({ database: `sqlite:${path.join(dataDir, 'tickwheel.db')}` });
    const appId = await createApp(store, APP);
    // FIRST would send both runs to one executor: only the stored lists can part them.
    const job = await createJob(store, {
      app_id: appId,
      name: 'trigger-once on a chosen executor',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'where',
      executor_route_strategy: 'FIRST',
      misfire_strategy: 'FIRE_ONCE_NOW',
    });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    const first = await startCli(port);

    // Two executors, each behind a relay that holds its runs until the crash.
    const ranOn = new Map<number, string[]>();
    const relays: Relay[] = [];
    for (const name of ['a', 'b']) {
      const executorPort = await freePort();
      const itsRelay = await Relay.start(`http://127.0.0.1:${executorPort}/`);
      extraRelays.push(itsRelay);
      relays.push(itsRelay);
      const itsExecutor = createExecutor({
        appName: APP,
        serverAddresses: [url],
        accessToken: E2E_TOKEN,
        host: '127.0.0.1',
        port: executorPort,
        advertisedAddress: itsRelay.url,
        logDir: path.join(dataDir, `executor-logs-${name}`),
        logger: pino({ level: 'silent' }),
        internal: { heartbeatIntervalMs: 500, callbackRetryIntervalMs: 500 },
      });
      itsExecutor.handle('where', async (ctx) => {
        ranOn.set(ctx.logId, [...(ranOn.get(ctx.logId) ?? []), itsRelay.url]);
      });
      extraExecutors.push(itsExecutor);
      await itsExecutor.start();
    }
    const [relayA, relayB] = relays as [Relay, Relay];
    await waitFor(async () => (await store!.registry.listAlive(0, APP)).length === 2, {
      what: 'both executors registered at their relays',
    });

    const onA = await triggerOnce(url, job.id, [relayA.url]);
    const onB = await triggerOnce(url, job.id, [relayB.url]);
    await waitFor(() => relayA.held.length === 1 && relayB.held.length === 1, {
      what: 'each record dispatched to its own relay',
    });
    expect([relayA.held[0], relayB.held[0]]).toEqual([onA, onB]);
    await first.kill();
    const atCrash = await Promise.all([onA, onB].map(record));
    expect(atCrash.map((f) => [f.status, f.address_override])).toEqual([
      ['pending', JSON.stringify([relayA.url])],
      ['pending', JSON.stringify([relayB.url])],
    ]);

    relayA.holding = false;
    relayB.holding = false;
    await startCli(port);
    await waitFor(
      async () => (await record(onA)).status === 'succeeded' && (await record(onB)).status === 'succeeded',
      { what: 'the recovered records settled' },
    );
    await sleep(500);
    expect(Object.fromEntries(ranOn)).toEqual({ [onA]: [relayA.url], [onB]: [relayB.url] });
    const [recordA, recordB] = await Promise.all([onA, onB].map(record));
    expect(recordA.executor_address).toBe(relayA.url);
    expect(recordB.executor_address).toBe(relayB.url);
  }, 30_000);
});
