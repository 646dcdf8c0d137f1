/**
 * Alarms as a way in: an EMAIL channel's `from` or `to` with a line break writes mail headers of
 * its author's own; a job's name or a run's message in DingTalk's or WeCom's markdown (or a
 * Feishu text message) posts links, images and mentions into the on-call group; and a user who
 * may edit a job makes the server mail an address of their choosing. Each is tried against a
 * real server, a real executor whose handler fails, and real receivers on loopback (an SMTP
 * server, HTTP servers standing in for the robots), and each must fail: addresses are single
 * mailboxes (alarms/email-address.ts), stored ones are checked again when sent (email.ts), robot
 * values are escaped per dialect (robot-markdown.ts, feishu.ts), a job's alarmEmail stays within
 * the recipient domains of the EMAIL channels that mail it (api/alarm-channels.ts), and only
 * admins change channels.
 */
import {
  type HttpReceiver,
  type SmtpReceiver,
  startHttpReceiver,
  startSmtpReceiver,
} from '@tickwheel/test-fixtures/alarm-receivers';
import MarkdownIt from 'markdown-it';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  startExecutor,
  startServer,
  waitFor,
} from '../helpers/e2e.js';
import { callHttp, type HttpCallOptions, type HttpSession, signInHttp } from '../helpers/http-api.js';

const ADMIN_TOKEN = 'tw_alarm-injection-admin-token-0123456789';
const INJECTED = 'Bcc: spy@evil.example';

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

