/**
 * The characters a string may hold (src/api/text-rules.ts), tried on every dialect: a name or
 * title refuses control and bidirectional formatting characters, every string refuses NUL and
 * lone surrogates, and free text keeps its newlines. Each refusal is a 400 naming the field and
 * the character, and leaves everything stored as it was.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, createApp, createJob, expectError, startApiServer } from '../helpers/api-server.js';
import { DIALECTS } from '../helpers/databases.js';
import { storedState } from '../helpers/stored-state.js';

/** Control characters (C0, DEL, C1) and the bidirectional embeddings, overrides and isolates. */
const REFUSED_IN_NAMES = [
  0x00, 0x01, 0x09, 0x0a, 0x0d, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9b, 0x9f, 0x202a, 0x202b, 0x202c, 0x202d,
  0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
];

const codePointName = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;

/** A request whose one-line `field` holds `text`. */
interface OneLineCase {
  field: string;
  request(text: string): { method: 'POST' | 'PATCH' | 'PUT'; url: string; body: unknown };
}

describe.each(DIALECTS)('text rules on %s', (dialect) => {
  let api: ApiHarness;
  let appId: number;
  let jobId: number;
  let channelId: number;

  beforeAll(async () => {
    api = await startApiServer(dialect);
    appId = await createApp(api, { appName: 'text-app', title: 'Text app' });
    jobId = (await createJob(api, appId, { name: 'text job' })).id;
    const channel = await api.call('POST', '/api/v1/alarm-channels', {
      body: { name: 'ops hook', type: 'WEBHOOK', config: { url: 'https://hooks.example/ops' } },
    });
    channelId = channel.json().id;
  });
  afterAll(async () => {
    await api?.close();
  });

  const job = (fields: Record<string, unknown>) => ({
    method: 'POST' as const,
    url: '/api/v1/jobs',
    body: { appId, name: 'a job', executorHandler: 'hello', ...fields },
  });
  const ONE_LINE_FIELDS: OneLineCase[] = [
    {
      field: 'appName',
      request: (t) => ({ method: 'POST', url: '/api/v1/apps', body: { appName: `a${t}`, title: 'x' } }),
    },
    {
      field: 'title',
      request: (t) => ({
        method: 'POST',
        url: '/api/v1/apps',
        body: { appName: 'new-app', title: `a${t}b` },
      }),
    },
    {
      field: 'title',
      request: (t) => ({ method: 'PATCH', url: `/api/v1/apps/${appId}`, body: { title: `a${t}b` } }),
    },
    {
      field: 'addressList[0]',
      request: (t) => ({
        method: 'POST',
        url: '/api/v1/apps',
        body: {
          appName: 'manual-app',
          title: 'x',
          addressType: 'MANUAL',
          addressList: [`http://127.0.0.1:9${t}/`],
        },
      }),
    },
    { field: 'name', request: (t) => job({ name: `nightly${t}report` }) },
    {
      field: 'name',
      request: (t) => ({ method: 'PATCH', url: `/api/v1/jobs/${jobId}`, body: { name: `a${t}b` } }),
    },
    { field: 'author', request: (t) => job({ author: `ops${t}` }) },
    { field: 'executorHandler', request: (t) => job({ executorHandler: `hello${t}` }) },
    { field: 'alarmEmail', request: (t) => job({ alarmEmail: `ops@example.com${t}` }) },
    { field: 'scheduleConf', request: (t) => job({ scheduleType: 'FIX_RATE', scheduleConf: `60${t}` }) },
    { field: 'timeZone', request: (t) => job({ timeZone: `UTC${t}` }) },
    {
      field: 'glueRemark',
      request: (t) => job({ glueType: 'GLUE_SHELL', glueSource: 'echo', glueRemark: `v1${t}` }),
    },
    {
      field: 'glueRemark',
      request: (t) => ({
        method: 'PUT',
        url: `/api/v1/jobs/${jobId}/script`,
        body: { glueType: 'GLUE_SHELL', glueSource: 'echo', glueRemark: `fix${t}` },
      }),
    },
    {
      field: 'addressList[0]',
      request: (t) => ({
        method: 'POST',
        url: `/api/v1/jobs/${jobId}/trigger`,
        body: { addressList: [`http://a${t}/`] },
      }),
    },
    {
      field: 'username',
      request: (t) => ({
        method: 'POST',
        url: '/api/v1/users',
        body: { username: `eve${t}`, password: 'long enough password' },
      }),
    },
    {
      field: 'name',
      request: (t) => ({ method: 'POST', url: '/api/v1/tokens', body: { name: `deploy${t}token` } }),
    },
    {
      field: 'name',
      request: (t) => ({
        method: 'POST',
        url: '/api/v1/alarm-channels',
        body: { name: `ops${t}hook`, type: 'WEBHOOK', config: { url: 'https://hooks.example/x' } },
      }),
    },
    {
      field: 'name',
      request: (t) => ({
        method: 'PATCH',
        url: `/api/v1/alarm-channels/${channelId}`,
        body: { name: `ops${t}hook` },
      }),
    },
    {
      field: 'alarmEmail',
      request: (t) => ({
        method: 'POST',
        url: `/api/v1/alarm-channels/${channelId}/test`,
        body: { alarmEmail: `a@b.c${t}` },
      }),
    },
  ];

  async function expectRefused(
    request: { method: 'POST' | 'PATCH' | 'PUT'; url: string; body: unknown },
    field: string,
    reason: string,
  ): Promise<void> {
    const before = await storedState(api.store);
    const triggers = api.triggers.length;
    const error = expectError(
      await api.call(request.method, request.url, { body: request.body }),
      400,
      'TW_ERR_INVALID_FIELD',
      field,
    );
    expect(error.message).toContain(`${field}: `);
    expect(error.message).toContain(reason);
    expect(await storedState(api.store)).toEqual(before);
    expect(api.triggers.length).toBe(triggers);
  }

  it('every name, title and other one-line field refuses a line feed and a right-to-left override, naming the field', async () => {
    for (const { field, request } of ONE_LINE_FIELDS) {
      await expectRefused(request('\n'), field, 'must not contain U+000A (a control character');
      await expectRefused(
        request('\u202e'),
        field,
        'must not contain U+202E (a bidirectional formatting character',
      );
    }
  });

  it('a name refuses each C0 and C1 control character and each bidirectional embedding, override and isolate', async () => {
    const title = ONE_LINE_FIELDS[1]!;
    for (const codePoint of REFUSED_IN_NAMES) {
      await expectRefused(
        title.request(String.fromCodePoint(codePoint)),
        'title',
        `must not contain ${codePointName(codePoint)} (`,
      );
    }
  });

  it('a name keeps the characters of any language, emoji and the bidirectional marks that are not overrides', async () => {
    const title = 'Отчёт 报表 تقرير 😀 \u200f\u200e café';
    const res = await api.call('PATCH', `/api/v1/apps/${appId}`, { body: { title } });
    expect(res.statusCode).toBe(200);
    expect((await api.store.apps.findAppById(appId))?.title).toBe(title);
  });

  it('free text (param, script, trigger param) keeps newlines, tabs and bidirectional characters but refuses NUL', async () => {
    const param = 'line one\r\nline two\n\tindented \u202e reversed';
    const script = '#!/bin/bash\necho "a\tb"\nexit 0\n';
    const created = await api.call('POST', '/api/v1/jobs', {
      body: {
        appId,
        name: 'free text',
        executorParam: param,
        glueType: 'GLUE_SHELL',
        glueSource: script,
        glueRemark: 'v1',
      },
    });
    expect(created.statusCode).toBe(201);
    const row = await api.store.jobs.findJobById(created.json().id);
    expect(row).toMatchObject({ executor_param: param, glue_source: script });
    const triggered = await api.call('POST', `/api/v1/jobs/${row!.id}/trigger`, {
      body: { executorParam: param },
    });
    expect(triggered.statusCode).toBe(200);
    expect((await api.store.fires.findFireById(triggered.json().fireIds[0]))?.executor_param).toBe(param);

    await expectRefused(job({ executorParam: 'a\u0000b' }), 'executorParam', 'must not contain U+0000 (NUL)');
    await expectRefused(
      job({ glueType: 'GLUE_SHELL', glueSource: 'echo\u0000', glueRemark: 'v' }),
      'glueSource',
      'U+0000',
    );
    await expectRefused(
      {
        method: 'PUT',
        url: `/api/v1/jobs/${jobId}/script`,
        body: { glueType: 'GLUE_SHELL', glueSource: '\u0000', glueRemark: 'v' },
      },
      'glueSource',
      'U+0000',
    );
    await expectRefused(
      { method: 'POST', url: `/api/v1/jobs/${jobId}/trigger`, body: { executorParam: '\u0000' } },
      'executorParam',
      'U+0000',
    );
    await expectRefused(
      {
        method: 'POST',
        url: '/api/v1/alarm-channels',
        body: {
          name: 'nul hook',
          type: 'WEBHOOK',
          config: { url: 'https://hooks.example/x', secret: 'a\u0000b' },
        },
      },
      'config.secret',
      'U+0000',
    );
  });

  it('a lone surrogate in any string field — a name, free text, a setting or a key — answers 400 naming it', async () => {
    // Sent as JSON escapes: a JavaScript string cannot carry them through JSON.stringify unchanged.
    const raw = (method: 'POST' | 'PUT', url: string, payload: string) =>
      api.call(method, url, { payload, headers: { 'content-type': 'application/json' } });
    const cases: Array<[string, Promise<LightMyRequestResponse>, string]> = [
      ['title', raw('POST', '/api/v1/apps', '{"appName":"s-app","title":"a\\ud800b"}'), 'U+D800'],
      ['title', raw('POST', '/api/v1/apps', '{"appName":"s-app","title":"\\udfff"}'), 'U+DFFF'],
      ['title', raw('POST', '/api/v1/apps', '{"appName":"s-app","title":"\\ude00\\ud83d"}'), 'U+DE00'],
      [
        'executorParam',
        raw('POST', '/api/v1/jobs', `{"appId":${appId},"name":"j","executorParam":"x\\ud83d"}`),
        'U+D83D',
      ],
      [
        'glueSource',
        raw(
          'PUT',
          `/api/v1/jobs/${jobId}/script`,
          '{"glueType":"GLUE_SHELL","glueSource":"echo \\udc00","glueRemark":"v"}',
        ),
        'U+DC00',
      ],
      [
        'config.secret',
        raw(
          'POST',
          '/api/v1/alarm-channels',
          '{"name":"s hook","type":"WEBHOOK","config":{"url":"https://h.example/x","secret":"\\ud800"}}',
        ),
        'U+D800',
      ],
      [
        'config',
        raw(
          'POST',
          '/api/v1/alarm-channels',
          '{"name":"s hook","type":"WEBHOOK","config":{"url":"https://h.example/x","\\ud800":1}}',
        ),
        'has a key that holds U+D800',
      ],
    ];
    const before = await storedState(api.store);
    for (const [field, answer, reason] of cases) {
      const error = expectError(await answer, 400, 'TW_ERR_INVALID_FIELD', field);
      expect(error.message).toContain(reason);
      expect(error.message).toContain('lone surrogate');
    }
    expect(await storedState(api.store)).toEqual(before);
    // A surrogate pair is one character (😀) and is stored as it is.
    const pair = await raw('POST', '/api/v1/apps', '{"appName":"pair-app","title":"smile \\ud83d\\ude00"}');
    expect(pair.statusCode).toBe(201);
    expect((await api.store.apps.findAppByName('pair-app'))?.title).toBe('smile 😀');
  });

  it('a NUL in a query string answers 400 naming the parameter (PostgreSQL cannot even compare it)', async () => {
    for (const [url, field] of [
      ['/api/v1/jobs?name=a%00b', 'name'],
      ['/api/v1/jobs?author=%00', 'author'],
      ['/api/v1/apps?title=%00', 'title'],
      ['/api/v1/schedules/preview?scheduleType=CRON&scheduleConf=0%00', 'scheduleConf'],
    ] as const) {
      const error = expectError(await api.call('GET', url), 400, 'TW_ERR_INVALID_FIELD', field);
      expect(error.message).toBe(`${field}: must not contain U+0000 (NUL)`);
    }
  });
});
