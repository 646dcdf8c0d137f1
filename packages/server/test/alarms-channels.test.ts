/**
 * Each alarm channel against a real receiver on loopback: an SMTP server for e-mail, HTTP
 * servers standing in for the webhook receiver and the DingTalk, WeCom and Feishu robots, each
 * checking the payload and verifying the signature the way the service documents it.
 */
import { createHmac } from 'node:crypto';
import {
  type HttpReceiver,
  type ReceivedRequest,
  type SmtpReceiver,
  startHttpReceiver,
  startSmtpReceiver,
} from '@tickwheel/test-fixtures/alarm-receivers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AlarmQueue } from '../src/alarms/alarm-queue.js';
import { ALARM_STATUS } from '../src/alarms/alarm-status.js';
import type { Store } from '../src/store/index.js';
import { addChannel, alarmQueue, failedFire, raiseAndWait } from './helpers/alarm-fixtures.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';

const HOUR_MS = 3_600_000;

let database: TestDatabase;
let store: Store;
let queue: AlarmQueue;
const closers: Array<() => Promise<void>> = [];

beforeEach(async () => {
  database = await createTestDatabase('sqlite');
  store = await database.open();
  queue = alarmQueue(store);
});

afterEach(async () => {
  await queue.stop(0);
  for (const close of closers.splice(0)) await close();
  await database.drop();
});

async function http(answer?: (request: ReceivedRequest) => ReturnType<HttpReceiver['answer']>) {
  const receiver = await startHttpReceiver(answer);
  closers.push(receiver.close);
  return receiver;
}

async function smtp(auth?: { username: string; password: string }): Promise<SmtpReceiver> {
  const receiver = await startSmtpReceiver(auth);
  closers.push(receiver.close);
  return receiver;
}

async function fireOf(id: number) {
  return (await store.fires.findFireById(id))!;
}

describe('EMAIL', () => {
  it("mails the job's alarmEmail and the channel's own to-list, with the job, the fire and the reason", async () => {
    const receiver = await smtp({ username: 'alarms', password: 'smtp-secret' });
    const channel = await addChannel(store, 'EMAIL', {
      host: '127.0.0.1',
      port: receiver.port,
      security: 'NONE',
      username: 'alarms',
      password: 'smtp-secret',
      from: 'Tickwheel <alarms@example.org>',
      to: ['oncall@example.org'],
    });
    const { job, fire } = await failedFire(store, {
      alarm_email: 'dev@example.org, lead@example.org',
      alarm_channel_ids: String(channel.id),
    });

    await raiseAndWait(queue, { job, fire, reason: `fire ${fire.id} failed (code 500); no retry left` });

    expect(receiver.mails).toHaveLength(1);
    const mail = receiver.mails[0]!;
    expect(mail.user).toBe('alarms');
    expect(mail.from).toBe('alarms@example.org');
    expect(mail.recipients).toEqual(['dev@example.org', 'lead@example.org', 'oncall@example.org']);
    expect(mail.subject).toBe(`[Tickwheel] Job #${job.id} ${job.name} failed`);
    expect(mail.text).toContain(`Job: #${job.id} ${job.name}`);
    expect(mail.text).toContain(`Fire: #${fire.id} (CRON)`);
    expect(mail.text).toContain(`Reason: fire ${fire.id} failed (code 500); no retry left`);
    expect(mail.text).toContain('boom: the handler threw');
    const recorded = await fireOf(fire.id);
    expect(recorded.alarm_status).toBe(ALARM_STATUS.SENT);
    expect(recorded.alarm_msg).toBe(`EMAIL ${channel.name}: sent`);
  });

  it('records a refused SMTP login as failed, without retrying it', async () => {
    const receiver = await smtp({ username: 'alarms', password: 'smtp-secret' });
    const channel = await addChannel(store, 'EMAIL', {
      host: '127.0.0.1',
      port: receiver.port,
      security: 'NONE',
      username: 'alarms',
      password: 'wrong',
      from: 'alarms@example.org',
    });
    const { job, fire } = await failedFire(store, {
      alarm_email: 'dev@example.org',
      alarm_channel_ids: String(channel.id),
    });

    await raiseAndWait(queue, { job, fire });

    const recorded = await fireOf(fire.id);
    expect(recorded.alarm_status).toBe(ALARM_STATUS.FAILED);
    expect(recorded.alarm_msg).toMatch(/^EMAIL .*: SMTP: .*Invalid/);
    expect(recorded.alarm_msg).not.toContain('tries');
    expect(receiver.mails).toHaveLength(0);
  });

  it('fails an alarm with no recipient at once', async () => {
    const channel = await addChannel(store, 'EMAIL', {
      host: '127.0.0.1',
      port: 9,
      security: 'NONE',
      from: 'alarms@example.org',
    });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: String(channel.id) });

    await raiseAndWait(queue, { job, fire });

    const recorded = await fireOf(fire.id);
    expect(recorded.alarm_status).toBe(ALARM_STATUS.FAILED);
    expect(recorded.alarm_msg).toContain('no recipient');
  });

  it('takes a job with only alarmEmail, as XXL-JOB jobs come, through every enabled EMAIL channel', async () => {
    const receiver = await smtp();
    const mailConfig = {
      host: '127.0.0.1',
      port: receiver.port,
      security: 'NONE',
      from: 'alarms@example.org',
    };
    await addChannel(store, 'EMAIL', mailConfig, { name: 'mail-a' });
    await addChannel(store, 'EMAIL', mailConfig, { name: 'mail-off', enabled: false });
    const { job, fire } = await failedFire(store, { alarm_email: 'dev@example.org' });

    await raiseAndWait(queue, { job, fire });

    expect(receiver.mails.map((mail) => mail.recipients)).toEqual([['dev@example.org']]);
    expect((await fireOf(fire.id)).alarm_msg).toBe('EMAIL mail-a: sent');
  });
});

