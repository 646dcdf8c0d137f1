/**
 * Alarms end to end: a real server, a real executor whose handler fails, alarm channels set up
 * through the REST API, and real receivers on loopback. The alarm reaches the channels and the
 * fire record says so; a channel that hangs holds up neither scheduling nor other alarms.
 */
import {
  type HttpReceiver,
  type SmtpReceiver,
  startHttpReceiver,
  startSmtpReceiver,
} from '@tickwheel/test-fixtures/alarm-receivers';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  firesOf,
  startExecutor,
  startServer,
  waitFor,
} from './helpers/e2e.js';

const ADMIN_TOKEN = 'tw_e2e-alarms-admin-token-0123456789';

let server: E2eServer | undefined;
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await server?.close();
  server = undefined;
});

async function started<T extends { close(): Promise<void> }>(thing: Promise<T>): Promise<T> {
  const value = await thing;
  closers.push(() => value.close());
  return value;
}

async function rest(method: string, path: string, body?: unknown) {
  const response = await fetch(`${server!.server.url}api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

async function channel(name: string, type: string, config: Record<string, unknown>): Promise<number> {
  const created = await rest('POST', '/alarm-channels', { name, type, config });
  if (created.status !== 201)
    throw new Error(`createAlarmChannel: ${created.status} ${JSON.stringify(created.json)}`);
  return created.json.id;
}

/** An executor of `appName` whose `fails` handler always fails. */
async function failingExecutor(appName: string): Promise<E2eExecutor> {
  return started(
    startExecutor(server!.server, appName, (ex) =>
      ex.handle('fails', async () => {
        throw new Error('the report database is down');
      }),
    ),
  );
}

describe('alarms end to end', () => {
  it("a failed run's alarm is mailed and posted, and getFire says SENT", async () => {
    server = await startServer({ apiToken: ADMIN_TOKEN });
    const smtp: SmtpReceiver = await started(startSmtpReceiver());
    const hook: HttpReceiver = await started(startHttpReceiver(() => ({ status: 204 })));
    const mail = await channel('ops-mail', 'EMAIL', {
      host: '127.0.0.1',
      port: smtp.port,
      security: 'NONE',
      from: 'tickwheel@example.org',
    });
    const webhook = await channel('ops-hook', 'WEBHOOK', { url: `${hook.url}/alarms`, secret: 'e2e-secret' });
    await failingExecutor('e2e-alarms');
    const appId = await createApp(server.store, 'e2e-alarms');
    const job = await createJob(server.store, {
      app_id: appId,
      name: 'nightly report',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'fails',
      alarm_email: 'dev@example.org',
      alarm_channel_ids: `${mail},${webhook}`,
    });

    const { fireId } = await server.server.triggerJob({ jobId: job.id });

    await waitFor(async () => (await rest('GET', `/fires/${fireId}`)).json.alarmStatus === 'SENT', {
      what: 'the alarm recorded as sent',
    });
    const fire = (await rest('GET', `/fires/${fireId}`)).json;
    expect(fire).toMatchObject({
      status: 'failed',
      alarmMsg: 'EMAIL ops-mail: sent; WEBHOOK ops-hook: sent',
    });
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]!.recipients).toEqual(['dev@example.org']);
    expect(smtp.mails[0]!.subject).toBe(`[Tickwheel] Job #${job.id} nightly report failed`);
    expect(smtp.mails[0]!.text).toContain('the report database is down');
    expect(hook.requests).toHaveLength(1);
    expect(hook.requests[0]!.json).toMatchObject({
      event: 'alarm',
      job: { id: job.id, name: 'nightly report' },
      fire: { id: fireId, status: 'failed' },
    });
    expect(hook.requests[0]!.json.reason).toContain(`fire ${fireId}`);
  });

  it('a job keeps firing on time, and other alarms go out, while an alarm channel hangs', async () => {
    server = await startServer({
      apiToken: ADMIN_TOKEN,
      stopTimeoutMs: 500,
      internal: { alarms: { sendTimeoutMs: 8_000, concurrencyPerChannel: 1 } },
    });
    const hanging = await started(startHttpReceiver(() => 'hang'));
    const healthy = await started(startHttpReceiver());
    const mute = await channel('mute-robot', 'DINGTALK', { url: `${hanging.url}/robot/send?access_token=t` });
    const quick = await channel('quick-robot', 'WECOM', { url: `${healthy.url}/cgi-bin/webhook/send?key=k` });
    await failingExecutor('e2e-alarm-storm');
    const appId = await createApp(server.store, 'e2e-alarm-storm');
    const every = await createJob(server.store, {
      app_id: appId,
      name: 'every second',
      schedule_type: 'FIX_RATE',
      schedule_conf: '1',
      executor_handler: 'fails',
      alarm_channel_ids: String(mute),
    });
    const other = await createJob(server.store, {
      app_id: appId,
      name: 'other job',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'fails',
      alarm_channel_ids: String(quick),
    });

    // Let the hanging channel's lane fill: one send hanging, the next alarms waiting behind it.
    await waitFor(async () => (await firesOf(server!.store, every.id)).length >= 3, {
      what: 'three fires of the every-second job',
    });
    expect(hanging.requests).toHaveLength(1);
    const triggeredAt = Date.now();
    const { fireId } = await server.server.triggerJob({ jobId: other.id });
    await waitFor(() => healthy.requests.length === 1, { what: "the other job's alarm" });
    expect(Date.now() - triggeredAt).toBeLessThan(2_000);
    expect(healthy.requests[0]!.json.markdown.content).toContain(`#${fireId}`);

    await waitFor(async () => (await firesOf(server!.store, every.id)).length >= 5, {
      timeoutMs: 8_000,
      what: 'five fires of the every-second job',
    });
    const fires = (await firesOf(server.store, every.id)).filter((fire) => fire.trigger_type !== 'RETRY');
    for (const fire of fires.slice(0, 5)) {
      expect(fire.trigger_at! - fire.scheduled_at, `fire ${fire.id} dispatched late`).toBeLessThan(300);
    }
  });
});
