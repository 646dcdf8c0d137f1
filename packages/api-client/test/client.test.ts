/**
 * The client against a real server (SQLite in a temp dir, on loopback), and against a loopback
 * server that is not Tickwheel's (what a proxy in front of it answers) and a port nobody listens on.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createServer, type TickwheelServer } from '@tickwheel/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, call, createApiClient, type Middleware, readOpenApiDocument } from '../src/index.js';

const API_TOKEN = 'api-client-test-token-0123456789abcdef';

let dataDir: string;
let server: TickwheelServer;
let proxy: Server;
/** What the proxy answers next: a status and an HTML page. */
let proxyAnswer = { status: 502, body: '<html>Bad Gateway</html>' };
const proxiedPaths: string[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'tw-api-client-test-'));
  server = await createServer({ host: '127.0.0.1', port: 0, dataDir, apiToken: API_TOKEN, logLevel: 'warn' });
  proxy = createHttpServer((request, response) => {
    proxiedPaths.push(request.url ?? '');
    response.writeHead(proxyAnswer.status, { 'content-type': 'text/html' }).end(proxyAnswer.body);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await server?.stop();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

function proxyUrl(): string {
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

/** The `{ code, message }` of the server's error answer, asked for without the client. */
async function errorAnswer(method: string, resource: string, body?: object): Promise<object> {
  const response = await fetch(`${server.url}api/v1/${resource}`, {
    method,
    headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const { error } = (await response.json()) as { error: { code: string; message: string } };
  return { code: error.code, message: error.message };
}

/** A loopback port that was free a moment ago: nothing answers there. */
async function closedPortUrl(): Promise<string> {
  const probe = createHttpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}/`;
}

describe('createApiClient and call', () => {
  it('sends the token and answers the typed data of a success', async () => {
    const api = createApiClient({ baseUrl: server.url, token: API_TOKEN });

    const created = await call(api.POST('/api/v1/apps', { body: { appName: 'billing', title: 'Billing' } }));
    const found = await call(api.GET('/api/v1/apps/{id}', { params: { path: { id: created.id } } }));

    expect(found).toMatchObject({ id: created.id, appName: 'billing', title: 'Billing' });
  });

  it('answers undefined for a 204', async () => {
    const api = createApiClient({ baseUrl: server.url, token: API_TOKEN });
    const created = await call(api.POST('/api/v1/apps', { body: { appName: 'to-delete', title: 'x' } }));

    const deleted = await call(api.DELETE('/api/v1/apps/{id}', { params: { path: { id: created.id } } }));

    expect(deleted).toBeUndefined();
  });

  it("rejects an error answer with the API's status, code, field and message", async () => {
    const api = createApiClient({ baseUrl: server.url, token: API_TOKEN });

    const missing = await call(api.GET('/api/v1/jobs/{id}', { params: { path: { id: 999_999 } } })).catch(
      (err: unknown) => err,
    );
    const invalid = await call(api.POST('/api/v1/apps', { body: { appName: '', title: 'x' } })).catch(
      (err: unknown) => err,
    );

    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({ status: 404, ...(await errorAnswer('GET', 'jobs/999999')) });
    expect(invalid).toMatchObject({
      status: 400,
      field: 'appName',
      ...(await errorAnswer('POST', 'apps', { appName: '', title: 'x' })),
    });
  });

  it("runs the caller's middleware first: it sees the 401 the client then rejects with", async () => {
    const seen: number[] = [];
    const watcher: Middleware = {
      onResponse({ response }) {
        seen.push(response.status);
        return response;
      },
    };
    const api = createApiClient({ baseUrl: server.url, middleware: [watcher] });

    const refused = await call(api.GET('/api/v1/jobs')).catch((err: unknown) => err);

    expect(seen).toEqual([401]);
    expect(refused).toMatchObject({ status: 401, code: 'TW_ERR_UNAUTHENTICATED' });
  });

  it('reads the server’s own OpenAPI document', async () => {
    const api = createApiClient({ baseUrl: server.url, token: API_TOKEN });

    const doc = await readOpenApiDocument(api);

    const operationIds = Object.values(doc.paths).flatMap((byMethod) =>
      Object.values(byMethod).map((operation) => operation.operationId),
    );
    expect(operationIds).toEqual(expect.arrayContaining(['getJob', 'createJob', 'listWorkflows']));
  });
});

describe('answers that are not the API’s', () => {
  it('names the method and path of an error page, keeping the base URL’s path prefix', async () => {
    proxyAnswer = { status: 502, body: '<html>Bad Gateway</html>' };
    const api = createApiClient({ baseUrl: `${proxyUrl()}/tickwheel/` });

    const refused = await call(api.GET('/api/v1/jobs')).catch((err: unknown) => err);

    expect(proxiedPaths.at(-1)).toBe('/tickwheel/api/v1/jobs');
    expect(refused).toMatchObject({
      status: 502,
      code: 'TW_ERR_SERVER_CALL_FAILED',
      message: 'GET /tickwheel/api/v1/jobs answered HTTP 502',
    });
  });

  it('refuses a success whose body is not JSON', async () => {
    proxyAnswer = { status: 200, body: '<html>Sign in to the proxy</html>' };
    const api = createApiClient({ baseUrl: proxyUrl() });

    const refused = await call(api.GET('/api/v1/apps')).catch((err: unknown) => err);

    expect(refused).toMatchObject({
      status: 200,
      code: 'TW_ERR_SERVER_CALL_FAILED',
      message: 'GET /api/v1/apps answered 200 with a body that is not JSON',
    });
  });

  it('rejects with status 0 when no answer comes, with the fetch failure as the cause', async () => {
    const api = createApiClient({ baseUrl: await closedPortUrl() });

    const failed = await call(api.GET('/api/v1/jobs')).catch((err: unknown) => err);

    expect(failed).toBeInstanceOf(ApiError);
    expect(failed).toMatchObject({ status: 0, code: 'TW_ERR_SERVER_CALL_FAILED' });
    expect((failed as ApiError).message).toMatch(/^the server did not answer: /);
    expect((failed as ApiError).cause).toBeInstanceOf(Error);
  });

  it("lets the caller's onError name a call that got no answer", async () => {
    const named: Middleware = {
      onError: ({ error }) =>
        new ApiError('cannot reach the server; check the URL', {
          status: 0,
          code: 'TW_ERR_SERVER_CALL_FAILED',
          cause: error,
        }),
    };
    const api = createApiClient({ baseUrl: await closedPortUrl(), middleware: [named] });

    const failed = await call(api.GET('/api/v1/jobs')).catch((err: unknown) => err);

    expect(failed).toMatchObject({ status: 0, message: 'cannot reach the server; check the URL' });
  });
});
