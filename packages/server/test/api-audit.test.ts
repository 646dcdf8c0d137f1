import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher } from '../src/dispatch/dispatcher.js';
import {
  ADMIN_PASSWORD,
  type ApiHarness,
  createApp,
  createJob,
  expectError,
  startApiServer,
} from './helpers/api-server.js';
import { DIALECTS } from './helpers/databases.js';
import { closeAll, fire, gate, startExecutors, TOKEN, target } from './helpers/dispatch-fixtures.js';
import { addUser, signIn, withSession } from './helpers/users.js';

interface Entry {
  id: number;
  at: number;
  userId: number;
  username: string;
  action: string;
  targetType: string;
  targetId: number | null;
  appId: number | null;
  detail: Record<string, unknown>;
}

describe.each(DIALECTS)('the audit trail on %s', (dialect) => {
  let api: ApiHarness;
  let adminId: number;
  beforeAll(async () => {
    api = await startApiServer(dialect);
    adminId = (await api.store.users.findUserByName('admin'))!.id;
  });
  afterAll(async () => {
    await api?.close();
  });

  async function audit(query = ''): Promise<{ items: Entry[]; total: number }> {
    const res = await api.call('GET', `/api/v1/audit${query}`);
    expect(res.statusCode).toBe(200);
    return res.json();
  }

  /** The entries written after entry `afterId`, oldest first. */
  async function since(afterId: number): Promise<Entry[]> {
    const { items } = await audit('?limit=200');
    return items.filter((entry) => entry.id > afterId).reverse();
  }

  async function lastId(): Promise<number> {
    return (await audit('?limit=1')).items[0]?.id ?? 0;
  }

  it('records who created, changed, started, stopped, triggered, killed and deleted apps and jobs', async () => {
    const start = await lastId();
    const appId = await createApp(api, { appName: 'audited-app' });
    await api.call('PATCH', `/api/v1/apps/${appId}`, { body: { title: 'Audited' } });
    const job = await createJob(api, appId, {
      name: 'audited job',
      scheduleType: 'FIX_RATE',
      scheduleConf: '60',
    });
    await api.call('PATCH', `/api/v1/jobs/${job.id}`, { body: { author: 'ops' } });
    await api.call('POST', `/api/v1/jobs/${job.id}/start`);
    await api.call('POST', `/api/v1/jobs/${job.id}/stop`);
    const { fireIds } = (await api.call('POST', `/api/v1/jobs/${job.id}/trigger`, { body: {} })).json();
    const fireId = await killRunningFire(job.id, appId);
    await api.call('DELETE', `/api/v1/jobs/${job.id}`);
    await api.call('DELETE', `/api/v1/apps/${appId}`);

    const entries = await since(start);
    expect(entries.map((e) => [e.action, e.targetType, e.targetId])).toEqual([
      ['CREATE', 'APP', appId],
      ['UPDATE', 'APP', appId],
      ['CREATE', 'JOB', job.id],
      ['UPDATE', 'JOB', job.id],
      ['START', 'JOB', job.id],
      ['STOP', 'JOB', job.id],
      ['TRIGGER', 'JOB', job.id],
      ['KILL', 'FIRE', fireId],
      ['DELETE', 'JOB', job.id],
      ['DELETE', 'APP', appId],
    ]);
    for (const entry of entries) expect(entry).toMatchObject({ userId: adminId, username: 'admin', appId });
    expect(entries[3]!.detail).toEqual({ fields: ['author'] });
    expect(entries[6]!.detail).toEqual({ fireIds });
  });

  it('records users and tokens created, changed and deleted, and password changes, never a secret', async () => {
    const start = await lastId();
    const user = await addUser(api);
    await api.call('PATCH', `/api/v1/users/${user.id}`, { body: { password: 'a changed password' } });
    const session = await signIn(api, user.username, 'a changed password');
    await withSession(api, session, 'POST', '/api/v1/me/password', {
      currentPassword: 'a changed password',
      newPassword: 'changed once more',
    });
    const [token] = (await api.call('GET', '/api/v1/tokens', { token: user.token })).json().items;
    await api.call('DELETE', `/api/v1/tokens/${token.id}`, { token: user.token });
    await api.call('DELETE', `/api/v1/users/${user.id}`);

    const entries = await since(start);
    expect(entries.map((e) => [e.username, e.action, e.targetType, e.targetId])).toEqual([
      ['admin', 'CREATE', 'USER', user.id],
      [user.username, 'CREATE', 'API_TOKEN', token.id],
      ['admin', 'UPDATE', 'USER', user.id],
      [user.username, 'CHANGE_PASSWORD', 'USER', user.id],
      [user.username, 'DELETE', 'API_TOKEN', token.id],
      ['admin', 'DELETE', 'USER', user.id],
    ]);
    expect(entries[2]!.detail).toMatchObject({ fields: ['password'] });
    const text = JSON.stringify(entries);
    for (const secret of [user.password, 'a changed password', 'changed once more', user.token]) {
      expect(text).not.toContain(secret);
    }
  });

  it('records who cleared fire records, how and how many', async () => {
    const appId = await createApp(api);
    const job = await createJob(api, appId);
    const now = api.clock.now();
    await api.store.fires.createFires(
      [
        {
          jobId: job.id,
          appId,
          scheduledAt: now - 1_000,
          triggerType: 'CRON',
          executorHandler: 'hello',
          executorParam: '',
        },
      ],
      now,
    );
    const [fireId] = (await api.store.fires.listFires({ appId })).map((f) => f.id);
    await api.store.fires.finishFires([{ fireId: fireId!, handleCode: 200, handleMsg: null, handleAt: now }]);
    const start = await lastId();
    const res = await api.call('POST', '/api/v1/fires/clear', { body: { jobId: job.id, keepLast: 0 } });
    expect(res.json()).toEqual({ deleted: 1 });
    const entries = await since(start);
    expect(entries).toMatchObject([
      {
        action: 'DELETE',
        targetType: 'FIRE',
        targetId: null,
        appId,
        detail: { cleared: 1, jobId: job.id, keepLast: 0 },
      },
    ]);
  });

  it('writes no entry for a change that was refused', async () => {
    const start = await lastId();
    expectError(await api.call('DELETE', `/api/v1/users/${adminId}`), 409, 'TW_ERR_CONFLICT');
    expectError(
      await api.call('PATCH', `/api/v1/users/${adminId}`, { body: { role: 'USER' } }),
      409,
      'TW_ERR_CONFLICT',
    );
    const user = await addUser(api);
    expectError(
      await api.call('POST', '/api/v1/apps', { token: user.token, body: { appName: 'x', title: 'x' } }),
      403,
      'TW_ERR_FORBIDDEN',
    );
    const entries = await since(start);
    expect(entries.map((e) => e.action + e.targetType)).toEqual(['CREATEUSER', 'CREATEAPI_TOKEN']);
  });

  it('lists by user, action, target, app and time, newest first, a page at a time', async () => {
    const user = await addUser(api);
    const t0 = api.clock.now();
    api.clock.set(t0 + 60_000);
    const appId = await createApp(api);
    const jobs = [];
    for (let i = 0; i < 3; i += 1) jobs.push(await createJob(api, appId, { name: `paged ${i}` }));
    api.clock.set(t0 + 120_000);
    await api.call('PATCH', `/api/v1/users/${user.id}`, { body: { appIds: [appId] } });
    await api.call('POST', `/api/v1/jobs/${jobs[0]!.id}/trigger`, { token: user.token, body: {} });

    const byUser = await audit(`?userId=${user.id}`);
    expect(byUser.items.map((e) => [e.action, e.targetType])).toEqual([
      ['TRIGGER', 'JOB'],
      ['CREATE', 'API_TOKEN'],
    ]);
    const byTarget = await audit(`?targetType=JOB&targetId=${jobs[0]!.id}`);
    expect(byTarget.items.map((e) => e.action)).toEqual(['TRIGGER', 'CREATE']);
    const byApp = await audit(`?appId=${appId}&action=CREATE&targetType=JOB`);
    expect(byApp.total).toBe(3);
    const page = await audit(`?appId=${appId}&action=CREATE&targetType=JOB&limit=2&offset=1`);
    expect(page).toMatchObject({ total: 3, limit: 2, offset: 1 });
    expect(page.items.map((e) => e.targetId)).toEqual([jobs[1]!.id, jobs[0]!.id]);
    const window = await audit(`?from=${t0 + 60_000}&to=${t0 + 120_000}`);
    expect(window.items.map((e) => e.targetId).sort()).toEqual([appId, ...jobs.map((j) => j.id)].sort());
    expect(window.items.every((e) => e.at >= t0 + 60_000 && e.at < t0 + 120_000)).toBe(true);
    expectError(await api.call('GET', `/api/v1/audit?from=5&to=5`), 400, 'TW_ERR_INVALID_FIELD', 'to');
    api.clock.set(t0);
  });

  it('is for admins only', async () => {
    const user = await addUser(api);
    expectError(await api.call('GET', '/api/v1/audit', { token: user.token }), 403, 'TW_ERR_FORBIDDEN');
    const admin = await signIn(api, 'admin', ADMIN_PASSWORD);
    expect((await withSession(api, admin, 'GET', '/api/v1/audit')).statusCode).toBe(200);
  });

  /** Dispatches a fire of `jobId` to a real executor whose run never ends, then kills it. */
  async function killRunningFire(jobId: number, appId: number): Promise<number> {
    const started = gate();
    const executors = await startExecutors(1, (ex) =>
      ex.handle('hello', (ctx) => {
        started.open();
        return new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        );
      }),
    );
    const dispatcher = new Dispatcher({ accessToken: TOKEN });
    try {
      const now = api.clock.now();
      const [fireId] = await api.store.fires.createFires(
        [
          {
            jobId,
            appId,
            scheduledAt: now,
            triggerType: 'CRON',
            executorHandler: 'hello',
            executorParam: '',
          },
        ],
        now,
      );
      const [outcome] = await dispatcher.dispatch(fire({ fireId: fireId!, jobId, scheduledAt: now }), [
        target(executors[0]!.address),
      ]);
      await api.store.fires.markDispatched([
        {
          fireId: fireId!,
          triggerAt: outcome!.triggerAt,
          executorAddress: outcome!.address,
          triggerCode: outcome!.triggerCode,
          triggerMsg: outcome!.triggerMsg,
        },
      ]);
      await started.promise;
      const killed = await api.call('POST', `/api/v1/fires/${fireId}/kill`);
      expect(killed.statusCode).toBe(200);
      return fireId!;
    } finally {
      await dispatcher.close();
      await closeAll(executors);
    }
  }
});
