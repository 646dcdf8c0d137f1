import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, type Store } from '../src/store/index.js';
import { MIGRATIONS } from '../src/store/migrations/index.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';

describe.each(DIALECTS)('store migrations on %s', (dialect) => {
  const expected = MIGRATIONS[dialect];
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase(dialect);
  });
  afterEach(async () => {
    await database.drop();
  });

  it('openStore applies every migration and records it in schema_migrations', async () => {
    const store = await database.open();
    const rows = await store.db.selectFrom('schema_migrations').selectAll().execute();
    expect(rows.map((row) => [row.version, row.name])).toEqual(expected.map((m) => [m.version, m.name]));
    expect(expected[0]).toMatchObject({ version: 1, name: 'init' });
    expect(await store.jobs.countJobs()).toBe(0);
  });

  it('migrate applies nothing a second time', async () => {
    const store = await database.open();
    expect(await migrate(store)).toEqual([]);
    const reopened = await database.open();
    expect(await reopened.db.selectFrom('schema_migrations').selectAll().execute()).toHaveLength(
      expected.length,
    );
  });

  it('two nodes migrating at once apply each migration exactly once', async () => {
    const [a, b, c] = await Promise.all([
      database.open({ migrate: false }),
      database.open({ migrate: false }),
      database.open({ migrate: false }),
    ]);
    const applied = await Promise.all([migrate(a!), migrate(b!), migrate(c!)]);
    expect(applied.flat().sort((x, y) => x - y)).toEqual(expected.map((m) => m.version));
    expect(await a!.db.selectFrom('schema_migrations').selectAll().execute()).toHaveLength(expected.length);
  });

  it('0008 gives the registrations of an older database a handlers column, with no names', async () => {
    const store = await database.open();
    await sql`ALTER TABLE registry DROP COLUMN handlers`.execute(store.db);
    await store.db.deleteFrom('schema_migrations').where('version', '=', 8).execute();
    await sql`INSERT INTO registry (registry_group, registry_key, registry_value, protocol, updated_at)
      VALUES ('EXECUTOR', 'orders', 'http://10.0.0.5:9999/', 'G2', 1000)`.execute(store.db);

    expect(await migrate(store)).toEqual([8]);

    expect(await store.registry.listAliveHandlers(0, 'orders')).toEqual([
      { address: 'http://10.0.0.5:9999/', handlers: null },
    ]);
    await store.registry.heartbeat(
      { group: 'EXECUTOR', key: 'orders', value: 'http://10.0.0.5:9999/' },
      'G2',
      2000,
      ['sync'],
    );
    expect(await store.registry.listAliveHandlers(0, 'orders')).toEqual([
      { address: 'http://10.0.0.5:9999/', handlers: ['sync'] },
    ]);
  });

  it.skipIf(dialect === 'sqlite')(
    '0008 runs again over the column a first run that died before recording it added',
    async () => {
      const store = await database.open();
      await store.db.deleteFrom('schema_migrations').where('version', '=', 8).execute();
      expect(await migrate(store)).toEqual([8]);
    },
  );

  it('0009 gives registrations an instance column and fire records executor_instance and lost_at, all empty', async () => {
    const store = await database.open();
    await sql`ALTER TABLE registry DROP COLUMN instance`.execute(store.db);
    await sql`ALTER TABLE fire DROP COLUMN executor_instance`.execute(store.db);
    await sql`ALTER TABLE fire DROP COLUMN lost_at`.execute(store.db);
    await store.db.deleteFrom('schema_migrations').where('version', '=', 9).execute();
    await sql`INSERT INTO registry (registry_group, registry_key, registry_value, protocol, updated_at)
      VALUES ('EXECUTOR', 'orders', 'http://10.0.0.5:9999/', 'G2', 1000)`.execute(store.db);

    expect(await migrate(store)).toEqual([9]);

    const entry = { group: 'EXECUTOR', key: 'orders', value: 'http://10.0.0.5:9999/' };
    expect(await store.registry.heartbeat(entry, 'G2', 2000, undefined, 'instance-1')).toBeNull();
    expect(await store.registry.heartbeat(entry, 'G2', 3000, undefined, 'instance-2')).toBe('instance-1');
    expect((await store.registry.listAlive(0, 'orders'))[0]?.instance).toBe('instance-2');
  });

  it.skipIf(dialect === 'sqlite')(
    '0009 runs again over the columns a first run that died before recording it added',
    async () => {
      const store = await database.open();
      await store.db.deleteFrom('schema_migrations').where('version', '=', 9).execute();
      expect(await migrate(store)).toEqual([9]);
    },
  );

  it('0012 gives jobs and apps an empty origin and every user must_change_password 0', async () => {
    const store = await database.open();
    await sql`ALTER TABLE job DROP COLUMN origin`.execute(store.db);
    await sql`ALTER TABLE app_group DROP COLUMN origin`.execute(store.db);
    await sql`ALTER TABLE users DROP COLUMN must_change_password`.execute(store.db);
    await store.db.deleteFrom('schema_migrations').where('version', '=', 12).execute();
    await sql`INSERT INTO app_group (app_name, title, address_type, created_at, updated_at)
      VALUES ('older', 'Older', 'AUTO', 1000, 1000)`.execute(store.db);
    await sql`INSERT INTO users (username, password_hash, role, app_permissions, created_at, updated_at)
      VALUES ('older-user', 'x', 'user', '', 1000, 1000)`.execute(store.db);

    expect(await migrate(store)).toEqual([12]);

    const app = (await store.apps.findAppByName('older'))!;
    expect(app.origin).toBeNull();
    expect(Number((await store.users.findUserByName('older-user'))?.must_change_password)).toBe(0);
    const job = await store.jobs.createJob({ app_id: app.id, name: 'after 0012' }, 2000);
    expect(job.origin).toBeNull();
    await store.jobs.updateJob(job.id, { origin: 'xxl-job mysql://db:3306/xxl_job #12' }, 3000);
    expect((await store.jobs.findJobById(job.id))?.origin).toBe('xxl-job mysql://db:3306/xxl_job #12');
    const user = await store.users.createUser(
      { username: 'new-user', passwordHash: 'x', role: 'user', mustChangePassword: true },
      2000,
    );
    expect(Number(user.must_change_password)).toBe(1);
  });

  it.skipIf(dialect === 'sqlite')(
    '0012 runs again over the columns a first run that died before recording it added',
    async () => {
      const store = await database.open();
      await store.db.deleteFrom('schema_migrations').where('version', '=', 12).execute();
      expect(await migrate(store)).toEqual([12]);
    },
  );

  /** The names of the fire table's indexes, sorted. */
  async function fireIndexes(store: Store): Promise<string[]> {
    const query =
      dialect === 'sqlite'
        ? sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'fire'`
        : dialect === 'postgres'
          ? sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes
              WHERE tablename = 'fire' AND schemaname = current_schema()`
          : sql<{ name: string }>`SELECT DISTINCT index_name AS name FROM information_schema.statistics
              WHERE table_schema = DATABASE() AND table_name = 'fire'`;
    return (await query.execute(store.db)).rows.map((row) => row.name).sort();
  }

  it('0016 makes (job_id, scheduled_at, claim_job_id) the claim key: one claimed record per job and time, unclaimed ones free', async () => {
    const store = await database.open();
    // The schema as 0015 left it: the claim key and the (job_id, scheduled_at) index.
    await (dialect === 'mysql'
      ? sql`ALTER TABLE fire DROP INDEX fire_job_claim_key`
      : sql`DROP INDEX fire_job_claim_key`
    ).execute(store.db);
    await sql`CREATE UNIQUE INDEX fire_claim_key ON fire (claim_job_id, scheduled_at)`.execute(store.db);
    await sql`CREATE INDEX fire_job_scheduled_idx ON fire (job_id, scheduled_at)`.execute(store.db);
    await store.db.deleteFrom('schema_migrations').where('version', '=', 16).execute();
    const T = 1_700_000_000_000;
    const record = (jobId: number, scheduledAt: number) => ({
      jobId,
      appId: 1,
      scheduledAt,
      triggerType: 'CRON' as const,
      executorHandler: 'demo',
      executorParam: null,
    });
    const claim = (ids: number[], jobId: number) =>
      store.db.updateTable('fire').set({ claim_job_id: jobId }).where('id', 'in', ids).execute();
    // Job 7 at T: its claimed fire and two unclaimed records of the same time (broadcast shards).
    const before = await store.fires.createFires([record(7, T), record(7, T), record(7, T), record(8, T)], T);
    await claim([before[0]!], 7);
    await claim([before[3]!], 8);

    expect(await migrate(store)).toEqual([16]);

    const indexes = await fireIndexes(store);
    expect(indexes).toContain('fire_job_claim_key');
    expect(indexes).not.toContain('fire_claim_key');
    expect(indexes).not.toContain('fire_job_scheduled_idx');
    // A second claimed record of job 7 at T is refused; another unclaimed one, or job 7 at T + 1, is not.
    const [second] = await store.fires.createFires([record(7, T)], T);
    await expect(claim([second!], 7)).rejects.toThrow();
    const later = await store.fires.createFires([record(7, T + 1)], T);
    await claim(later, 7);
    const rows = await store.db
      .selectFrom('fire')
      .select(['id', 'job_id', 'claim_job_id', 'scheduled_at'])
      .orderBy('id')
      .execute();
    expect(
      rows.map((row) => [Number(row.job_id), row.claim_job_id === null ? null : Number(row.claim_job_id)]),
    ).toEqual([
      [7, 7],
      [7, null],
      [7, null],
      [8, 8],
      [7, null],
      [7, 7],
    ]);

    // A first run that died before recording itself runs again over what it did.
    await store.db.deleteFrom('schema_migrations').where('version', '=', 16).execute();
    expect(await migrate(store)).toEqual([16]);
    expect(await fireIndexes(store)).toEqual(indexes);
  });

  it('a store opened with migrate: false does not touch the schema', async () => {
    const store = await database.open({ migrate: false });
    await expect(store.jobs.countJobs()).rejects.toThrow();
  });
});
