/**
 * Applies an export document to a server, idempotently: an app is matched by appName (the name
 * its executors register with), a job by its `origin` when the document gives one (where an
 * importer found it: a renamed job is found again) and otherwise by (appName, name), a workflow
 * by (appName, name) once the jobs are written (see workflow-import.ts). What is
 * missing is created, what differs is updated (only the fields that differ), the rest is left
 * alone — so a second import of the same document changes nothing, and an import from another
 * source with the same names takes the jobs over (their origin then names the new source) rather
 * than making them twice. Jobs are created stopped and an import never starts or stops a job.
 * With `dryRun` it reads the server and reports what it would do, writing nothing.
 *
 * Child jobs are set in a second pass, once every job of the document has an id. A new job with
 * `scriptHistory` is created with its oldest version and brought forward one version at a time,
 * so the server keeps the history as script versions.
 *
 * A new app gets an executor token of its own, which the server answers only at its creation:
 * the report carries it (`appTokens`) to be shown once. With `appCredential: 'installation'` new
 * apps use the installation-wide token instead (compatibility mode), for a fleet whose executors
 * all hold one token, as XXL-JOB's do.
 */
import { isDeepStrictEqual } from 'node:util';
import { type ApiClient, ApiError, type App, type Body, call, type Job } from '../api-client.js';
import { CliFailure } from '../rest-command.js';
import { type ExportDocument, type ExportedApp, type ExportedJob, type JobRef, jobKey } from './document.js';
import { listAllApps, listAllJobs, serverCapabilities } from './server-state.js';
import { importWorkflows } from './workflow-import.js';

export interface Outcomes {
  created: string[];
  updated: string[];
  unchanged: string[];
}

export interface ImportReport {
  apps: Outcomes;
  jobs: Outcomes;
  workflows: Outcomes;
  /** What could not be written, with the server's reason. */
  failed: Array<{ kind: 'app' | 'job' | 'workflow'; name: string; message: string }>;
  notes: string[];
  /** The executor tokens of the apps created with their own: shown this once. */
  appTokens: Array<{ appName: string; accessToken: string }>;
}

export interface ImportOptions {
  /** Called after each app, job and workflow: `done` of `total`. */
  onProgress?(done: number, total: number): void;
  /**
   * The executor token of each app created: `'app'`, its own (default); `'installation'`, the
   * installation-wide token (compatibility mode).
   */
  appCredential?: 'app' | 'installation';
  /** Read the server and report what would be created, updated or left; write nothing. */
  dryRun?: boolean;
  /** Called at the end with every job of the document as it is on the server now, by `jobKey`. */
  onJobs?(jobs: ReadonlyMap<string, Job>): void;
}

