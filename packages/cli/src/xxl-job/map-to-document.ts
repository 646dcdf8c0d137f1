/**
 * Maps an XXL-JOB database onto a Tickwheel export document, field by field, and says what it
 * could not map. Tickwheel keeps XXL-JOB's names for route, block and misfire strategies, glue
 * types and schedule types, so most values pass as they are; the differences:
 *
 * - a job's name is its `job_desc` (XXL-JOB has no job name); descriptions repeated within a group
 *   get ` (xxl-job #<id>)` so each job keeps a name of its own and a re-import finds it again;
 * - a cron has no time zone in XXL-JOB (the admin's JVM zone applies): the `timeZone` given;
 * - GLUE_GROOVY jobs (no Tickwheel executor runs Groovy), BEAN jobs without a handler, unknown
 *   glue or schedule types and jobs of groups not imported are left out, and said so;
 * - child job ids are carried by name and remapped to the new ids on import;
 * - `trigger_status` is not carried: every job is created stopped.
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
import type { XxlDatabase, XxlRow } from './read-database.js';

export interface XxlMapping {
  document: ExportDocument;
  /** Groups and jobs left out, with the reason. */
  skipped: Array<{ kind: 'app' | 'job'; name: string; reason: string }>;
  /** Values changed on the way (an unknown strategy replaced by the default, a bad e-mail dropped). */
  notes: string[];
  /** Jobs scheduled in XXL-JOB (trigger_status 1), created stopped here. */
  runningInXxlJob: string[];
  /** Script versions carried over, over all jobs. */
  scriptVersions: number;
}

const APP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
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
  };
  const appNameByGroup = new Map<number, string>();
  for (const group of db.groups) {
    const app = mapGroup(group, mapping);
    if (app !== undefined) {
      mapping.document.apps.push(app);
      appNameByGroup.set(Number(group.id), app.appName);
    }
  }

  const names = jobNames(db.jobs);
  const refByXxlId = new Map<number, JobRef>();
  const mapped: Array<{ row: XxlRow; job: ExportedJob }> = [];
  for (const row of db.jobs) {
    const job = mapJob(row, appNameByGroup, names, options.timeZone, mapping);
    if (job === undefined) continue;
    refByXxlId.set(Number(row.id), { appName: job.appName, name: job.name });
    mapped.push({ row, job });
  }

  const versionsByJob = groupVersions(db.glueVersions);
  for (const { row, job } of mapped) {
    job.childJobs = childRefs(row, job, refByXxlId, mapping);
    if (job.glueType !== 'BEAN') {
      const history = (versionsByJob.get(Number(row.id)) ?? [])
        .slice(-SCRIPT_VERSIONS_KEPT)
        .map((version) => ({
          glueType: GLUE_TYPES.includes(String(version.glue_type) as never)
            ? String(version.glue_type)
            : String(job.glueType),
          glueSource: text(version.glue_source),
          glueRemark: text(version.glue_remark).slice(0, 128),
        }));
      if (history.length > 0) {
        job.scriptHistory = history;
        mapping.scriptVersions += history.length;
      }
    }
    mapping.document.jobs.push(job);
  }
  return mapping;
}

function mapGroup(group: XxlRow, mapping: XxlMapping): ExportedApp | undefined {
  const appName = text(group.app_name).trim();
  if (!APP_NAME.test(appName) || appName.length > 64) {
    mapping.skipped.push({
      kind: 'app',
      name: appName || `group ${String(group.id)}`,
      reason: 'the appName must be letters, digits, ".", "_" or "-" (at most 64); its jobs are left out too',
    });
    return undefined;
  }
  const addresses = text(group.address_list)
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address !== '');
  const manual = Number(group.address_type) === 1;
  if (manual && addresses.length === 0) {
    mapping.notes.push(
      `app ${appName}: manual address list is empty in XXL-JOB; imported as AUTO (executors register)`,
    );
  }
  return {
    appName,
    title: text(group.title).trim() || appName,
    addressType: manual && addresses.length > 0 ? 'MANUAL' : 'AUTO',
    addressList: manual ? addresses : [],
  };
}

