/**
 * Numbers past what the store, the executor or JavaScript itself can carry, and JSON keys that
 * reach an object's prototype, tried on every dialect: each is a 400 naming the field and the
 * reason (src/api/schemas.ts LIMITS, src/api/json-body.ts), never a 500 from the database or a 502
 * from the executor, and leaves everything stored as it was. The largest value still accepted
 * reaches the database (or the executor) and answers as any other would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/dispatch/dispatcher.js';
import { type ApiHarness, createApp, createJob, expectError, startApiServer } from '../helpers/api-server.js';
import { DIALECTS } from '../helpers/databases.js';
import { closeAll, fire, startExecutors, TOKEN, target } from '../helpers/dispatch-fixtures.js';
import { storedState } from '../helpers/stored-state.js';

/** 2^53 − 1: the largest integer a JSON number carries exactly, and the largest offset or id. */
const MAX_SAFE = '9007199254740991';
const PAST_MAX_SAFE = '9007199254740992';
/** 2^31 − 1: the largest line number an XXL-JOB executor reads into its Java int. */
const MAX_LOG_LINE = '2147483647';
/** The range of a JavaScript Date, the bound of every time filter. */
const MAX_EPOCH_MS = '8640000000000000';

/** The code a missing id answers with: a job's and an app's have their own, the rest TW_ERR_NOT_FOUND. */
function missingCode(url: string): string {
  if (url.startsWith('/api/v1/jobs/')) return 'TW_ERR_UNKNOWN_JOB';
  if (url.startsWith('/api/v1/apps/')) return 'TW_ERR_UNKNOWN_APP';
  return 'TW_ERR_NOT_FOUND';
}

type RawJsonCase = { method: 'POST' | 'PATCH'; url: string; payload: string; field: string };

