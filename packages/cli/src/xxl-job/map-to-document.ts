/**
 * Maps an XXL-JOB database onto a Tickwheel export document, field by field, and says what it
 * could not map. Tickwheel keeps XXL-JOB's names for route, block and misfire strategies, glue
 * types and schedule types, so most values pass as they are; the differences:
 *
 * - a job's name is its `job_desc` (`name` from 3.5); names repeated within a group get
 *   ` (xxl-job #<id>)` so each job keeps a name of its own;
 * - every app and job records where it came from (`origin`: `xxl-job <source> #<id>`, the
 *   source database and the XXL-JOB id), so a re-import finds it again even when renamed;
 * - a cron has no time zone in XXL-JOB (the admin's JVM zone applies): the `timeZone` given;
 * - GLUE_GROOVY jobs come over as they are: XXL-JOB's Java executors run them (Tickwheel's
 *   refuse them), so they stay on the app's executors and the report says so;
 * - BEAN jobs without a handler, unknown glue or schedule types and jobs of groups not imported
 *   are left out, and said so;
 * - child job ids are carried by name and remapped to the new ids on import;
 * - `trigger_status` is not carried: every job is created stopped (`--keep-status` starts those
 *   that were running, after the import);
 * - users keep their username and role, and a USER their groups as apps; no password can come
 *   over (XXL-JOB keeps only a hash), so the import gives each a one-time password.
 */
import {
  BLOCK_STRATEGIES,
  GLUE_TYPES,
  MISFIRE_STRATEGIES,
  ROUTE_STRATEGIES,
  SCHEDULE_TYPES,
} from '@tickwheel/protocol/enums';
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportDocument,
  type ExportedApp,
  type ExportedJob,
  type JobRef,
} from '../transfer/document.js';
import type { XxlDatabase, XxlGlueVersion, XxlGroup, XxlJob } from './read-database.js';

export interface XxlMapping {
  document: ExportDocument;
  /** Groups and jobs left out, with the reason. */
  skipped: Array<{ kind: 'app' | 'job' | 'user'; name: string; reason: string }>;
  /** Values changed on the way (an unknown strategy replaced by the default, a bad e-mail dropped). */
  notes: string[];
  /** Jobs scheduled in XXL-JOB (trigger_status 1), created stopped here. */
  runningInXxlJob: string[];
  /** Script versions carried over, over all jobs. */
  scriptVersions: number;
  /** GLUE_GROOVY jobs carried over (only Java executors run them). */
  groovyJobs: string[];
  /** The users to create, by username; their apps by appName. */
  users: XxlMappedUser[];
  /** The jobs that were running in XXL-JOB, as (appName, name). */
  running: JobRef[];
}

export interface XxlMappedUser {
  username: string;
  role: 'ADMIN' | 'USER';
  appNames: string[];
  origin: string;
}

/** Where an XXL-JOB record came from: the source database and its id there. */
export function xxlOrigin(source: string, kind: 'group' | 'job' | 'user', id: number): string {
  return kind === 'job' ? `xxl-job ${source} #${id}` : `xxl-job ${source} ${kind} #${id}`;
}

const APP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Tickwheel's usernames. */
const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/;
const EMAIL = /^[^\s@,;]+@[^\s@,;]+\.[^\s@,;]+$/;
/** Tickwheel keeps 30 versions per job, as XXL-JOB does. */
const SCRIPT_VERSIONS_KEPT = 30;

