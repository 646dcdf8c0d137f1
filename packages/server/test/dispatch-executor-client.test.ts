import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { INSTANCE_HEADER, MAX_RUN_BATCH, RUN_BATCH_HEADER } from '@tickwheel/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type CallRecord, ExecutorClient } from '../src/dispatch/executor-client.js';
import { DEFAULT_LOG_PAGE_LIMITS } from '../src/dispatch/log-page.js';
import { closeAll, deadAddress, startExecutors, TOKEN, target } from './helpers/dispatch-fixtures.js';
import { MIMIC_APP, startMimic, type XxlMimic } from './helpers/xxl-mimic.js';

const opened: Array<{ close(): Promise<void> } | { stop(): Promise<void> }> = [];
function track<T extends { close(): Promise<void> } | { stop(): Promise<void> }>(thing: T): T {
  opened.push(thing);
  return thing;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => ('close' in t ? t.close() : t.stop())));
});

function client(
  options: { timeoutMs?: number; onCall?: (r: CallRecord) => void; accessToken?: string } = {},
) {
  return track(
    new ExecutorClient({
      accessToken: options.accessToken ?? TOKEN,
      timeoutMs: options.timeoutMs ?? 3_000,
      connectionsPerExecutor: 8,
      pipelining: 1,
      onCall: options.onCall,
    }),
  );
}

function trigger(logId: number, jobId = 1) {
  return {
    jobId,
    executorHandler: 'hello',
    executorParams: 'p',
    executorBlockStrategy: 'SERIAL_EXECUTION' as const,
    executorTimeout: 0,
    logId,
    logDateTime: Date.now(),
    glueType: 'BEAN',
    glueSource: '',
    glueUpdatetime: 0,
    broadcastIndex: 0,
    broadcastTotal: 1,
  };
}

async function mimic(generation: '2.x' | '3.x' | '3.5', contextPath?: string): Promise<XxlMimic> {
  return track(await startMimic({ generation, accessToken: TOKEN, ...(contextPath ? { contextPath } : {}) }));
}

describe('executor client against a real Tickwheel executor', () => {
  it('beats a live executor and gets code 200', async () => {
    const executors = await startExecutors(1, () => {});
    opened.push({ close: () => closeAll(executors) });
    const answer = await client().beat(target(executors[0]!.address));
    expect(answer).toMatchObject({ ok: true, code: 200, failure: null, call: 'beat' });
  });

  it('delivers a run the executor accepts, runs and reports back under the same logId', async () => {
    const executors = await startExecutors(1, (ex) => ex.handle('hello', (ctx) => `hi ${ctx.param}`));
    opened.push({ close: () => closeAll(executors) });
    const answer = await client().run(target(executors[0]!.address), trigger(7_001));
    expect(answer.ok).toBe(true);
    const callback = await executors[0]!.server.callbackFor(7_001);
    expect(callback).toMatchObject({ handleCode: 200, handleMsg: 'hi p' });
  });

  it("keeps the executor's instance id from its run answer (Tickwheel-Instance)", async () => {
    const executors = await startExecutors(1, (ex) => ex.handle('hello', () => 'hi'));
    opened.push({ close: () => closeAll(executors) });
    const answer = await client().run(target(executors[0]!.address), trigger(7_101));
    expect(answer.instance).toBe(executors[0]!.ex.instanceId);
  });

  it("passes on the executor's refusal as a failed answer with its message", async () => {
    const executors = await startExecutors(1, () => {});
    opened.push({ close: () => closeAll(executors) });
    const answer = await client().run(target(executors[0]!.address), trigger(7_002));
    expect(answer).toMatchObject({
      ok: false,
      code: 500,
      failure: null,
      msg: 'job handler [hello] not found.',
    });
  });

  it('is refused by the executor when the token is wrong', async () => {
    const executors = await startExecutors(1, () => {});
    opened.push({ close: () => closeAll(executors) });
    const answer = await client({ accessToken: 'wrong' }).beat(target(executors[0]!.address));
    expect(answer).toMatchObject({ ok: false, msg: 'The access token is wrong.' });
  });

  it('reads a log page as a LogResult from content or data', async () => {
    const executors = await startExecutors(1, (ex) =>
      ex.handle('hello', (ctx) => ctx.log('from the handler')),
    );
    opened.push({ close: () => closeAll(executors) });
    const run = trigger(7_003);
    const c = client();
    await c.run(target(executors[0]!.address), run);
    await executors[0]!.server.callbackFor(7_003);
    const answer = await c.logPage(
      target(executors[0]!.address),
      { logDateTim: run.logDateTime, logId: 7_003, fromLineNum: 1 },
      DEFAULT_LOG_PAGE_LIMITS,
    );
    expect(answer.ok).toBe(true);
    expect(answer.content).toMatchObject({ fromLineNum: 1 });
    expect((answer.content as { logContent: string }).logContent).toContain('from the handler');
  });
});