describe('WEBHOOK', () => {
  it('posts the job, the fire record and the reason, signed with an HMAC-SHA256 of the raw body', async () => {
    const receiver = await http(() => ({ status: 204 }));
    const secret = 'whsec-0123456789';
    const channel = await addChannel(store, 'WEBHOOK', { url: `${receiver.url}/hooks/tickwheel`, secret });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: String(channel.id) });

    await raiseAndWait(queue, { job, fire, reason: 'it broke' });

    expect(receiver.requests).toHaveLength(1);
    const request = receiver.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hooks/tickwheel');
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    const expected = createHmac('sha256', secret).update(request.rawBody).digest('hex');
    expect(request.headers['x-tickwheel-signature']).toBe(`sha256=${expected}`);
    const body = request.json;
    expect(Number(request.headers['x-tickwheel-timestamp'])).toBe(body.sentAt);
    expect(Math.abs(Date.now() / 1000 - body.sentAt)).toBeLessThan(60);
    expect(request.headers['x-tickwheel-event']).toBe('alarm');
    expect(request.headers['x-tickwheel-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(body).toMatchObject({
      event: 'alarm',
      reason: 'it broke',
      app: { id: job.app_id, title: 'Orders' },
      job: { id: job.id, name: job.name, appId: job.app_id, executorHandler: 'report' },
      fire: {
        id: fire.id,
        jobId: job.id,
        status: 'failed',
        handleCode: 500,
        handleMsg: 'boom: the handler threw',
      },
    });
    expect(body.job).not.toHaveProperty('glueSource');
    expect((await fireOf(fire.id)).alarm_status).toBe(ALARM_STATUS.SENT);
  });

  it('posts unsigned when the channel has no secret', async () => {
    const receiver = await http(() => ({ status: 200 }));
    const channel = await addChannel(store, 'WEBHOOK', { url: `${receiver.url}/hook` });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: String(channel.id) });

    await raiseAndWait(queue, { job, fire });

    expect(receiver.requests[0]!.headers).not.toHaveProperty('x-tickwheel-signature');
    expect(receiver.requests[0]!.headers).toHaveProperty('x-tickwheel-timestamp');
  });
});

