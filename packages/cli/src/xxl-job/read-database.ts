/**
 * Reads what `tickwheel import-xxl-job` takes from an XXL-JOB database: executor groups
 * (`xxl_job_group`), jobs (`xxl_job_info`), script versions (`xxl_job_logglue`) and users
 * (`xxl_job_user`).
 *
 * The schema's generation is told from the columns present, and each generation's columns are
 * read by name:
 *
 * | generation | group name | job name   | schedule                                      | user          |
 * | ---------- | ---------- | ---------- | --------------------------------------------- | ------------- |
 * | 2.x        | `title`    | `job_desc` | `schedule_type`/`schedule_conf` (2.3+) or `job_cron` | MD5 password  |
 * | 3.0–3.4    | `title`    | `job_desc` | `schedule_type`/`schedule_conf`               | SHA-256, `token` |
 * | 3.5        | `name`     | `name`     | `schedule_type`/`schedule_conf`               | SHA-256, `token` |
 *
 * A column the generation needs that is missing stops the import with its name: importing with
 * placeholders (every job named by its id) would be worse than not importing.
 *
 * Every row is read into the same shape, whatever the generation, so the mapping knows nothing
 * of column names. The source's identity (`mysql://<server host>:<port>/<database>`, as the
 * database server names itself) tells imports from different databases apart.
 */
import type { Connection } from 'mysql2/promise';
import { CliFailure } from '../rest-command.js';

export type XxlGeneration = '2.x' | '3.0–3.4' | '3.5';

export interface XxlGroup {
  id: number;
  appName: string;
  title: string;
  /** 0 automatic registration, 1 manual list. */
  addressType: number;
  addressList: string;
}

export interface XxlJob {
  id: number;
  groupId: number;
  /** `job_desc` (to 3.4) or `name` (3.5): XXL-JOB's only name for a job. */
  name: string;
  author: string;
  alarmEmail: string;
  scheduleType: string;
  scheduleConf: string;
  misfireStrategy: string;
  routeStrategy: string;
  handler: string;
  param: string;
  blockStrategy: string;
  timeout: number;
  failRetryCount: number;
  glueType: string;
  glueSource: string;
  glueRemark: string;
  childJobIds: string;
  triggerStatus: number;
}

export interface XxlGlueVersion {
  jobId: number;
  glueType: string;
  glueSource: string;
  glueRemark: string;
}

export interface XxlUser {
  id: number;
  username: string;
  /** 1 administrator, 0 user. */
  role: number;
  /** Executor group ids, comma-separated (users only). */
  permission: string;
}

export interface XxlDatabase {
  /** Where the rows came from: `mysql://<host>:<port>/<database>`, or what `--source` named. */
  source: string;
  generation: XxlGeneration;
  groups: XxlGroup[];
  jobs: XxlJob[];
  /** Script versions, by job id and then id: oldest first. */
  glueVersions: XxlGlueVersion[];
  /** False for a schema from before 2.1, which kept its login in a properties file. */
  hasUsers: boolean;
  users: XxlUser[];
}

/** The columns each table must have in every generation (the generation's own are added). */
const COMMON_COLUMNS = {
  xxl_job_group: ['id', 'app_name', 'address_type', 'address_list'],
  xxl_job_info: [
    'id',
    'job_group',
    'author',
    'alarm_email',
    'executor_route_strategy',
    'executor_handler',
    'executor_param',
    'executor_block_strategy',
    'executor_timeout',
    'executor_fail_retry_count',
    'glue_type',
    'glue_source',
    'glue_remark',
    'child_jobid',
    'trigger_status',
  ],
  xxl_job_logglue: ['id', 'job_id', 'glue_type', 'glue_source', 'glue_remark'],
  xxl_job_user: ['id', 'username', 'role', 'permission'],
} as const;

type Table = keyof typeof COMMON_COLUMNS;
type Columns = Map<Table, Set<string>>;

export interface ReadOptions {
  /** Names the source instead of the server's own host, port and database (after a restore elsewhere). */
  source?: string;
}

