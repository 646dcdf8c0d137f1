/**
 * XXL-JOB advisory classes about the executor token, tried on real Tickwheel executors and a
 * real server over loopback:
 *
 * - executor RCE: XXL-JOB executors ran whatever `run` was posted to them when the token was
 *   blank or the published `default_token` (a GLUE_SHELL run is a shell on the host);
 * - forged registry and callback calls: with no token, a blank one or the default one, anyone
 *   could register an executor (and so receive the runs and the token) or finish runs.
 *
 * What is covered elsewhere and not repeated here: a token of one app used for another app's
 * registration or callback, and the installation token for an app with its own token
 * (app-credentials.test.ts); a wrong or missing token on a registration and the order of the
 * checks (executor-api-registry.test.ts); the server and executor refusing to start with a weak
 * token (the protocol's weakTokenProblem).
 */
import { randomBytes } from 'node:crypto';
import { access, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createExecutor, type Executor } from '@tickwheel/executor';
import { ACCESS_TOKEN_HEADER, type ReturnT, type TriggerParam, WireMessages } from '@tickwheel/protocol';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { type E2eServer, startServer, waitFor } from '../helpers/e2e.js';

/** What XXL-JOB's sample configuration ships (`xxl.job.accessToken=default_token`). */
const XXL_JOB_DEFAULT_TOKEN = 'default_token';

function strongToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The token headers an attacker can send without knowing the token: none, blank, guessed, the default. */
function forgedTokenHeaders(): Array<[string, Record<string, string>]> {
  return [
    ['no token', {}],
    ['a blank token', { [ACCESS_TOKEN_HEADER]: '' }],
    ['a token of spaces', { [ACCESS_TOKEN_HEADER]: '   ' }],
    ['a wrong token', { [ACCESS_TOKEN_HEADER]: strongToken() }],
    ["XXL-JOB's default_token", { [ACCESS_TOKEN_HEADER]: XXL_JOB_DEFAULT_TOKEN }],
  ];
}

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<ReturnT<unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return (await response.json()) as ReturnT<unknown>;
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

