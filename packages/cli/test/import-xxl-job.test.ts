import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt } from './helpers/cli-process.js';
import { cli, cliJson, type RestServer, startRestServer } from './helpers/rest-server.js';

/** The MariaDB of the test machine (the server's store tests use the same one). */
const MYSQL_BASE = process.env.TW_TEST_MYSQL_BASE_URL ?? 'mysql://root@127.0.0.1:3306';
const FIXTURE = new URL('./fixtures/xxl-job-tables.sql', import.meta.url);

interface Job {
  id: number;
  appId: number;
  name: string;
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
}
interface ImportJson {
  timeZone: string;
  apps: number;
  jobs: number;
  scriptVersions: number;
  skipped: Array<{ kind: string; name: string; reason: string }>;
  notes: string[];
  runningInXxlJob: string[];
  import: {
    apps: { created: string[]; updated: string[]; unchanged: string[] };
    jobs: { created: string[]; updated: string[]; unchanged: string[] };
    failed: unknown[];
    notes: string[];
    appTokens: Array<{ appName: string; accessToken: string }>;
  };
}

const database = `xxl_test_${randomBytes(4).toString('hex')}`;
const sourceUrl = `${MYSQL_BASE}/${database}`;
let admin: mysql.Connection;
let rest: RestServer;

beforeAll(async () => {
  assertCliBuilt();
  admin = await mysql.createConnection({ uri: MYSQL_BASE, multipleStatements: true });
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  await admin.query(`USE \`${database}\``);
  await admin.query(await readFile(FIXTURE, 'utf8'));
  await seedXxlJob(admin);
  rest = await startRestServer();
}, 60_000);

afterAll(async () => {
  await rest?.close();
  await admin?.query(`DROP DATABASE IF EXISTS \`${database}\``);
  await admin?.end();
});

/**
 * XXL-JOB's sample executor and a manual one; a BEAN cron job that was running with two
 * children, a shell script with two saved versions, a FIX_RATE job, a GLUE_GROOVY job, a BEAN job
 * without a handler, two jobs with one description, a job whose child is the Groovy one, and a
 * group whose name Tickwheel cannot take.
 */
async function seedXxlJob(db: mysql.Connection): Promise<void> {
  await db.query(
    `INSERT INTO xxl_job_group (id, app_name, title, address_type, address_list, update_time) VALUES
      (1, 'xxl-job-executor-sample', '示例执行器', 0, 'http://10.0.0.7:9999/', NOW()),
      (2, 'manual-exec', 'Manual', 1, 'http://127.0.0.1:9999/,http://127.0.0.1:9998', NOW()),
      (3, 'bad name!', 'Bad', 0, NULL, NOW())`,
  );
  const job = (
    id: number,
    group: number,
    desc: string,
    fields: Partial<Record<string, string | number>>,
  ): Array<string | number | null> => [
    id,
    group,
    desc,
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
      child_jobid: '2,3',
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
    }),
    job(4, 1, 'groovy thing', { glue_type: 'GLUE_GROOVY', glue_source: 'class X {}' }),
    job(5, 1, 'no handler', {}),
    job(6, 1, 'parent of groovy', { executor_handler: 'p', child_jobid: '4' }),
    job(7, 1, 'dup', { executor_handler: 'd7' }),
    job(8, 1, 'dup', { executor_handler: 'd8' }),
    job(9, 3, 'in a bad group', { executor_handler: 'x' }),
  ];
  await db.query(
    `INSERT INTO xxl_job_info (id, job_group, job_desc, author, alarm_email, schedule_type, schedule_conf,
      misfire_strategy, executor_route_strategy, executor_handler, executor_param, executor_block_strategy,
      executor_timeout, executor_fail_retry_count, glue_type, glue_source, glue_remark, child_jobid,
      trigger_status) VALUES ?`,
    [rows],
  );
  await db.query(
    `INSERT INTO xxl_job_logglue (job_id, glue_type, glue_source, glue_remark, add_time, update_time) VALUES
      (2, 'GLUE_SHELL', 'echo one', 'first', NOW(), NOW()),
      (2, 'GLUE_SHELL', 'echo two', 'second', NOW(), NOW())`,
  );
}

async function jobsByName(): Promise<Map<string, Job>> {
  const page = await cliJson<{ items: Job[] }>(['job', 'list', '--limit', '200'], rest.env);
  return new Map(page.items.map((job) => [job.name, job]));
}

