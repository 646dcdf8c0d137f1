/**
 * The alarm channels' REST resource (admin only, secrets never answered in clear), the jobs'
 * `alarmChannelIds`, and the fire record's `alarmStatus`/`alarmMsg`, on SQLite, PostgreSQL and
 * MariaDB.
 */
import { createHmac } from 'node:crypto';
import { type HttpReceiver, startHttpReceiver } from '@tickwheel/test-fixtures/alarm-receivers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALARM_STATUS } from '../src/alarms/alarm-status.js';
import { type ApiHarness, createApp, createJob, expectError, startApiServer } from './helpers/api-server.js';
import { DIALECTS } from './helpers/databases.js';
import { addUser, type TestUser } from './helpers/users.js';

const OPERATIONS = [
  'listAlarmChannels',
  'getAlarmChannel',
  'createAlarmChannel',
  'updateAlarmChannel',
  'deleteAlarmChannel',
  'testAlarmChannel',
];

let counter = 0;
function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

describe.each(DIALECTS)('alarm channels API on %s', (dialect) => {
  let api: ApiHarness;
  let receiver: HttpReceiver;
  let user: TestUser;
  let appId: number;

  beforeAll(async () => {
    api = await startApiServer(dialect);
    receiver = await startHttpReceiver();
    appId = await createApp(api);
    user = await addUser(api, { appIds: [appId] });
  });
  afterAll(async () => {
    await receiver?.close();
    await api?.close();
  });

  async function create(body: Record<string, unknown>) {
    const res = await api.call('POST', '/api/v1/alarm-channels', { body });
    if (res.statusCode !== 201) throw new Error(`createAlarmChannel: ${res.statusCode} ${res.body}`);
    return res.json();
  }

  async function storedConfig(id: number): Promise<Record<string, unknown>> {
    return JSON.parse((await api.store.alarmChannels.findAlarmChannelById(id))!.config);
  }

  const smtpConfig = {
    host: 'smtp.example.org',
    port: 587,
    username: 'alarms',
    password: 'smtp-password',
    from: 'alarms@example.org',
    to: ['oncall@example.org'],
  };

  it('documents each operation in the OpenAPI document under its operationId', async () => {
    const doc = (await api.call('GET', '/api/v1/openapi.json')).json();
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap(
      (path) => Object.values(path).map((op) => op.operationId),
    );
    for (const id of OPERATIONS)
      expect(
        ids.filter((x) => x === id),
        id,
      ).toHaveLength(1);
    expect(JSON.stringify(doc.paths['/api/v1/fires/{id}'])).toContain('alarmStatus');
  });

  it('creates a channel and answers its SMTP password as *** in every answer', async () => {
    const created = await create({ name: uniqueName('mail'), type: 'EMAIL', config: smtpConfig });
    expect(created).toMatchObject({
      type: 'EMAIL',
      enabled: true,
      config: { ...smtpConfig, password: '***' },
    });
    const got = (await api.call('GET', `/api/v1/alarm-channels/${created.id}`)).json();
    expect(got.config.password).toBe('***');
    const listed = (await api.call('GET', '/api/v1/alarm-channels?type=EMAIL')).json();
    const item = listed.items.find((c: { id: number }) => c.id === created.id);
    expect(item.config.password).toBe('***');
    expect(JSON.stringify(listed)).not.toContain('smtp-password');
    expect((await storedConfig(created.id)).password).toBe('smtp-password');
  });

  it("masks robots' signing secrets and the tokens in their URLs", async () => {
    const dingtalk = await create({
      name: uniqueName('ding'),
      type: 'DINGTALK',
      config: { url: 'https://oapi.dingtalk.com/robot/send?access_token=dt-token-xyz', secret: 'SEC-ding' },
    });
    expect(dingtalk.config).toEqual({
      url: 'https://oapi.dingtalk.com/robot/send?access_token=***',
      secret: '***',
    });
    const feishu = await create({
      name: uniqueName('feishu'),
      type: 'FEISHU',
      config: {
        url: 'https://open.feishu.cn/open-apis/bot/v2/hook/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
        secret: 's',
      },
    });
    expect(feishu.config.url).toBe('https://open.feishu.cn/open-apis/bot/v2/hook/***');
    const wecom = await create({
      name: uniqueName('wecom'),
      type: 'WECOM',
      config: { url: 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=wc-key-123' },
    });
    expect(wecom.config.url).toBe('https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=***');
    const webhook = await create({
      name: uniqueName('hook'),
      type: 'WEBHOOK',
      config: { url: 'https://hooks.example.org/alarms', secret: 'whsec' },
    });
    expect(webhook.config).toEqual({ url: 'https://hooks.example.org/alarms', secret: '***' });
  });

  it('an update sending the masked values back keeps the stored secrets; new values and null change them', async () => {
    const created = await create({
      name: uniqueName('ding'),
      type: 'DINGTALK',
      config: { url: 'https://oapi.dingtalk.com/robot/send?access_token=keep-me', secret: 'SEC-keep' },
    });
    const echoed = await api.call('PATCH', `/api/v1/alarm-channels/${created.id}`, {
      body: { config: { ...created.config, msgType: 'text' } },
    });
    expect(echoed.statusCode).toBe(200);
    expect(echoed.json().config).toEqual({ ...created.config, msgType: 'text' });
    expect(await storedConfig(created.id)).toEqual({
      url: 'https://oapi.dingtalk.com/robot/send?access_token=keep-me',
      secret: 'SEC-keep',
      msgType: 'text',
    });

    await api.call('PATCH', `/api/v1/alarm-channels/${created.id}`, {
      body: { config: { secret: 'SEC-new', atMobiles: ['13800000000'] } },
    });
    expect(await storedConfig(created.id)).toMatchObject({ secret: 'SEC-new', atMobiles: ['13800000000'] });
    await api.call('PATCH', `/api/v1/alarm-channels/${created.id}`, { body: { config: { secret: null } } });
    expect(await storedConfig(created.id)).not.toHaveProperty('secret');
  });

  it('refuses a config that does not fit the type, naming the field', async () => {
    const post = (body: Record<string, unknown>) => api.call('POST', '/api/v1/alarm-channels', { body });
    expectError(
      await post({ name: uniqueName('x'), type: 'EMAIL', config: { ...smtpConfig, port: 'x' } }),
      400,
      'TW_ERR_INVALID_FIELD',
      'config.port',
    );
    expectError(
      await post({ name: uniqueName('x'), type: 'EMAIL', config: { host: 'h' } }),
      400,
      'TW_ERR_MISSING_FIELD',
      'config.from',
    );
    expectError(
      await post({ name: uniqueName('x'), type: 'WEBHOOK', config: { url: 'ftp://nope' } }),
      400,
      'TW_ERR_INVALID_FIELD',
      'config.url',
    );
    expectError(
      await post({ name: uniqueName('x'), type: 'WECOM', config: { url: 'https://q/x', secret: 's' } }),
      400,
      'TW_ERR_INVALID_FIELD',
      'config.secret',
    );
    expectError(
      await post({ name: uniqueName('x'), type: 'SLACK', config: {} }),
      400,
      'TW_ERR_UNKNOWN_ENUM_VALUE',
      'type',
    );
    expectError(
      await post({ name: uniqueName('x'), type: 'WEBHOOK', config: { url: 'https://h/x', secret: '***' } }),
      400,
      'TW_ERR_INVALID_FIELD',
      'config.secret',
    );
  });

  it('refuses a second channel of the same name, and a type change without a config', async () => {
    const name = uniqueName('dup');
    const first = await create({ name, type: 'WEBHOOK', config: { url: 'https://h/x' } });
    expectError(
      await api.call('POST', '/api/v1/alarm-channels', {
        body: { name, type: 'WEBHOOK', config: { url: 'https://h/y' } },
      }),
      409,
      'TW_ERR_CONFLICT',
    );
    expectError(
      await api.call('PATCH', `/api/v1/alarm-channels/${first.id}`, { body: { type: 'EMAIL' } }),
      400,
      'TW_ERR_INVALID_FIELD',
      'config',
    );
    const retyped = await api.call('PATCH', `/api/v1/alarm-channels/${first.id}`, {
      body: { type: 'EMAIL', config: smtpConfig, enabled: false },
    });
    expect(retyped.json()).toMatchObject({ type: 'EMAIL', enabled: false, config: { password: '***' } });
  });

  it('answers 403 to a user without the admin role on every operation, and lets nothing change', async () => {
    const channel = await create({
      name: uniqueName('admin-only'),
      type: 'WEBHOOK',
      config: { url: 'https://h/x' },
    });
    const calls: Array<[string, string, unknown]> = [
      ['GET', '/api/v1/alarm-channels', undefined],
      ['GET', `/api/v1/alarm-channels/${channel.id}`, undefined],
      [
        'POST',
        '/api/v1/alarm-channels',
        { name: uniqueName('mine'), type: 'WEBHOOK', config: { url: 'https://h/x' } },
      ],
      ['PATCH', `/api/v1/alarm-channels/${channel.id}`, { enabled: false }],
      ['DELETE', `/api/v1/alarm-channels/${channel.id}`, undefined],
      ['POST', `/api/v1/alarm-channels/${channel.id}/test`, {}],
    ];
    for (const [method, url, body] of calls) {
      const res = await api.call(method as 'GET', url, {
        token: user.token,
        ...(body === undefined ? {} : { body }),
      });
      expectError(res, 403, 'TW_ERR_FORBIDDEN');
    }
    const after = await api.store.alarmChannels.findAlarmChannelById(channel.id);
    expect(after?.enabled).toBe(1);
    expect(receiver.requests.filter((r) => r.url === '/x')).toHaveLength(0);
  });

  it('a job picks channels by alarmChannelIds; an unknown id is refused', async () => {
    const channel = await create({
      name: uniqueName('job-hook'),
      type: 'WEBHOOK',
      config: { url: 'https://h/x' },
    });
    const job = await createJob(api, appId, { alarmChannelIds: [channel.id], alarmEmail: 'dev@example.org' });
    expect(job.alarmChannelIds).toEqual([channel.id]);
    expect((await api.store.jobs.findJobById(job.id))!.alarm_channel_ids).toBe(String(channel.id));
    const cleared = await api.call('PATCH', `/api/v1/jobs/${job.id}`, { body: { alarmChannelIds: [] } });
    expect(cleared.json().alarmChannelIds).toEqual([]);
    expectError(
      await api.call('PATCH', `/api/v1/jobs/${job.id}`, { body: { alarmChannelIds: [999_999] } }),
      400,
      'TW_ERR_INVALID_FIELD',
      'alarmChannelIds',
    );
  });

  it('refuses to delete a channel a job still alarms through, then deletes it once unused', async () => {
    const channel = await create({
      name: uniqueName('in-use'),
      type: 'WEBHOOK',
      config: { url: 'https://h/x' },
    });
    const job = await createJob(api, appId, { alarmChannelIds: [channel.id] });
    const refused = expectError(
      await api.call('DELETE', `/api/v1/alarm-channels/${channel.id}`),
      409,
      'TW_ERR_CONFLICT',
    );
    expect(refused.message).toContain(`job ${job.id}`);
    await api.call('PATCH', `/api/v1/jobs/${job.id}`, { body: { alarmChannelIds: [] } });
    expect((await api.call('DELETE', `/api/v1/alarm-channels/${channel.id}`)).statusCode).toBe(204);
    expectError(await api.call('GET', `/api/v1/alarm-channels/${channel.id}`), 404, 'TW_ERR_NOT_FOUND');
  });

  it('testAlarmChannel sends a signed test alarm and says whether the channel took it', async () => {
    const secret = 'test-secret';
    const channel = await create({
      name: uniqueName('testable'),
      type: 'WEBHOOK',
      config: { url: `${receiver.url}/test-hook`, secret },
    });
    const res = await api.call('POST', `/api/v1/alarm-channels/${channel.id}/test`, { body: {} });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ sent: true, error: null });
    const request = receiver.requests.find((r) => r.url === '/test-hook')!;
    expect(request.json).toMatchObject({ event: 'test', job: null, fire: null });
    expect(request.headers['x-tickwheel-signature']).toBe(
      `sha256=${createHmac('sha256', secret).update(request.rawBody).digest('hex')}`,
    );

    receiver.answer = (r) =>
      r.url === '/refusing' ? { body: { errcode: 300001, errmsg: 'token is not exist' } } : {};
    const refusing = await create({
      name: uniqueName('refusing'),
      type: 'DINGTALK',
      config: { url: `${receiver.url}/refusing` },
    });
    const failed = (await api.call('POST', `/api/v1/alarm-channels/${refusing.id}/test`)).json();
    expect(failed.sent).toBe(false);
    expect(failed.error).toBe('DingTalk refused the message: errcode 300001, token is not exist');
  });

  it('the fire resource shows alarmStatus and alarmMsg', async () => {
    const job = await createJob(api, appId);
    const [fireId] = (await api.call('POST', `/api/v1/jobs/${job.id}/trigger`)).json().fireIds;
    expect((await api.call('GET', `/api/v1/fires/${fireId}`)).json()).toMatchObject({
      alarmStatus: 'NONE',
      alarmMsg: null,
    });
    await api.store.fires.recordAlarmResult(
      fireId,
      ALARM_STATUS.FAILED,
      'EMAIL ops: SMTP: connection refused',
    );
    expect((await api.call('GET', `/api/v1/fires/${fireId}`)).json()).toMatchObject({
      alarmStatus: 'FAILED',
      alarmMsg: 'EMAIL ops: SMTP: connection refused',
    });
    const listed = (await api.call('GET', `/api/v1/fires?jobId=${job.id}`)).json();
    expect(listed.items[0]).toMatchObject({ alarmStatus: 'FAILED' });
    await api.store.fires.recordAlarmResult(fireId, ALARM_STATUS.SENT, 'EMAIL ops: sent');
    expect((await api.call('GET', `/api/v1/fires/${fireId}`)).json().alarmStatus).toBe('SENT');
  });
});