describe('executor client against XXL-JOB-like executors', () => {
  it('takes a 2.x text/html answer of {"code":200} alone as success', async () => {
    const m = await mimic('2.x');
    const answer = await client().run(target(m.address), trigger(1));
    expect(answer).toMatchObject({ ok: true, code: 200, msg: null, content: null });
  });

  it('takes a 3.x answer {"code":200,"msg":"Success"} as success', async () => {
    const m = await mimic('3.x');
    const answer = await client().beat(target(m.address, 'G3'));
    expect(answer).toMatchObject({ ok: true, code: 200, msg: 'Success' });
  });

  it('sends a G2 run to /run with the token header and no app name header', async () => {
    const m = await mimic('2.x');
    await client().run(target(m.address, 'G2'), trigger(2));
    const [request] = m.requests;
    expect(request?.url).toBe('/run');
    expect(request?.method).toBe('POST');
    expect(request?.headers['xxl-job-access-token']).toBe(TOKEN);
    expect(request?.headers['xxl-job-appname']).toBeUndefined();
    expect(request?.headers['content-type']).toBe('application/json;charset=UTF-8');
    expect(request?.body).toMatchObject({ logId: 2, jobId: 1, broadcastTotal: 1, glueUpdatetime: 0 });
  });

  it('sends a G4 run to /trigger with both the token and the app name header', async () => {
    const m = await mimic('3.5');
    const answer = await client().run(target(m.address, 'G4', MIMIC_APP), trigger(3));
    expect(answer.ok).toBe(true);
    const [request] = m.requests;
    expect(request?.url).toBe('/trigger');
    expect(request?.headers['xxl-job-access-token']).toBe(TOKEN);
    expect(request?.headers['xxl-job-appname']).toBe(MIMIC_APP);
  });

  it('gets refused by a 3.5 executor when spoken to as G2 (no app name, run path)', async () => {
    const m = await mimic('3.5');
    const answer = await client().run(target(m.address, 'G2'), trigger(4));
    expect(answer).toMatchObject({ ok: false, failure: null });
  });

  it('spells the log date logDateTim for G2 and logDateTime for G4', async () => {
    const g2 = await mimic('2.x');
    const g4 = await mimic('3.5');
    const param = { logDateTim: 1_700_000_000_000, logId: 9, fromLineNum: 1 };
    const a2 = await client().logPage(target(g2.address, 'G2'), param, DEFAULT_LOG_PAGE_LIMITS);
    const a4 = await client().logPage(target(g4.address, 'G4', MIMIC_APP), param, DEFAULT_LOG_PAGE_LIMITS);
    expect(g2.requests[0]?.body).toEqual({ logDateTim: 1_700_000_000_000, logId: 9, fromLineNum: 1 });
    expect(g4.requests[0]?.body).toEqual({ logDateTime: 1_700_000_000_000, logId: 9, fromLineNum: 1 });
    // 2.x puts the payload in `content`, 3.5 in `data`: both are read.
    expect(a2.content).toMatchObject({ toLineNum: 2, logContent: 'line one\nline two\n' });
    expect(a4.content).toMatchObject({ toLineNum: 2, logContent: 'line one\nline two\n' });
  });

  it('builds call URLs with exactly one slash, with or without a trailing slash and under a context path', async () => {
    const m = await mimic('2.x');
    const bare = m.address.slice(0, -1);
    expect((await client().beat(target(bare))).ok).toBe(true);
    expect((await client().beat(target(m.address))).ok).toBe(true);
    const ctx = await mimic('2.x', '/xxl-job-executor');
    expect((await client().beat(target(ctx.address.slice(0, -1)))).ok).toBe(true);
    expect(m.requests.map((r) => r.url)).toEqual(['/beat', '/beat']);
    expect(ctx.requests.map((r) => r.url)).toEqual(['/xxl-job-executor/beat']);
  });

  it('reports an HTTP error status as a failure naming the status', async () => {
    const m = await mimic('2.x');
    m.httpStatus = 502;
    const answer = await client().beat(target(m.address));
    expect(answer).toMatchObject({ ok: false, code: 500, failure: 'status', msg: 'HTTP 502' });
  });

  it('reports a body that is not JSON as a failure quoting it', async () => {
    const m = await mimic('2.x');
    m.rawAnswer = '<html>Whitelabel Error Page</html>';
    const answer = await client().beat(target(m.address));
    expect(answer).toMatchObject({ ok: false, failure: 'body' });
    expect(answer.msg).toBe('answer is not JSON: "<html>Whitelabel Error Page</html>"');
  });

  it('reports JSON without an integer code as a failure', async () => {
    const m = await mimic('2.x');
    m.rawAnswer = '{"status":"ok"}';
    const answer = await client().beat(target(m.address));
    expect(answer).toMatchObject({ ok: false, failure: 'body' });
    expect(answer.msg).toContain('answer is not a ReturnT');
  });

  it('reports a refused connection as a failure naming it', async () => {
    const answer = await client().beat(target(await deadAddress()));
    expect(answer).toMatchObject({ ok: false, failure: 'connection' });
    expect(answer.msg).toMatch(/ECONNREFUSED/);
  });

  it('reports an address that is not an http URL without calling anything', async () => {
    const answer = await client().beat(target('ftp://example.org/'));
    expect(answer).toMatchObject({ ok: false, failure: 'address' });
  });

  it('fails a call to a pull address as connection on a client without a pull transport, and a malformed one as address', async () => {
    const records: CallRecord[] = [];
    const c = client({ onCall: (r) => records.push(r) });
    expect(await c.beat(target('pull://inst-1/'))).toMatchObject({ ok: false, failure: 'connection' });
    expect(await c.run(target('pull://inst-1/'), trigger(1))).toMatchObject({
      ok: false,
      failure: 'connection',
    });
    expect(await c.beat(target('pull://not an id/'))).toMatchObject({ ok: false, failure: 'address' });
    expect(records.map((r) => r.failure)).toEqual(['connection', 'connection', 'address']);
  });

  it('gives up on a hung executor at the timeout and says so', async () => {
    const m = await mimic('2.x');
    m.hang = true;
    const started = Date.now();
    const answer = await client({ timeoutMs: 300 }).run(target(m.address), trigger(5));
    const took = Date.now() - started;
    expect(answer).toMatchObject({ ok: false, failure: 'timeout', msg: 'timeout after 300 ms' });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(800);
  });

  it('times out each of several staggered calls at its own deadline', async () => {
    const m = await mimic('2.x');
    m.hang = true;
    const c = client({ timeoutMs: 300 });
    const durations = await Promise.all(
      [0, 100, 200].map(async (delay, i) => {
        await new Promise((resolve) => setTimeout(resolve, delay));
        const started = performance.now();
        const answer = await c.run(target(m.address), trigger(200 + i));
        expect(answer.failure).toBe('timeout');
        return performance.now() - started;
      }),
    );
    for (const took of durations) {
      expect(took).toBeGreaterThanOrEqual(295);
      expect(took).toBeLessThan(450);
    }
  });

  it('times out calls queued behind the busy connections of a hung executor on time too', async () => {
    const m = await mimic('2.x');
    m.hang = true;
    const c = track(
      new ExecutorClient({ accessToken: TOKEN, timeoutMs: 300, connectionsPerExecutor: 2, pipelining: 1 }),
    );
    const t0 = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => c.run(target(m.address), trigger(400 + i))),
    );
    expect(answers.every((a) => a.failure === 'timeout')).toBe(true);
    // Waiting for a free connection first would end the last two only after 900 ms.
    expect(performance.now() - t0).toBeLessThan(600);
  });

  it('does not time out a call for its wait behind a busy executor’s connections, only for the call itself', async () => {
    const m = await mimic('2.x');
    m.answerDelayMs = 200;
    const c = track(
      new ExecutorClient({ accessToken: TOKEN, timeoutMs: 300, connectionsPerExecutor: 1, pipelining: 1 }),
    );
    // The second waits 200 ms for the one connection, then takes 200 ms: 400 ms in all, each part within 300.
    const answers = await Promise.all([
      c.run(target(m.address), trigger(500)),
      c.run(target(m.address), trigger(501)),
    ]);
    expect(answers.map((a) => a.failure)).toEqual([null, null]);
  });

  it('does not time out a call that was answered, even while others hang', async () => {
    const hung = await mimic('2.x');
    hung.hang = true;
    const quick = await mimic('2.x');
    quick.answerDelayMs = 250;
    const c = client({ timeoutMs: 300 });
    const [hungAnswer, quickAnswer] = await Promise.all([
      c.run(target(hung.address), trigger(300)),
      c.run(target(quick.address), trigger(301)),
    ]);
    expect(hungAnswer.failure).toBe('timeout');
    expect(quickAnswer.ok).toBe(true);
  });

  it('keeps calls to one executor in flight concurrently over kept-alive connections', async () => {
    const m = await mimic('2.x');
    m.answerDelayMs = 200;
    const c = client();
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => c.run(target(m.address), trigger(100 + i))),
    );
    expect(answers.every((a) => a.ok)).toBe(true);
    // Eight 200 ms calls one after the other would take 1.6 s.
    expect(Date.now() - started).toBeLessThan(700);
    const connectionsAfterBurst = m.connections;
    m.answerDelayMs = 0;
    for (let i = 0; i < 5; i++) await c.beat(target(m.address));
    expect(m.connections).toBe(connectionsAfterBurst);
  });

  it('records every call with its latency', async () => {
    const m = await mimic('2.x');
    m.answerDelayMs = 50;
    const records: CallRecord[] = [];
    const answer = await client({ onCall: (r) => records.push(r) }).beat(target(m.address));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ call: 'beat', ok: true, address: m.address });
    expect(records[0]!.latencyMs).toBeGreaterThanOrEqual(45);
    expect(answer.latencyMs).toBe(records[0]!.latencyMs);
  });
});