describe('DINGTALK', () => {
  /** As DingTalk's docs verify it: Base64(HmacSHA256(key = secret, data = timestamp + "\n" + secret)). */
  function verifyDingTalk(request: ReceivedRequest, secret: string): void {
    const query = new URL(request.url, 'http://robot').searchParams;
    const timestamp = query.get('timestamp')!;
    expect(Math.abs(Date.now() - Number(timestamp))).toBeLessThan(HOUR_MS);
    const expected = createHmac('sha256', secret).update(`${timestamp}\n${secret}`).digest('base64');
    expect(query.get('sign')).toBe(expected);
    expect(query.get('access_token')).toBe('robot-token-123');
  }

  it('signs the URL with timestamp and sign and sends a markdown message mentioning atMobiles', async () => {
    const receiver = await http();
    const secret = 'SEC0123456789abcdef';
    const channel = await addChannel(store, 'DINGTALK', {
      url: `${receiver.url}/robot/send?access_token=robot-token-123`,
      secret,
      atMobiles: ['13800000000'],
    });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: String(channel.id) });

    await raiseAndWait(queue, { job, fire, reason: 'no retry left' });

    const request = receiver.requests[0]!;
    expect(request.url.startsWith('/robot/send?')).toBe(true);
    verifyDingTalk(request, secret);
    const body = request.json;
    expect(body.msgtype).toBe('markdown');
    expect(body.markdown.title).toBe(`[Tickwheel] Job #${job.id} ${job.name} failed`);
    expect(body.markdown.text).toContain(`### \\[Tickwheel\\] Job #${job.id}`);
    expect(body.markdown.text).toContain('**Reason**: no retry left');
    expect(body.markdown.text).toContain('@13800000000');
    expect(body.at).toEqual({ atMobiles: ['13800000000'], isAtAll: false });
    expect((await fireOf(fire.id)).alarm_status).toBe(ALARM_STATUS.SENT);
  });

  it('sends a text message when msgType is text', async () => {
    const receiver = await http();
    const channel = await addChannel(store, 'DINGTALK', {
      url: `${receiver.url}/robot/send?access_token=robot-token-123`,
      msgType: 'text',
      atAll: true,
    });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: String(channel.id) });

    await raiseAndWait(queue, { job, fire });

    const body = receiver.requests[0]!.json;
    expect(body.msgtype).toBe('text');
    expect(body.text.content).toContain(`Job: #${job.id} ${job.name}`);
    expect(body.at.isAtAll).toBe(true);
    expect(new URL(receiver.requests[0]!.url, 'http://robot').searchParams.has('sign')).toBe(false);
  });

  it("records the robot's refusal (errcode other than 0) as failed, without retrying it", async () => {
    const receiver = await http(() => ({ body: { errcode: 310000, errmsg: 'sign not match' } }));
    const channel = await addChannel(store, 'DINGTALK', {
      url: `${receiver.url}/robot/send?access_token=robot-token-123`,
      secret: 'SEC-wrong',
    });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: String(channel.id) });

    await raiseAndWait(queue, { job, fire });

    expect(receiver.requests).toHaveLength(1);
    const recorded = await fireOf(fire.id);
    expect(recorded.alarm_status).toBe(ALARM_STATUS.FAILED);
    expect(recorded.alarm_msg).toBe(
      `DINGTALK ${channel.name}: DingTalk refused the message: errcode 310000, sign not match`,
    );
  });
});

describe('WECOM', () => {
  it("posts a markdown message to the robot's URL", async () => {
    const receiver = await http();
    const channel = await addChannel(store, 'WECOM', {
      url: `${receiver.url}/cgi-bin/webhook/send?key=wecom-key`,
    });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: String(channel.id) });

    await raiseAndWait(queue, { job, fire, reason: 'no retry left' });

    const request = receiver.requests[0]!;
    expect(request.url).toBe('/cgi-bin/webhook/send?key=wecom-key');
    const body = request.json;
    expect(body.msgtype).toBe('markdown');
    expect(body.markdown.content).toContain(`**Job**: #${job.id} ${job.name}`);
    expect(Buffer.byteLength(body.markdown.content)).toBeLessThanOrEqual(4096);
    expect((await fireOf(fire.id)).alarm_status).toBe(ALARM_STATUS.SENT);
  });

  it('posts a text message mentioning mobiles, cut to 2048 bytes', async () => {
    const receiver = await http();
    const channel = await addChannel(store, 'WECOM', {
      url: `${receiver.url}/cgi-bin/webhook/send?key=wecom-key`,
      msgType: 'text',
      mentionedMobiles: ['13900000000'],
    });
    const { job, fire } = await failedFire(
      store,
      { alarm_channel_ids: String(channel.id) },
      '错误'.repeat(600),
    );

    await raiseAndWait(queue, { job, fire });

    const body = receiver.requests[0]!.json;
    expect(body.msgtype).toBe('text');
    expect(body.text.mentioned_mobile_list).toEqual(['13900000000']);
    expect(Buffer.byteLength(body.text.content)).toBeLessThanOrEqual(2048);
    expect(body.text.content.endsWith('…')).toBe(true);
  });
});

