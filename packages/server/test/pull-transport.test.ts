/**
 * The server side of the `http-pull` transport: a fake pull executor (written here with `ws`)
 * connects to `api/pull`, registers its `pull://<instance>/` address over HTTP and answers call
 * frames with canned ReturnTs. The executor client reaches it over the socket with the outcomes
 * of HTTP (timeout, connection, runBatch, kill by logId, log pages within limits); a real server
 * dispatches a triggered run to it; and on two nodes of one PostgreSQL database, a call made on
 * the node the executor is not connected to is relayed to the one it is.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  PULL_PATH,
  PULL_PING_INTERVAL_MS,
  type PullAnswerFrame,
  type PullCallFrame,
  parsePullFrame,
  pullAddress,
} from '@tickwheel/protocol';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ExecutorClient } from '../src/dispatch/executor-client.js';
import { PULL_RELAY_TOKEN_HEADER, PullConnections } from '../src/dispatch/pull-connections.js';
import { AppCredentials } from '../src/executor-api/app-credentials.js';
import { registerPullEndpoint } from '../src/executor-api/pull-endpoint.js';
import { createServer, type TickwheelServer } from '../src/index.js';
import { storeOf } from '../src/internal.js';
import type { Store } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';

const TOKEN = 'pull-test-installation-token-0123456789abcdef';
const APP = 'pull-app';
const API_TOKEN = 'pull-test-api-token-0123456789abcdefghijklmn';
const silent = pino({ level: 'silent' });

type Answerer = (frame: PullCallFrame) => Omit<PullAnswerFrame, 't' | 'id'> | undefined;

/** A pull executor: a WebSocket to `api/pull` answering call frames with `answer`. */
class FakePullExecutor {
  readonly calls: PullCallFrame[] = [];
  answer: Answerer = () => ({ answer: { code: 200, msg: null } });

  private constructor(
    readonly ws: WebSocket,
    readonly instance: string,
  ) {
    ws.on('message', (data) => {
      const frame = parsePullFrame(data.toString());
      if (frame?.t !== 'call') return;
      this.calls.push(frame);
      const answer = this.answer(frame);
      if (answer !== undefined) ws.send(JSON.stringify({ t: 'answer', id: frame.id, ...answer }));
    });
  }

  get address(): string {
    return pullAddress(this.instance);
  }

  static async connect(
    baseUrl: string,
    instance: string,
    token = TOKEN,
    app = APP,
    autoPong = true,
  ): Promise<FakePullExecutor> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}${PULL_PATH}`, {
      autoPong,
      headers: { 'XXL-JOB-ACCESS-TOKEN': token, 'XXL-JOB-APPNAME': app, 'Tickwheel-Instance': instance },
    });
    // Listening from the start: a call the server sends the moment it takes the connection counts.
    const executor = new FakePullExecutor(ws, instance);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => reject(Object.assign(new Error('refused'), { status: res.statusCode, body })));
      });
      ws.once('error', reject);
    });
    return executor;
  }

  /** Registers its pull address over HTTP, as a pull executor does. */
  async register(baseUrl: string, token = TOKEN): Promise<unknown> {
    const response = await fetch(`${baseUrl}api/registry`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'XXL-JOB-ACCESS-TOKEN': token },
      body: JSON.stringify({
        registryGroup: 'EXECUTOR',
        registryKey: APP,
        registryValue: this.address,
        instance: this.instance,
      }),
    });
    return response.json();
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise((resolve) => this.ws.once('close', resolve));
    this.ws.close();
    await closed;
  }
}

async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 8_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** PullConnections and the endpoint on a bare Fastify app over a test database, and a client using them. */
async function startHarness(store: Store, timeoutMs = 400, pingIntervalMs?: number, reconnectGraceMs = 300) {
  const pulls = new PullConnections({
    nodeId: 'node-test',
    relayToken: TOKEN,
    store: store.pullConnections,
    clock: { now: () => Date.now() },
    nodeAliveWindowMs: () => 5_000,
    logger: silent,
    // Short, so a call to an instance connected nowhere gives up quickly here.
    reconnectGraceMs,
    pingIntervalMs: pingIntervalMs ?? PULL_PING_INTERVAL_MS,
  });
  const app: FastifyInstance = Fastify();
  registerPullEndpoint(app, {
    credentials: new AppCredentials({
      installationToken: TOKEN,
      apps: store.apps,
      clock: { now: () => Date.now() },
    }),
    pulls,
    clock: { now: () => Date.now() },
    logger: silent,
  });
  app.addHook('preClose', async () => pulls.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const client = new ExecutorClient({
    accessToken: TOKEN,
    timeoutMs,
    connectionsPerExecutor: 4,
    pipelining: 1,
    pull: pulls,
  });
  return { pulls, app, client, url: `http://127.0.0.1:${port}/` };
}