/** @throws CliFailure when the database cannot be reached (exit 3) or is not an XXL-JOB database it can read (exit 1). */
export async function readXxlDatabase(url: string, options: ReadOptions = {}): Promise<XxlDatabase> {
  if (!/^(mysql|mariadb):\/\//.test(url)) {
    throw new CliFailure(
      'TW_ERR_INVALID_OPTION',
      '--from must be a mysql:// URL, e.g. mysql://user:password@host:3306/xxl_job',
    );
  }
  let connection: Connection;
  try {
    // Loaded here: only this command needs a MySQL driver.
    const mysql = await import('mysql2/promise');
    connection = await mysql.createConnection({
      uri: url.replace(/^mariadb:/, 'mysql:'),
      // Times are not imported; strings avoid any time-zone conversion of theirs.
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: false,
      connectTimeout: 10_000,
    });
  } catch (err) {
    throw new CliFailure(
      'TW_ERR_STORE_UNAVAILABLE',
      `cannot connect to the XXL-JOB database ${withoutPassword(url)}: ${(err as Error).message}`,
    );
  }
  try {
    const columns = await readColumns(connection);
    const generation = generationOf(columns);
    const names = columnNames(generation, columns);
    const hasUsers = columns.has('xxl_job_user');
    return {
      source: options.source ?? (await sourceOf(connection)),
      generation,
      groups: (await selectAll(connection, 'SELECT * FROM xxl_job_group ORDER BY id')).map((row) =>
        groupOf(row, names),
      ),
      jobs: (await selectAll(connection, 'SELECT * FROM xxl_job_info ORDER BY id')).map((row) =>
        jobOf(row, names),
      ),
      glueVersions: (await selectAll(connection, 'SELECT * FROM xxl_job_logglue ORDER BY job_id, id')).map(
        (row) => ({
          jobId: Number(row.job_id),
          glueType: text(row.glue_type),
          glueSource: text(row.glue_source),
          glueRemark: text(row.glue_remark),
        }),
      ),
      hasUsers,
      users: (hasUsers ? await selectAll(connection, 'SELECT * FROM xxl_job_user ORDER BY id') : []).map(
        (row) => ({
          id: Number(row.id),
          username: text(row.username),
          role: Number(row.role),
          permission: text(row.permission),
        }),
      ),
    };
  } finally {
    await connection.end();
  }
}

async function readColumns(connection: Connection): Promise<Columns> {
  const [rows] = await connection.query(
    `SELECT table_name AS t, column_name AS c FROM information_schema.columns
     WHERE table_schema = DATABASE() AND table_name IN (?)`,
    [Object.keys(COMMON_COLUMNS)],
  );
  const columns: Columns = new Map();
  for (const row of rows as Array<{ t: string; c: string }>) {
    const table = row.t.toLowerCase() as Table;
    columns.set(table, (columns.get(table) ?? new Set()).add(row.c.toLowerCase()));
  }
  // XXL-JOB before 2.1 kept its one login in a properties file: no users to import then.
  const missingTables = (Object.keys(COMMON_COLUMNS) as Table[]).filter(
    (table) => !columns.has(table) && table !== 'xxl_job_user',
  );
  if (missingTables.length > 0) {
    throw new CliFailure(
      'TW_ERR_INVALID_OPTION',
      `the database of --from does not hold XXL-JOB's table${missingTables.length > 1 ? 's' : ''} ${missingTables.join(', ')}`,
    );
  }
  return columns;
}

/** 3.5 renamed the names to `name`; 3.0 gave users a `token` (and SHA-256 passwords). */
export function generationOf(columns: Columns): XxlGeneration {
  const group = columns.get('xxl_job_group')!;
  const info = columns.get('xxl_job_info')!;
  if (group.has('name') || info.has('name')) return '3.5';
  if (columns.get('xxl_job_user')?.has('token') === true) return '3.0–3.4';
  return '2.x';
}

interface ColumnNames {
  groupTitle: string;
  jobName: string;
  /** `job_cron` for a 2.x schema from before 2.3. */
  schedule: 'schedule_type' | 'job_cron';
}

