/**
 * The executor's HTTP endpoint over real HTTP on loopback: paths, methods, token, bodies and
 * every call of PROTOCOL.md.
 */
import { readdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  ACCESS_TOKEN_HEADER,
  APP_NAME_HEADER,
  KILL_RUN_BY_LOG_ID,
  KILL_RUN_HEADER,
  MAX_BODY_BYTES,
  MAX_RUN_BATCH,
  RUN_BATCH_HEADER,
  WireMessages,
} from '@tickwheel/protocol';
import { callExecutor, freshLogId, trigger } from '@tickwheel/test-fixtures/executor-client';
import { type ExecutorFixture, startExecutor, TOKEN } from '@tickwheel/test-fixtures/executor-fixture';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

let fx: ExecutorFixture;

beforeEach(async () => {
  fx = await startExecutor((ex) => {
    ex.handle('hello', async (ctx) => `hello ${ctx.param}`);
    ex.handle('chatty', async (ctx) => {
      for (let i = 1; i <= 5; i++) ctx.log(`line ${i}`);
    });
  });
});

afterEach(async () => {
  await fx.close();
});

/** Sends raw HTTP so a path is kept byte for byte (fetch would normalise `//run`). */
function rawPost(address: string, rawPath: string, body: string, headers: Record<string, string> = {}) {
  const url = new URL(address);
  return new Promise<{ status: number; json: Record<string, unknown> }>((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: rawPath,
        headers: { [ACCESS_TOKEN_HEADER]: TOKEN, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('answers', () => {
  it('beat answers HTTP 200 with a JSON ReturnT carrying content and data', async () => {
    const answer = await fx.call('beat');
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe('application/json;charset=UTF-8');
    expect(answer.json).toEqual({ code: 200, msg: 'Success', content: null, data: null });
  });

  it('beat accepts an empty body', async () => {
    const answer = await fx.call('beat', undefined, { rawBody: '' });
    expect(answer.returnT.code).toBe(200);
  });

  it('a request that is not a POST is refused', async () => {
    const answer = await fx.call('beat', undefined, { method: 'GET' });
    expect(answer.status).toBe(200);
    expect(answer.returnT).toMatchObject({ code: 500, msg: WireMessages.methodNotSupported });
  });

  it.each(['/run/', '//run', '/run?x=1', '/unknown', '/'])('the path %s is not a call', async (rawPath) => {
    const answer = await rawPost(fx.address, rawPath, JSON.stringify(trigger({ logId: freshLogId() })));
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ code: 500, msg: WireMessages.uriNotFound(rawPath) });
  });
});

describe('access token', () => {
  it('a wrong token is refused and the call is not made', async () => {
    const logId = freshLogId();
    const answer = await fx.call('run', trigger({ logId }), { token: 'wrong-token-1234' });
    expect(answer.returnT).toMatchObject({ code: 500, msg: WireMessages.wrongToken });
    const log = await fx.call('log', { logDateTim: Date.now(), logId, fromLineNum: 1 });
    expect(log.returnT.content).toMatchObject({ toLineNum: 0, logContent: WireMessages.logFileNotExists });
  });

  it('a missing token is refused', async () => {
    const answer = await callExecutor(fx.address, 'beat', {});
    expect(answer.returnT).toMatchObject({ code: 500, msg: WireMessages.wrongToken });
  });

  it('a token of another length is refused', async () => {
    const answer = await fx.call('beat', {}, { token: `${TOKEN}-and-more` });
    expect(answer.returnT).toMatchObject({ code: 500, msg: WireMessages.wrongToken });
  });
});

describe('request bodies', () => {
  it('a body that is not JSON is refused with a message saying so', async () => {
    const answer = await fx.call('run', undefined, { rawBody: '{"jobId": 1,' });
    expect(answer.returnT.code).toBe(500);
    expect(answer.returnT.msg).toMatch(/^invalid request, malformed JSON body/);
  });

  it('a field of the wrong type is refused with the field named', async () => {
    const answer = await fx.call('run', trigger({ jobId: 'one', logId: freshLogId() }));
    expect(answer.returnT).toMatchObject({ code: 500, msg: 'jobId: must be a number' });
  });

  it('a body over the limit is refused', async () => {
    const answer = await fx.call('run', undefined, { rawBody: Buffer.alloc(MAX_BODY_BYTES + 1, 0x20) });
    expect(answer.returnT.code).toBe(500);
    expect(answer.returnT.msg).toBe(`invalid request, body larger than ${MAX_BODY_BYTES} bytes.`);
  });

  it('a chunked body over the limit is refused without waiting for its end', async () => {
    const url = new URL(fx.address);
    const answer = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: '/run',
          headers: { [ACCESS_TOKEN_HEADER]: TOKEN },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        },
      );
      req.on('error', reject);
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      // One MiB more than the limit is written, and the request is never ended.
      for (let i = 0; i <= MAX_BODY_BYTES / chunk.length; i++) req.write(chunk);
    });
    expect(answer).toMatchObject({
      code: 500,
      msg: `invalid request, body larger than ${MAX_BODY_BYTES} bytes.`,
    });
  });
});