describe('FEISHU', () => {
  it('puts timestamp and sign in the body as Feishu documents them, in a rich-text post', async () => {
    const receiver = await http(() => ({ body: { code: 0, msg: 'success', data: {} } }));
    const secret = 'feishu-secret-abc';
    const channel = await addChannel(store, 'FEISHU', {
      url: `${receiver.url}/open-apis/bot/v2/hook/0123456789abcdef0123`,
      secret,
    });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: String(channel.id) });

    await raiseAndWait(queue, { job, fire, reason: 'no retry left' });

    const request = receiver.requests[0]!;
    expect(request.url).toBe('/open-apis/bot/v2/hook/0123456789abcdef0123');
    const body = request.json;
    // Feishu: timestamp in seconds; sign = Base64(HmacSHA256(key = timestamp + "\n" + secret, data = "")).
    expect(body.timestamp).toMatch(/^\d{10}$/);
    expect(Math.abs(Date.now() / 1000 - Number(body.timestamp))).toBeLessThan(HOUR_MS / 1000);
    const expected = createHmac('sha256', `${body.timestamp}\n${secret}`).update('').digest('base64');
    expect(body.sign).toBe(expected);
    expect(body.msg_type).toBe('post');
    const post = body.content.post.zh_cn;
    expect(post.title).toBe(`[Tickwheel] Job #${job.id} ${job.name} failed`);
    expect(post.content).toContainEqual([{ tag: 'text', text: 'Reason: no retry left' }]);
    expect((await fireOf(fire.id)).alarm_status).toBe(ALARM_STATUS.SENT);
  });

  it('sends a text message unsigned when there is no secret, and takes a refusal as failed', async () => {
    const receiver = await http(() => ({
      body: { code: 19021, msg: 'sign match fail or timestamp is not within one hour' },
    }));
    const channel = await addChannel(store, 'FEISHU', {
      url: `${receiver.url}/open-apis/bot/v2/hook/0123456789abcdef0123`,
      msgType: 'text',
    });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: String(channel.id) });

    await raiseAndWait(queue, { job, fire });

    const body = receiver.requests[0]!.json;
    expect(body).not.toHaveProperty('sign');
    expect(body.msg_type).toBe('text');
    expect(body.content.text).toContain(`Job: #${job.id}`);
    const recorded = await fireOf(fire.id);
    expect(recorded.alarm_status).toBe(ALARM_STATUS.FAILED);
    expect(recorded.alarm_msg).toContain('code 19021');
  });
});

describe('several channels', () => {
  it('sends to each chosen channel, skips a disabled one, and records FAILED when one failed', async () => {
    const good = await http();
    const bad = await http(() => ({ status: 404, body: { error: 'no such hook' } }));
    const a = await addChannel(store, 'WEBHOOK', { url: `${good.url}/a` }, { name: 'a-good' });
    const b = await addChannel(store, 'WEBHOOK', { url: `${bad.url}/b` }, { name: 'b-bad' });
    const c = await addChannel(store, 'WEBHOOK', { url: `${good.url}/c` }, { name: 'c-off', enabled: false });
    const { job, fire } = await failedFire(store, { alarm_channel_ids: `${a.id},${b.id},${c.id}` });

    await raiseAndWait(queue, { job, fire });

    expect(good.requests.map((r) => r.url)).toEqual(['/a']);
    expect(bad.requests).toHaveLength(1);
    const recorded = await fireOf(fire.id);
    expect(recorded.alarm_status).toBe(ALARM_STATUS.FAILED);
    expect(recorded.alarm_msg).toMatch(/^WEBHOOK a-good: sent; WEBHOOK b-bad: POST .*\/b answered HTTP 404/);
  });

  it('leaves a job with no channel and no alarmEmail unalarmed', async () => {
    const { job, fire } = await failedFire(store);

    await raiseAndWait(queue, { job, fire });

    const recorded = await fireOf(fire.id);
    expect(recorded.alarm_status).toBe(ALARM_STATUS.NONE);
    expect(recorded.alarm_msg).toBeNull();
  });
});