describe('executor RCE through a blank or public default token', () => {
  const token = strongToken();
  let dir: string;
  let ex: Executor;
  let address: string;
  const handled: string[] = [];
  let nextLogId = 1;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tw-advisory-executor-'));
    ex = createExecutor({
      appName: 'advisory-executor',
      serverAddresses: [],
      accessToken: token,
      host: '127.0.0.1',
      port: 0,
      logDir: path.join(dir, 'logs'),
      enableScripts: true,
      logger: pino({ level: 'silent' }),
    });
    ex.handle('record', async (ctx) => {
      handled.push(ctx.param);
      return 'recorded';
    });
    await ex.start();
    address = ex.address!;
  });
  afterAll(async () => {
    await ex?.stop({ timeoutMs: 0 });
    await rm(dir, { recursive: true, force: true });
  });

  /** A `run` body as a server sends it; each gets a log id of its own. */
  function run(fields: Partial<TriggerParam>): TriggerParam {
    const logId = nextLogId++;
    return {
      jobId: 1,
      executorHandler: '',
      executorParams: '',
      executorBlockStrategy: 'SERIAL_EXECUTION',
      executorTimeout: 0,
      logId,
      logDateTime: Date.now(),
      glueType: 'BEAN',
      glueSource: '',
      glueUpdatetime: 1_700_000_000_000,
      broadcastIndex: 0,
      broadcastTotal: 1,
      ...fields,
    };
  }

  /** A GLUE_SHELL run that leaves `marker` behind if it ever runs: XXL-JOB's RCE. */
  function shellRun(marker: string): TriggerParam {
    return run({ jobId: 2, glueType: 'GLUE_SHELL', glueSource: `#!/bin/sh\ntouch '${marker}'\n` });
  }

  it("refuses a handler run and a GLUE_SHELL run posted with no token, a blank one, a wrong one or XXL-JOB's default_token, and runs neither", async () => {
    for (const [what, headers] of forgedTokenHeaders()) {
      const marker = path.join(dir, `shell-ran-with-${what.replace(/\W+/g, '-')}`);
      const bean = await post(
        `${address}run`,
        headers,
        run({ executorHandler: 'record', executorParams: what }),
      );
      const shell = await post(`${address}run`, headers, shellRun(marker));
      expect(bean, what).toMatchObject({ code: 500, msg: WireMessages.wrongToken });
      expect(shell, what).toMatchObject({ code: 500, msg: WireMessages.wrongToken });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await exists(marker), `${what}: the script ran`).toBe(false);
    }
    expect(handled).toEqual([]);

    // The same runs with the executor's own token do run: the token alone stood in the way.
    const marker = path.join(dir, 'shell-ran-with-the-token');
    const own = { [ACCESS_TOKEN_HEADER]: token };
    expect(
      (await post(`${address}run`, own, run({ executorHandler: 'record', executorParams: 'own' }))).code,
    ).toBe(200);
    expect((await post(`${address}run`, own, shellRun(marker))).code).toBe(200);
    await waitFor(async () => handled.length === 1 && (await exists(marker)), { what: 'both runs' });
    expect(handled).toEqual(['own']);
  });

  it('refuses runBatch, kill, log, idleBeat and beat with those tokens too', async () => {
    const bodies: Record<string, unknown> = {
      runBatch: [run({ executorHandler: 'record', executorParams: 'batch' })],
      kill: { jobId: 1 },
      log: { logDateTim: Date.now(), logId: 1, fromLineNum: 1 },
      idleBeat: { jobId: 1 },
      beat: {},
    };
    for (const [what, headers] of forgedTokenHeaders()) {
      for (const [call, body] of Object.entries(bodies)) {
        expect(await post(`${address}${call}`, headers, body), `${call} with ${what}`).toMatchObject({
          code: 500,
          msg: WireMessages.wrongToken,
        });
      }
    }
    expect(handled).not.toContain('batch');
    expect((await post(`${address}beat`, { [ACCESS_TOKEN_HEADER]: token }, {})).code).toBe(200);
  });
});

