import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { storeOf } from '@tickwheel/server/internal';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt } from './helpers/cli-process.js';
import { cli, cliJson, type RestServer, startRestServer } from './helpers/rest-server.js';

/** The MariaDB of the test machine (the server's store tests use the same one). */
const MYSQL_BASE = process.env.TW_TEST_MYSQL_BASE_URL ?? 'mysql://root@127.0.0.1:3306';

/** XXL-JOB's schema generations, each with its own DDL and the columns that hold the names. */
const GENERATIONS = [
  { generation: '2.x', ddl: 'xxl-job-2.4.sql', groupTitle: 'title', jobName: 'job_desc', sha256: false },
  { generation: '3.0–3.4', ddl: 'xxl-job-3.4.sql', groupTitle: 'title', jobName: 'job_desc', sha256: true },
  { generation: '3.5', ddl: 'xxl-job-3.5.sql', groupTitle: 'name', jobName: 'name', sha256: true },
] as const;
type Generation = (typeof GENERATIONS)[number];

interface Job {
  id: number;
  appId: number;
  name: string;
  origin: string | null;
  author: string;
  alarmEmail: string;
  scheduleType: string;
  scheduleConf: string;
  timeZone: string;
  misfireStrategy: string;
  executorRouteStrategy: string;
  executorHandler: string;
  executorParam: string;
  executorBlockStrategy: string;
  executorTimeout: number;
  executorFailRetryCount: number;
  glueType: string;
  glueSource: string;
  glueRemark: string;
  childJobIds: number[];
  triggerStatus: number;
}
interface App {
  id: number;
  appName: string;
  title: string;
  addressType: string;
  addressList: string[];
  origin: string | null;
  credential: string;
}
interface User {
  id: number;
  username: string;
  role: string;
  appIds: number[];
  mustChangePassword: boolean;
}
interface Outcomes {
  created: string[];
  updated: string[];
  unchanged: string[];
}
interface ImportJson {
  source: string;
  generation: string;
  timeZone: string;
  apps: number;
  jobs: number;
  scriptVersions: number;
  groovyJobs: string[];
  usersMapped: number;
  skipped: Array<{ kind: string; name: string; reason: string }>;
  notes: string[];
  runningInXxlJob: string[];
  dryRun: boolean;
  import: {
    apps: Outcomes;
    jobs: Outcomes;
    failed: unknown[];
    notes: string[];
    appTokens: Array<{ appName: string; accessToken: string }>;
  };
  users: {
    created: string[];
    unchanged: string[];
    failed: unknown[];
    notes: string[];
    passwords: Array<{ username: string; password: string }>;
  } | null;
  started: string[];
}

let admin: mysql.Connection;
const databases: string[] = [];

beforeAll(async () => {
  assertCliBuilt();
  admin = await mysql.createConnection({ uri: MYSQL_BASE, multipleStatements: true });
});

afterAll(async () => {
  for (const database of databases) await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin?.end();
});

/** A new XXL-JOB database of `generation`, filled by `seed`; its URL. */
async function xxlDatabase(
  generation: Generation,
  seed: (db: mysql.Connection, generation: Generation) => Promise<void>,
): Promise<string> {
  const database = `xxl_test_${randomBytes(4).toString('hex')}`;
  databases.push(database);
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  const db = await mysql.createConnection({ uri: `${MYSQL_BASE}/${database}`, multipleStatements: true });
  try {
    await db.query(await readFile(new URL(`./fixtures/${generation.ddl}`, import.meta.url), 'utf8'));
    await seed(db, generation);
  } finally {
    await db.end();
  }
  return `${MYSQL_BASE}/${database}`;
}

/**
 * XXL-JOB's sample executor and a manual one; a BEAN cron job that was running with three
 * children (one of them Groovy), a shell script with two saved versions, a FIX_RATE job, a
 * GLUE_GROOVY job with its history, a BEAN job without a handler, two jobs with one name, a job
 * whose child is the Groovy one, and a group whose name Tickwheel cannot take; an admin, a user
 * of two groups (one not imported) and a username Tickwheel cannot take.
 */
