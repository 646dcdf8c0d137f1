import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../src/store/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';

const T0 = 1_700_000_000_000;

describe.each(DIALECTS)('store repositories on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  beforeEach(async () => {
    database = await createTestDatabase(dialect);
    store = await database.open();
  });
  afterEach(async () => {
    await database.drop();
  });

  it('apps round-trip, are found by name, and keep app names unique', async () => {
    const app = await store.apps.createApp({ appName: 'billing', title: 'Billing', addressType: 'AUTO' }, T0);
    expect(app).toMatchObject({
      app_name: 'billing',
      title: 'Billing',
      address_type: 'AUTO',
      address_list: null,
      created_at: T0,
    });
    await store.apps.updateApp(
      app.id,
      { addressType: 'MANUAL', addressList: 'http://a:1/,http://b:2/' },
      T0 + 1,
    );
    expect(await store.apps.findAppByName('billing')).toMatchObject({
      address_type: 'MANUAL',
      address_list: 'http://a:1/,http://b:2/',
    });
    await expect(
      store.apps.createApp({ appName: 'billing', title: 'Again', addressType: 'AUTO' }, T0),
    ).rejects.toThrow();
    await store.apps.createApp({ appName: 'Billing', title: 'Case differs', addressType: 'AUTO' }, T0);
    expect(await store.apps.countApps({ appName: 'ill' })).toBe(2);
    expect((await store.apps.listApps({ limit: 1 })).map((a) => a.app_name)).toEqual(['Billing']);
    expect(await store.apps.deleteApp(app.id)).toBe(true);
    expect(await store.apps.findAppById(app.id)).toBeUndefined();
  });

  it('the registry sweep writes the address list of AUTO apps only', async () => {
    const auto = await store.apps.createApp({ appName: 'auto', title: 'Auto', addressType: 'AUTO' }, T0);
    const manual = await store.apps.createApp(
      { appName: 'manual', title: 'Manual', addressType: 'MANUAL', addressList: 'http://typed:1/' },
      T0,
    );
    await store.apps.setAddressList(auto.id, 'http://seen:1/', T0 + 1);
    await store.apps.setAddressList(manual.id, 'http://seen:1/', T0 + 1);
    expect((await store.apps.findAppById(auto.id))?.address_list).toBe('http://seen:1/');
    expect((await store.apps.findAppById(manual.id))?.address_list).toBe('http://typed:1/');
  });

  it('a registry heartbeat inserts once and then refreshes the time and protocol', async () => {
    const entry = { group: 'EXECUTOR', key: 'billing', value: 'http://10.0.0.1:9999/' };
    await store.registry.heartbeat(entry, 'G2', T0);
    await store.registry.heartbeat(entry, 'G4', T0 + 30_000);
    await store.registry.heartbeat({ ...entry, value: 'http://10.0.0.2:9999/' }, 'G3', T0);
    const alive = await store.registry.listAlive(T0 + 1, 'billing');
    expect(alive.map((r) => [r.registry_value, r.protocol, r.updated_at])).toEqual([
      ['http://10.0.0.1:9999/', 'G4', T0 + 30_000],
    ]);
    expect(await store.registry.listAlive(0)).toHaveLength(2);
    expect(await store.registry.deleteDead(T0)).toBe(1);
    expect(await store.registry.removeEntry(entry)).toBe(true);
    expect(await store.registry.removeEntry(entry)).toBe(false);
  });

  it('jobs round-trip with defaults, update, list with filters, start and stop', async () => {
    const app = await store.apps.createApp({ appName: 'jobs', title: 'Jobs', addressType: 'AUTO' }, T0);
    const job = await store.jobs.createJob(
      { app_id: app.id, name: 'nightly export', executor_handler: 'exportHandler', author: 'ann' },
      T0,
    );
    expect(job).toMatchObject({
      name: 'nightly export',
      schedule_type: 'NONE',
      time_zone: 'UTC',
      glue_type: 'BEAN',
      trigger_status: 0,
      next_fire_at: null,
      glue_updated_at: T0,
      created_at: T0,
    });
    await store.jobs.createJob({ app_id: app.id, name: 'hourly sync', executor_handler: 'syncHandler' }, T0);
    expect(
      await store.jobs.updateJob(
        job.id,
        { schedule_type: 'CRON', schedule_conf: '0 0 3 * * ?', time_zone: 'Asia/Shanghai' },
        T0 + 1,
      ),
    ).toBe(true);
    expect(await store.jobs.startJob(job.id, T0 + 60_000, T0 + 2)).toBe(true);
    expect(await store.jobs.findJobById(job.id)).toMatchObject({
      trigger_status: 1,
      next_fire_at: T0 + 60_000,
      updated_at: T0 + 2,
      schedule_conf: '0 0 3 * * ?',
    });
    expect((await store.jobs.listJobs({ appId: app.id, name: 'export' })).map((j) => j.id)).toEqual([job.id]);
    expect(await store.jobs.countJobs({ handler: 'Handler' })).toBe(2);
    expect(await store.jobs.countJobs({ triggerStatus: 1, author: 'ann' })).toBe(1);
    expect(await store.jobs.recordRunEnd(job.id, T0 + 70_000, T0 + 80_000)).toBe(true);
    expect(await store.jobs.stopJob(job.id, T0 + 3)).toBe(true);
    expect(await store.jobs.recordRunEnd(job.id, T0 + 90_000, T0 + 95_000)).toBe(false);
    expect(await store.jobs.findJobById(job.id)).toMatchObject({
      trigger_status: 0,
      next_fire_at: null,
      last_run_end_at: T0 + 70_000,
    });
    expect(await store.jobs.deleteJob(job.id)).toBe(true);
  });

  it('saving a script version updates the job and keeps only the newest versions', async () => {
    const app = await store.apps.createApp({ appName: 'glue', title: 'Glue', addressType: 'AUTO' }, T0);
    const job = await store.jobs.createJob({ app_id: app.id, name: 'script', glue_type: 'GLUE_SHELL' }, T0);
    for (let i = 1; i <= 5; i++) {
      await store.jobs.saveGlueVersion(
        job.id,
        { glueType: 'GLUE_SHELL', glueSource: `echo ${i}`, glueRemark: `v${i}` },
        T0 + i,
        3,
      );
    }
    expect(await store.jobs.findJobById(job.id)).toMatchObject({
      glue_source: 'echo 5',
      glue_remark: 'v5',
      glue_updated_at: T0 + 5,
    });
    expect((await store.jobs.listGlueVersions(job.id)).map((v) => v.glue_remark)).toEqual(['v5', 'v4', 'v3']);
    await store.jobs.deleteJob(job.id);
    expect(await store.jobs.listGlueVersions(job.id)).toEqual([]);
  });

  it('users and API tokens round-trip, and a user’s tokens go with the user', async () => {
    const user = await store.users.createUser(
      { username: 'ann', passwordHash: 'scrypt$x', role: 'admin' },
      T0,
    );
    expect(user).toMatchObject({ username: 'ann', role: 'admin', app_permissions: '' });
    await expect(
      store.users.createUser({ username: 'ann', passwordHash: 'y', role: 'user' }, T0),
    ).rejects.toThrow();
    await store.users.updateUser(user.id, { role: 'user', appPermissions: '1,2' }, T0 + 1);
    expect(await store.users.findUserByName('ann')).toMatchObject({
      role: 'user',
      app_permissions: '1,2',
      updated_at: T0 + 1,
    });
    const token = await store.users.createApiToken({ name: 'ci', tokenHash: 'h1', userId: user.id }, T0);
    await store.users.touchApiToken(token.id, T0 + 5);
    expect(await store.users.findApiTokenByHash('h1')).toMatchObject({
      name: 'ci',
      user_id: user.id,
      last_used_at: T0 + 5,
    });
    expect(await store.users.listApiTokens(user.id)).toHaveLength(1);
    expect(await store.users.countUsers()).toBe(1);
    expect(await store.users.deleteUser(user.id)).toBe(true);
    expect(await store.users.findApiTokenByHash('h1')).toBeUndefined();
  });

  it('a generated setting is generated once even when several nodes start at once', async () => {
    const others = [await database.open(), await database.open()];
    let made = 0;
    const values = await Promise.all(
      [store, ...others].map((s) =>
        s.settings.getOrCreateSetting('executor.accessToken', () => `secret-${++made}`, T0),
      ),
    );
    expect(new Set(values).size).toBe(1);
    await store.settings.setSetting('executor.accessToken', 'rotated', T0 + 1);
    expect(await others[0]!.settings.getSetting('executor.accessToken')).toBe('rotated');
    expect(await store.settings.getSetting('missing')).toBeUndefined();
  });

  it('cluster nodes heartbeat, list while alive and are cleaned up when silent', async () => {
    await store.nodes.heartbeatNode({ nodeId: 'a', address: 'http://a:8080', startedAt: T0 }, T0);
    await store.nodes.heartbeatNode({ nodeId: 'b', address: 'http://b:8080', startedAt: T0 }, T0);
    await store.nodes.heartbeatNode({ nodeId: 'a', address: 'http://a:8081', startedAt: T0 }, T0 + 10_000);
    expect(await store.nodes.listAliveNodes(T0 + 1)).toEqual([
      { node_id: 'a', address: 'http://a:8081', started_at: T0, heartbeat_at: T0 + 10_000 },
    ]);
    expect(await store.nodes.deleteDeadNodes(T0)).toBe(1);
    expect(await store.nodes.removeNode('a')).toBe(true);
  });

  it('daily reports are saved per day and app, and a day is replaced as a whole', async () => {
    const day = (appId: number, succeeded: number) => ({
      appId,
      running: 0,
      succeeded,
      failed: 0,
      timeout: 0,
      killed: 0,
      skipped: 0,
      dispatchFailed: 0,
      latenessP50Ms: null,
      latenessP99Ms: null,
      latenessHistogram: [],
      runCount: 0,
      meanRunMs: null,
    });
    await store.reports.replaceDay('2024-05-01', [day(1, 10), day(2, 3)], T0);
    await store.reports.replaceDay('2024-05-02', [day(1, 5)], T0);
    await store.reports.replaceDay('2024-05-01', [day(1, 11)], T0 + 1);
    const days = await store.reports.listDays('2024-05-01', '2024-05-31');
    expect(days.map((d) => [d.day, d.app_id, d.succeeded_count, d.updated_at])).toEqual([
      ['2024-05-01', 1, 11, T0 + 1],
      ['2024-05-02', 1, 5, T0],
    ]);
  });
});
