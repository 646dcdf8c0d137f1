import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createExecutor, type Executor } from '@tickwheel/executor';
import { APP_NAME_HEADER, type ProtocolGeneration } from '@tickwheel/protocol';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import {
  type ApiServer,
  createAppWithJob,
  post,
  silentLogger,
  startApiServer,
  TOKEN,
} from './helpers/executor-api-server.js';

const registryBody = (appName: string, address: string) => ({
  registryGroup: 'EXECUTOR',
  registryKey: appName,
  registryValue: address,
});

async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(DIALECTS)('executor registration on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  let server: ApiServer;
  const executors: Array<{ ex: Executor; logDir: string }> = [];

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    store = await database.open();
    server = await startApiServer(store);
  });
  afterEach(async () => {
    for (const { ex, logDir } of executors.splice(0)) {
      await ex.stop({ timeoutMs: 0 });
      await rm(logDir, { recursive: true, force: true });
    }
  });
  afterAll(async () => {
    await server.close();
    await database.drop();
  });

  async function startRealExecutor(appName: string, protocol: ProtocolGeneration): Promise<Executor> {
    const logDir = await mkdtemp(path.join(os.tmpdir(), 'tw-exapi-'));
    const ex = createExecutor({
      appName,
      accessToken: TOKEN,
      port: 0,
      serverAddresses: [server.address],
      logDir,
      protocol,
      logger: silentLogger,
      internal: { heartbeatIntervalMs: 60_000 },
    });
    executors.push({ ex, logDir });
    await ex.start();
    return ex;
  }

  it('a real executor that registers is stored and online at once, spoken to the G2 way', async () => {
    const { appName } = await createAppWithJob(store, Date.now());
    const ex = await startRealExecutor(appName, 'G2');
    await until(() => server.directory.addressesOf(appName).length === 1, 'the registration');
    expect(server.directory.addressesOf(appName)).toEqual([
      { address: ex.address, protocol: 'G2', appName, accessToken: TOKEN },
    ]);
    const rows = await store.registry.listAlive(0, appName);
    expect(rows.map((row) => [row.registry_group, row.registry_value, row.protocol])).toEqual([
      ['EXECUTOR', ex.address, 'G2'],
    ]);
  });

  it('a real G4 executor (it sends XXL-JOB-APPNAME) is recorded as G4', async () => {
    const { appName } = await createAppWithJob(store, Date.now());
    const ex = await startRealExecutor(appName, 'G4');
    await until(() => server.directory.addressesOf(appName).length === 1, 'the registration');
    expect(server.directory.addressesOf(appName)).toEqual([
      { address: ex.address, protocol: 'G4', appName, accessToken: TOKEN },
    ]);
    expect((await store.registry.listAlive(0, appName))[0]?.protocol).toBe('G4');
  });

  it('a real executor that stops removes itself (registryRemove) and is offline at once', async () => {
    const { appName } = await createAppWithJob(store, Date.now());
    const ex = await startRealExecutor(appName, 'G2');
    await until(() => server.directory.addressesOf(appName).length === 1, 'the registration');
    await ex.stop({ timeoutMs: 0 });
    expect(server.directory.addressesOf(appName)).toEqual([]);
    expect(await store.registry.listAlive(0, appName)).toEqual([]);
  });

  it('the XXL-JOB-APPNAME header on a raw registration marks the executor G4, its absence G2', async () => {
    const { appName } = await createAppWithJob(store, Date.now());
    const g4 = await post(server.address, '/api/registry', registryBody(appName, 'http://10.0.0.4:9999/'), {
      headers: { [APP_NAME_HEADER]: appName },
    });
    const g2 = await post(server.address, '/api/registry', registryBody(appName, 'http://10.0.0.2:9999/'));
    expect(g4.body).toEqual({ code: 200, msg: 'Success', content: null, data: null });
    expect(g2.body.code).toBe(200);
    expect(server.directory.addressesOf(appName).map((e) => [e.address, e.protocol])).toEqual([
      ['http://10.0.0.2:9999/', 'G2'],
      ['http://10.0.0.4:9999/', 'G4'],
    ]);
  });

  it('a blank, missing or non-string registry field is refused with Illegal Argument.', async () => {
    const { appName } = await createAppWithJob(store, Date.now());
    const bodies = [
      registryBody(appName, '   '),
      registryBody('', 'http://10.0.0.9:9999/'),
      { registryGroup: 'EXECUTOR', registryKey: appName },
      { ...registryBody(appName, 'http://10.0.0.9:9999/'), registryGroup: 7 },
      null,
    ];
    for (const body of bodies) {
      const answer = await post(server.address, '/api/registry', body);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ code: 500, msg: 'Illegal Argument.', content: null, data: null });
    }
    expect(await store.registry.listAlive(0, appName)).toEqual([]);
  });

  it('a wrong or missing access token is refused and nothing is recorded', async () => {
    const { appName } = await createAppWithJob(store, Date.now());
    for (const token of ['wrong', '', null]) {
      const answer = await post(
        server.address,
        '/api/registry',
        registryBody(appName, 'http://10.0.0.7:9999/'),
        {
          token,
        },
      );
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        code: 500,
        msg: 'The access token is wrong.',
        content: null,
        data: null,
      });
    }
    expect(await store.registry.listAlive(0, appName)).toEqual([]);
    expect(server.directory.addressesOf(appName)).toEqual([]);
  });

  it('a raw registryRemove deletes the registration, and removing an unknown one still succeeds', async () => {
    const { appName } = await createAppWithJob(store, Date.now());
    const body = registryBody(appName, 'http://10.0.0.5:9999/');
    await post(server.address, '/api/registry', body);
    expect(server.directory.addressesOf(appName)).toHaveLength(1);
    expect((await post(server.address, '/api/registryRemove', body)).body.code).toBe(200);
    expect((await post(server.address, '/api/registryRemove', body)).body.code).toBe(200);
    expect(server.directory.addressesOf(appName)).toEqual([]);
    expect(await store.registry.listAlive(0, appName)).toEqual([]);
  });

  it('a pull executor registers and removes its pull://<instance>/ address; other non-http values stay refused', async () => {
    const { appName } = await createAppWithJob(store, Date.now());
    const body = { ...registryBody(appName, ' pull://pull-inst-1/ '), instance: 'pull-inst-1' };
    expect((await post(server.address, '/api/registry', body)).body.code).toBe(200);
    expect((await store.registry.listAlive(0, appName)).map((r) => r.registry_value)).toEqual([
      'pull://pull-inst-1/',
    ]);
    expect(server.directory.addressesOf(appName).map((a) => a.address)).toEqual(['pull://pull-inst-1/']);
    for (const value of ['pull://not an instance/', 'pull://', 'ws://10.0.0.9:9999/']) {
      expect((await post(server.address, '/api/registry', registryBody(appName, value))).body).toMatchObject({
        code: 500,
        msg: 'Illegal Argument.',
      });
    }
    expect((await post(server.address, '/api/registryRemove', body)).body.code).toBe(200);
    expect(await store.registry.listAlive(0, appName)).toEqual([]);
    expect(server.directory.addressesOf(appName)).toEqual([]);
  });

  it('a registration carrying handler names stores them with the registration', async () => {
    const { appName } = await createAppWithJob(store, Date.now());
    const body = { ...registryBody(appName, 'http://10.0.2.1:9999/'), handlers: ['b', 'a', 'b'] };
    expect((await post(server.address, '/api/registry', body)).body.code).toBe(200);
    expect(await store.registry.listAliveHandlers(0, appName)).toEqual([
      { address: 'http://10.0.2.1:9999/', handlers: ['b', 'a'] },
    ]);
    expect(server.directory.addressesOf(appName)).toHaveLength(1);
  });

  it('a registration carrying an instance id stores it; one without stores none', async () => {
    const { appName } = await createAppWithJob(store, Date.now());
    const body = { ...registryBody(appName, 'http://10.0.2.3:9999/'), instance: 'a1b2-c3' };
    expect((await post(server.address, '/api/registry', body)).body.code).toBe(200);
    expect((await store.registry.listAlive(0, appName))[0]?.instance).toBe('a1b2-c3');
    await post(server.address, '/api/registry', registryBody(appName, 'http://10.0.2.3:9999/'));
    expect((await store.registry.listAlive(0, appName))[0]?.instance).toBeNull();
  });

  it('an XXL-JOB registration (no handlers field) is stored with no names', async () => {
    const { appName } = await createAppWithJob(store, Date.now());
    expect(
      (await post(server.address, '/api/registry', registryBody(appName, 'http://10.0.2.2:9999/'))).body,
    ).toEqual({ code: 200, msg: 'Success', content: null, data: null });
    expect(await store.registry.listAliveHandlers(0, appName)).toEqual([
      { address: 'http://10.0.2.2:9999/', handlers: null },
    ]);
  });

  it('bodies are read as JSON whatever the content type: text/plain, none, or with a charset', async () => {
    const { appName } = await createAppWithJob(store, Date.now());
    const cases: Array<[string | null, string]> = [
      ['text/plain', 'http://10.0.1.1:9999/'],
      [null, 'http://10.0.1.2:9999/'],
      ['application/json;charset=UTF-8', 'http://10.0.1.3:9999/'],
      ['application/x-www-form-urlencoded', 'http://10.0.1.4:9999/'],
    ];
    for (const [contentType, address] of cases) {
      const answer = await post(server.address, '/api/registry', registryBody(appName, address), {
        contentType,
      });
      expect(answer.body.code, `content type ${contentType}`).toBe(200);
    }
    expect(server.directory.addressesOf(appName)).toHaveLength(4);
  });
});