/** A REST call as the admin (bearer token) or as `as` (a console session). */
async function rest(
  method: string,
  path: string,
  body?: unknown,
  as?: HttpSession,
): Promise<{ status: number; json: ReturnType<typeof JSON.parse> }> {
  const options: HttpCallOptions = as === undefined ? { token: ADMIN_TOKEN } : { session: as };
  const res = await callHttp(server!.server.url, method, `/api/v1${path}`, {
    ...options,
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : JSON.parse(text) };
}

async function restOk(method: string, path: string, body?: unknown, as?: HttpSession) {
  const answer = await rest(method, path, body, as);
  if (answer.status >= 300)
    throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.json)}`);
  return answer.json;
}

function expectRefused(answer: { status: number; json: ReturnType<typeof JSON.parse> }, field: string): void {
  expect(answer.status, JSON.stringify(answer.json)).toBe(400);
  expect(answer.json.error).toMatchObject({ code: 'TW_ERR_INVALID_FIELD', field });
}

/** A server, an app, and a registered executor whose `fails` handler throws `message`. */
async function serverWithFailingExecutor(
  appName: string,
  message = 'the report database is down',
): Promise<{ appId: number; executor: E2eExecutor }> {
  server = await startServer({ apiToken: ADMIN_TOKEN });
  const executor = await started(
    startExecutor(server.server, appName, (ex) =>
      ex.handle('fails', async () => {
        throw new Error(message);
      }),
    ),
  );
  return { appId: await createApp(server.store, appName), executor };
}

/** Triggers `jobId` and waits until its alarm is settled; answers the fire record. */
async function failAndAlarm(jobId: number) {
  const { fireId } = await server!.server.triggerJob({ jobId });
  await waitFor(async () => (await rest('GET', `/fires/${fireId}`)).json.alarmStatus !== 'NONE', {
    what: `the alarm of fire ${fireId} settled`,
  });
  return (await rest('GET', `/fires/${fireId}`)).json;
}

/** A USER with permission on `appIds`, signed in to the console. */
async function signedInUser(appIds: number[]): Promise<HttpSession> {
  const username = `user-${Math.random().toString(36).slice(2, 8)}`;
  const password = `password of ${username}`;
  await restOk('POST', '/users', { username, password, role: 'USER', appIds });
  return signInHttp(server!.server.url, username, password);
}

function smtpChannel(smtp: SmtpReceiver, config: Record<string, unknown> = {}) {
  return { host: '127.0.0.1', port: smtp.port, security: 'NONE', from: 'alarms@example.org', ...config };
}

describe('EMAIL channel addresses', () => {
  const BAD_SENDERS = [
    `alarms@example.org\r\n${INJECTED}`,
    `alarms@example.org\n${INJECTED}`,
    `alarms@example.org\r${INJECTED}`,
    `Tickwheel\r\n${INJECTED} <alarms@example.org>`,
    'alarms@example.org\u0000',
    'alarms@example.org\t',
    'Tickwheel\u0085 <alarms@example.org>',
    'alarms@example.org, spy@evil.example',
    'Tickwheel <alarms@example.org> <spy@evil.example>',
  ];

  it("an EMAIL channel's from or to with a CR/LF or another control character is refused when saved, naming the setting, and nothing is stored", async () => {
    server = await startServer({ apiToken: ADMIN_TOKEN });
    const smtp = await started(startSmtpReceiver());
    for (const from of BAD_SENDERS) {
      const answer = await rest('POST', '/alarm-channels', {
        name: 'bad from',
        type: 'EMAIL',
        config: smtpChannel(smtp, { from }),
      });
      expectRefused(answer, 'config.from');
    }
    for (const to of [
      `oncall@example.org\r\n${INJECTED}`,
      'Ops <oncall@example.org>',
      'a@example.org,b@x.org',
    ]) {
      const answer = await rest('POST', '/alarm-channels', {
        name: 'bad to',
        type: 'EMAIL',
        config: smtpChannel(smtp, { to: ['dev@example.org', to] }),
      });
      expectRefused(answer, 'config.to[1]');
    }
    expect(await server.store.alarmChannels.listAlarmChannels({})).toEqual([]);

    const good = await restOk('POST', '/alarm-channels', {
      name: 'ops mail',
      type: 'EMAIL',
      config: smtpChannel(smtp, { from: 'Tickwheel <alarms@example.org>' }),
    });
    expectRefused(
      await rest('PATCH', `/alarm-channels/${good.id}`, { config: { from: BAD_SENDERS[0] } }),
      'config.from',
    );
    const stored = await server.store.alarmChannels.findAlarmChannelById(good.id);
    expect(JSON.parse(stored!.config).from).toBe('Tickwheel <alarms@example.org>');
  });

  it('an EMAIL channel whose stored from or to holds a CR/LF sends nothing, neither an alarm nor a test, and says config.from is why', async () => {
    const { appId } = await serverWithFailingExecutor('alarm-bad-sender');
    const smtp = await started(startSmtpReceiver());
    // Written past the API, as a row from before the check (or another tool) would be.
    const badFrom = await server!.store.alarmChannels.createAlarmChannel(
      {
        name: 'stored bad from',
        type: 'EMAIL',
        enabled: true,
        // A recipient in its domain and one of its own: without the check at send, it would mail.
        config: JSON.stringify(
          smtpChannel(smtp, {
            from: `alarms@example.org\r\n${INJECTED}`,
            to: ['oncall@example.org'],
            recipientDomains: ['example.org'],
          }),
        ),
      },
      Date.now(),
    );
    const badTo = await server!.store.alarmChannels.createAlarmChannel(
      {
        name: 'stored bad to',
        type: 'EMAIL',
        enabled: true,
        config: JSON.stringify(smtpChannel(smtp, { to: [`oncall@example.org\r\n${INJECTED}`] })),
      },
      Date.now(),
    );
    const job = await createJob(server!.store, {
      app_id: appId,
      name: 'nightly report',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'fails',
      alarm_email: 'dev@example.org',
      alarm_channel_ids: `${badFrom.id},${badTo.id}`,
    });

    const fire = await failAndAlarm(job.id);

    expect(fire.alarmStatus).toBe('FAILED');
    expect(fire.alarmMsg).toContain('stored bad from');
    expect(fire.alarmMsg).toContain('config.from');
    expect(fire.alarmMsg).toContain('config.to[0]');
    const test = await restOk('POST', `/alarm-channels/${badFrom.id}/test`, {
      alarmEmail: 'dev@example.org',
    });
    expect(test).toMatchObject({ sent: false });
    expect(test.error).toContain('config.from');
    expect(smtp.mails).toEqual([]);
  });
});

describe('robot markdown', () => {
  const NAME =
    '[ref] [x](http://evil.example/a) ![i](http://evil.example/i.png) <a href="http://evil.example">h</a> <img src=x> <@all> @all <at user_id="all">a</at> <font color="red">r</font> <http://evil.example/u> *b* _e_ `c` ~~d~~';
  const LABELS = ['App', 'Job', 'Fire', 'Scheduled at', 'Executor', 'Status', 'Retries left', 'Reason'];
  const MESSAGE_LINES = [
    'the handler threw [see](http://evil.example/s)',
    '# an evil heading',
    '- an evil list item',
    '1. an evil numbered item',
    '[ref]: http://evil.example/r',
    '![pic](http://evil.example/pic.png)',
    '<img src="http://evil.example/t.png">',
    '=====',
  ];

  /** markdown-it with raw HTML on: if a value's tag survived, it would be in the HTML. */
  const markdown = new MarkdownIt({ html: true });

  /** The HTML's text, entities decoded: what a reader of the rendered message sees. */
  function textOf(html: string): string {
    return html
      .replace(/<[^>]*>/g, '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&');
  }

  function expectInert(source: string, jobId: number): void {
    const html = markdown.render(source);
    expect(html).not.toMatch(/<a[\s>]/);
    expect(html).not.toMatch(/<img[\s>]/);
    expect(html).not.toMatch(/<(font|at|em|code|s|del|h1|h2|h4|ul|ol|li|hr)[\s>]/);
    // Bold only for our own labels: the values' `*b*` and `_e_` stay as written.
    expect([...html.matchAll(/<strong>(.*?)<\/strong>/g)].map((m) => m[1])).toEqual(LABELS);
    expect(html).not.toContain('<@');
    expect(html).not.toMatch(/\s(href|src)="/);
    expect(html).toContain(
      `<h3>${markdown.utils.escapeHtml(`[Tickwheel] Job #${jobId} ${NAME} failed`)}</h3>`,
    );
    const text = textOf(html);
    expect(text).toContain(`Job: #${jobId} ${NAME}`);
    for (const line of MESSAGE_LINES) expect(text).toContain(line);
  }

  it('a job name and a run message with markdown links, images, @mentions and HTML reach the DingTalk, WeCom and Feishu robots escaped: the rendered message has no link, no image and no mention', async () => {
    const { appId } = await serverWithFailingExecutor('alarm-markdown', MESSAGE_LINES.join('\n'));
    const robot: HttpReceiver = await started(
      startHttpReceiver((request) =>
        request.url.startsWith('/open-apis/')
          ? { body: { code: 0, msg: 'success' } }
          : { body: { errcode: 0, errmsg: 'ok' } },
      ),
    );
    const channel = async (name: string, type: string, config: Record<string, unknown>) =>
      (await restOk('POST', '/alarm-channels', { name, type, config })).id as number;
    const channels = [
      await channel('ding', 'DINGTALK', { url: `${robot.url}/robot/send?access_token=d` }),
      await channel('wecom', 'WECOM', { url: `${robot.url}/cgi-bin/webhook/send?key=w` }),
      await channel('feishu post', 'FEISHU', { url: `${robot.url}/open-apis/bot/v2/hook/post` }),
      await channel('feishu text', 'FEISHU', {
        url: `${robot.url}/open-apis/bot/v2/hook/text`,
        msgType: 'text',
      }),
    ];
    const job = await restOk('POST', '/jobs', {
      appId,
      name: NAME,
      executorHandler: 'fails',
      alarmChannelIds: channels,
    });

    const fire = await failAndAlarm(job.id);

    expect(fire.alarmStatus, fire.alarmMsg).toBe('SENT');
    const posted = (prefix: string) => robot.requests.find((r) => r.url.startsWith(prefix))!.json;

    const ding = posted('/robot/send');
    expect(ding.msgtype).toBe('markdown');
    expect(ding.at).toEqual({ atMobiles: [], isAtAll: false });
    expectInert(ding.markdown.text, job.id);

    const wecom = posted('/cgi-bin/webhook/send');
    expect(wecom.msgtype).toBe('markdown');
    expectInert(wecom.markdown.content, job.id);

    // A post's text elements are shown as they are: only text elements, no a, at or img.
    const post = posted('/open-apis/bot/v2/hook/post');
    const elements = post.content.post.zh_cn.content.flat();
    expect(new Set(elements.map((e: { tag: string }) => e.tag))).toEqual(new Set(['text']));
    expect(elements.map((e: { text: string }) => e.text)).toContain(`Job: #${job.id} ${NAME}`);

    // A text message reads <at …>, <b> and [text](url): a zero-width space breaks each open.
    const text: string = posted('/open-apis/bot/v2/hook/text').content.text;
    expect(text).not.toMatch(/<[a-z@/]/i);
    expect(text).not.toContain('](');
    expect(text.replaceAll('\u200b', '')).toContain(`Job: #${job.id} ${NAME}`);
  });
});