function mapJob(
  row: XxlRow,
  appNameByGroup: Map<number, string>,
  names: Map<number, string>,
  timeZone: string,
  mapping: XxlMapping,
): ExportedJob | undefined {
  const id = Number(row.id);
  const name = names.get(id) ?? `xxl-job #${id}`;
  const appName = appNameByGroup.get(Number(row.job_group));
  const skip = (reason: string) => {
    mapping.skipped.push({
      kind: 'job',
      name: `${appName ?? `group ${String(row.job_group)}`}/${name} (xxl-job #${id})`,
      reason,
    });
    return undefined;
  };
  if (appName === undefined) return skip(`its executor group ${String(row.job_group)} was not imported`);
  const glueType = text(row.glue_type) || 'BEAN';
  if (glueType === 'GLUE_GROOVY')
    return skip(
      'GLUE_GROOVY: Tickwheel executors do not run Groovy; rewrite it as a BEAN handler or a script',
    );
  if (!GLUE_TYPES.includes(glueType as never)) return skip(`unknown glue type ${glueType}`);
  const handler = text(row.executor_handler).trim();
  if (glueType === 'BEAN' && handler === '') return skip('a BEAN job without a handler name');
  const schedule = scheduleOf(row);
  if (!SCHEDULE_TYPES.includes(schedule.scheduleType as never))
    return skip(`unknown schedule type ${schedule.scheduleType}`);

  const label = `${appName}/${name}`;
  if (Number(row.trigger_status) === 1) mapping.runningInXxlJob.push(label);
  return {
    appName,
    name,
    childJobs: [],
    author: text(row.author).slice(0, 64),
    alarmEmail: alarmEmails(text(row.alarm_email), label, mapping),
    ...schedule,
    timeZone,
    misfireStrategy: known(
      row.misfire_strategy,
      MISFIRE_STRATEGIES,
      'DO_NOTHING',
      'misfire strategy',
      label,
      mapping,
    ),
    executorRouteStrategy: known(
      row.executor_route_strategy,
      ROUTE_STRATEGIES,
      'FIRST',
      'route strategy',
      label,
      mapping,
    ),
    executorHandler: glueType === 'BEAN' ? handler : '',
    executorParam: text(row.executor_param),
    executorBlockStrategy: known(
      row.executor_block_strategy,
      BLOCK_STRATEGIES,
      'SERIAL_EXECUTION',
      'block strategy',
      label,
      mapping,
    ),
    executorTimeout: Math.max(0, Number(row.executor_timeout) || 0),
    executorFailRetryCount: Math.min(1000, Math.max(0, Number(row.executor_fail_retry_count) || 0)),
    glueType,
    glueSource: glueType === 'BEAN' ? '' : text(row.glue_source),
    glueRemark: glueType === 'BEAN' ? '' : text(row.glue_remark).slice(0, 128),
    triggerStatus: 0,
  };
}

/** 2.3+ keeps `schedule_type`/`schedule_conf`; older versions only a Quartz `job_cron`. */
function scheduleOf(row: XxlRow): { scheduleType: string; scheduleConf: string } {
  if ('schedule_type' in row) {
    const scheduleType = text(row.schedule_type) || 'NONE';
    return { scheduleType, scheduleConf: scheduleType === 'NONE' ? '' : text(row.schedule_conf).trim() };
  }
  const cron = text(row.job_cron).trim();
  return cron === ''
    ? { scheduleType: 'NONE', scheduleConf: '' }
    : { scheduleType: 'CRON', scheduleConf: cron };
}

/** Each job's name: its description, with its XXL-JOB id when the group repeats it. */
function jobNames(rows: XxlRow[]): Map<number, string> {
  const count = new Map<string, number>();
  const descOf = (row: XxlRow) => text(row.job_desc).trim().slice(0, 230) || `xxl-job #${String(row.id)}`;
  for (const row of rows) {
    const key = `${String(row.job_group)}\u0000${descOf(row)}`;
    count.set(key, (count.get(key) ?? 0) + 1);
  }
  return new Map(
    rows.map((row) => {
      const desc = descOf(row);
      const repeated = (count.get(`${String(row.job_group)}\u0000${desc}`) ?? 0) > 1;
      return [Number(row.id), repeated ? `${desc} (xxl-job #${String(row.id)})` : desc];
    }),
  );
}

function childRefs(
  row: XxlRow,
  job: ExportedJob,
  refByXxlId: Map<number, JobRef>,
  mapping: XxlMapping,
): JobRef[] {
  const refs: JobRef[] = [];
  for (const part of text(row.child_jobid).split(',')) {
    const id = Number(part.trim());
    if (part.trim() === '' || !Number.isInteger(id)) continue;
    const ref = refByXxlId.get(id);
    if (ref === undefined)
      mapping.notes.push(`${job.appName}/${job.name}: child job #${id} was not imported; left out`);
    else refs.push(ref);
  }
  return refs;
}

function groupVersions(rows: XxlRow[]): Map<number, XxlRow[]> {
  const byJob = new Map<number, XxlRow[]>();
  for (const row of rows) {
    const jobId = Number(row.job_id);
    byJob.set(jobId, [...(byJob.get(jobId) ?? []), row]);
  }
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