describe('executor API answers like XXL-JOB admin to what it does not serve', () => {
  let database: TestDatabase;
  let server: ApiServer;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    server = await startApiServer(await database.open());
  });
  afterAll(async () => {
    await server.close();
    await database.drop();
  });

  it('a non-POST request gets code 500 "invalid request, HttpMethod not support." with HTTP 200', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const answer = await post(server.address, '/api/registry', {}, { method });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        code: 500,
        msg: 'invalid request, HttpMethod not support.',
        content: null,
        data: null,
      });
    }
  });

  it('an unknown /api/<call> gets code 500 "invalid request, uri-mapping(<call>) not found."', async () => {
    const answer = await post(server.address, '/api/unknownCall', {});
    expect(answer.status).toBe(200);
    expect(answer.body.code).toBe(500);
    expect(answer.body.msg).toBe('invalid request, uri-mapping(unknownCall) not found.');
  });

  it('the token is checked before the path, as XXL-JOB does', async () => {
    const answer = await post(server.address, '/api/unknownCall', {}, { token: 'wrong' });
    expect(answer.body.msg).toBe('The access token is wrong.');
  });

  it('a body that is not JSON gets code 500 saying it is malformed', async () => {
    const answer = await post(server.address, '/api/callback', '[{"logId": 1,');
    expect(answer.status).toBe(200);
    expect(answer.body.code).toBe(500);
    expect(answer.body.msg).toMatch(/^invalid request, malformed JSON body: /);
  });

  it('a body over 5 MiB gets code 500 saying it is too large, with HTTP 200', async () => {
    const answer = await post(server.address, '/api/callback', `[${' '.repeat(5 * 1024 * 1024)}]`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      code: 500,
      msg: 'invalid request, body larger than 5242880 bytes.',
      content: null,
      data: null,
    });
  });

  it('answers carry the JSON content type', async () => {
    const answer = await post(server.address, '/api/callback', []);
    expect(answer.contentType).toBe('application/json;charset=UTF-8');
    expect(answer.body).toEqual({ code: 200, msg: 'Success', content: null, data: null });
  });

  it('/api/v1 paths are left to the REST API (not answered as executor calls)', async () => {
    const response = await fetch(new URL('/api/v1', server.address), { method: 'POST' });
    expect(response.status).toBe(404);
    const deeper = await fetch(new URL('/api/v1/apps', server.address));
    expect(deeper.status).toBe(404);
  });
});

