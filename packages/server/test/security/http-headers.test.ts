/**
 * Every HTTP answer of a real server (serving the built console) carries the security headers:
 * the console's pages and assets, the REST API and its errors, the ops endpoints and the
 * executor-facing API. The console page's policy allows its own origin only, and of it only what
 * the console uses; everything else loads nothing. HSTS goes only to requests that came over
 * HTTPS, which a plain-HTTP client cannot claim with a forged X-Forwarded-Proto.
 */
import { createHash } from 'node:crypto';
import type { Response } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CONSOLE_DIR, builtConsolePage } from '../helpers/built-console.js';
import { callServer, type E2eServer, startServer } from '../helpers/e2e.js';
import { callHttp, type HttpCallOptions } from '../helpers/http-api.js';

const API_TOKEN = 'tw_http-headers-test-token-0123456789abcdef';

/** A policy as directive → sources. */
function parsePolicy(policy: string | null): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const part of (policy ?? '').split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) directives.set(name, sources);
  }
  return directives;
}

/** The page's inline script as the browser hashes it (the built page has one, without attributes). */
function inlineScriptHash(html: string): string {
  const body = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (body === undefined) throw new Error('the built console page has no inline script');
  return `'sha256-${createHash('sha256').update(body).digest('base64')}'`;
}

function expectSecurityHeaders(res: Response, what: string): void {
  const headers = Object.fromEntries(res.headers);
  expect(headers, what).toMatchObject({
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
  });
  expect(parsePolicy(res.headers.get('content-security-policy')).get('frame-ancestors'), what).toEqual([
    "'none'",
  ]);
  // Plain HTTP, no proxy: never HSTS.
  expect(res.headers.get('strict-transport-security'), what).toBeNull();
}

describe('security headers on every answer', () => {
  let started: E2eServer;
  let url: string;
  let assetPath: string;

  beforeAll(async () => {
    started = await startServer({
      adminPassword: 'the admin password',
      apiToken: API_TOKEN,
      consoleDir: BUILT_CONSOLE_DIR,
    });
    url = started.server.url;
    assetPath = /src="(\/assets\/[^"]+\.js)"/.exec(builtConsolePage())![1]!;
  });

  afterAll(async () => {
    await started?.close();
  });

  const get = (path: string, options: HttpCallOptions = {}) => callHttp(url, 'GET', path, options);

  it('every answer carries them: console pages and assets, the REST API and its errors, the ops endpoints, the executor API', async () => {
    const answers: Array<[string, Response, number]> = [
      ['console /', await get('/'), 200],
      ['console page path', await get('/jobs/12'), 200],
      ['console page, brotli', await get('/', { headers: { 'accept-encoding': 'br' } }), 200],
      ['console asset', await get(assetPath), 200],
      ['REST API', await get('/api/v1/apps', { token: API_TOKEN }), 200],
      ['REST API without credentials', await get('/api/v1/apps'), 401],
      [
        'REST API bad input',
        await callHttp(url, 'POST', '/api/v1/apps', { token: API_TOKEN, body: { appName: '' } }),
        400,
      ],
      [
        'failed sign-in',
        await callHttp(url, 'POST', '/api/v1/login', { body: { username: 'admin', password: 'wrong' } }),
        401,
      ],
      ['REST API unknown path', await get('/api/v1/no-such-thing'), 404],
      ['OpenAPI document', await get('/api/v1/openapi.json', { token: API_TOKEN }), 200],
      ['healthz', await get('/healthz'), 200],
      ['metrics', await get('/metrics', { token: API_TOKEN }), 200],
      ['executor API', await callHttp(url, 'POST', '/api/registry', { body: {} }), 200],
    ];
    for (const [what, res, status] of answers) {
      expect(res.status, what).toBe(status);
      expectSecurityHeaders(res, what);
    }
  });

  it("the console's page allows its own origin only: its scripts (the inline one by its hash), inline styles, data: images, fetch", async () => {
    const page = await get('/');
    expect(page.headers.get('content-type')).toContain('text/html');
    const policy = parsePolicy(page.headers.get('content-security-policy'));
    expect(Object.fromEntries(policy)).toEqual({
      'default-src': ["'none'"],
      'script-src': ["'self'", inlineScriptHash(await page.text())],
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
      'base-uri': ["'none'"],
      'form-action': ["'self'"],
      'frame-ancestors': ["'none'"],
    });
    // The page paths the console routes itself get the same page and the same policy.
    expect((await get('/fires?status=FAILED')).headers.get('content-security-policy')).toBe(
      page.headers.get('content-security-policy'),
    );
  });

  it('answers that are not console pages may load nothing at all', async () => {
    for (const res of [
      await get('/api/v1/apps', { token: API_TOKEN }),
      await get('/api/v1/no-such-thing'),
      await get('/healthz'),
      await get(assetPath),
      await callHttp(url, 'POST', '/api/callback', { body: [] }),
    ]) {
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    }
  });

  it("the executor-facing API still answers XXL-JOB's way", async () => {
    const server = started.server;
    expect(
      await callServer(server, 'registry', {
        registryGroup: 'EXECUTOR',
        registryKey: 'headers-app',
        registryValue: 'http://127.0.0.1:9/',
      }),
    ).toMatchObject({ code: 200 });
    expect(await callServer({ url: server.url, accessToken: 'not-the-token' }, 'registry', {})).toMatchObject(
      { code: 500, msg: 'The access token is wrong.' },
    );
  });
});

describe('Strict-Transport-Security', () => {
  const servers: E2eServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  async function serverWith(trustProxy?: string[]): Promise<string> {
    const started = await startServer({
      adminPassword: 'the admin password',
      consoleDir: BUILT_CONSOLE_DIR,
      ...(trustProxy === undefined ? {} : { trustProxy }),
    });
    servers.push(started);
    return started.server.url;
  }

  const hsts = async (url: string, path: string, proto?: string) =>
    (
      await callHttp(url, 'GET', path, proto === undefined ? {} : { headers: { 'x-forwarded-proto': proto } })
    ).headers.get('strict-transport-security');

  it("is sent when a trusted proxy says the request came over HTTPS, on the console's pages and the API alike", async () => {
    const url = await serverWith(['127.0.0.1']);
    for (const path of ['/', '/api/v1/apps', '/healthz']) {
      expect(await hsts(url, path, 'https'), path).toBe('max-age=31536000');
      expect(await hsts(url, path, 'http'), path).toBeNull();
      expect(await hsts(url, path), path).toBeNull();
    }
  });

  it('is not sent when X-Forwarded-Proto comes from a client the server does not trust', async () => {
    const url = await serverWith();
    for (const path of ['/', '/api/v1/apps', '/healthz']) {
      expect(await hsts(url, path, 'https'), path).toBeNull();
    }
  });
});