/** @throws CliFailure naming every column the generation needs and the database lacks. */
export function columnNames(generation: XxlGeneration, columns: Columns): ColumnNames {
  const names: ColumnNames = {
    groupTitle: generation === '3.5' ? 'name' : 'title',
    jobName: generation === '3.5' ? 'name' : 'job_desc',
    schedule:
      columns.get('xxl_job_info')!.has('schedule_type') || generation !== '2.x'
        ? 'schedule_type'
        : 'job_cron',
  };
  const needed: Record<Table, string[]> = {
    xxl_job_group: [...COMMON_COLUMNS.xxl_job_group, names.groupTitle],
    xxl_job_info: [
      ...COMMON_COLUMNS.xxl_job_info,
      names.jobName,
      ...(names.schedule === 'schedule_type'
        ? ['schedule_type', 'schedule_conf', 'misfire_strategy']
        : ['job_cron']),
    ],
    xxl_job_logglue: [...COMMON_COLUMNS.xxl_job_logglue],
    xxl_job_user: columns.has('xxl_job_user') ? [...COMMON_COLUMNS.xxl_job_user] : [],
  };
  const missing = (Object.entries(needed) as Array<[Table, string[]]>).flatMap(([table, wanted]) =>
    wanted.filter((column) => !columns.get(table)?.has(column)).map((column) => `${table}.${column}`),
  );
  if (missing.length > 0) {
    // Exit 1, not 2: the command line is right, the database is not one this importer can read.
    throw new CliFailure(
      'TW_ERR_INVALID_FIELD',
      `the XXL-JOB database looks like generation ${generation} but has no column ${missing.join(', ')}; nothing was imported (a schema this importer does not know: please report it)`,
    );
  }
  return names;
}

function groupOf(row: Record<string, unknown>, names: ColumnNames): XxlGroup {
  return {
    id: Number(row.id),
    appName: text(row.app_name),
    title: text(row[names.groupTitle]),
    addressType: Number(row.address_type),
    addressList: text(row.address_list),
  };
}

function jobOf(row: Record<string, unknown>, names: ColumnNames): XxlJob {
  const schedule =
    names.schedule === 'schedule_type'
      ? {
          scheduleType: text(row.schedule_type) || 'NONE',
          scheduleConf: text(row.schedule_conf).trim(),
          misfireStrategy: text(row.misfire_strategy),
        }
      : // Before 2.3 a job had a Quartz cron or none.
        text(row.job_cron).trim() === ''
        ? { scheduleType: 'NONE', scheduleConf: '', misfireStrategy: '' }
        : { scheduleType: 'CRON', scheduleConf: text(row.job_cron).trim(), misfireStrategy: '' };
  return {
    id: Number(row.id),
    groupId: Number(row.job_group),
    name: text(row[names.jobName]),
    author: text(row.author),
    alarmEmail: text(row.alarm_email),
    ...schedule,
    routeStrategy: text(row.executor_route_strategy),
    handler: text(row.executor_handler),
    param: text(row.executor_param),
    blockStrategy: text(row.executor_block_strategy),
    timeout: Number(row.executor_timeout) || 0,
    failRetryCount: Number(row.executor_fail_retry_count) || 0,
    glueType: text(row.glue_type),
    glueSource: text(row.glue_source),
    glueRemark: text(row.glue_remark),
    childJobIds: text(row.child_jobid),
    triggerStatus: Number(row.trigger_status) || 0,
  };
}

/** The database as its server names it: the same database reached by another host name is the same source. */
async function sourceOf(connection: Connection): Promise<string> {
  const [rows] = await connection.query('SELECT @@hostname AS host, @@port AS port, DATABASE() AS db');
  const [row] = rows as Array<{ host: string; port: number; db: string }>;
  return `mysql://${row?.host}:${row?.port}/${row?.db}`;
}

async function selectAll(connection: Connection, sql: string): Promise<Array<Record<string, unknown>>> {
  const [rows] = await connection.query(sql);
  return rows as Array<Record<string, unknown>>;
}

/** Column values as text; NULL as ''. */
function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

/** The URL as it may be printed: `mysql://root:***@host/db`. */
function withoutPassword(url: string): string {
  return url.replace(/^(\w+:\/\/[^:/@]*:)[^@]*@/, '$1***@');
}