export async function importDocument(
  client: ApiClient,
  doc: ExportDocument,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const report: ImportReport = {
    apps: { created: [], updated: [], unchanged: [] },
    jobs: { created: [], updated: [], unchanged: [] },
    workflows: { created: [], updated: [], unchanged: [] },
    failed: [],
    notes: [],
    appTokens: [],
  };
  const docWorkflows = doc.workflows ?? [];
  const total = doc.apps.length + doc.jobs.length + docWorkflows.length;
  let done = 0;
  const step = () => options.onProgress?.(++done, total);

  const capabilities = await serverCapabilities(client);
  const writable = new Set(capabilities.jobFields);
  noteUnknownFields(doc.jobs, writable, report);

  const existingApps = new Map((await listAllApps(client)).map((app) => [app.appName, app]));
  const apps = new Map<string, App>();
  const dryRun = options.dryRun === true;
  for (const app of doc.apps) {
    const applied = await guarded(report, 'app', app.appName, () =>
      applyApp(client, app, existingApps, report, options.appCredential ?? 'app', dryRun),
    );
    if (applied !== undefined) apps.set(app.appName, applied);
    step();
  }
  // Jobs may name apps the document does not list (a hand-written file): use the server's.
  for (const [appName, app] of existingApps) if (!apps.has(appName)) apps.set(appName, app);

  const existing = await existingJobsOf(client, doc.jobs, apps);
  const matches = matchJobs(doc.jobs, existing);
  const jobs = new Map<string, Job>();
  const outcomeOf = new Map<string, keyof Outcomes>();
  for (const job of doc.jobs) {
    const key = jobKey(job);
    const app = apps.get(job.appName);
    if (app === undefined) {
      report.failed.push({ kind: 'job', name: label(job), message: `app ${job.appName} does not exist` });
      step();
      continue;
    }
    const applied = await guarded(report, 'job', label(job), () =>
      applyJob(client, job, app, matches.get(key) ?? [], writable, dryRun),
    );
    if (applied !== undefined) {
      jobs.set(key, applied.job);
      outcomeOf.set(key, applied.outcome);
    }
    step();
  }

  for (const job of doc.jobs) {
    const key = jobKey(job);
    const target = jobs.get(key);
    if (target === undefined) continue;
    const changed = await guarded(report, 'job', label(job), () =>
      applyChildren(client, job, target, jobs, report, dryRun),
    );
    if (changed && outcomeOf.get(key) === 'unchanged') outcomeOf.set(key, 'updated');
  }
  for (const job of doc.jobs) {
    const outcome = outcomeOf.get(jobKey(job));
    if (outcome !== undefined) report.jobs[outcome].push(label(job));
  }

  await importWorkflows(docWorkflows, {
    client,
    capabilities,
    apps,
    jobs,
    dryRun,
    done(workflow, outcome) {
      if (typeof outcome === 'string') report.workflows[outcome].push(label(workflow));
      else report.failed.push({ kind: 'workflow', name: label(workflow), message: outcome.failed });
      step();
    },
    note: (text) => report.notes.push(text),
    guard: async (workflow, write) => {
      const written = await guarded(report, 'workflow', label(workflow), write);
      if (written === undefined) step();
      return written;
    },
  });
  options.onJobs?.(jobs);
  return report;
}

/** Ids the dry run gives what it would create: negative, never a server's. */
let plannedIds = 0;

async function applyApp(
  client: ApiClient,
  app: ExportedApp,
  existing: Map<string, App>,
  report: ImportReport,
  credential: 'app' | 'installation',
  dryRun: boolean,
): Promise<App> {
  const addressType = app.addressType ?? 'AUTO';
  const addressList = addressType === 'MANUAL' ? (app.addressList ?? []) : [];
  const found = existing.get(app.appName);
  const origin = app.origin === undefined ? {} : { origin: app.origin };
  if (found === undefined) {
    const body = {
      appName: app.appName,
      title: app.title ?? app.appName,
      addressType,
      ...(addressType === 'MANUAL' ? { addressList } : {}),
      ...(credential === 'installation' ? { useInstallationToken: true } : {}),
      ...origin,
    };
    report.apps.created.push(app.appName);
    if (dryRun) return { id: --plannedIds, addressList, ...body } as unknown as App;
    const created = await call(client.POST('/api/v1/apps', { body }));
    if (created.accessToken !== null && created.accessToken !== undefined) {
      report.appTokens.push({ appName: created.appName, accessToken: created.accessToken });
    }
    const { accessToken: _shownOnce, ...resource } = created;
    return resource;
  }
  const patch: Record<string, unknown> = {};
  if (app.title !== undefined && app.title !== found.title) patch.title = app.title;
  if (addressType !== found.addressType) patch.addressType = addressType;
  if (addressType === 'MANUAL' && !sameAddresses(addressList, found.addressList))
    patch.addressList = addressList;
  // A server without the field answers no origin: nothing to compare, nothing to send.
  if (app.origin !== undefined && 'origin' in found && found.origin !== app.origin) patch.origin = app.origin;
  if (Object.keys(patch).length === 0) {
    report.apps.unchanged.push(app.appName);
    return found;
  }
  report.apps.updated.push(app.appName);
  if (dryRun) return { ...found, ...patch } as App;
  return call(
    client.PATCH('/api/v1/apps/{id}', {
      params: { path: { id: found.id } },
      body: patch as Body<'updateApp'>,
    }),
  );
}

