import { ACCESS_TOKEN_HEADER, MAX_EXECUTOR_ADDRESS_LENGTH, WireMessages } from '@tickwheel/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, createApp, createJob, expectError, startApiServer } from '../helpers/api-server.js';
import { E2E_TOKEN, type E2eServer, startServer } from '../helpers/e2e.js';

/** An address of exactly `length` characters. */
function addressOf(length: number): string {
  const head = 'http://10.0.0.5:9999/';
  return head + 'p'.repeat(length - head.length);
}

const NOT_EXECUTOR_ADDRESSES = [
  'file:///etc/passwd',
  'javascript:alert(1)',
  'http://user:secret@10.0.0.5:9999/',
  'http:///10.0.0.5:9999/',
  'http://10.0.0.5:9999/,http://10.0.0.6:9999/',
  'http://evil.example\\@10.0.0.5:9999/',
  addressOf(MAX_EXECUTOR_ADDRESS_LENGTH + 1),
];

describe('executor registrations', () => {
  let s: E2eServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => {
    await s.close();
  });

  async function register(body: Record<string, unknown>): Promise<{ code: number; msg: string | null }> {
    const res = await fetch(new URL('api/registry', s.server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', [ACCESS_TOKEN_HEADER]: E2E_TOKEN },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { code: number; msg: string | null };
  }

  async function storedValues(appName: string): Promise<string[]> {
    return (await s.store.registry.listAlive(0, appName)).map((row) => row.registry_value);
  }

  it('answers Illegal Argument to an address that is not an http(s) base URL, and stores nothing', async () => {
    for (const registryValue of NOT_EXECUTOR_ADDRESSES) {
      const answer = await register({ registryGroup: 'EXECUTOR', registryKey: 'refused-app', registryValue });
      expect(answer, registryValue).toMatchObject({ code: 500, msg: WireMessages.illegalArgument });
    }
    expect(await storedValues('refused-app')).toEqual([]);
  });

  it('answers Illegal Argument to an app name or group out of bounds or with control characters', async () => {
    const address = 'http://10.0.0.5:9999/';
    for (const [registryGroup, registryKey] of [
      ['EXECUTOR', 'a'.repeat(65)],
      ['EXECUTOR', 'orders\u0000'],
      ['EXECUTOR', 'orders\u202eexe'],
      ['EXECUTOR', 'orders app'],
      ['G'.repeat(51), 'orders'],
      ['EXEC\nUTOR', 'orders'],
    ]) {
      const answer = await register({ registryGroup, registryKey, registryValue: address });
      expect(answer, JSON.stringify([registryGroup, registryKey])).toMatchObject({
        code: 500,
        msg: WireMessages.illegalArgument,
      });
    }
    expect((await s.store.registry.listAlive(0)).map((row) => row.registry_value)).not.toContain(address);
  });

  it("stores an XXL-JOB executor's registration as sent, with or without the trailing slash", async () => {
    for (const registryValue of ['http://10.0.0.7:9999/', 'http://10.0.0.8:9999']) {
      const answer = await register({
        registryGroup: 'EXECUTOR',
        registryKey: 'xxl-job-executor-sample',
        registryValue,
      });
      expect(answer, registryValue).toMatchObject({ code: 200 });
    }
    expect(await storedValues('xxl-job-executor-sample')).toEqual([
      'http://10.0.0.7:9999/',
      'http://10.0.0.8:9999',
    ]);
  });
});

describe('addresses typed in the REST API', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApiServer();
  });
  afterAll(async () => {
    await api.close();
  });

  it('a manual address list refuses what a registration is refused for, naming the address', async () => {
    for (const bad of NOT_EXECUTOR_ADDRESSES) {
      const res = await api.call('POST', '/api/v1/apps', {
        body: {
          appName: 'manual-refused',
          title: 'x',
          addressType: 'MANUAL',
          addressList: ['http://10.0.0.5:9999/', bad],
        },
      });
      expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'addressList[1]');
    }
    expect(await api.store.apps.findAppByName('manual-refused')).toBeUndefined();
  });

  it(`a manual address is at most ${MAX_EXECUTOR_ADDRESS_LENGTH} characters once normalised`, async () => {
    // Valid as typed, one character longer with the slash normalising adds.
    const typed = `http://${'h'.repeat(MAX_EXECUTOR_ADDRESS_LENGTH - 'http://'.length)}`;
    const res = await api.call('POST', '/api/v1/apps', {
      body: { appName: 'manual-long', title: 'x', addressType: 'MANUAL', addressList: [typed] },
    });
    expect(expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'addressList[0]').message).toMatch(
      new RegExp(`must be at most ${MAX_EXECUTOR_ADDRESS_LENGTH} characters$`),
    );
  });

  it('a trigger-once override refuses an address with credentials, even one a registration stored before the rule', async () => {
    const appId = await createApp(api, { appName: 'override-app' });
    const stale = 'http://user:secret@10.0.0.5:9999/';
    await api.store.registry.heartbeat(
      { group: 'EXECUTOR', key: 'override-app', value: stale },
      'G2',
      api.clock.now(),
    );
    const job = await createJob(api, appId);
    const res = await api.call('POST', `/api/v1/jobs/${job.id}/trigger`, { body: { addressList: [stale] } });
    expectError(res, 400, 'TW_ERR_INVALID_FIELD', 'addressList[0]');
    expect(api.triggers).toEqual([]);
  });
});
