/**
 * XXL-JOB advisory classes about what the server sends out, with a real server, a real Tickwheel
 * executor of app A (on A's own token), and a trap on loopback that records whatever reaches it:
 *
 * - the log reader sending the token to a user-controlled executor address (SSRF): XXL-JOB's
 *   log page took the executor address from the request;
 * - trigger address lists not validated: its "run once" sent the run, and the token, to any
 *   address list it was given;
 * - template injection: a job's fields reaching a template engine (alarm mails) or a shell.
 *
 * Covered elsewhere and not repeated: a trigger override outside the app's addresses through the
 * server's own triggerJob (e2e-trigger.test.ts), an override with credentials
 * (executor-addresses-refused.test.ts), markdown escaping of alarm values (alarms-channels.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { ACCESS_TOKEN_HEADER } from '@tickwheel/protocol';
import {
  type HttpReceiver,
  type SmtpReceiver,
  startHttpReceiver,
  startSmtpReceiver,
} from '@tickwheel/test-fixtures/alarm-receivers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type E2eExecutor,
  type E2eServer,
  firesOf,
  startExecutor,
  startServer,
  waitFor,
} from '../helpers/e2e.js';
import { callApiOk, callHttp, type HttpCallOptions, signInHttp } from '../helpers/http-api.js';

const ADMIN_TOKEN = `tw_${randomBytes(32).toString('base64url')}`;
const INSTALLATION_TOKEN = randomBytes(32).toString('base64url');

/** Template syntaxes of the engines a Java or Node scheduler might pass text through, and a shell's. */
const TEMPLATES = '${7*7} {{7*7}} #{7*7} <%= 7*7 %> ${process.env.HOME} $(id) `id` %{7*7}';

let started: E2eServer;
let url: string;
let executor: E2eExecutor;
/** Records every request that reaches it, whatever it is. */
let trap: HttpReceiver;
let hook: HttpReceiver;
let smtp: SmtpReceiver;
const apps = { a: { id: 0, token: '' }, b: { id: 0, token: '' } };
/** Params the executor's handlers were given, as given. */
const received: string[] = [];

const rest = (method: string, path: string, options: HttpCallOptions = {}) =>
  callHttp(url, method, path, { token: ADMIN_TOKEN, ...options });

const restOk = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
  callApiOk<T>(url, method, path, { token: ADMIN_TOKEN, ...(body === undefined ? {} : { body }) });

async function createJob(fields: Record<string, unknown>): Promise<number> {
  return (await restOk<{ id: number }>('POST', '/api/v1/jobs', { appId: apps.a.id, ...fields })).id;
}

async function finished(fireId: number): Promise<Record<string, unknown>> {
  await waitFor(
    async () => !['pending', 'dispatched'].includes((await started.store.fires.findFireById(fireId))!.status),
    { what: `fire ${fireId} finished` },
  );
  return restOk('GET', `/api/v1/fires/${fireId}`);
}

beforeAll(async () => {
  started = await startServer({ accessToken: INSTALLATION_TOKEN, apiToken: ADMIN_TOKEN });
  url = started.server.url;
  trap = await startHttpReceiver(() => ({ status: 200, body: { code: 200, msg: null, content: null } }));
  hook = await startHttpReceiver(() => ({ status: 204 }));
  smtp = await startSmtpReceiver();
  for (const key of ['a', 'b'] as const) {
    const app = await restOk<{ id: number; accessToken: string }>('POST', '/api/v1/apps', {
      appName: `outbound-${key}`,
      title: `App ${key}`,
    });
    apps[key] = { id: app.id, token: app.accessToken };
  }
  executor = await startExecutor(
    started.server,
    'outbound-a',
    (ex) => {
      ex.handle('echo', async (ctx) => {
        received.push(ctx.param);
        ctx.log(`the param was ${ctx.param}`);
        return ctx.param;
      });
      ex.handle('fails', async (ctx) => {
        received.push(ctx.param);
        throw new Error(`failed with ${ctx.param}`);
      });
    },
    { accessToken: apps.a.token },
  );
  // The trap registers as an executor of app B, with B's token: a real address, of another app.
  const registered = await fetch(`${url}api/registry`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [ACCESS_TOKEN_HEADER]: apps.b.token },
    body: JSON.stringify({
      registryGroup: 'EXECUTOR',
      registryKey: 'outbound-b',
      registryValue: `${trap.url}/`,
    }),
  });
  expect(((await registered.json()) as { code: number }).code).toBe(200);
}, 30_000);

afterAll(async () => {
  await executor?.close();
  await started?.close();
  await trap?.close();
  await hook?.close();
  await smtp?.close();
});

describe('the log reader sending the token to a user-controlled executor address (SSRF)', () => {
  it('reads the run log from the executor the fire was sent to, whatever address the request names', async () => {
    const job = await createJob({ name: 'logs', executorHandler: 'echo', executorParam: 'for the log' });
    const [fireId] = (await restOk<{ fireIds: number[] }>('POST', `/api/v1/jobs/${job}/trigger`, {})).fireIds;
    expect(await finished(fireId!)).toMatchObject({ status: 'succeeded', executorAddress: executor.address });

    const addressParams = ['executorAddress', 'address', 'addressList', 'executor', 'url'];
    const query = addressParams.map((name) => `${name}=${encodeURIComponent(`${trap.url}/`)}`).join('&');
    const res = await rest('GET', `/api/v1/fires/${fireId}/log?fromLineNum=1&${query}`);
    // Extra query parameters are not the API's: the log is read from the recorded executor all the same.
    expect(res.status).toBe(200);
    expect(((await res.json()) as { logContent: string }).logContent).toContain('the param was for the log');
    const plain = await restOk<{ logContent: string }>('GET', `/api/v1/fires/${fireId}/log?fromLineNum=1`);
    expect(plain.logContent).toContain('the param was for the log');
    expect(trap.requests).toEqual([]);
  });
});