async function applyJob(
  client: ApiClient,
  job: ExportedJob,
  app: App,
  matches: Job[],
  writable: Set<string>,
  dryRun: boolean,
): Promise<{ job: Job; outcome: keyof Outcomes }> {
  const fields = writableFieldsOf(job, writable);
  if (matches.length > 1) {
    throw new CliFailure(
      'TW_ERR_CONFLICT',
      `${matches.length} jobs of app ${app.appName} are named "${job.name}" (ids ${matches.map((m) => m.id).join(', ')}); rename all but one`,
    );
  }
  const [found] = matches;
  if (found === undefined) {
    if (dryRun) {
      return {
        job: { ...fields, id: --plannedIds, appId: app.id, childJobIds: [] } as unknown as Job,
        outcome: 'created',
      };
    }
    return { job: await createJob(client, job, app, fields), outcome: 'created' };
  }
  // Found by origin in another app (its XXL-JOB group changed): moved to the document's.
  const moved = found.appId === app.id ? {} : { appId: app.id };
  const current: Record<string, unknown> = found;
  const patch = {
    ...moved,
    ...Object.fromEntries(
      Object.entries(fields).filter(([key, value]) => !isDeepStrictEqual(current[key], value)),
    ),
  };
  if (Object.keys(patch).length === 0) return { job: found, outcome: 'unchanged' };
  if (dryRun) return { job: { ...found, ...patch } as Job, outcome: 'updated' };
  return { job: await updateJob(client, found.id, patch), outcome: 'updated' };
}

/** Creates the job; with a script history, oldest version first, then each later one. */
async function createJob(
  client: ApiClient,
  job: ExportedJob,
  app: App,
  fields: Record<string, unknown>,
): Promise<Job> {
  const [first, ...later] = job.scriptHistory ?? [];
  if (first === undefined) return postJob(client, { ...fields, appId: app.id });
  const created = await postJob(client, { ...fields, ...first, appId: app.id });
  for (const version of later) await updateJob(client, created.id, { ...version });
  const current = {
    glueType: fields.glueType ?? created.glueType,
    glueSource: fields.glueSource ?? created.glueSource,
    glueRemark: fields.glueRemark ?? created.glueRemark,
  };
  return updateJob(client, created.id, current);
}

/*
 * A job's fields are the document's, written as the server's OpenAPI document names them (which
 * may be newer than this CLI's types): the bodies are checked by the server, not here.
 */
function postJob(client: ApiClient, body: Record<string, unknown>): Promise<Job> {
  return call(client.POST('/api/v1/jobs', { body: body as Body<'createJob'> }));
}

function updateJob(client: ApiClient, id: number, patch: Record<string, unknown>): Promise<Job> {
  return call(
    client.PATCH('/api/v1/jobs/{id}', { params: { path: { id } }, body: patch as Body<'updateJob'> }),
  );
}

/** Sets the job's child jobs to those the document names; true when they changed. */
async function applyChildren(
  client: ApiClient,
  job: ExportedJob,
  target: Job,
  jobs: Map<string, Job>,
  report: ImportReport,
  dryRun: boolean,
): Promise<boolean> {
  const ids: number[] = [];
  for (const ref of job.childJobs ?? []) {
    const child = jobs.get(jobKey(ref));
    if (child === undefined)
      report.notes.push(`${label(job)}: child job ${label(ref)} was not imported; left out`);
    else ids.push(child.id);
  }
  if (isDeepStrictEqual([...ids].sort(), [...target.childJobIds].sort())) return false;
  if (dryRun) return true;
  const updated = await updateJob(client, target.id, { childJobIds: ids });
  jobs.set(jobKey(job), updated);
  return true;
}