/**
 * A loopback executor that takes Tickwheel's `runBatch`: it announces it on every answer (unless
 * told not to), records every request, and answers each trigger of a batch 200 unless its logId
 * is in `refused`. `batchAnswer: 'not-found'` answers a batch the way an executor without the
 * call does; `hangBatches` never answers one.
 */
class BatchingExecutor {
  readonly requests: Array<{ url: string; body: unknown }> = [];
  readonly refused = new Set<number>();
  announce = true;
  /** Announced in `Tickwheel-Instance` on every answer when set. */
  instance: string | undefined;
  batchAnswer: 'answers' | 'not-found' = 'answers';
  hangBatches = false;
  private server: http.Server | undefined;

  get address(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/`;
  }

  requestsTo(url: string) {
    return this.requests.filter((r) => r.url === url);
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body: unknown = text === '' ? null : JSON.parse(text);
        this.requests.push({ url: req.url ?? '', body });
        if (req.url === '/runBatch' && this.hangBatches) return;
        const headers: Record<string, string> = { 'Content-Type': 'application/json' };
        if (this.announce) headers[RUN_BATCH_HEADER] = String(MAX_RUN_BATCH);
        if (this.instance !== undefined) headers[INSTANCE_HEADER] = this.instance;
        res.writeHead(200, headers);
        res.end(JSON.stringify(this.answer(req.url ?? '', body)));
      });
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private answer(url: string, body: unknown): Record<string, unknown> {
    const one = (logId: number) =>
      this.refused.has(logId) ? { code: 500, msg: `refused ${logId}` } : { code: 200, msg: 'Success' };
    if (url === '/run') return { ...one((body as { logId: number }).logId), content: null };
    if (url === '/runBatch') {
      if (this.batchAnswer === 'not-found')
        return { code: 500, msg: 'invalid request, uri-mapping(/runBatch) not found.' };
      const answers = (body as Array<{ logId: number }>).map((t) => one(t.logId));
      return { code: 200, msg: 'Success', content: answers, data: answers };
    }
    return { code: 200, msg: 'Success', content: null, data: null };
  }
}

describe('runs of one turn, batched', () => {
  async function batching(): Promise<BatchingExecutor> {
    return track(await new BatchingExecutor().start());
  }

  it('go to an executor that announced runBatch as one request, each with its own outcome', async () => {
    const e = await batching();
    e.refused.add(602);
    const records: CallRecord[] = [];
    const recording = track(
      new ExecutorClient({
        accessToken: TOKEN,
        timeoutMs: 3_000,
        connectionsPerExecutor: 8,
        pipelining: 1,
        onCall: (r) => records.push(r),
      }),
    );
    await recording.beat(target(e.address));
    const answers = await Promise.all(
      [600, 601, 602, 603].map((logId) => recording.run(target(e.address), trigger(logId))),
    );
    expect(answers.map((a) => [a.ok, a.code, a.msg])).toEqual([
      [true, 200, 'Success'],
      [true, 200, 'Success'],
      [false, 500, 'refused 602'],
      [true, 200, 'Success'],
    ]);
    expect(e.requestsTo('/run')).toHaveLength(0);
    expect(
      e.requestsTo('/runBatch').map((r) => (r.body as Array<{ logId: number }>).map((t) => t.logId)),
    ).toEqual([[600, 601, 602, 603]]);
    expect(records.filter((r) => r.call === 'run')).toHaveLength(4);
  });

  it('each carry the instance id the batch answer announced; an XXL-JOB run answer carries none', async () => {
    const e = await batching();
    e.instance = 'batch-instance-1';
    const c = client();
    await c.beat(target(e.address));
    const answers = await Promise.all([700, 701].map((logId) => c.run(target(e.address), trigger(logId))));
    expect(e.requestsTo('/runBatch')).toHaveLength(1);
    expect(answers.map((a) => a.instance)).toEqual(['batch-instance-1', 'batch-instance-1']);
    const m = await mimic('2.x');
    expect((await c.run(target(m.address), trigger(702))).instance).toBeUndefined();
  });

  it('go one run call each to an executor that announced nothing, as XXL-JOB executors', async () => {
    const m = await mimic('3.x');
    const c = client();
    await c.beat(target(m.address));
    const answers = await Promise.all(
      [610, 611, 612].map((logId) => c.run(target(m.address), trigger(logId))),
    );
    expect(answers.every((a) => a.ok)).toBe(true);
    expect(m.requestsTo('/run')).toHaveLength(3);
    expect(m.requestsTo('/runBatch')).toHaveLength(0);
  });

  it('runMany: one promise for several runs, their outcomes in order, in one request with the turn’s other runs there', async () => {
    const e = await batching();
    e.refused.add(641);
    const c = client();
    await c.beat(target(e.address));
    const [many, alone] = await Promise.all([
      c.runMany(target(e.address), [trigger(640), trigger(641), trigger(642)]),
      c.run(target(e.address), trigger(643)),
    ]);
    expect(many.map((a) => [a.ok, a.msg])).toEqual([
      [true, 'Success'],
      [false, 'refused 641'],
      [true, 'Success'],
    ]);
    expect(alone.ok).toBe(true);
    expect(
      e.requestsTo('/runBatch').map((r) => (r.body as Array<{ logId: number }>).map((t) => t.logId)),
    ).toEqual([[640, 641, 642, 643]]);
    expect(await c.runMany(target(e.address), [])).toEqual([]);
  });

  it('runMany to an executor that announced nothing: one run call each, each with its own outcome', async () => {
    const m = await mimic('3.x');
    const c = client();
    const answers = await c.runMany(target(m.address), [trigger(650), trigger(651)]);
    expect(answers.map((a) => a.ok)).toEqual([true, true]);
    expect(
      m
        .requestsTo('/run')
        .map((r) => (r.body as { logId: number }).logId)
        .sort(),
    ).toEqual([650, 651]);
  });

  it('send a run alone in its turn as a plain run call', async () => {
    const e = await batching();
    const c = client();
    await c.beat(target(e.address));
    expect((await c.run(target(e.address), trigger(620))).ok).toBe(true);
    expect(e.requestsTo('/run')).toHaveLength(1);
    expect(e.requestsTo('/runBatch')).toHaveLength(0);
  });

  it('are sent again one run call each when a batch gets no batch answer, and later turns too', async () => {
    const e = await batching();
    const c = client();
    await c.beat(target(e.address));
    e.batchAnswer = 'not-found';
    e.announce = false;
    const first = await Promise.all([630, 631].map((logId) => c.run(target(e.address), trigger(logId))));
    expect(first.every((a) => a.ok)).toBe(true);
    expect(e.requestsTo('/runBatch')).toHaveLength(1);
    expect(e.requestsTo('/run').map((r) => (r.body as { logId: number }).logId)).toEqual([630, 631]);
    const later = await Promise.all([632, 633].map((logId) => c.run(target(e.address), trigger(logId))));
    expect(later.every((a) => a.ok)).toBe(true);
    expect(e.requestsTo('/runBatch')).toHaveLength(1);
    expect(e.requestsTo('/run')).toHaveLength(4);
  });

  it('all fail with the timeout when the executor does not answer the batch', async () => {
    const e = await batching();
    const c = client({ timeoutMs: 300 });
    await c.beat(target(e.address));
    e.hangBatches = true;
    const started = performance.now();
    const answers = await Promise.all(
      [640, 641, 642].map((logId) => c.run(target(e.address), trigger(logId))),
    );
    expect(answers.map((a) => [a.failure, a.msg])).toEqual(
      answers.map(() => ['timeout', 'timeout after 300 ms']),
    );
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(e.requestsTo('/run')).toHaveLength(0);
  });

  it('reach a real Tickwheel executor, which runs each under its own logId or refuses it alone', async () => {
    const executors = await startExecutors(1, (ex) => ex.handle('hello', (ctx) => `hi ${ctx.param}`));
    opened.push({ close: () => closeAll(executors) });
    const executor = target(executors[0]!.address);
    const c = client();
    await c.beat(executor);
    const logIds = [7_101, 7_102, 7_103, 7_104];
    const answers = await Promise.all(
      logIds.map((logId, i) =>
        c.run(executor, { ...trigger(logId, 70 + i), executorHandler: i === 2 ? 'nope' : 'hello' }),
      ),
    );
    expect(answers.map((a) => [a.ok, a.msg])).toEqual([
      [true, 'Success'],
      [true, 'Success'],
      [false, 'job handler [nope] not found.'],
      [true, 'Success'],
    ]);
    for (const logId of [7_101, 7_102, 7_104]) {
      expect(await executors[0]!.server.callbackFor(logId)).toMatchObject({
        handleCode: 200,
        handleMsg: 'hi p',
      });
    }
  });
});