describe('who may set alarm recipients', () => {
  it("a USER cannot make alarm mail go to an address outside the channel's recipient domains: createJob and updateJob answer 400 naming alarmEmail and nothing is stored; an admin's recipientDomains ['*'] allows it", async () => {
    server = await startServer({ apiToken: ADMIN_TOKEN });
    const smtp = await started(startSmtpReceiver());
    const appId = await createApp(server.store, 'alarm-recipients');
    const mail = await restOk('POST', '/alarm-channels', {
      name: 'ops mail',
      type: 'EMAIL',
      config: smtpChannel(smtp),
    });
    const user = await signedInUser([appId]);
    const newJob = (alarmEmail: string) => ({
      appId,
      name: `job for ${alarmEmail}`,
      executorHandler: 'fails',
      alarmEmail,
      alarmChannelIds: [mail.id],
    });

    for (const outside of [
      'spy@evil.example',
      'dev@example.org, spy@evil.example',
      'spy@example.org.evil.example',
    ]) {
      expectRefused(await rest('POST', '/jobs', newJob(outside), user), 'alarmEmail');
    }
    // With no channel chosen the job is mailed by every enabled EMAIL channel: the same check.
    expectRefused(
      await rest('POST', '/jobs', { ...newJob('spy@evil.example'), alarmChannelIds: [] }, user),
      'alarmEmail',
    );
    expect(await server.store.jobs.listJobs({ appId })).toEqual([]);

    const job = await restOk('POST', '/jobs', newJob('dev@example.org, ops@team.example.org'), user);
    expectRefused(
      await rest('PATCH', `/jobs/${job.id}`, { alarmEmail: 'dev@example.org, spy@evil.example' }, user),
      'alarmEmail',
    );
    expect((await server.store.jobs.findJobById(job.id))!.alarm_email).toBe(
      'dev@example.org, ops@team.example.org',
    );

    // Only an admin changes where a channel mails, or sends a test to an address of their choice.
    const widen = await rest(
      'PATCH',
      `/alarm-channels/${mail.id}`,
      { config: { recipientDomains: ['*'] } },
      user,
    );
    expect(widen.status).toBe(403);
    expect(
      (await rest('POST', `/alarm-channels/${mail.id}/test`, { alarmEmail: 'spy@evil.example' }, user))
        .status,
    ).toBe(403);
    expect(
      (
        await rest(
          'POST',
          '/alarm-channels',
          { name: 'mine', type: 'EMAIL', config: smtpChannel(smtp) },
          user,
        )
      ).status,
    ).toBe(403);
    expect(
      JSON.parse((await server.store.alarmChannels.findAlarmChannelById(mail.id))!.config),
    ).not.toHaveProperty('recipientDomains');
    expect(smtp.mails).toEqual([]);

    await restOk('PATCH', `/alarm-channels/${mail.id}`, { config: { recipientDomains: ['*'] } });
    const patched = await restOk(
      'PATCH',
      `/jobs/${job.id}`,
      { alarmEmail: 'dev@example.org, partner@elsewhere.example' },
      user,
    );
    expect(patched.alarmEmail).toBe('dev@example.org, partner@elsewhere.example');
  });

  it('an address in alarmEmail stored before this check, outside the recipient domains or not one address, is not mailed', async () => {
    const { appId } = await serverWithFailingExecutor('alarm-stored-recipients');
    const smtp = await started(startSmtpReceiver());
    const mail = await restOk('POST', '/alarm-channels', {
      name: 'ops mail',
      type: 'EMAIL',
      config: smtpChannel(smtp, { to: ['oncall@example.org'] }),
    });
    // Written past the API: rows from before the check.
    const job = await createJob(server!.store, {
      app_id: appId,
      name: 'legacy job',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'fails',
      alarm_email: `dev@example.org, spy@evil.example, ops@example.org\r\n${INJECTED}, Spy <spy2@evil.example>`,
      alarm_channel_ids: String(mail.id),
    });
    const outsideOnly = await createJob(server!.store, {
      app_id: appId,
      name: 'legacy job mailing outside only',
      schedule_type: 'NONE',
      schedule_conf: '',
      executor_handler: 'fails',
      alarm_email: 'spy@evil.example',
      alarm_channel_ids: String(mail.id),
    });

    const fire = await failAndAlarm(job.id);

    expect(fire.alarmStatus, fire.alarmMsg).toBe('SENT');
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]!.recipients).toEqual(['dev@example.org', 'oncall@example.org']);
    expect(smtp.mails[0]!.headers).not.toHaveProperty('bcc');
    expect(JSON.stringify(smtp.mails[0]!.headers)).not.toContain('evil.example');

    // An update keeping the stored address is taken (it is not new), and it is still not mailed.
    await restOk('PATCH', `/jobs/${outsideOnly.id}`, { name: 'legacy job, renamed' });
    const second = await failAndAlarm(outsideOnly.id);
    expect(second.alarmStatus).toBe('SENT');
    expect(smtp.mails).toHaveLength(2);
    expect(smtp.mails[1]!.recipients).toEqual(['oncall@example.org']);
  });

  it("a CR/LF or a second address in a job's alarmEmail is refused naming alarmEmail, with or without an EMAIL channel", async () => {
    server = await startServer({ apiToken: ADMIN_TOKEN });
    const appId = await createApp(server.store, 'alarm-email-lines');
    const job = await restOk('POST', '/jobs', { appId, name: 'plain job', executorHandler: 'fails' });
    const BAD = [
      `dev@example.org\r\n${INJECTED}`,
      `dev@example.org\n${INJECTED}`,
      `dev@example.org\r${INJECTED}`,
      'Dev <dev@example.org>',
      'dev@example.org spy@evil.example',
      'dev@example.org; spy@evil.example',
    ];
    const check = async () => {
      for (const alarmEmail of BAD) {
        expectRefused(
          await rest('POST', '/jobs', { appId, name: 'bad job', executorHandler: 'fails', alarmEmail }),
          'alarmEmail',
        );
        expectRefused(await rest('PATCH', `/jobs/${job.id}`, { alarmEmail }), 'alarmEmail');
      }
      expect((await server!.store.jobs.listJobs({ appId })).map((row) => row.name)).toEqual(['plain job']);
      expect((await server!.store.jobs.findJobById(job.id))!.alarm_email).toBe('');
    };
    await check();
    const smtp = await started(startSmtpReceiver());
    const mail = await restOk('POST', '/alarm-channels', {
      name: 'ops mail',
      type: 'EMAIL',
      config: smtpChannel(smtp, { recipientDomains: ['*'] }),
    });
    await check();
    for (const alarmEmail of BAD) {
      expectRefused(await rest('POST', `/alarm-channels/${mail.id}/test`, { alarmEmail }), 'alarmEmail');
    }
    expect(smtp.mails).toEqual([]);
  });
});