describe('tickwheel import-xxl-job', { timeout: 60_000 }, () => {
  it('shows the mapping and writes nothing with --dry-run', async () => {
    const result = await cli(
      ['import-xxl-job', '--from', sourceUrl, '--dry-run', '--time-zone', 'UTC'],
      rest.env,
    );

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /XXL-JOB: 2 executor groups and 6 jobs mapped, 2 script versions; crons in UTC/,
    );
    expect(result.stdout).toMatch(/job xxl-job-executor-sample\/groovy thing \(xxl-job #4\): GLUE_GROOVY/);
    expect((await cliJson<{ total: number }>(['app', 'list'], rest.env)).total).toBe(0);
  });

  it('creates the apps, jobs (stopped) and script history, and reports what it left out', async () => {
    const result = await cli(
      ['import-xxl-job', '--from', sourceUrl, '--time-zone', 'Asia/Shanghai', '--json'],
      rest.env,
      30_000,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as ImportJson;

    expect(report).toMatchObject({ timeZone: 'Asia/Shanghai', apps: 2, jobs: 6, scriptVersions: 2 });
    expect(report.import.apps.created).toEqual(['xxl-job-executor-sample', 'manual-exec']);
    expect(report.import.jobs.created).toHaveLength(6);
    expect(report.import.failed).toEqual([]);
    expect(report.skipped.map((s) => `${s.kind} ${s.name}`)).toEqual([
      'app bad name!',
      'job xxl-job-executor-sample/groovy thing (xxl-job #4)',
      'job xxl-job-executor-sample/no handler (xxl-job #5)',
      'job group 3/in a bad group (xxl-job #9)',
    ]);
    expect(report.skipped[1]?.reason).toMatch(/GLUE_GROOVY/);
    expect(report.notes).toContain(
      'xxl-job-executor-sample/nightly report: alarm e-mail not-an-address is not an address; dropped',
    );
    expect(report.notes).toContain(
      'xxl-job-executor-sample/parent of groovy: child job #4 was not imported; left out',
    );
    expect(report.runningInXxlJob).toEqual(['xxl-job-executor-sample/nightly report']);

    const apps = await cliJson<{ items: App[] }>(['app', 'list'], rest.env);
    const manual = apps.items.find((app) => app.appName === 'manual-exec');
    expect(manual).toMatchObject({
      addressType: 'MANUAL',
      addressList: ['http://127.0.0.1:9999/', 'http://127.0.0.1:9998/'],
    });
    expect(apps.items.find((app) => app.appName === 'xxl-job-executor-sample')).toMatchObject({
      title: '示例执行器',
      addressType: 'AUTO',
      // XXL-JOB's executors share one token: the new apps take the installation-wide one.
      credential: 'installation',
    });
    expect(report.import.appTokens).toEqual([]);
    expect(report.import.notes.some((note) => /compatibility mode/.test(note))).toBe(true);

    const jobs = await jobsByName();
    expect([...jobs.keys()].sort()).toEqual([
      'dup (xxl-job #7)',
      'dup (xxl-job #8)',
      'every half minute',
      'nightly report',
      'parent of groovy',
      'shell cleanup',
    ]);
    for (const job of jobs.values()) expect(job.triggerStatus).toBe(0);
    const nightly = jobs.get('nightly report')!;
    expect(nightly).toMatchObject({
      author: 'XXL',
      alarmEmail: 'ops@example.com',
      scheduleType: 'CRON',
      scheduleConf: '0 0 0 * * ? *',
      timeZone: 'Asia/Shanghai',
      misfireStrategy: 'FIRE_ONCE_NOW',
      executorRouteStrategy: 'ROUND',
      executorHandler: 'demoJobHandler',
      executorParam: 'full',
      executorBlockStrategy: 'DISCARD_LATER',
      executorTimeout: 30,
      executorFailRetryCount: 2,
      glueType: 'BEAN',
    });
    expect(nightly.childJobIds).toEqual([jobs.get('shell cleanup')!.id, jobs.get('every half minute')!.id]);
    expect(jobs.get('every half minute')).toMatchObject({
      appId: manual!.id,
      scheduleType: 'FIX_RATE',
      scheduleConf: '30',
      executorRouteStrategy: 'SHARDING_BROADCAST',
    });
    expect(jobs.get('parent of groovy')!.childJobIds).toEqual([]);

    const shell = jobs.get('shell cleanup')!;
    expect(shell).toMatchObject({
      glueType: 'GLUE_SHELL',
      glueSource: 'echo two',
      glueRemark: 'second',
      scheduleType: 'NONE',
    });
    const versions = await rest.server.store.db
      .selectFrom('job_glue')
      .select(['glue_source', 'glue_remark'])
      .where('job_id', '=', shell.id)
      .orderBy('id')
      .execute();
    expect(versions).toEqual([
      { glue_source: 'echo one', glue_remark: 'first' },
      { glue_source: 'echo two', glue_remark: 'second' },
    ]);
  });

  it('changes nothing when run a second time, and says so', async () => {
    const result = await cli(
      ['import-xxl-job', '--from', sourceUrl, '--time-zone', 'Asia/Shanghai'],
      rest.env,
      30_000,
    );

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /XXL-JOB: 2 executor groups and 6 jobs mapped, 2 script versions; crons in Asia\/Shanghai/,
    );
    expect(result.stdout).toMatch(/left out \(4\):/);
    expect(result.stdout).toMatch(/1 job\(s\) were running in XXL-JOB and are created stopped/);
    expect(result.stdout).toMatch(/jobs: 0 created, 0 updated, 6 unchanged/);
    expect(result.stdout).toMatch(/nothing changed/);
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