describe.each(DIALECTS)('bad input bounds on %s', (dialect) => {
  let api: ApiHarness;
  let appId: number;
  let jobId: number;
  let channelId: number;
  let userId: number;
  let listPaths: string[];

  beforeAll(async () => {
    api = await startApiServer(dialect);
    appId = await createApp(api, { appName: 'bounds-app', title: 'Bounds app' });
    jobId = (await createJob(api, appId, { name: 'bounds job' })).id;
    const channel = await api.call('POST', '/api/v1/alarm-channels', {
      body: { name: 'ops hook', type: 'WEBHOOK', config: { url: 'https://hooks.example/ops' } },
    });
    channelId = channel.json().id;
    const user = await api.call('POST', '/api/v1/users', {
      body: { username: 'viewer', password: 'long enough password', role: 'USER', appIds: [appId] },
    });
    userId = user.json().id;
    await api.call('POST', `/api/v1/jobs/${jobId}/trigger`, { body: {} });
    const workflow = await api.call('POST', '/api/v1/workflows', {
      body: { appId, name: 'bounds workflow', nodes: [{ key: 'A', jobId }], edges: [] },
    });
    await api.call('POST', `/api/v1/workflows/${workflow.json().id}/trigger`, { body: {} });
    const doc = (await api.call('GET', '/api/v1/openapi.json')).json() as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }> }>>;
    };
    listPaths = Object.entries(doc.paths)
      .filter(([, methods]) => methods.get?.parameters?.some((p) => p.in === 'query' && p.name === 'offset'))
      .map(([path]) => (path.startsWith('/api/v1/') ? path : `/api/v1${path}`));
  });
  afterAll(async () => {
    await api?.close();
  });

  /** Expects a 400 naming `field` with `reason`, and nothing stored changed. */
  async function expectRefused(
    send: () => Promise<Parameters<typeof expectError>[0]>,
    field: string,
    reason: string,
  ): Promise<void> {
    const before = await storedState(api.store);
    const error = expectError(await send(), 400, 'TW_ERR_INVALID_FIELD', field);
    expect(error.message).toBe(`${field}: ${reason}`);
    expect(await storedState(api.store)).toEqual(before);
  }

  it('every list endpoint answers 400 naming offset for an offset past 2^53 − 1, and an empty page for the largest one', async () => {
    expect(listPaths.sort()).toEqual(
      [
        '/api/v1/alarm-channels',
        '/api/v1/apps',
        '/api/v1/audit',
        '/api/v1/fires',
        '/api/v1/jobs',
        '/api/v1/users',
        '/api/v1/workflow-runs',
        '/api/v1/workflows',
      ].sort(),
    );
    const refused: Array<[string, string]> = [
      ['100000000000000000000', `must be <= ${MAX_SAFE}`],
      [PAST_MAX_SAFE, `must be <= ${MAX_SAFE}`],
      ['18446744073709551616', `must be <= ${MAX_SAFE}`],
      ['1e20', 'must be an integer'],
      ['-1', 'must be >= 0'],
      ['1.5', 'must be an integer'],
      ['abc', 'must be an integer'],
    ];
    for (const path of listPaths) {
      for (const [offset, reason] of refused) {
        await expectRefused(() => api.call('GET', `${path}?offset=${offset}`), 'offset', reason);
      }
      // The largest offset reaches the database's OFFSET on every dialect: a page with nothing on it.
      const res = await api.call('GET', `${path}?offset=${MAX_SAFE}&limit=200`);
      expect(res.statusCode, `${path} ${res.body}`).toBe(200);
      const page = res.json();
      expect(page.items, path).toEqual([]);
      expect(page.offset, path).toBe(Number(MAX_SAFE));
      expect(page.total, path).toBeGreaterThan(0);
    }
  });

  it('every list endpoint answers 400 naming limit for a page larger than 200 or smaller than 1', async () => {
    for (const path of listPaths) {
      await expectRefused(() => api.call('GET', `${path}?limit=1000000000`), 'limit', 'must be <= 200');
      await expectRefused(() => api.call('GET', `${path}?limit=${PAST_MAX_SAFE}`), 'limit', 'must be <= 200');
      await expectRefused(() => api.call('GET', `${path}?limit=0`), 'limit', 'must be >= 1');
      await expectRefused(() => api.call('GET', `${path}?limit=1e9`), 'limit', 'must be an integer');
    }
  });

  it('a time filter past the range of a date answers 400 naming from or to, and the edge of the range is an empty page', async () => {
    for (const path of ['/api/v1/fires', '/api/v1/audit']) {
      for (const field of ['from', 'to']) {
        for (const value of ['8640000000000001', '100000000000000000000', PAST_MAX_SAFE]) {
          await expectRefused(
            () => api.call('GET', `${path}?${field}=${value}`),
            field,
            `must be <= ${MAX_EPOCH_MS}`,
          );
        }
        await expectRefused(() => api.call('GET', `${path}?${field}=-1`), field, 'must be >= 0');
        await expectRefused(() => api.call('GET', `${path}?${field}=8.64e15`), field, 'must be an integer');
      }
      const edge = await api.call('GET', `${path}?from=${Number(MAX_EPOCH_MS) - 1}&to=${MAX_EPOCH_MS}`);
      expect(edge.statusCode, `${path} ${edge.body}`).toBe(200);
      expect(edge.json()).toMatchObject({ items: [], total: 0 });
      const everything = await api.call('GET', `${path}?from=0&to=${MAX_EPOCH_MS}`);
      expect(everything.json().total, path).toBeGreaterThan(0);
    }
  });

  it('an id past 2^53 − 1 in a path answers 400 naming id, and an id past any stored one answers 404, never 500', async () => {
    const requests: Array<
      [method: 'GET' | 'PATCH' | 'POST' | 'DELETE', url: (id: string) => string, body?: object]
    > = [
      ['GET', (id) => `/api/v1/jobs/${id}`],
      ['PATCH', (id) => `/api/v1/jobs/${id}`, { name: 'renamed' }],
      ['DELETE', (id) => `/api/v1/jobs/${id}`],
      ['POST', (id) => `/api/v1/jobs/${id}/trigger`, {}],
      ['GET', (id) => `/api/v1/jobs/${id}/script/versions`],
      ['GET', (id) => `/api/v1/fires/${id}`],
      ['GET', (id) => `/api/v1/fires/${id}/log`],
      ['POST', (id) => `/api/v1/fires/${id}/kill`],
      ['GET', (id) => `/api/v1/apps/${id}`],
      ['PATCH', (id) => `/api/v1/apps/${id}`, { title: 'renamed' }],
      ['PATCH', (id) => `/api/v1/users/${id}`, { role: 'ADMIN' }],
      ['DELETE', (id) => `/api/v1/users/${id}`],
      ['GET', (id) => `/api/v1/alarm-channels/${id}`],
      ['DELETE', (id) => `/api/v1/alarm-channels/${id}`],
    ];
    for (const [method, url, body] of requests) {
      const options = body === undefined ? {} : { body };
      for (const id of [PAST_MAX_SAFE, '100000000000000000000']) {
        await expectRefused(() => api.call(method, url(id), options), 'id', `must be <= ${MAX_SAFE}`);
      }
      await expectRefused(() => api.call(method, url('0'), options), 'id', 'must be >= 1');
      await expectRefused(() => api.call(method, url('1.5'), options), 'id', 'must be an integer');
      // Past a 32-bit column and at the very top of the range: looked up, and not there.
      for (const id of ['2147483648', MAX_SAFE]) {
        const before = await storedState(api.store);
        const res = await api.call(method, url(id), options);
        expect(res.statusCode, `${method} ${url(id)} ${res.body}`).toBe(404);
        expect(res.json().error.code).toBe(missingCode(url(id)));
        expect(await storedState(api.store)).toEqual(before);
      }
    }
  });

  it('an id at the top of the range in a body or a filter is looked up and not found, never 500', async () => {
    const bodies: Array<[method: 'POST' | 'PATCH', url: string, body: object, field: string, code: string]> =
      [
        [
          'POST',
          '/api/v1/jobs',
          { appId: Number(MAX_SAFE), name: 'x', executorHandler: 'h' },
          'appId',
          'TW_ERR_UNKNOWN_APP',
        ],
        ['PATCH', `/api/v1/jobs/${jobId}`, { appId: Number(MAX_SAFE) }, 'appId', 'TW_ERR_UNKNOWN_APP'],
        [
          'PATCH',
          `/api/v1/jobs/${jobId}`,
          { childJobIds: [2147483648, Number(MAX_SAFE)] },
          'childJobIds',
          'TW_ERR_UNKNOWN_JOB',
        ],
        [
          'PATCH',
          `/api/v1/users/${userId}`,
          { appIds: [Number(MAX_SAFE)] },
          'appIds[0]',
          'TW_ERR_UNKNOWN_APP',
        ],
      ];
    for (const [method, url, body, field, code] of bodies) {
      const before = await storedState(api.store);
      const error = expectError(await api.call(method, url, { body }), 400, code, field);
      expect(error.message).toMatch(/ does not exist$/);
      expect(await storedState(api.store)).toEqual(before);
    }
    await expectRefused(
      () =>
        api.call('POST', '/api/v1/jobs', {
          body: { appId: Number(PAST_MAX_SAFE), name: 'x', executorHandler: 'h' },
        }),
      'appId',
      `must be <= ${MAX_SAFE}`,
    );
    for (const url of [
      `/api/v1/jobs?appId=${MAX_SAFE}`,
      `/api/v1/fires?appId=${MAX_SAFE}&jobId=${MAX_SAFE}`,
      `/api/v1/audit?userId=${MAX_SAFE}&targetId=${MAX_SAFE}&appId=${MAX_SAFE}`,
    ]) {
      const res = await api.call('GET', url);
      expect(res.statusCode, `${url} ${res.body}`).toBe(200);
      expect(res.json()).toMatchObject({ items: [], total: 0 });
    }
    expectError(await api.call('GET', `/api/v1/dashboard?appId=${MAX_SAFE}`), 404, 'TW_ERR_UNKNOWN_APP');
    expectError(
      await api.call('GET', `/api/v1/fires?jobId=${PAST_MAX_SAFE}`),
      400,
      'TW_ERR_INVALID_FIELD',
      'jobId',
    );
  });

  it('a log read with fromLineNum past 2^31 − 1 answers 400 naming fromLineNum, not 502, and the largest line number is read', async () => {
    const executors = await startExecutors(1, (ex) => ex.handle('hello', (ctx) => ctx.log('one line')));
    const dispatcher = new Dispatcher({ accessToken: TOKEN });
    try {
      const [fireId] = await api.store.fires.createFires(
        [
          {
            jobId,
            appId,
            scheduledAt: api.clock.now(),
            triggerType: 'MANUAL',
            executorHandler: 'hello',
            executorParam: '',
          },
        ],
        api.clock.now(),
      );
      const [outcome] = await dispatcher.dispatch(
        fire({ fireId: fireId!, jobId, scheduledAt: api.clock.now() }),
        [target(executors[0]!.address)],
      );
      await api.store.fires.markDispatched([
        {
          fireId: fireId!,
          triggerAt: outcome!.triggerAt,
          executorAddress: outcome!.address,
          triggerCode: outcome!.triggerCode,
          triggerMsg: outcome!.triggerMsg,
        },
      ]);
      await executors[0]!.server.callbackFor(fireId!);
      const log = (fromLineNum: string) => () =>
        api.call('GET', `/api/v1/fires/${fireId}/log?fromLineNum=${fromLineNum}`);
      for (const value of ['2147483648', PAST_MAX_SAFE, '100000000000000000000']) {
        await expectRefused(log(value), 'fromLineNum', `must be <= ${MAX_LOG_LINE}`);
      }
      await expectRefused(log('0'), 'fromLineNum', 'must be >= 1');
      await expectRefused(log('-5'), 'fromLineNum', 'must be >= 1');
      await expectRefused(log('2.5'), 'fromLineNum', 'must be an integer');
      await expectRefused(log('1e9'), 'fromLineNum', 'must be an integer');
      const first = await log('1')();
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json().logContent).toContain('one line');
      const last = await log(MAX_LOG_LINE)();
      expect(last.statusCode, last.body).toBe(200);
      expect(last.json()).toMatchObject({ fromLineNum: Number(MAX_LOG_LINE), logContent: '' });
    } finally {
      await dispatcher.close();
      await closeAll(executors);
    }
  });

  it('a body with __proto__, constructor or prototype keys at any depth answers 400 naming the key path, and nothing is stored', async () => {
    const cases: RawJsonCase[] = [
      {
        method: 'POST',
        url: '/api/v1/jobs',
        payload: `{"appId":${appId},"name":"poisoned","executorHandler":"h","__proto__":{"triggerStatus":1}}`,
        field: '__proto__',
      },
      {
        method: 'POST',
        url: '/api/v1/jobs',
        payload: `{"appId":${appId},"name":"poisoned","executorHandler":"h","retryBackoff":{"strategy":"FIXED","delaySeconds":1,"constructor":{"prototype":{"x":1}}}}`,
        field: 'retryBackoff.constructor',
      },
      {
        method: 'PATCH',
        url: `/api/v1/jobs/${jobId}`,
        payload: '{"name":"renamed","constructor":{"prototype":{"isAdmin":true}}}',
        field: 'constructor',
      },
      {
        method: 'PATCH',
        url: `/api/v1/jobs/${jobId}`,
        payload: '{"childJobIds":[],"prototype":{"triggerStatus":1}}',
        field: 'prototype',
      },
      {
        method: 'POST',
        url: '/api/v1/apps',
        payload: '{"appName":"poisoned-app","title":"x","__proto__":{"addressType":"MANUAL"}}',
        field: '__proto__',
      },
      {
        method: 'POST',
        url: '/api/v1/apps',
        payload:
          '{"appName":"poisoned-app","title":"x","addressType":"MANUAL","addressList":["http://127.0.0.1:9999/",{"__proto__":{}}]}',
        field: 'addressList[1].__proto__',
      },
      {
        method: 'POST',
        url: '/api/v1/alarm-channels',
        payload:
          '{"name":"poisoned hook","type":"WEBHOOK","config":{"url":"https://hooks.example/x","__proto__":{"secret":"s"}}}',
        field: 'config.__proto__',
      },
      {
        method: 'PATCH',
        url: `/api/v1/alarm-channels/${channelId}`,
        payload: '{"config":{"headers":{"prototype":"x"}}}',
        field: 'config.headers.prototype',
      },
      {
        method: 'PATCH',
        url: `/api/v1/users/${userId}`,
        payload: '{"appIds":[],"__proto__":{"role":"ADMIN"}}',
        field: '__proto__',
      },
      {
        method: 'PATCH',
        url: `/api/v1/users/${userId}`,
        payload: '{"constructor":{"role":"ADMIN"},"role":"USER"}',
        field: 'constructor',
      },
    ];
    for (const { method, url, payload, field } of cases) {
      await expectRefused(
        () => api.call(method, url, { payload, headers: { 'content-type': 'application/json' } }),
        field,
        'is not accepted: __proto__, constructor and prototype are reserved keys, which could change the prototype of every object',
      );
    }
    expect(await api.store.users.findUserById(userId)).toMatchObject({ role: 'user' });
    expect(({} as Record<string, unknown>).role).toBeUndefined();
    expect(({} as Record<string, unknown>).triggerStatus).toBeUndefined();
  });

  it('keys and values that only look like the reserved ones are taken as any other', async () => {
    const job = await api.call('POST', '/api/v1/jobs', {
      payload: `{"appId":${appId},"name":"__proto__","executorHandler":"constructor","executorParam":"{\\"__proto__\\":{\\"prototype\\":1}}"}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(job.statusCode, job.body).toBe(201);
    expect(await api.store.jobs.findJobById(job.json().id)).toMatchObject({
      name: '__proto__',
      executor_handler: 'constructor',
      executor_param: '{"__proto__":{"prototype":1}}',
    });
    const channel = await api.call('POST', '/api/v1/alarm-channels', {
      payload:
        '{"name":"proto hook","type":"WEBHOOK","config":{"url":"https://hooks.example/proto","secret":"__proto__"}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(channel.statusCode, channel.body).toBe(201);
  });
});