describe('an executor speaking G4 (XXL-JOB 3.5)', () => {
  let g4: ExecutorFixture;
  const ran: number[] = [];
  beforeEach(async () => {
    g4 = await startExecutor(
      (ex) =>
        ex.handle('hello', (ctx) => {
          ran.push(ctx.logId);
        }),
      { protocol: 'G4' },
    );
  });
  afterEach(async () => {
    await g4.close();
  });

  it.each([
    'run',
    'trigger',
    'beat',
    'kill',
  ])('refuses %s without the XXL-JOB-APPNAME header, as a 3.5 executor does, and runs nothing', async (call) => {
    const logId = freshLogId();
    const answer = await g4.call(call, call === 'kill' ? { jobId: 1 } : trigger({ logId }));
    expect(answer.returnT).toMatchObject({ code: 500, msg: WireMessages.appNameMissing });
    expect(answer.returnT.msg).toBe('invalid request, accessToken or appname is empty.');
    expect(ran).not.toContain(logId);
  });

  it('runs a trigger that carries the XXL-JOB-APPNAME header', async () => {
    const logId = freshLogId();
    const answer = await g4.call('trigger', trigger({ logId }), {
      headers: { [APP_NAME_HEADER]: 'test-app' },
    });
    expect(answer.returnT.code).toBe(200);
    expect(await g4.server.callbackFor(logId)).toMatchObject({ handleCode: 200 });
  });

  it('a G2 executor (the default) takes calls without the header', async () => {
    expect((await fx.call('beat')).returnT.code).toBe(200);
  });
});

describe('run', () => {
  it('run queues a BEAN run whose result reaches the server', async () => {
    const logId = freshLogId();
    const answer = await fx.call('run', trigger({ logId, executorParams: 'world' }));
    expect(answer.json).toEqual({ code: 200, msg: 'Success', content: null, data: null });
    expect(await fx.server.callbackFor(logId)).toMatchObject({ handleCode: 200, handleMsg: 'hello world' });
  });

  it('trigger (the G4 path) runs the job like run', async () => {
    const logId = freshLogId();
    const answer = await fx.call('trigger', trigger({ logId, executorParams: 'g4' }));
    expect(answer.returnT.code).toBe(200);
    expect(await fx.server.callbackFor(logId)).toMatchObject({ handleCode: 200, handleMsg: 'hello g4' });
  });

  it('an unknown handler is refused', async () => {
    const answer = await fx.call('run', trigger({ logId: freshLogId(), executorHandler: 'nope' }));
    expect(answer.returnT).toMatchObject({ code: 500, msg: WireMessages.handlerNotFound('nope') });
  });

  it('an unknown glue type is refused', async () => {
    const answer = await fx.call('run', trigger({ logId: freshLogId(), glueType: 'GLUE_COBOL' }));
    expect(answer.returnT).toMatchObject({ code: 500, msg: 'glueType[GLUE_COBOL] is not valid.' });
  });

  it('a script job is refused when scripts are not enabled', async () => {
    const answer = await fx.call(
      'run',
      trigger({ logId: freshLogId(), glueType: 'GLUE_SHELL', glueSource: 'echo hi' }),
    );
    expect(answer.returnT.code).toBe(500);
    expect(answer.returnT.msg).toMatch(/^glueType\[GLUE_SHELL\] is not enabled.*enableScripts/);
  });
});

