import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createNetServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '@tickwheel/server/internal';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertCliBuilt, CliProcess, runCli } from './helpers/cli-process.js';

let dataDir: string;
let cli: CliProcess | undefined;

beforeAll(() => assertCliBuilt());

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'tw-cli-start-'));
});

afterEach(async () => {
  await cli?.kill();
  cli = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

function startArgs(...extra: string[]): string[] {
  return [
    'start',
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--data-dir',
    dataDir,
    '--log-level',
    'warn',
    ...extra,
  ];
}

/** Starts `tickwheel start` and returns its base URL once it listens. */
async function start(...extra: string[]): Promise<string> {
  cli = new CliProcess(startArgs(...extra));
  const [, url] = await cli.waitForOutput(/listening on (http:\/\/\S+)/);
  return url!;
}

async function stopWithSigterm(): Promise<{ code: number | null }> {
  cli!.signal('SIGTERM');
  return cli!.exited;
}

describe('tickwheel start', () => {
  it('prints the generated admin password, access token and API token once, at the first start', async () => {
    const url = await start();
    const output = cli!.stdout;
    expect(output).toMatch(/shown ONCE/);
    expect(output).toMatch(/admin login:\s+admin \/ \S{8,}/);
    expect(output).toMatch(/access token:\s+\S{20,}/);
    const apiToken = output.match(/API token:\s+(tw_\S+)/)?.[1];
    expect(apiToken).toBeDefined();
    const jobs = await fetch(`${url}api/v1/jobs`, { headers: { authorization: `Bearer ${apiToken}` } });
    expect(jobs.status).toBe(200);
    expect((await stopWithSigterm()).code).toBe(0);

    await start();
    expect(cli!.stdout).not.toMatch(/shown ONCE|admin login|API token:/);
  });

  it('stops gracefully on SIGTERM with exit code 0', async () => {
    await start();

    const { code } = await stopWithSigterm();

    expect(code).toBe(0);
    expect(cli!.stdout).toMatch(/SIGTERM: stopping/);
  });

  it('serves the OpenAPI document of the REST API', async () => {
    const url = await start('--api-token', 'cli-test-api-token-0123456789');

    const response = await fetch(`${url}api/v1/openapi.json`, {
      headers: { authorization: 'Bearer cli-test-api-token-0123456789' },
    });

    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string };
    expect(document.openapi).toMatch(/^3\.1/);
  });

  it('--demo runs a demo executor whose jobs fire and succeed', async () => {
    const token = 'cli-demo-api-token-0123456789';
    const url = await start('--demo', '--api-token', token);
    expect(cli!.stdout).toMatch(
      /Demo: executor http:\/\/127\.0\.0\.1:\d+\/ \(app "tickwheel-demo"\) with 4 new demo jobs/,
    );

    let fires: Array<{ status: string; handleCode: number | null }> = [];
    const deadline = Date.now() + 8_000;
    while (!fires.some((f) => f.status === 'succeeded') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const response = await fetch(`${url}api/v1/fires?status=succeeded`, {
        headers: { authorization: `Bearer ${token}` },
      });
      fires = ((await response.json()) as { items: typeof fires }).items;
    }
    expect(fires.some((f) => f.status === 'succeeded' && f.handleCode === 200)).toBe(true);
  });

  it('refuses a port in use, naming it and --port, and exits 1 before writing anything', async () => {
    const blocker = await listenOnFreePort();
    const port = (blocker.address() as { port: number }).port;
    const freshDir = path.join(dataDir, 'not-yet');
    try {
      cli = new CliProcess([
        'start',
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
        '--data-dir',
        freshDir,
        '--demo',
      ]);
      const { code } = await cli.exited;

      expect(code).toBe(1);
      expect(cli.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is already in use`);
      expect(cli.stderr).toMatch(/--port/);
      expect(cli.stdout).not.toMatch(/admin login|listening/);
      expect(existsSync(freshDir)).toBe(false);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('--demo after a restart: the executor is online before the first fire, so none fails or raises an alarm', async () => {
    const token = 'cli-demo-api-token-0123456789';
    await start('--demo', '--api-token', token);
    expect((await stopWithSigterm()).code).toBe(0);
    // Every demo job missed a fire during the downtime and fires it once, at once, at the restart:
    // the first thing the scheduler does, before any executor could register over HTTP.
    const store = await openStore({ database: 'sqlite:tickwheel.db', dataDir });
    const { numUpdatedRows } = await store.db
      .updateTable('job')
      .set({ misfire_strategy: 'FIRE_ONCE_NOW', next_fire_at: Date.now() - 60_000 })
      .executeTakeFirst();
    const lastFireBefore = await store.db
      .selectFrom('fire')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst();
    await store.close();
    expect(Number(numUpdatedRows)).toBe(4);

    const url = await start('--demo', '--api-token', token);
    const after = Number(lastFireBefore?.id ?? 0);
    let fires: Array<{ id: number; jobId: number; status: string; triggerType: string }> = [];
    const deadline = Date.now() + 10_000;
    const misfiredJobs = () => [
      ...new Set(fires.filter((f) => f.triggerType === 'MISFIRE').map((f) => f.jobId)),
    ];
    while (misfiredJobs().length < 4 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const response = await fetch(`${url}api/v1/fires?limit=100`, {
        headers: { authorization: `Bearer ${token}` },
      });
      fires = ((await response.json()) as { items: typeof fires }).items.filter((f) => f.id > after);
    }

    expect(misfiredJobs().sort()).toEqual([1, 2, 3, 4]);
    expect(fires.filter((f) => f.status === 'dispatch_failed')).toEqual([]);
    expect(cli!.stdout + cli!.stderr).not.toMatch(/alarm|no executor online/);
  });

  it('names the flag of a value it refuses and exits 2', () => {
    const badDatabase = runCli(startArgs('--database', 'oracle://db/tickwheel'));
    expect(badDatabase.code).toBe(2);
    expect(badDatabase.stderr).toMatch(/--database: .*sqlite:, postgres:\/\/, mysql:\/\//);

    const shortToken = runCli(startArgs('--api-token', 'short'));
    expect(shortToken.code).toBe(2);
    expect(shortToken.stderr).toMatch(/--api-token: .*at least 24 characters/);

    const badPort = runCli(startArgs('--port', 'eighty'));
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toMatch(/--port/);

    const badProxy = runCli(startArgs('--trust-proxy', '10.0.0.1,10.0.0.300/8'));
    expect(badProxy.code).toBe(2);
    expect(badProxy.stderr).toMatch(/--trust-proxy .*10\.0\.0\.300\/8 is not an IP address, a CIDR/);
  });

  it('refuses a weak --token (a published default, or shorter than 32 characters) saying how to generate one, exits 2 and writes nothing', () => {
    for (const [token, reason] of [
      ['default_token', /--token: 'default_token' is a published default token/],
      ['a', /--token: must be at least 32 characters \(got 1\)/],
    ] as const) {
      const refused = runCli(startArgs('--token', token));
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(reason);
      expect(refused.stderr).toMatch(/openssl rand -base64 32/);
      expect(refused.stdout).not.toMatch(/listening/);
    }
    const fromEnvironment = runCli(startArgs(), { ...process.env, TICKWHEEL_ACCESS_TOKEN: 'default_token' });
    expect(fromEnvironment.code).toBe(2);
    expect(fromEnvironment.stderr).toMatch(/'default_token' is a published default token/);
    expect(existsSync(path.join(dataDir, 'tickwheel.db'))).toBe(false);
  });

  it('--database-wait-ms: waits that long for an unreachable database, a warning per attempt, then exits 1', () => {
    // Nothing listens on port 1: every connection is refused.
    const unreachable = 'postgres://postgres@127.0.0.1:1/test';
    const startedAt = Date.now();
    const waited = runCli(startArgs('--database', unreachable, '--database-wait-ms', '1200'));
    expect(waited.code).toBe(1);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_200);
    expect(waited.stdout).toMatch(/database unreachable at start; trying again/);
    expect(waited.stderr).toMatch(/cannot start the server/);

    const atOnce = runCli(startArgs('--database', unreachable, '--database-wait-ms', '0'));
    expect(atOnce.code).toBe(1);
    expect(atOnce.stdout).not.toMatch(/trying again/);
  });

  it('--trust-proxy names the proxies whose X-Forwarded-For is the client the sign-in limit counts', async () => {
    const url = await start('--trust-proxy', '10.9.9.9, 127.0.0.1/32');
    // 20 failed sign-ins of one client behind the proxy (the per-address limit): that client is
    // held back, another client behind the same proxy is not.
    for (let i = 0; i < 20; i++) expect((await signIn(url, `guess-${i}`, '203.0.113.5')).status).toBe(401);
    expect((await signIn(url, 'admin', '203.0.113.5')).status).toBe(429);
    expect((await signIn(url, 'admin', '203.0.113.6')).status).toBe(401);
  });

  it('--trust-proxy false (the default) counts the connection, whatever X-Forwarded-For says', async () => {
    const url = await start('--trust-proxy', 'false');
    for (let i = 0; i < 20; i++)
      expect((await signIn(url, `guess-${i}`, `198.51.100.${i}`)).status).toBe(401);
    expect((await signIn(url, 'admin', '198.51.100.200')).status).toBe(429);
  });
});

/** A TCP server on a free loopback port, standing for another program that took it. */
async function listenOnFreePort(): Promise<Server> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** A sign-in with a wrong password, as forwarded by a proxy for `forwardedFor`. */
function signIn(url: string, username: string, forwardedFor: string): Promise<Response> {
  return fetch(`${url}api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({ username, password: 'not the password' }),
  });
}

describe('tickwheel migrate', () => {
  it('applies the migrations of a new database and then finds nothing to apply', () => {
    const first = runCli(['migrate', '--data-dir', dataDir]);
    expect(first.code).toBe(0);
    const applied = /applied (\d+) migration\(s\)\n\s+1 init\n/.exec(first.stdout);
    expect(applied).not.toBeNull();
    const version = Number(applied![1]);
    expect(first.stdout).toContain(`schema version ${version}`);
    expect(first.stdout).toContain(path.join(dataDir, 'tickwheel.db'));

    const second = runCli(['migrate', '--data-dir', dataDir]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`up to date (schema version ${version}); nothing applied`);
  });
});