describe('forged registry and callback calls', () => {
  const installationToken = strongToken();
  const appToken = strongToken();
  let e2e: E2eServer;
  let store: Store;
  let ownAppId: number;
  let legacyAppId: number;

  beforeAll(async () => {
    e2e = await startServer({ accessToken: installationToken });
    store = e2e.store;
    ownAppId = (
      await store.apps.createApp(
        { appName: 'own-token-app', title: 'own', addressType: 'AUTO', accessToken: appToken },
        Date.now(),
      )
    ).id;
    // An app as every app was before per-app tokens: it takes the installation token.
    legacyAppId = (
      await store.apps.createApp({ appName: 'legacy-app', title: 'legacy', addressType: 'AUTO' }, Date.now())
    ).id;
  });
  afterAll(async () => {
    await e2e?.close();
  });

  const serverCall = (call: string, headers: Record<string, string>, body: unknown) =>
    post(`${e2e.server.url}api/${call}`, headers, body);

  const registration = (appName: string, address: string) => ({
    registryGroup: 'EXECUTOR',
    registryKey: appName,
    registryValue: address,
  });

  async function registered(appName: string): Promise<string[]> {
    return (await store.registry.listAlive(0, appName)).map((row) => row.registry_value);
  }

  /** A record of `appId` dispatched to `address`, waiting for its result. */
  async function dispatchedFire(appId: number, address: string): Promise<number> {
    const job = await store.jobs.createJob(
      {
        app_id: appId,
        name: 'waits for a result',
        executor_handler: 'h',
        schedule_type: 'NONE',
        schedule_conf: '',
        trigger_status: 0,
        next_fire_at: null,
      },
      Date.now(),
    );
    const now = Date.now();
    const [fireId] = (await store.fires.createFires(
      [
        {
          jobId: job.id,
          appId,
          scheduledAt: now,
          triggerType: 'MANUAL',
          executorHandler: 'h',
          executorParam: '',
        },
      ],
      now,
    )) as [number];
    await store.fires.markDispatched([
      { fireId, triggerAt: now, executorAddress: address, triggerCode: 200, triggerMsg: 'ok' },
    ]);
    return fireId;
  }

  it('a registration with no token, a blank one, a wrong one or default_token is refused for every app, and stores nothing', async () => {
    for (const [what, headers] of forgedTokenHeaders()) {
      for (const appName of ['own-token-app', 'legacy-app', 'an-app-nobody-made']) {
        const answer = await serverCall('registry', headers, registration(appName, 'http://127.0.0.1:7/'));
        expect(answer, `${appName} with ${what}`).toMatchObject({ code: 500, msg: WireMessages.wrongToken });
      }
    }
    expect(await registered('own-token-app')).toEqual([]);
    expect(await registered('legacy-app')).toEqual([]);
    expect(await registered('an-app-nobody-made')).toEqual([]);
    // The right tokens do register.
    const own = await serverCall(
      'registry',
      { [ACCESS_TOKEN_HEADER]: appToken },
      registration('own-token-app', 'http://127.0.0.1:7/'),
    );
    const legacy = await serverCall(
      'registry',
      { [ACCESS_TOKEN_HEADER]: installationToken },
      registration('legacy-app', 'http://127.0.0.1:8/'),
    );
    expect([own.code, legacy.code]).toEqual([200, 200]);
    expect(await registered('own-token-app')).toEqual(['http://127.0.0.1:7/']);
  });

  it('a registryRemove with those tokens removes nothing', async () => {
    const address = 'http://127.0.0.1:9/';
    await serverCall('registry', { [ACCESS_TOKEN_HEADER]: appToken }, registration('own-token-app', address));
    await serverCall(
      'registry',
      { [ACCESS_TOKEN_HEADER]: installationToken },
      registration('legacy-app', address),
    );
    for (const [what, headers] of forgedTokenHeaders()) {
      for (const appName of ['own-token-app', 'legacy-app']) {
        const answer = await serverCall('registryRemove', headers, registration(appName, address));
        expect(answer, `${appName} with ${what}`).toMatchObject({ code: 500, msg: WireMessages.wrongToken });
      }
    }
    expect(await registered('own-token-app')).toContain(address);
    expect(await registered('legacy-app')).toContain(address);
  });

  it('a callback with no token, a blank one, a wrong one or default_token finishes no record, of either app', async () => {
    const own = await dispatchedFire(ownAppId, 'http://127.0.0.1:10/');
    const legacy = await dispatchedFire(legacyAppId, 'http://127.0.0.1:11/');
    for (const [what, headers] of forgedTokenHeaders()) {
      const forged = [own, legacy].map((logId) => ({
        logId,
        logDateTim: Date.now(),
        handleCode: 200,
        handleMsg: `forged with ${what}`,
      }));
      expect(await serverCall('callback', headers, forged), what).toMatchObject({
        code: 500,
        msg: WireMessages.wrongToken,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await store.fires.findFireById(own))?.status).toBe('dispatched');
    expect((await store.fires.findFireById(legacy))?.status).toBe('dispatched');

    // Each app's own token finishes its own record.
    const result = (logId: number) => [{ logId, logDateTim: Date.now(), handleCode: 200, handleMsg: 'real' }];
    expect((await serverCall('callback', { [ACCESS_TOKEN_HEADER]: appToken }, result(own))).code).toBe(200);
    expect(
      (await serverCall('callback', { [ACCESS_TOKEN_HEADER]: installationToken }, result(legacy))).code,
    ).toBe(200);
    await waitFor(
      async () =>
        (await store.fires.findFireById(own))?.status === 'succeeded' &&
        (await store.fires.findFireById(legacy))?.status === 'succeeded',
      { what: 'both records finished by their own tokens' },
    );
    expect((await store.fires.findFireById(own))?.handle_msg).toBe('real');
  });
});