describe('trigger address lists not validated', () => {
  const NOT_THE_APPS = () => [
    `${trap.url}/`,
    `${trap.url}/run`,
    trap.url.replace('127.0.0.1', 'localhost'),
    'http://169.254.169.254/latest/meta-data/',
    'http://127.0.0.1:1/',
    'file:///etc/passwd',
    'gopher://127.0.0.1:6379/_FLUSHALL',
    `http://user:pass@${trap.url.slice('http://'.length)}/`,
  ];

  it("a trigger naming an address that is not a registered executor of the job's app — another app's executor included — is refused with 400 naming addressList, and nothing is sent there", async () => {
    const job = await createJob({ name: 'override', executorHandler: 'echo', executorParam: 'override' });
    for (const address of NOT_THE_APPS()) {
      for (const addressList of [[address], [executor.address, address]]) {
        const res = await rest('POST', `/api/v1/jobs/${job}/trigger`, { body: { addressList } });
        const what = JSON.stringify(addressList);
        expect(res.status, what).toBe(400);
        expect(((await res.json()) as { error: { field: string } }).error.field, what).toMatch(
          /^addressList/,
        );
      }
    }
    expect(await firesOf(started.store, job)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(trap.requests).toEqual([]);

    // The app's own executor is accepted, and the run goes there only.
    const [fireId] = (
      await restOk<{ fireIds: number[] }>('POST', `/api/v1/jobs/${job}/trigger`, {
        addressList: [executor.address],
      })
    ).fireIds;
    expect(await finished(fireId!)).toMatchObject({ status: 'succeeded', executorAddress: executor.address });
    expect(trap.requests).toEqual([]);
  });

  it("a USER of the app, from the console, cannot send a run to another app's executor either", async () => {
    const job = await createJob({ name: 'user override', executorHandler: 'echo' });
    await restOk('POST', '/api/v1/users', {
      username: 'outbound-user',
      password: 'outbound-user-password',
      appIds: [apps.a.id],
    });
    const session = await signInHttp(url, 'outbound-user', 'outbound-user-password');
    const res = await callHttp(url, 'POST', `/api/v1/jobs/${job}/trigger`, {
      session,
      body: { addressList: [`${trap.url}/`] },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { field: string } }).error.field).toMatch(/^addressList/);
    expect(await firesOf(started.store, job)).toEqual([]);
    expect(trap.requests).toEqual([]);
  });
});

describe('template injection', () => {
  it("a job's name and param holding template syntax reach the executor, the fire record and the alarm verbatim, never evaluated", async () => {
    const webhook = await restOk<{ id: number }>('POST', '/api/v1/alarm-channels', {
      name: 'template-hook',
      type: 'WEBHOOK',
      config: { url: `${hook.url}/alarms` },
    });
    const mail = await restOk<{ id: number }>('POST', '/api/v1/alarm-channels', {
      name: 'template-mail',
      type: 'EMAIL',
      config: { host: '127.0.0.1', port: smtp.port, security: 'NONE', from: 'tickwheel@example.org' },
    });
    const name = `report ${TEMPLATES}`.slice(0, 64);
    const job = await createJob({
      name,
      executorHandler: 'fails',
      executorParam: TEMPLATES,
      alarmEmail: 'oncall@example.org',
      alarmChannelIds: [webhook.id, mail.id],
    });
    const [fireId] = (await restOk<{ fireIds: number[] }>('POST', `/api/v1/jobs/${job}/trigger`, {})).fireIds;
    const fire = await finished(fireId!);

    expect(received).toContain(TEMPLATES);
    expect(fire).toMatchObject({ status: 'failed', executorParam: TEMPLATES });
    expect(fire.handleMsg).toContain(`failed with ${TEMPLATES}`);
    await waitFor(() => hook.requests.length === 1 && smtp.mails.length === 1, { what: 'the alarm' });
    const alarm = hook.requests[0]!.json;
    expect(alarm.job).toMatchObject({ id: job, name, executorParam: TEMPLATES });
    expect(alarm.fire).toMatchObject({ id: fireId, executorParam: TEMPLATES });
    expect(smtp.mails[0]!.subject).toBe(`[Tickwheel] Job #${job} ${name} failed`);
    expect(smtp.mails[0]!.text).toContain(`Job: #${job} ${name}`);
    expect(smtp.mails[0]!.text).toContain(`failed with ${TEMPLATES}`);
    // Nothing was worked out: no 49, no home directory, no output of id. The times the alarm
    // carries are left out first: a fire at 23:49:11 says 49 and evaluated nothing.
    for (const text of [hook.requests[0]!.rawBody, smtp.mails[0]!.subject, smtp.mails[0]!.text]) {
      expect(text.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<time>')).not.toMatch(
        /\b49\b|uid=\d/,
      );
      expect(text.includes(process.env.HOME ?? '/nonexistent-home')).toBe(false);
    }
  });
});
