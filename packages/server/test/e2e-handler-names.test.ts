/**
 * Handler names from registration to the REST API, on every database: real Tickwheel executors
 * send theirs with each heartbeat (the optional `handlers` field), an XXL-JOB-style registration
 * sends none and still registers, and `listAppHandlers` answers the union of the online ones.
 */
import { ACCESS_TOKEN_HEADER, JSON_CONTENT_TYPE } from '@tickwheel/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import {
  createApp,
  E2E_TOKEN,
  type E2eExecutor,
  type E2eServer,
  startExecutor,
  startServer,
} from './helpers/e2e.js';

const API_TOKEN = 'e2e-api-token-0123456789abcdef';
const APP = 'e2e-handlers';

let server: E2eServer | undefined;
let database: TestDatabase | undefined;
const executors: E2eExecutor[] = [];

afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
  await server?.close();
  await database?.drop();
  server = undefined;
  database = undefined;
});

async function startServerOn(dialect: (typeof DIALECTS)[number]): Promise<E2eServer> {
  if (dialect === 'sqlite') return startServer({ apiToken: API_TOKEN });
  database = await createTestDatabase(dialect);
  return startServer({ apiToken: API_TOKEN, database: database.url });
}

interface HandlersAnswer {
  items: string[];
  onlineExecutors: number;
  reportingExecutors: number;
  error?: { code: string };
}

async function rest<T = HandlersAnswer>(path: string): Promise<{ status: number; body: T }> {
  const response = await fetch(`${server!.server.url}api/v1${path}`, {
    headers: { authorization: `Bearer ${API_TOKEN}` },
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** An executor-side call as an XXL-JOB executor sends it. */
async function xxlCall(call: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${server!.server.url}api/${call}`, {
    method: 'POST',
    headers: { 'content-type': JSON_CONTENT_TYPE, [ACCESS_TOKEN_HEADER]: E2E_TOKEN },
    body: JSON.stringify(body),
  });
  return response.json();
}

describe.each(DIALECTS)('handler names of online executors on %s', (dialect) => {
  it('listAppHandlers answers the names the online Tickwheel executors registered, each once', async () => {
    server = await startServerOn(dialect);
    const appId = await createApp(server.store, APP);
    executors.push(
      await startExecutor(server.server, APP, (ex) => {
        ex.handle('syncOrders', async () => {});
        ex.handle('audit', async () => {});
      }),
      await startExecutor(server.server, APP, (ex) => {
        ex.handle('syncOrders', async () => {});
        ex.handle('报表', async () => {});
      }),
    );
    const xxl = { registryGroup: 'EXECUTOR', registryKey: APP, registryValue: 'http://127.0.0.1:9/' };
    expect(await xxlCall('registry', xxl)).toMatchObject({ code: 200 });

    const answer = await rest(`/apps/${appId}/handlers`);

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      items: ['audit', 'syncOrders', '报表'],
      onlineExecutors: 3,
      reportingExecutors: 2,
    });
    const online = (await rest(`/apps/${appId}/executors`)).body.items.map(
      (e: { address: string }) => e.address,
    );
    expect(online).toContain('http://127.0.0.1:9/');
  });

  it('names of an executor that stopped are no longer offered', async () => {
    server = await startServerOn(dialect);
    const appId = await createApp(server.store, APP);
    const staying = await startExecutor(server.server, APP, (ex) => ex.handle('stays', async () => {}));
    const leaving = await startExecutor(server.server, APP, (ex) => ex.handle('leaves', async () => {}));
    executors.push(staying);
    expect((await rest(`/apps/${appId}/handlers`)).body.items).toEqual(['leaves', 'stays']);

    await leaving.close();

    expect((await rest(`/apps/${appId}/handlers`)).body).toEqual({
      items: ['stays'],
      onlineExecutors: 1,
      reportingExecutors: 1,
    });
  });

  it('a registration whose handlers field is out of bounds still registers, its names ignored', async () => {
    server = await startServerOn(dialect);
    const appId = await createApp(server.store, APP);
    const base = { registryGroup: 'EXECUTOR', registryKey: APP };
    const bad = [
      { ...base, registryValue: 'http://127.0.0.1:11/', handlers: 'sync' },
      { ...base, registryValue: 'http://127.0.0.1:12/', handlers: ['ok', 7] },
      { ...base, registryValue: 'http://127.0.0.1:13/', handlers: ['x'.repeat(256)] },
      {
        ...base,
        registryValue: 'http://127.0.0.1:14/',
        handlers: Array.from({ length: 1_001 }, (_, i) => `h${i}`),
      },
    ];
    for (const body of bad) expect(await xxlCall('registry', body)).toMatchObject({ code: 200 });
    const good = { ...base, registryValue: 'http://127.0.0.1:15/', handlers: ['fine'] };
    expect(await xxlCall('registry', good)).toMatchObject({ code: 200 });

    expect((await rest(`/apps/${appId}/handlers`)).body).toEqual({
      items: ['fine'],
      onlineExecutors: 5,
      reportingExecutors: 1,
    });
  });

  it('a heartbeat replaces the names: an address that re-registers without them reports none', async () => {
    server = await startServerOn(dialect);
    const appId = await createApp(server.store, APP);
    const address = { registryGroup: 'EXECUTOR', registryKey: APP, registryValue: 'http://127.0.0.1:16/' };
    await xxlCall('registry', { ...address, handlers: ['first', 'second'] });
    expect((await rest(`/apps/${appId}/handlers`)).body.items).toEqual(['first', 'second']);
    await xxlCall('registry', { ...address, handlers: ['second', 'third'] });
    expect((await rest(`/apps/${appId}/handlers`)).body.items).toEqual(['second', 'third']);
    await xxlCall('registry', address);
    expect((await rest(`/apps/${appId}/handlers`)).body).toEqual({
      items: [],
      onlineExecutors: 1,
      reportingExecutors: 0,
    });
  });

  it('answers 404 for an app that does not exist', async () => {
    server = await startServerOn(dialect);
    const answer = await rest('/apps/999999/handlers');
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBeDefined();
  });
});