describe.each(['sqlite', 'postgres'] as const)('the http-pull transport on %s', (dialect) => {
  const cleanups: Array<() => Promise<unknown>> = [];

  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  });

  async function harness(timeoutMs?: number, pingIntervalMs?: number, reconnectGraceMs?: number) {
    const db = await createTestDatabase(dialect);
    cleanups.push(() => db.drop());
    const store = await db.open();
    const h = await startHarness(store, timeoutMs, pingIntervalMs, reconnectGraceMs);
    cleanups.push(() => h.client.close());
    cleanups.push(() => h.app.close());
    return { ...h, store, db };
  }

  async function executor(url: string, instance: string): Promise<FakePullExecutor> {
    const ex = await FakePullExecutor.connect(url, instance);
    cleanups.push(() => ex.close());
    return ex;
  }

  it('refuses a wrong token before the upgrade with 401 and the reason, and a token of another app', async () => {
    const h = await harness();
    // Before the first connection: the credentials read the apps' tokens once for both.
    await h.store.apps.createApp(
      {
        appName: 'own',
        title: 'own',
        addressType: 'AUTO',
        accessToken: 'own-app-token-0123456789abcdefghijkl',
      },
      Date.now(),
    );
    const wrong = FakePullExecutor.connect(h.url, 'inst-1', 'not-the-token');
    await expect(wrong).rejects.toMatchObject({
      status: 401,
      body: JSON.stringify({ code: 500, msg: 'The access token is wrong.', content: null, data: null }),
    });
    const otherApp = FakePullExecutor.connect(h.url, 'inst-2', 'own-app-token-0123456789abcdefghijkl', APP);
    await expect(otherApp).rejects.toMatchObject({ status: 401 });
    await expect(otherApp.catch((err) => JSON.parse(err.body).msg)).resolves.toBe(
      `The access token is wrong for app '${APP}'.`,
    );
    const badInstance = FakePullExecutor.connect(h.url, 'no spaces allowed');
    await expect(badInstance).rejects.toMatchObject({ status: 400 });
    expect(h.pulls.instances).toEqual([]);
  });

  it('sends a run over the socket, records the holder, and the outcome is what the answer said', async () => {
    const h = await harness();
    const ex = await executor(h.url, 'inst-run');
    const rowsOf = () => h.store.db.selectFrom('pull_connection').selectAll().execute();
    await waitFor(async () => (await rowsOf()).length === 1, 'the holder row');
    ex.answer = (frame) =>
      frame.call === 'run'
        ? { answer: { code: 500, msg: 'job handler [nope] not found.' } }
        : { answer: { code: 200, msg: null } };
    const target = { address: ex.address, protocol: 'G2' as const, appName: APP };
    const outcome = await h.client.run(target, trigger(7));
    expect(outcome).toMatchObject({
      call: 'run',
      address: ex.address,
      ok: false,
      code: 500,
      msg: 'job handler [nope] not found.',
      failure: null,
      instance: 'inst-run',
    });
    expect(ex.calls.map((c) => [c.call, (c.body as { logId: number }).logId])).toEqual([['run', 7]]);
    const beat = await h.client.beat(target);
    expect(beat).toMatchObject({ ok: true, code: 200, failure: null, instance: 'inst-run' });
    // The row names this node while it is connected, and goes when the connection does.
    const rows = await rowsOf();
    expect(rows.map((r) => [r.instance, r.node_id])).toEqual([['inst-run', 'node-test']]);
    await ex.close();
    await waitFor(async () => (await rowsOf()).length === 0, 'row removed');
  });

  it('fails a call as connection at once when the socket is gone, and as timeout when no answer comes', async () => {
    const h = await harness(300);
    const ex = await executor(h.url, 'inst-gone');
    const target = { address: ex.address, protocol: 'G2' as const, appName: APP };
    ex.answer = () => undefined;
    const started = Date.now();
    const timedOut = await h.client.beat(target);
    expect(timedOut).toMatchObject({ ok: false, failure: 'timeout', code: 500 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    // A call in flight when the socket closes fails as connection.
    const inFlight = h.client.idleBeat(target, 3);
    await waitFor(() => ex.calls.some((c) => c.call === 'idleBeat'), 'the idleBeat call');
    await ex.close();
    expect(await inFlight).toMatchObject({ ok: false, failure: 'connection' });
    // One connected nowhere fails as connection once the reconnect grace (300 ms here) is over.
    const quick = Date.now();
    const gone = await h.client.run(target, trigger(8));
    expect(gone).toMatchObject({ ok: false, failure: 'connection' });
    expect(gone.msg).toMatch(/waited 300 ms for it to connect/);
    expect(Date.now() - quick).toBeGreaterThanOrEqual(280);
    expect(Date.now() - quick).toBeLessThan(1_500);
  });

  it('holds a call to an instance connected nowhere until it connects again within the grace', async () => {
    const h = await harness(1_000, undefined, 5_000);
    const first = await executor(h.url, 'inst-back');
    const target = { address: first.address, protocol: 'G2' as const, appName: APP };
    await first.close();
    const pending = h.client.beat(target);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = await executor(h.url, 'inst-back');
    expect(await pending).toMatchObject({ ok: true, code: 200 });
    expect(again.calls.map((c) => c.call)).toContain('beat');
  });

  it('pings every connection and closes one that missed two pongs', async () => {
    const h = await harness(400, 50);
    const answering = await executor(h.url, 'inst-pong');
    const silentPeer = await FakePullExecutor.connect(h.url, 'inst-silent', TOKEN, APP, false);
    cleanups.push(() => silentPeer.close());
    let pings = 0;
    silentPeer.ws.on('ping', () => pings++);
    const closed = new Promise((resolve) => silentPeer.ws.once('close', resolve));
    await closed;
    expect(pings).toBeGreaterThanOrEqual(2);
    expect(h.pulls.instances).toEqual(['inst-pong']);
    expect((await h.client.beat({ address: answering.address, protocol: 'G2', appName: APP })).ok).toBe(true);
  });

  it('a second connection of an instance replaces the first', async () => {
    const h = await harness();
    const first = await executor(h.url, 'inst-twice');
    const firstClosed = new Promise<number>((resolve) => first.ws.once('close', (code) => resolve(code)));
    const second = await executor(h.url, 'inst-twice');
    expect(await firstClosed).toBe(4000);
    const outcome = await h.client.beat({ address: second.address, protocol: 'G2', appName: APP });
    expect(outcome.ok).toBe(true);
    expect(second.calls).toHaveLength(1);
    expect(first.calls).toHaveLength(0);
    expect(h.pulls.instances).toEqual(['inst-twice']);
  });

  it('uses runBatch once an answer announced it, and kills by logId after killByLogId', async () => {
    const h = await harness();
    const ex = await executor(h.url, 'inst-batch');
    ex.answer = (frame) => {
      if (frame.call === 'runBatch') {
        const runs = frame.body as unknown[];
        return {
          answer: { code: 200, msg: null, content: runs.map(() => ({ code: 200, msg: null })) },
          runBatch: 100,
          killByLogId: true,
        };
      }
      return { answer: { code: 200, msg: null }, runBatch: 100, killByLogId: true };
    };
    const target = { address: ex.address, protocol: 'G2' as const, appName: APP };
    // Before any answer: runs go one by one.
    const first = await Promise.all([h.client.run(target, trigger(1)), h.client.run(target, trigger(2))]);
    expect(first.every((o) => o.ok)).toBe(true);
    expect(ex.calls.map((c) => c.call)).toEqual(['run', 'run']);
    ex.calls.length = 0;
    const batched = await Promise.all([
      h.client.run(target, trigger(3)),
      h.client.run(target, trigger(4)),
      h.client.run(target, trigger(5)),
    ]);
    expect(batched.map((o) => [o.ok, o.instance])).toEqual([
      [true, 'inst-batch'],
      [true, 'inst-batch'],
      [true, 'inst-batch'],
    ]);
    expect(ex.calls.map((c) => c.call)).toEqual(['runBatch']);
    expect((ex.calls[0]!.body as Array<{ logId: number }>).map((t) => t.logId)).toEqual([3, 4, 5]);
    ex.calls.length = 0;
    expect(await h.client.killScope(target)).toBe('run');
    const kill = await h.client.kill(target, 9, 42);
    expect(kill.ok).toBe(true);
    expect(ex.calls.map((c) => [c.call, c.body])).toEqual([
      ['beat', {}],
      ['kill', { jobId: 9, logId: 42 }],
    ]);
    // An answer without the announcements takes them back.
    ex.answer = () => ({ answer: { code: 200, msg: null } });
    expect(await h.client.killScope(target)).toBe('job');
  });

  it('reads a log page within the limits, cutting a longer answer', async () => {
    const h = await harness();
    const ex = await executor(h.url, 'inst-log');
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}\n`).join('');
    ex.answer = () => ({
      answer: {
        code: 200,
        msg: null,
        content: { fromLineNum: 1, toLineNum: 50, logContent: lines, isEnd: true },
      },
    });
    const target = { address: ex.address, protocol: 'G2' as const, appName: APP };
    const page = await h.client.logPage(
      target,
      { logDateTim: 1, logId: 5, fromLineNum: 1 },
      { maxLines: 10, maxBytes: 1024 },
    );
    expect(page).toMatchObject({ ok: true, failure: null, instance: 'inst-log' });
    expect(page.content).toMatchObject({ fromLineNum: 1, toLineNum: 10, isEnd: false, more: true });
    expect(page.content!.logContent.split('\n')).toHaveLength(11);
    expect(ex.calls[0]).toMatchObject({ call: 'log', body: { logDateTim: 1, logId: 5, fromLineNum: 1 } });
    const whole = await h.client.logPage(
      target,
      { logDateTim: 1, logId: 5, fromLineNum: 1 },
      { maxLines: 100, maxBytes: 4096 },
    );
    expect(whole.content).toMatchObject({
      fromLineNum: 1,
      toLineNum: 50,
      isEnd: true,
      more: false,
      logContent: lines,
    });
    ex.answer = () => ({ answer: { nope: true } });
    expect(await h.client.beat(target)).toMatchObject({ ok: false, failure: 'body' });
  });

  it('a real server dispatches a triggered run to a registered pull executor', async () => {
    const db = await createTestDatabase(dialect);
    cleanups.push(() => db.drop());
    const server = await startServer(db.url, 'node-one');
    cleanups.push(() => server.stop());
    const appId = (
      await storeOf(server).apps.createApp({ appName: APP, title: APP, addressType: 'AUTO' }, Date.now())
    ).id;
    const job = await storeOf(server).jobs.createJob(
      { app_id: appId, name: 'pulled', executor_handler: 'demo' },
      Date.now(),
    );
    const ex = await executor(server.url, 'inst-e2e');
    expect(await ex.register(server.url)).toMatchObject({ code: 200 });
    await waitFor(() => server.executorsOnline(APP).includes(ex.address), 'the pull executor online');
    ex.answer = () => ({ answer: { code: 200, msg: null } });
    const { fireId, outcomes } = await server.triggerJob({ jobId: job.id });
    expect(outcomes).toMatchObject([{ address: ex.address, triggerCode: 200, executorInstance: 'inst-e2e' }]);
    expect(ex.calls.map((c) => [c.call, (c.body as { logId: number }).logId])).toEqual([['run', fireId]]);
    const fire = (await storeOf(server).fires.findFireById(fireId))!;
    expect(fire).toMatchObject({ executor_address: ex.address, trigger_code: 200 });
    // The app's executors list it with its transport (the console tags it "pull").
    const listed = await fetch(`${server.url}api/v1/apps/${appId}/executors`, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    expect(await listed.json()).toMatchObject({
      items: [{ address: ex.address, protocol: 'G2', transport: 'http-pull' }],
    });
    // A pull address is taken as a trigger override only as one of the app's online executors.
    const restTrigger = (addressList: string[]) =>
      fetch(`${server.url}api/v1/jobs/${job.id}/trigger`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ addressList }),
      });
    expect((await restTrigger([ex.address])).status).toBe(200);
    const refused = await restTrigger(['pull://someone-else/']);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('is not an online executor of app');
    await expect(
      server.triggerJob({ jobId: job.id, addressList: ['pull://someone-else/'] }),
    ).rejects.toThrow();
  });
});

async function startServer(
  database: string,
  nodeId: string,
): Promise<TickwheelServer & { stop(): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'tw-pull-'));
  const server = await createServer({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    database,
    nodeId,
    accessToken: TOKEN,
    apiToken: API_TOKEN,
    logger: silent,
    env: {},
    lookAheadMs: 1_000,
    internal: { tickIntervalMs: 50, leaseTtlMs: 3_000, directoryRefreshIntervalMs: 100 },
  });
  const stop = server.stop.bind(server);
  return Object.assign(server, {
    async stop() {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  });
}

describe('pull executors on a two-node cluster on postgres', () => {
  let db: TestDatabase | undefined;
  const servers: Array<{ stop(): Promise<void> }> = [];
  const executors: FakePullExecutor[] = [];

  afterEach(async () => {
    for (const ex of executors) await ex.close().catch(() => undefined);
    for (const server of servers) await server.stop().catch(() => undefined);
    executors.length = 0;
    servers.length = 0;
    await db?.drop();
  });

  it('relays a call made on node B to the executor connected to node A, and refuses a relay with a wrong token', async () => {
    db = await createTestDatabase('postgres');
    const a = await startServer(db.url, 'node-a');
    servers.push(a);
    const b = await startServer(db.url, 'node-b');
    servers.push(b);
    const appId = (
      await storeOf(a).apps.createApp({ appName: APP, title: APP, addressType: 'AUTO' }, Date.now())
    ).id;
    const job = await storeOf(a).jobs.createJob(
      { app_id: appId, name: 'relayed', executor_handler: 'demo' },
      Date.now(),
    );
    const ex = await FakePullExecutor.connect(a.url, 'inst-cluster');
    executors.push(ex);
    expect(await ex.register(a.url)).toMatchObject({ code: 200 });
    // Node A's advertised URL is in cluster_node (written by its lease rounds) and its row in pull_connection.
    await waitFor(async () => {
      const holder = await storeOf(b).pullConnections.findPullHolder('inst-cluster', 0);
      return holder?.nodeId === 'node-a' && holder.address === a.url;
    }, 'node A recorded as the holder at its URL');
    await waitFor(() => b.executorsOnline(APP).includes(ex.address), 'node B seeing the executor online');

    const { fireId, outcomes } = await b.triggerJob({ jobId: job.id });
    expect(outcomes).toMatchObject([
      { address: ex.address, triggerCode: 200, executorInstance: 'inst-cluster' },
    ]);
    expect(ex.calls.map((c) => [c.call, (c.body as { logId: number }).logId])).toEqual([['run', fireId]]);

    const relay = (token: string) =>
      fetch(`${a.url}api/pull-relay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [PULL_RELAY_TOKEN_HEADER]: token },
        body: JSON.stringify({ address: ex.address, call: 'beat', body: {}, timeoutMs: 1_000 }),
      });
    const refused = await relay('wrong-token');
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: 500, msg: 'The access token is wrong.' });
    const accepted = await relay(TOKEN);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ t: 'answer', answer: { code: 200 } });
    // Node B asked about an instance connected nowhere: a connection failure, not a hang.
    const unknown = await fetch(`${b.url}api/pull-relay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [PULL_RELAY_TOKEN_HEADER]: TOKEN },
      body: JSON.stringify({ address: ex.address, call: 'beat', body: {}, timeoutMs: 1_000 }),
    });
    expect(await unknown.json()).toMatchObject({ t: 'failure', failure: 'connection' });
  });
});

describe.each(DIALECTS)('pull_connection rows on %s', (dialect) => {
  it('are upserted, deleted only by their node, and ignored once their node is dead', async () => {
    const db = await createTestDatabase(dialect);
    try {
      const store = await db.open();
      const repo = store.pullConnections;
      await store.nodes.heartbeatNode(
        { nodeId: 'a', address: 'http://10.0.0.1:8080/', startedAt: 1 },
        10_000,
      );
      await store.nodes.heartbeatNode(
        { nodeId: 'b', address: 'http://10.0.0.2:8080/', startedAt: 1 },
        20_000,
      );
      await repo.recordPullConnection('inst', 'a', 100);
      expect(await repo.findPullHolder('inst', 5_000)).toEqual({
        nodeId: 'a',
        address: 'http://10.0.0.1:8080/',
      });
      // Node a's heartbeat (10,000) is older than the liveness bound: its row is ignored.
      expect(await repo.findPullHolder('inst', 15_000)).toBeUndefined();
      await repo.recordPullConnection('inst', 'b', 200);
      expect(await repo.findPullHolder('inst', 15_000)).toEqual({
        nodeId: 'b',
        address: 'http://10.0.0.2:8080/',
      });
      expect(await repo.removePullConnection('inst', 'a')).toBe(false);
      expect(await repo.findPullHolder('inst', 0)).toMatchObject({ nodeId: 'b' });
      await repo.recordPullConnection('other', 'b', 300);
      expect(await repo.removeNodePullConnections('b')).toBe(2);
      expect(await repo.findPullHolder('inst', 0)).toBeUndefined();
    } finally {
      await db.drop();
    }
  });
});

function trigger(logId: number) {
  return {
    jobId: 1,
    executorHandler: 'demo',
    executorParams: '',
    executorBlockStrategy: 'SERIAL_EXECUTION',
    executorTimeout: 0,
    logId,
    logDateTime: 1,
    glueType: 'BEAN',
    glueSource: '',
    glueUpdatetime: 0,
    broadcastIndex: 0,
    broadcastTotal: 1,
  } as never;
}