async function seedXxlJob(db: mysql.Connection, g: Generation): Promise<void> {
  await db.query(
    `INSERT INTO xxl_job_group (id, app_name, \`${g.groupTitle}\`, address_type, address_list, update_time) VALUES
      (1, 'xxl-job-executor-sample', '示例执行器', 0, 'http://10.0.0.7:9999/', NOW()),
      (2, 'manual-exec', 'Manual', 1, 'http://127.0.0.1:9999/,http://127.0.0.1:9998', NOW()),
      (3, 'bad name!', 'Bad', 0, NULL, NOW())`,
  );
  const job = (
    id: number,
    group: number,
    name: string,
    fields: Partial<Record<string, string | number>>,
  ): Array<string | number | null> => [
    id,
    group,
    name,
    fields.author ?? 'XXL',
    fields.alarm_email ?? '',
    fields.schedule_type ?? 'CRON',
    fields.schedule_conf ?? '0 0 0 * * ? *',
    fields.misfire_strategy ?? 'DO_NOTHING',
    fields.executor_route_strategy ?? 'FIRST',
    fields.executor_handler ?? '',
    fields.executor_param ?? '',
    fields.executor_block_strategy ?? 'SERIAL_EXECUTION',
    fields.executor_timeout ?? 0,
    fields.executor_fail_retry_count ?? 0,
    fields.glue_type ?? 'BEAN',
    fields.glue_source ?? '',
    fields.glue_remark ?? 'GLUE代码初始化',
    fields.child_jobid ?? '',
    fields.trigger_status ?? 0,
  ];
  const rows = [
    job(1, 1, 'nightly report', {
      executor_handler: 'demoJobHandler',
      executor_param: 'full',
      executor_route_strategy: 'ROUND',
      executor_block_strategy: 'DISCARD_LATER',
      misfire_strategy: 'FIRE_ONCE_NOW',
      executor_timeout: 30,
      executor_fail_retry_count: 2,
      alarm_email: 'ops@example.com,not-an-address',
      child_jobid: '2,3,4',
      trigger_status: 1,
    }),
    job(2, 1, 'shell cleanup', {
      schedule_type: 'NONE',
      schedule_conf: '',
      glue_type: 'GLUE_SHELL',
      glue_source: 'echo two',
      glue_remark: 'second',
    }),
    job(3, 2, 'every half minute', {
      schedule_type: 'FIX_RATE',
      schedule_conf: '30',
      executor_handler: 'rateJob',
      executor_route_strategy: 'SHARDING_BROADCAST',
      executor_block_strategy: 'COVER_EARLY',
      author: 'ops team',
    }),
    job(4, 1, 'groovy thing', {
      glue_type: 'GLUE_GROOVY',
      glue_source: GROOVY_V2,
      glue_remark: 'groovy v2',
      executor_route_strategy: 'CONSISTENT_HASH',
      trigger_status: 1,
    }),
    job(5, 1, 'no handler', {}),
    job(6, 1, 'parent of groovy', { executor_handler: 'p', child_jobid: '4' }),
    job(7, 1, 'dup', { executor_handler: 'd7', executor_route_strategy: 'LEAST_FREQUENTLY_USED' }),
    job(8, 1, 'dup', { executor_handler: 'd8', executor_route_strategy: 'FAILOVER' }),
    job(9, 3, 'in a bad group', { executor_handler: 'x' }),
  ];
  await db.query(
    `INSERT INTO xxl_job_info (id, job_group, \`${g.jobName}\`, author, alarm_email, schedule_type, schedule_conf,
      misfire_strategy, executor_route_strategy, executor_handler, executor_param, executor_block_strategy,
      executor_timeout, executor_fail_retry_count, glue_type, glue_source, glue_remark, child_jobid,
      trigger_status) VALUES ?`,
    [rows],
  );
  await db.query(
    `INSERT INTO xxl_job_logglue (job_id, glue_type, glue_source, glue_remark, add_time, update_time) VALUES
      (2, 'GLUE_SHELL', 'echo one', 'first', NOW(), NOW()),
      (2, 'GLUE_SHELL', 'echo two', 'second', NOW(), NOW()),
      (4, 'GLUE_GROOVY', ?, 'groovy v1', NOW(), NOW()),
      (4, 'GLUE_GROOVY', ?, 'groovy v2', NOW(), NOW())`,
    [GROOVY_V1, GROOVY_V2],
  );
  const hash = (password: string) =>
    createHash(g.sha256 ? 'sha256' : 'md5')
      .update(password)
      .digest('hex');
  const users = [
    [1, 'admin', hash('123456'), 1, null],
    [2, 'alice', hash('alice-pass'), 0, '2,3'],
    [3, 'bob.ops', hash('bob-pass'), 1, ''],
    [4, 'bad user!', hash('x'), 0, '1'],
  ];
  await db.query('INSERT INTO xxl_job_user (id, username, password, role, permission) VALUES ?', [users]);
}