export function mapXxlDatabase(db: XxlDatabase, options: { timeZone: string; now?: Date }): XxlMapping {
  const mapping: XxlMapping = {
    document: {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      exportedAt: (options.now ?? new Date()).toISOString(),
      apps: [],
      jobs: [],
    },
    skipped: [],
    notes: [],
    runningInXxlJob: [],
    scriptVersions: 0,
    groovyJobs: [],
    users: [],
    running: [],
  };
  const appNameByGroup = new Map<number, string>();
  for (const group of db.groups) {
    const app = mapGroup(group, db.source, mapping);
    if (app !== undefined) {
      mapping.document.apps.push(app);
      appNameByGroup.set(group.id, app.appName);
    }
  }

  const names = jobNames(db.jobs);
  const refByXxlId = new Map<number, JobRef>();
  const mapped: Array<{ row: XxlJob; job: ExportedJob }> = [];
  for (const row of db.jobs) {
    const job = mapJob(row, appNameByGroup, names, options.timeZone, db.source, mapping);
    if (job === undefined) continue;
    refByXxlId.set(row.id, { appName: job.appName, name: job.name });
    mapped.push({ row, job });
  }

  const versionsByJob = groupVersions(db.glueVersions);
  for (const { row, job } of mapped) {
    job.childJobs = childRefs(row, job, refByXxlId, mapping);
    if (job.glueType !== 'BEAN') {
      const history = (versionsByJob.get(row.id) ?? []).slice(-SCRIPT_VERSIONS_KEPT).map((version) => ({
        glueType: GLUE_TYPES.includes(version.glueType as never) ? version.glueType : String(job.glueType),
        glueSource: version.glueSource,
        glueRemark: version.glueRemark.slice(0, 128),
      }));
      if (history.length > 0) {
        job.scriptHistory = history;
        mapping.scriptVersions += history.length;
      }
    }
    mapping.document.jobs.push(job);
  }
  for (const user of db.users) {
    const mappedUser = mapUser(user, appNameByGroup, db.source, mapping);
    if (mappedUser !== undefined) mapping.users.push(mappedUser);
  }
  return mapping;
}

function mapUser(
  user: XxlDatabase['users'][number],
  appNameByGroup: Map<number, string>,
  source: string,
  mapping: XxlMapping,
): XxlMappedUser | undefined {
  const username = user.username.trim();
  if (!USERNAME.test(username) || username.length > 64) {
    mapping.skipped.push({
      kind: 'user',
      name: username || `user ${user.id}`,
      reason: 'a username must be letters, digits, ".", "_", "@" or "-" (at most 64)',
    });
    return undefined;
  }
  const role = user.role === 1 ? 'ADMIN' : 'USER';
  const appNames: string[] = [];
  if (role === 'USER') {
    for (const part of user.permission.split(',')) {
      const id = Number(part.trim());
      if (part.trim() === '' || !Number.isInteger(id)) continue;
      const appName = appNameByGroup.get(id);
      if (appName === undefined)
        mapping.notes.push(`user ${username}: executor group #${id} was not imported; no permission for it`);
      else if (!appNames.includes(appName)) appNames.push(appName);
    }
  }
  return { username, role, appNames, origin: xxlOrigin(source, 'user', user.id) };
}

function mapGroup(group: XxlGroup, source: string, mapping: XxlMapping): ExportedApp | undefined {
  const appName = group.appName.trim();
  if (!APP_NAME.test(appName) || appName.length > 64) {
    mapping.skipped.push({
      kind: 'app',
      name: appName || `group ${group.id}`,
      reason: 'the appName must be letters, digits, ".", "_" or "-" (at most 64); its jobs are left out too',
    });
    return undefined;
  }
  const addresses = group.addressList
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address !== '');
  const manual = group.addressType === 1;
  if (manual && addresses.length === 0) {
    mapping.notes.push(
      `app ${appName}: manual address list is empty in XXL-JOB; imported as AUTO (executors register)`,
    );
  }
  return {
    appName,
    title: group.title.trim() || appName,
    addressType: manual && addresses.length > 0 ? 'MANUAL' : 'AUTO',
    addressList: manual ? addresses : [],
    origin: xxlOrigin(source, 'group', group.id),
  };
}