describe('runBatch', () => {
  it('decides each trigger as its own run would, in order, and answers one code and message per trigger', async () => {
    const ran = freshLogId();
    const unknown = freshLogId();
    const answer = await fx.call('runBatch', [
      trigger({ logId: ran, executorParams: 'batch' }),
      trigger({ logId: unknown, executorHandler: 'nope' }),
      trigger({ logId: ran, executorParams: 'again' }),
      trigger({ logId: freshLogId(), jobId: 'seven' }),
    ]);
    expect(answer.returnT.code).toBe(200);
    expect(answer.json.content).toEqual([
      { code: 200, msg: 'Success' },
      { code: 500, msg: WireMessages.handlerNotFound('nope') },
      { code: 500, msg: WireMessages.repeatTrigger(ran) },
      { code: 500, msg: 'jobId: must be a number' },
    ]);
    expect(answer.json.data).toEqual(answer.json.content);
    expect(await fx.server.callbackFor(ran)).toMatchObject({ handleCode: 200, handleMsg: 'hello batch' });
  });

  it('runs every trigger of a batch, each under its own logId', async () => {
    const logIds = Array.from({ length: 20 }, () => freshLogId());
    const answer = await fx.call(
      'runBatch',
      logIds.map((logId, i) => trigger({ logId, jobId: 100 + i, executorParams: `n${i}` })),
    );
    expect((answer.json.content as Array<{ code: number }>).map((a) => a.code)).toEqual(
      logIds.map(() => 200),
    );
    for (const [i, logId] of logIds.entries()) {
      expect(await fx.server.callbackFor(logId)).toMatchObject({ handleCode: 200, handleMsg: `hello n${i}` });
    }
  });

  it('refuses a body that is not an array of triggers as a whole, running none', async () => {
    const answer = await fx.call('runBatch', trigger({ logId: freshLogId() }));
    expect(answer.returnT).toMatchObject({
      code: 500,
      msg: 'body: a runBatch body must be an array of TriggerParam',
    });
  });

  it('refuses more triggers than it announces', async () => {
    const triggers = Array.from({ length: MAX_RUN_BATCH + 1 }, () => trigger({ logId: freshLogId() }));
    const answer = await fx.call('runBatch', triggers);
    expect(answer.returnT).toMatchObject({
      code: 500,
      msg: `body: at most ${MAX_RUN_BATCH} triggers in one runBatch`,
    });
  });

  it('announces on every answer that its kill takes a logId (Tickwheel-Kill: logId)', async () => {
    const beat = await fetch(`${fx.address}beat`, {
      method: 'POST',
      headers: { [ACCESS_TOKEN_HEADER]: TOKEN },
    });
    expect(beat.headers.get(KILL_RUN_HEADER)).toBe(KILL_RUN_BY_LOG_ID);
    const kill = await fetch(`${fx.address}kill`, {
      method: 'POST',
      headers: { [ACCESS_TOKEN_HEADER]: TOKEN },
      body: JSON.stringify({ jobId: 1, logId: 2 }),
    });
    expect(kill.headers.get(KILL_RUN_HEADER)).toBe('logId');
  });

  it('announces runBatch and its limit on every answer, refusals included', async () => {
    const url = `${fx.address}beat`;
    const beat = await fetch(url, { method: 'POST', headers: { [ACCESS_TOKEN_HEADER]: TOKEN } });
    expect(beat.headers.get(RUN_BATCH_HEADER)).toBe(String(MAX_RUN_BATCH));
    const refused = await fetch(url, { method: 'POST', headers: { [ACCESS_TOKEN_HEADER]: 'wrong' } });
    expect(await refused.json()).toMatchObject({ code: 500, msg: WireMessages.wrongToken });
    expect(refused.headers.get(RUN_BATCH_HEADER)).toBe(String(MAX_RUN_BATCH));
  });
});