/** Every job of the apps the document's jobs name, with the appName it is under. */
async function existingJobsOf(
  client: ApiClient,
  docJobs: ExportedJob[],
  apps: Map<string, App>,
): Promise<Array<{ appName: string; job: Job }>> {
  const existing: Array<{ appName: string; job: Job }> = [];
  for (const appName of new Set(docJobs.map((job) => job.appName))) {
    const app = apps.get(appName);
    // A planned app (dry run) has no jobs yet.
    if (app === undefined || app.id < 0) continue;
    for (const job of await listAllJobs(client, app.id)) existing.push({ appName, job });
  }
  return existing;
}

/**
 * The server's job(s) each document job is, by `jobKey`: first the job with the same origin;
 * else the jobs of the same app and name, but not one whose origin another document job claims
 * (that one is found by its origin) nor one already taken. More than one by name is a conflict
 * the caller reports.
 */
function matchJobs(
  docJobs: ExportedJob[],
  existing: Array<{ appName: string; job: Job }>,
): Map<string, Job[]> {
  const byOrigin = new Map<string, Job>();
  for (const { job } of existing) {
    const origin = job.origin;
    if (typeof origin === 'string' && origin !== '' && !byOrigin.has(origin)) byOrigin.set(origin, job);
  }
  const docOrigins = new Set(docJobs.flatMap((job) => (typeof job.origin === 'string' ? [job.origin] : [])));
  const taken = new Set<number>();
  const matches = new Map<string, Job[]>();
  for (const job of docJobs) {
    const found = typeof job.origin === 'string' ? byOrigin.get(job.origin) : undefined;
    if (found !== undefined) {
      taken.add(found.id);
      matches.set(jobKey(job), [found]);
    }
  }
  for (const job of docJobs) {
    const key = jobKey(job);
    if (matches.has(key)) continue;
    const byName = existing
      .filter(
        (e) =>
          jobKey({ appName: e.appName, name: e.job.name }) === key &&
          !taken.has(e.job.id) &&
          !(typeof e.job.origin === 'string' && docOrigins.has(e.job.origin)),
      )
      .map((e) => e.job);
    for (const found of byName) taken.add(found.id);
    matches.set(key, byName);
  }
  return matches;
}

function writableFieldsOf(job: ExportedJob, writable: Set<string>): Record<string, unknown> {
  const fields: Record<string, unknown> = { name: job.name };
  for (const [key, value] of Object.entries(job)) {
    if (writable.has(key) && value !== undefined) fields[key] = value;
  }
  return fields;
}

const DOCUMENT_KEYS = new Set(['appName', 'name', 'childJobs', 'scriptHistory', 'triggerStatus']);

function noteUnknownFields(jobs: ExportedJob[], writable: Set<string>, report: ImportReport): void {
  const unknown = new Set<string>();
  for (const job of jobs)
    for (const key of Object.keys(job)) if (!writable.has(key) && !DOCUMENT_KEYS.has(key)) unknown.add(key);
  if (unknown.size > 0)
    report.notes.push(`this server has no job field ${[...unknown].sort().join(', ')}; ignored`);
}

/** Runs one write; a refusal is recorded in the report and the import goes on. */
async function guarded<T>(
  report: ImportReport,
  kind: 'app' | 'job' | 'workflow',
  name: string,
  write: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await write();
  } catch (err) {
    // An outage or bad credentials stop the import: every later write would fail the same way.
    if (err instanceof ApiError && (err.status === 0 || err.status === 401)) throw err;
    report.failed.push({ kind, name, message: err instanceof Error ? err.message : String(err) });
    return undefined;
  }
}

function label(ref: JobRef): string {
  return `${ref.appName}/${ref.name}`;
}

function sameAddresses(a: string[], b: string[]): boolean {
  const normalise = (list: string[]) =>
    list
      .map((address) => {
        try {
          return new URL(address.trim()).href;
        } catch {
          return address;
        }
      })
      .sort();
  return isDeepStrictEqual(normalise(a), normalise(b));
}