const GROOVY_V1 = `package com.xxl.job.service.handler;
import com.xxl.job.core.handler.IJobHandler;
public class DemoGlueJobHandler extends IJobHandler {
  @Override public void execute() throws Exception { }
}`;
const GROOVY_V2 = GROOVY_V1.replace('{ }', '{ XxlJobHelper.log("v2"); }');

async function jobsByName(rest: RestServer): Promise<Map<string, Job>> {
  const page = await cliJson<{ items: Job[] }>(['job', 'list', '--limit', '200'], rest.env);
  return new Map(page.items.map((job) => [job.name, job]));
}

async function usersByName(rest: RestServer): Promise<Map<string, User>> {
  const page = await cliJson<{ items: User[] }>(['user', 'list'], rest.env);
  return new Map(page.items.map((user) => [user.username, user]));
}

async function scriptVersions(rest: RestServer, jobId: number) {
  return storeOf(rest.server)
    .db.selectFrom('job_glue')
    .select(['glue_type', 'glue_source', 'glue_remark'])
    .where('job_id', '=', jobId)
    .orderBy('id')
    .execute();
}

async function importJson(rest: RestServer, args: string[]): Promise<ImportJson> {
  const result = await cli(['import-xxl-job', ...args, '--json'], rest.env, 30_000);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as ImportJson;
}

const IMPORTED_JOBS = [
  'dup (xxl-job #7)',
  'dup (xxl-job #8)',
  'every half minute',
  'groovy thing',
  'nightly report',
  'parent of groovy',
  'shell cleanup',
];