describe.each(['file-per-run', 'file-per-day'] as const)('log, logs laid out %s', (logLayout) => {
  // The other calls do not depend on the layout: this block's executor is its own.
  let fx: ExecutorFixture;
  beforeEach(async () => {
    fx = await startExecutor(
      (ex) => {
        ex.handle('chatty', async (ctx) => {
          for (let i = 1; i <= 5; i++) ctx.log(`line ${i}`);
        });
      },
      { logLayout },
    );
  });
  afterEach(async () => {
    await fx.close();
  });

  it('log returns the run log from a line on, each line numbered from 1', async () => {
    const logId = freshLogId();
    const logDateTime = Date.now();
    await fx.call('run', trigger({ logId, logDateTime, executorHandler: 'chatty' }));
    await fx.server.callbackFor(logId);
    // The delivery line is written just after the server took the callback.
    let all = (await fx.call('log', { logDateTim: logDateTime, logId, fromLineNum: 1 })).returnT;
    for (let i = 0; i < 50 && !JSON.stringify(all.content).includes('callback delivered'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      all = (await fx.call('log', { logDateTim: logDateTime, logId, fromLineNum: 1 })).returnT;
    }
    expect(all.code).toBe(200);
    const page = all.content as {
      fromLineNum: number;
      toLineNum: number;
      logContent: string;
      isEnd: boolean;
    };
    const lines = page.logContent.trimEnd().split('\n');
    expect(page).toMatchObject({ fromLineNum: 1, toLineNum: lines.length, isEnd: false });
    expect(lines[0]).toMatch(/tickwheel run start: jobId=1 logId=\d+ runner=chatty/);
    expect(lines.slice(1, 6).map((l) => l.replace(/^.*\] /, ''))).toEqual([
      'line 1',
      'line 2',
      'line 3',
      'line 4',
      'line 5',
    ]);
    expect(lines[6]).toMatch(/tickwheel run end: handleCode=200 handleMsg=null/);
    expect(lines[7]).toMatch(/callback delivered to http:\/\/127\.0\.0\.1:\d+\//);

    const tail = (await fx.call('log', { logDateTime, logId, fromLineNum: 3 })).returnT
      .content as typeof page;
    expect(tail.fromLineNum).toBe(3);
    expect(tail.toLineNum).toBe(lines.length);
    expect(tail.logContent.trimEnd().split('\n')).toEqual(lines.slice(2));
  });

  it('keeps the run log in the layout files of its date folder', async () => {
    const logId = freshLogId();
    const logDateTime = Date.now();
    await fx.call('run', trigger({ logId, logDateTime, executorHandler: 'chatty' }));
    await fx.server.callbackFor(logId);
    const page = (await fx.call('log', { logDateTim: logDateTime, logId, fromLineNum: 1 })).returnT.content;
    expect(page).toMatchObject({ fromLineNum: 1, isEnd: false });
    const d = new Date(logDateTime);
    const date = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
    const files = await readdir(path.join(fx.logDir, date));
    expect(files.sort()).toEqual(logLayout === 'file-per-day' ? ['runs.idx', 'runs.log'] : [`${logId}.log`]);
  });

  it('log of a run that has no file answers that the file does not exist', async () => {
    const answer = await fx.call('log', { logDateTim: Date.now(), logId: freshLogId(), fromLineNum: 1 });
    expect(answer.returnT).toMatchObject({
      code: 200,
      content: { fromLineNum: 1, toLineNum: 0, logContent: WireMessages.logFileNotExists, isEnd: true },
    });
  });
});

describe('mounting', () => {
  it('the endpoint mounted on an existing http.Server answers under its prefix and leaves other paths alone', async () => {
    const { createExecutor } = await import('@tickwheel/executor');
    const host = http.createServer((_req, res) => res.end('app'));
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    const port = (host.address() as AddressInfo).port;
    const ex = createExecutor({
      appName: 'mounted',
      accessToken: TOKEN,
      serverAddresses: [fx.server.address],
      logDir: fx.logDir,
      logger: (await import('pino')).pino({ level: 'silent' }),
    });
    ex.handle('hello', async (ctx) => `mounted ${ctx.param}`);
    ex.mount(host, '/xxl-job/');
    await ex.start();
    try {
      expect(ex.address).toBe(`http://127.0.0.1:${port}/xxl-job/`);
      await fx.server.waitFor(() => fx.server.registrations.some((r) => r.registryKey === 'mounted'));
      expect(fx.server.registrations.find((r) => r.registryKey === 'mounted')?.registryValue).toBe(
        ex.address,
      );

      const logId = freshLogId();
      const answer = await callExecutor(ex.address!, 'run', trigger({ logId, executorParams: 'x' }), {
        token: TOKEN,
      });
      expect(answer.returnT.code).toBe(200);
      expect(await fx.server.callbackFor(logId)).toMatchObject({ handleCode: 200, handleMsg: 'mounted x' });
      expect(await (await fetch(`http://127.0.0.1:${port}/other`)).text()).toBe('app');
      const off = await rawPost(`http://127.0.0.1:${port}/`, '/xxl-job//beat', '');
      expect(off.json).toMatchObject({ code: 500, msg: WireMessages.uriNotFound('//beat') });
    } finally {
      await ex.stop();
    }
    expect(await (await fetch(`http://127.0.0.1:${port}/xxl-job/beat`, { method: 'POST' })).text()).toBe(
      'app',
    );
    host.closeAllConnections();
    await new Promise<void>((resolve) => host.close(() => resolve()));
  });

  it('a wildcard host is registered as a reachable address, never as 0.0.0.0', async () => {
    const { createExecutor } = await import('@tickwheel/executor');
    const host = http.createServer((_req, res) => res.end('app'));
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    const port = (host.address() as AddressInfo).port;
    const ex = createExecutor({
      appName: 'wildcard',
      accessToken: TOKEN,
      host: '0.0.0.0',
      serverAddresses: [fx.server.address],
      logDir: fx.logDir,
      logger: (await import('pino')).pino({ level: 'silent' }),
    });
    ex.mount(host, '/jobs');
    await ex.start();
    try {
      expect(ex.address).toMatch(new RegExp(`^http://\\d+\\.\\d+\\.\\d+\\.\\d+:${port}/jobs/$`));
      expect(ex.address).not.toContain('0.0.0.0');
    } finally {
      await ex.stop();
      host.closeAllConnections();
      await new Promise<void>((resolve) => host.close(() => resolve()));
    }
  });

  it('requestListener serves as middleware and passes other paths to next', async () => {
    const { createExecutor } = await import('@tickwheel/executor');
    const ex = createExecutor({
      appName: 'middleware',
      accessToken: TOKEN,
      logDir: fx.logDir,
      logger: (await import('pino')).pino({ level: 'silent' }),
    });
    const listener = ex.requestListener('/jobs');
    const host = http.createServer((req, res) => listener(req, res, () => res.end('next')));
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(host.address() as AddressInfo).port}/`;
    await ex.start();
    try {
      expect((await callExecutor(`${base}jobs/`, 'beat', {}, { token: TOKEN })).returnT.code).toBe(200);
      expect(await (await fetch(`${base}elsewhere`)).text()).toBe('next');
    } finally {
      await ex.stop();
      host.closeAllConnections();
      await new Promise<void>((resolve) => host.close(() => resolve()));
    }
  });
});