function mapJob(
  row: XxlJob,
  appNameByGroup: Map<number, string>,
  names: Map<number, string>,
  timeZone: string,
  source: string,
  mapping: XxlMapping,
): ExportedJob | undefined {
  const id = row.id;
  const name = names.get(id) ?? `xxl-job #${id}`;
  const appName = appNameByGroup.get(row.groupId);
  const skip = (reason: string) => {
    mapping.skipped.push({
      kind: 'job',
      name: `${appName ?? `group ${row.groupId}`}/${name} (xxl-job #${id})`,
      reason,
    });
    return undefined;
  };
  if (appName === undefined) return skip(`its executor group ${row.groupId} was not imported`);
  const glueType = row.glueType || 'BEAN';
  if (!GLUE_TYPES.includes(glueType as never)) return skip(`unknown glue type ${glueType}`);
  const handler = row.handler.trim();
  if (glueType === 'BEAN' && handler === '') return skip('a BEAN job without a handler name');
  const schedule = {
    scheduleType: row.scheduleType,
    scheduleConf: row.scheduleType === 'NONE' ? '' : row.scheduleConf,
  };
  if (!SCHEDULE_TYPES.includes(schedule.scheduleType as never))
    return skip(`unknown schedule type ${schedule.scheduleType}`);

  const label = `${appName}/${name}`;
  if (row.triggerStatus === 1) {
    mapping.runningInXxlJob.push(label);
    mapping.running.push({ appName, name });
  }
  if (glueType === 'GLUE_GROOVY') mapping.groovyJobs.push(label);
  return {
    appName,
    name,
    origin: xxlOrigin(source, 'job', id),
    childJobs: [],
    author: row.author.slice(0, 64),
    alarmEmail: alarmEmails(row.alarmEmail, label, mapping),
    ...schedule,
    timeZone,
    misfireStrategy: known(
      row.misfireStrategy,
      MISFIRE_STRATEGIES,
      'DO_NOTHING',
      'misfire strategy',
      label,
      mapping,
    ),
    executorRouteStrategy: known(
      row.routeStrategy,
      ROUTE_STRATEGIES,
      'FIRST',
      'route strategy',
      label,
      mapping,
    ),
    executorHandler: glueType === 'BEAN' ? handler : '',
    executorParam: row.param,
    executorBlockStrategy: known(
      row.blockStrategy,
      BLOCK_STRATEGIES,
      'SERIAL_EXECUTION',
      'block strategy',
      label,
      mapping,
    ),
    executorTimeout: Math.max(0, row.timeout),
    executorFailRetryCount: Math.min(1000, Math.max(0, row.failRetryCount)),
    glueType,
    glueSource: glueType === 'BEAN' ? '' : row.glueSource,
    glueRemark: glueType === 'BEAN' ? '' : row.glueRemark.slice(0, 128),
    triggerStatus: 0,
  };
}

/** Each job's name: its XXL-JOB name, with its XXL-JOB id when the group repeats it. */
function jobNames(rows: XxlJob[]): Map<number, string> {
  const count = new Map<string, number>();
  const nameOf = (row: XxlJob) => row.name.trim().slice(0, 230) || `xxl-job #${row.id}`;
  for (const row of rows) {
    const key = `${row.groupId}\u0000${nameOf(row)}`;
    count.set(key, (count.get(key) ?? 0) + 1);
  }
  return new Map(
    rows.map((row) => {
      const name = nameOf(row);
      const repeated = (count.get(`${row.groupId}\u0000${name}`) ?? 0) > 1;
      return [row.id, repeated ? `${name} (xxl-job #${row.id})` : name];
    }),
  );
}

function childRefs(
  row: XxlJob,
  job: ExportedJob,
  refByXxlId: Map<number, JobRef>,
  mapping: XxlMapping,
): JobRef[] {
  const refs: JobRef[] = [];
  for (const part of row.childJobIds.split(',')) {
    const id = Number(part.trim());
    if (part.trim() === '' || !Number.isInteger(id)) continue;
    const ref = refByXxlId.get(id);
    if (ref === undefined)
      mapping.notes.push(`${job.appName}/${job.name}: child job #${id} was not imported; left out`);
    else refs.push(ref);
  }
  return refs;
}

function groupVersions(rows: XxlGlueVersion[]): Map<number, XxlGlueVersion[]> {
  const byJob = new Map<number, XxlGlueVersion[]>();
  for (const row of rows) byJob.set(row.jobId, [...(byJob.get(row.jobId) ?? []), row]);
  return byJob;
}

function alarmEmails(value: string, label: string, mapping: XxlMapping): string {
  const addresses = value
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address !== '');
  const valid = addresses.filter((address) => EMAIL.test(address));
  if (valid.length < addresses.length) {
    mapping.notes.push(
      `${label}: alarm e-mail ${addresses.filter((a) => !EMAIL.test(a)).join(', ')} is not an address; dropped`,
    );
  }
  return valid.join(',');
}

function known(
  value: unknown,
  allowed: readonly string[],
  fallback: string,
  what: string,
  label: string,
  mapping: XxlMapping,
): string {
  const given = text(value).trim();
  if (allowed.includes(given)) return given;
  if (given !== '') mapping.notes.push(`${label}: unknown ${what} ${given}; ${fallback} instead`);
  return fallback;
}

/** Column values as text; NULL as ''. */
function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}