describe('executor API when the store fails', () => {
  it('answers code 500 with HTTP 200, so the executor keeps its results and re-sends them', async () => {
    const database = await createTestDatabase('sqlite');
    const store = await database.open();
    const server = await startApiServer(store);
    try {
      await store.close();
      const callback = await post(server.address, '/api/callback', [
        { logId: 1, logDateTim: 1, handleCode: 200 },
      ]);
      const registry = await post(
        server.address,
        '/api/registry',
        registryBody('app', 'http://10.0.0.1:9999/'),
      );
      for (const answer of [callback, registry]) {
        expect(answer.status).toBe(200);
        expect(answer.body.code).toBe(500);
        expect(answer.body.msg).toMatch(/^server error: /);
      }
    } finally {
      await server.close();
      await database.drop();
    }
  });
});

describe('a handlers field out of bounds', () => {
  let database: TestDatabase;
  let server: ApiServer;
  const records: Array<{ level: number; msg: string; address?: string; reason?: string }> = [];

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        records.push(JSON.parse(chunk.toString('utf8')));
        done();
      },
    });
    server = await startApiServer(await database.open(), undefined, pino({ level: 'debug' }, sink));
  });
  afterAll(async () => {
    await server.close();
    await database.drop();
  });

  it('is ignored, the registration accepted, and logged once per address and reason', async () => {
    const body = { ...registryBody('orders', 'http://10.0.3.1:9999/'), handlers: ['ok', ''] };
    for (let beat = 0; beat < 3; beat++) {
      expect((await post(server.address, '/api/registry', body)).body.code).toBe(200);
    }
    expect(server.directory.addressesOf('orders').map((e) => e.address)).toEqual(['http://10.0.3.1:9999/']);
    const warnings = () => records.filter((r) => r.level === 40);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({
      address: 'http://10.0.3.1:9999/',
      reason: 'handlers[1]: must not be blank',
      msg: 'executor registration accepted, its handlers field ignored',
    });
    await post(server.address, '/api/registry', { ...body, handlers: 7 });
    expect(warnings()).toHaveLength(2);
    expect(warnings()[1]?.reason).toBe('handlers: must be an array of handler names');
  });

  it('an instance field that is no instance id is ignored the same way, the registration accepted', async () => {
    const body = { ...registryBody('orders', 'http://10.0.3.2:9999/'), instance: 'not an id' };
    const before = records.length;
    for (let beat = 0; beat < 2; beat++) {
      expect((await post(server.address, '/api/registry', body)).body.code).toBe(200);
    }
    const warnings = records.slice(before).filter((r) => r.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      address: 'http://10.0.3.2:9999/',
      msg: 'executor registration accepted, its instance field ignored',
    });
    expect(server.directory.addressesOf('orders').map((e) => e.address)).toContain('http://10.0.3.2:9999/');
  });
});
