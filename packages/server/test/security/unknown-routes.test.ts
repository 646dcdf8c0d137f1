/**
 * A path the REST API has no operation for answers 404 with the API's error envelope,
 * `{ "error": { "code": "TW_ERR_NOT_FOUND", "message" } }`, whatever the method and whether or not
 * the server serves the console (whose page fallback takes every other GET), and the console's
 * own page paths still get its page.
 */
import type { Response } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CONSOLE_DIR } from '../helpers/built-console.js';
import { type E2eServer, startServer } from '../helpers/e2e.js';
import { callHttp } from '../helpers/http-api.js';

const API_TOKEN = 'tw_unknown-routes-test-token-0123456789abcdef';
const UNKNOWN_API_PATHS = [
  '/api/v1',
  '/api/v1/',
  '/api/v1/no-such-thing',
  '/api/v1/jobs/1/no-such-action',
  '/api/v1/no-such-thing?x=1',
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

async function expectNotFoundEnvelope(res: Response, what: string): Promise<void> {
  expect(res.status, what).toBe(404);
  expect(res.headers.get('content-type'), what).toContain('application/json');
  if (res.headers.get('content-length') === '0') return;
  const text = await res.text();
  // HEAD answers carry no body.
  if (text === '') return;
  const body = JSON.parse(text);
  expect(Object.keys(body), what).toEqual(['error']);
  expect(body.error, what).toEqual({ code: 'TW_ERR_NOT_FOUND', message: expect.any(String) });
}

describe.each([
  ['serving the console', BUILT_CONSOLE_DIR],
  ['without the console', undefined],
])('unknown routes, %s', (_label, consoleDir) => {
  let started: E2eServer;
  let url: string;

  beforeAll(async () => {
    started = await startServer({
      adminPassword: 'the admin password',
      apiToken: API_TOKEN,
      ...(consoleDir === undefined ? {} : { consoleDir }),
    });
    url = started.server.url;
  });

  afterAll(async () => {
    await started?.close();
  });

  it("an unknown /api/v1 path answers 404 with the REST API's error envelope, whatever the method, with or without credentials", async () => {
    for (const path of UNKNOWN_API_PATHS) {
      for (const method of METHODS) {
        await expectNotFoundEnvelope(await callHttp(url, method, path), `${method} ${path}`);
        await expectNotFoundEnvelope(
          await callHttp(url, method, path, { token: API_TOKEN }),
          `${method} ${path} with a token`,
        );
      }
    }
  });

  it('a known operation under another method is not found either, in the same envelope', async () => {
    await expectNotFoundEnvelope(
      await callHttp(url, 'PUT', '/api/v1/apps', { token: API_TOKEN }),
      'PUT apps',
    );
  });

  it('other paths the server has nothing for answer the same envelope', async () => {
    for (const [method, path] of [
      ['DELETE', '/jobs'],
      ['POST', '/'],
      ['GET', '/metrics/x'],
      ['GET', '/healthz/x'],
      ['GET', '/api/v2/jobs'],
    ] as const) {
      await expectNotFoundEnvelope(await callHttp(url, method, path), `${method} ${path}`);
    }
  });

  it("the executor API's unknown calls still answer XXL-JOB's ReturnT", async () => {
    const res = await callHttp(url, 'POST', '/api/no-such-call', { body: {} });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ code: 500 });
  });
});

describe("the console's page fallback", () => {
  let started: E2eServer;
  let url: string;

  beforeAll(async () => {
    started = await startServer({ adminPassword: 'the admin password', consoleDir: BUILT_CONSOLE_DIR });
    url = started.server.url;
  });

  afterAll(async () => {
    await started?.close();
  });

  it("still answers the console's own page paths with its page", async () => {
    for (const path of [
      '/',
      '/login',
      '/jobs',
      '/jobs/12',
      '/jobs/12/script',
      '/fires?status=FAILED',
      '/account',
    ]) {
      const res = await callHttp(url, 'GET', path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toContain('text/html');
      expect(await res.text(), path).toContain('<div id="root"></div>');
    }
  });
});