describe.each(GENERATIONS)('tickwheel import-xxl-job from a $generation schema', { timeout: 90_000 }, (g) => {
  let rest: RestServer;
  let sourceUrl: string;
  let source: string;

  beforeAll(async () => {
    sourceUrl = await xxlDatabase(g, seedXxlJob);
    rest = await startRestServer();
  }, 60_000);

  afterAll(async () => {
    await rest?.close();
  });

  it('says what it would create with --dry-run, and writes nothing', async () => {
    const result = await cli(
      ['import-xxl-job', '--from', sourceUrl, '--dry-run', '--time-zone', 'UTC'],
      rest.env,
      30_000,
    );

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`XXL-JOB ${g.generation} schema at mysql://`);
    expect(result.stdout).toMatch(
      /XXL-JOB: 2 executor groups and 7 jobs mapped, 4 script versions; crons in UTC/,
    );
    expect(result.stdout).toMatch(/dry run: nothing was written/);
    expect(result.stdout).toMatch(/apps: 2 to create, 0 to update, 0 unchanged/);
    expect(result.stdout).toMatch(/jobs: 7 to create, 0 to update, 0 unchanged/);
    expect(result.stdout).toMatch(/users: 2 to create, 1 already here/);
    expect(result.stdout).toContain('  + job xxl-job-executor-sample/groovy thing');
    expect(result.stdout).toContain(
      '1 GLUE_GROOVY job(s) imported: only Java (XXL-JOB) executors run Groovy',
    );
    expect((await cliJson<{ total: number }>(['app', 'list'], rest.env)).total).toBe(0);
    expect((await usersByName(rest)).size).toBe(1);
  });

  it('creates the apps, jobs (stopped), Groovy jobs, script history and users, each field as XXL-JOB had it', async () => {
    const report = await importJson(rest, ['--from', sourceUrl, '--time-zone', 'Asia/Shanghai']);
    source = report.source;

    expect(report).toMatchObject({
      generation: g.generation,
      timeZone: 'Asia/Shanghai',
      apps: 2,
      jobs: 7,
      scriptVersions: 4,
      usersMapped: 3,
      groovyJobs: ['xxl-job-executor-sample/groovy thing'],
      dryRun: false,
      started: [],
    });
    expect(source).toMatch(/^mysql:\/\/.+:3306\/xxl_test_[0-9a-f]{8}$/);
    expect(report.import.apps.created).toEqual(['xxl-job-executor-sample', 'manual-exec']);
    expect([...report.import.jobs.created].sort()).toEqual(
      IMPORTED_JOBS.map(
        (name) => `${name === 'every half minute' ? 'manual-exec' : 'xxl-job-executor-sample'}/${name}`,
      ).sort(),
    );
    expect(report.import.failed).toEqual([]);
    expect(report.skipped.map((s) => `${s.kind} ${s.name}`)).toEqual([
      'app bad name!',
      'job xxl-job-executor-sample/no handler (xxl-job #5)',
      'job group 3/in a bad group (xxl-job #9)',
      'user bad user!',
    ]);
    expect(report.notes).toContain(
      'xxl-job-executor-sample/nightly report: alarm e-mail not-an-address is not an address; dropped',
    );
    expect(report.notes).toContain('user alice: executor group #3 was not imported; no permission for it');
    expect(report.runningInXxlJob).toEqual([
      'xxl-job-executor-sample/nightly report',
      'xxl-job-executor-sample/groovy thing',
    ]);

    const apps = new Map(
      (await cliJson<{ items: App[] }>(['app', 'list'], rest.env)).items.map((app) => [app.appName, app]),
    );
    const sample = apps.get('xxl-job-executor-sample')!;
    const manual = apps.get('manual-exec')!;
    expect(sample).toMatchObject({
      title: '示例执行器',
      addressType: 'AUTO',
      addressList: [],
      // XXL-JOB's executors share one token: the new apps take the installation-wide one.
      credential: 'installation',
      origin: `xxl-job ${source} group #1`,
    });
    expect(manual).toMatchObject({
      title: 'Manual',
      addressType: 'MANUAL',
      addressList: ['http://127.0.0.1:9999/', 'http://127.0.0.1:9998/'],
      origin: `xxl-job ${source} group #2`,
    });

    const jobs = await jobsByName(rest);
    expect([...jobs.keys()].sort()).toEqual(IMPORTED_JOBS);
    for (const job of jobs.values()) {
      expect(job.triggerStatus).toBe(0);
      expect(job.timeZone).toBe('Asia/Shanghai');
    }
    const nightly = jobs.get('nightly report')!;
    expect(nightly).toMatchObject({
      appId: sample.id,
      origin: `xxl-job ${source} #1`,
      author: 'XXL',
      alarmEmail: 'ops@example.com',
      scheduleType: 'CRON',
      scheduleConf: '0 0 0 * * ? *',
      misfireStrategy: 'FIRE_ONCE_NOW',
      executorRouteStrategy: 'ROUND',
      executorHandler: 'demoJobHandler',
      executorParam: 'full',
      executorBlockStrategy: 'DISCARD_LATER',
      executorTimeout: 30,
      executorFailRetryCount: 2,
      glueType: 'BEAN',
      glueSource: '',
    });
    const groovy = jobs.get('groovy thing')!;
    // Child links keep the Groovy job.
    expect(nightly.childJobIds).toEqual([
      jobs.get('shell cleanup')!.id,
      jobs.get('every half minute')!.id,
      groovy.id,
    ]);
    expect(jobs.get('parent of groovy')!.childJobIds).toEqual([groovy.id]);
    expect(jobs.get('every half minute')).toMatchObject({
      appId: manual.id,
      origin: `xxl-job ${source} #3`,
      author: 'ops team',
      scheduleType: 'FIX_RATE',
      scheduleConf: '30',
      misfireStrategy: 'DO_NOTHING',
      executorRouteStrategy: 'SHARDING_BROADCAST',
      executorBlockStrategy: 'COVER_EARLY',
      executorHandler: 'rateJob',
    });
    expect(jobs.get('dup (xxl-job #7)')).toMatchObject({
      executorHandler: 'd7',
      executorRouteStrategy: 'LEAST_FREQUENTLY_USED',
      origin: `xxl-job ${source} #7`,
    });
    expect(jobs.get('dup (xxl-job #8)')).toMatchObject({
      executorHandler: 'd8',
      executorRouteStrategy: 'FAILOVER',
      origin: `xxl-job ${source} #8`,
    });

    expect(groovy).toMatchObject({
      appId: sample.id,
      origin: `xxl-job ${source} #4`,
      glueType: 'GLUE_GROOVY',
      glueSource: GROOVY_V2,
      glueRemark: 'groovy v2',
      executorHandler: '',
      executorRouteStrategy: 'CONSISTENT_HASH',
    });
    expect(await scriptVersions(rest, groovy.id)).toEqual([
      { glue_type: 'GLUE_GROOVY', glue_source: GROOVY_V1, glue_remark: 'groovy v1' },
      { glue_type: 'GLUE_GROOVY', glue_source: GROOVY_V2, glue_remark: 'groovy v2' },
    ]);
    const shell = jobs.get('shell cleanup')!;
    expect(shell).toMatchObject({
      glueType: 'GLUE_SHELL',
      glueSource: 'echo two',
      glueRemark: 'second',
      scheduleType: 'NONE',
      scheduleConf: '',
    });
    expect(await scriptVersions(rest, shell.id)).toEqual([
      { glue_type: 'GLUE_SHELL', glue_source: 'echo one', glue_remark: 'first' },
      { glue_type: 'GLUE_SHELL', glue_source: 'echo two', glue_remark: 'second' },
    ]);

    // Users: the server's own admin is left as it is; the others are new, with a one-time password.
    expect(report.users).toMatchObject({ created: ['alice', 'bob.ops'], unchanged: ['admin'], failed: [] });
    expect(report.users!.passwords.map((p) => p.username)).toEqual(['alice', 'bob.ops']);
    const users = await usersByName(rest);
    expect(users.get('alice')).toMatchObject({ role: 'USER', appIds: [manual.id], mustChangePassword: true });
    expect(users.get('bob.ops')).toMatchObject({ role: 'ADMIN', mustChangePassword: true });
    expect(users.get('admin')).toMatchObject({ role: 'ADMIN', mustChangePassword: false });

    // The one-time password signs alice in, and she must choose her own before anything else.
    const alicePassword = report.users!.passwords.find((p) => p.username === 'alice')!.password;
    const signIn = await fetch(`${rest.url}api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'alice', password: alicePassword }),
    });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const me = await fetch(`${rest.url}api/v1/me`, { headers: { cookie } });
    expect(await me.json()).toMatchObject({ username: 'alice', mustChangePassword: true });
    const listJobs = await fetch(`${rest.url}api/v1/jobs`, { headers: { cookie } });
    expect(listJobs.status).toBe(403);
    expect(await listJobs.json()).toMatchObject({ error: { code: 'TW_ERR_PASSWORD_CHANGE_REQUIRED' } });
  });

  it('changes nothing when run a second time, and says so', async () => {
    const result = await cli(
      ['import-xxl-job', '--from', sourceUrl, '--time-zone', 'Asia/Shanghai'],
      rest.env,
      30_000,
    );

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/XXL-JOB: 2 executor groups and 7 jobs mapped, 4 script versions/);
    expect(result.stdout).toMatch(/left out \(4\):/);
    expect(result.stdout).toMatch(/2 job\(s\) were running in XXL-JOB and are created stopped/);
    expect(result.stdout).toMatch(/apps: 0 created, 0 updated, 2 unchanged/);
    expect(result.stdout).toMatch(/jobs: 0 created, 0 updated, 7 unchanged/);
    expect(result.stdout).toMatch(/users: 0 created, 3 already here/);
    expect(result.stdout).toMatch(/nothing changed/);
    expect(result.stdout).not.toMatch(/one-time passwords/);
  });

  it('finds a job renamed in XXL-JOB by its origin, and renames it rather than making another', async () => {
    const db = await mysql.createConnection({ uri: sourceUrl });
    try {
      await db.query(`UPDATE xxl_job_info SET \`${g.jobName}\` = 'nightly report (renamed)' WHERE id = 1`);
      const before = (await jobsByName(rest)).get('nightly report')!;
      const report = await importJson(rest, ['--from', sourceUrl, '--time-zone', 'Asia/Shanghai']);
      expect(report.import.jobs.created).toEqual([]);
      expect(report.import.jobs.updated).toEqual(['xxl-job-executor-sample/nightly report (renamed)']);
      const after = await jobsByName(rest);
      expect(after.has('nightly report')).toBe(false);
      expect(after.get('nightly report (renamed)')).toMatchObject({
        id: before.id,
        childJobIds: before.childJobIds,
      });
    } finally {
      await db.query(`UPDATE xxl_job_info SET \`${g.jobName}\` = 'nightly report' WHERE id = 1`);
      await db.end();
    }
    await importJson(rest, ['--from', sourceUrl, '--time-zone', 'Asia/Shanghai']);
    expect((await jobsByName(rest)).has('nightly report')).toBe(true);
  });

  it('takes the jobs over from a second database with the same names, creating nothing twice', async () => {
    // The same installation copied to another database (a wrong first import repaired by a
    // right one): another source, the same names; one job's parameter differs.
    const secondUrl = await xxlDatabase(g, async (db, generation) => {
      await seedXxlJob(db, generation);
      await db.query(`UPDATE xxl_job_info SET executor_param = 'from the second' WHERE id = 1`);
    });
    const before = await jobsByName(rest);

    const report = await importJson(rest, ['--from', secondUrl, '--time-zone', 'Asia/Shanghai']);

    expect(report.source).not.toBe(source);
    expect(report.import.apps).toMatchObject({ created: [], unchanged: [] });
    expect(report.import.apps.updated.sort()).toEqual(['manual-exec', 'xxl-job-executor-sample']);
    expect(report.import.jobs.created).toEqual([]);
    expect(report.import.jobs.updated).toHaveLength(IMPORTED_JOBS.length);
    expect(report.users).toMatchObject({ created: [], unchanged: ['admin', 'alice', 'bob.ops'] });
    const after = await jobsByName(rest);
    expect([...after.keys()].sort()).toEqual(IMPORTED_JOBS);
    for (const [name, job] of after) {
      expect(job.id).toBe(before.get(name)!.id);
      expect(job.origin).toMatch(new RegExp(`^xxl-job ${escapeRegExp(report.source)} #\\d$`));
    }
    expect(after.get('nightly report')).toMatchObject({
      executorParam: 'from the second',
      childJobIds: before.get('nightly report')!.childJobIds,
    });
    const apps = (await cliJson<{ items: App[] }>(['app', 'list'], rest.env)).items;
    expect(apps.map((app) => app.origin).sort()).toEqual([
      `xxl-job ${report.source} group #1`,
      `xxl-job ${report.source} group #2`,
    ]);
    // Again from the second: nothing; and back to the first, the jobs are found by name again.
    const again = await importJson(rest, ['--from', secondUrl, '--time-zone', 'Asia/Shanghai']);
    expect(again.import.jobs).toMatchObject({ created: [], updated: [] });
    const back = await importJson(rest, ['--from', sourceUrl, '--time-zone', 'Asia/Shanghai']);
    expect(back.import.jobs.created).toEqual([]);
    expect((await jobsByName(rest)).get('nightly report')).toMatchObject({
      id: before.get('nightly report')!.id,
      executorParam: 'full',
      origin: `xxl-job ${source} #1`,
    });
  });

  it('starts the jobs that were running in XXL-JOB with --keep-status', async () => {
    const dry = await importJson(rest, [
      '--from',
      sourceUrl,
      '--time-zone',
      'Asia/Shanghai',
      '--keep-status',
      '--dry-run',
    ]);
    expect(dry.started).toEqual([
      'xxl-job-executor-sample/nightly report',
      'xxl-job-executor-sample/groovy thing',
    ]);
    expect((await jobsByName(rest)).get('nightly report')!.triggerStatus).toBe(0);

    const report = await importJson(rest, [
      '--from',
      sourceUrl,
      '--time-zone',
      'Asia/Shanghai',
      '--keep-status',
    ]);

    expect(report.started).toEqual([
      'xxl-job-executor-sample/nightly report',
      'xxl-job-executor-sample/groovy thing',
    ]);
    const jobs = await jobsByName(rest);
    expect(jobs.get('nightly report')!.triggerStatus).toBe(1);
    expect(jobs.get('groovy thing')!.triggerStatus).toBe(1);
    expect(jobs.get('shell cleanup')!.triggerStatus).toBe(0);
  });
});

describe('tickwheel import-xxl-job refusals', { timeout: 60_000 }, () => {
  let rest: RestServer;
  beforeAll(async () => {
    rest = await startRestServer();
  }, 60_000);
  afterAll(async () => {
    await rest?.close();
  });

  it('stops naming the column when a 3.5 schema lacks one it needs, and imports nothing', async () => {
    const url = await xxlDatabase(GENERATIONS[2], async (db) => {
      await db.query('ALTER TABLE xxl_job_info DROP COLUMN `name`');
    });
    const result = await cli(['import-xxl-job', '--from', url], rest.env, 30_000);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /generation 3\.5 but has no column xxl_job_info\.name; nothing was imported/,
    );
    expect((await cliJson<{ total: number }>(['app', 'list'], rest.env)).total).toBe(0);
  });

  it('exits 3 naming the database (without its password) when it cannot be reached', async () => {
    const result = await cli(
      ['import-xxl-job', '--from', 'mysql://root:secret@127.0.0.1:9/xxl_job'],
      rest.env,
    );

    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /cannot connect to the XXL-JOB database mysql:\/\/root:\*\*\*@127.0.0.1:9\/xxl_job/,
    );
    expect(result.stderr).not.toMatch(/secret/);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
