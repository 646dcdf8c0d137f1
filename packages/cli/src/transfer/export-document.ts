/** Builds the export document of everything the caller may see on a server. */
import { type ApiClient, call, type Job } from '../api-client.js';
import {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportDocument,
  type ExportedApp,
  type ExportedJob,
  type JobRef,
} from './document.js';
import { listAllApps, listAllJobs, serverCapabilities } from './server-state.js';
import { exportWorkflows } from './workflow-export.js';

export async function exportDocument(client: ApiClient, now: Date = new Date()): Promise<ExportDocument> {
  const capabilities = await serverCapabilities(client);
  const { jobFields: fields, operations } = capabilities;
  const apps = (await listAllApps(client)).sort((a, b) => a.appName.localeCompare(b.appName));
  const jobsByApp = await Promise.all(apps.map((app) => listAllJobs(client, app.id)));
  const appNameById = new Map(apps.map((app) => [app.id, app.appName]));
  const allJobs = jobsByApp.flat();
  const refById = new Map<number, JobRef>(
    allJobs.map((job) => [job.id, { appName: appNameById.get(job.appId) ?? '', name: job.name }]),
  );
  const exportedApps: ExportedApp[] = apps.map((app) => ({
    appName: app.appName,
    title: app.title,
    addressType: app.addressType,
    addressList: app.addressType === 'MANUAL' ? app.addressList : [],
  }));
  const exportedJobs: ExportedJob[] = [];
  for (const job of allJobs) {
    const exported = exportJob(job, appNameById.get(job.appId) ?? '', fields, refById);
    if (job.glueType !== 'BEAN' && operations.has('listScriptVersions')) {
      await addScriptHistory(client, job, exported);
    }
    exportedJobs.push(exported);
  }
  exportedJobs.sort((a, b) => a.appName.localeCompare(b.appName) || a.name.localeCompare(b.name));
  // A server without workflows writes the document it always did.
  const workflows = operations.has('listWorkflows')
    ? { workflows: await exportWorkflows(client, capabilities, appNameById, refById) }
    : {};
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: now.toISOString(),
    apps: exportedApps,
    jobs: exportedJobs,
    ...workflows,
  };
}

function exportJob(job: Job, appName: string, fields: string[], refById: Map<number, JobRef>): ExportedJob {
  const exported: ExportedJob = { appName, name: job.name, childJobs: [] };
  // The fields are the server's (its OpenAPI document's), which may be newer than this CLI's types.
  const values: Record<string, unknown> = job;
  for (const field of fields) {
    if (field !== 'name' && values[field] !== undefined) exported[field] = values[field];
  }
  // A child the caller may not see stays out: it would not resolve on import either.
  exported.childJobs = job.childJobIds.map((id) => refById.get(id)).filter((ref) => ref !== undefined);
  exported.triggerStatus = job.triggerStatus;
  return exported;
}

/**
 * The job's earlier script versions, oldest first: every saved version but the newest when it is
 * the current script (the import writes the current script last anyway).
 */
async function addScriptHistory(client: ApiClient, job: Job, exported: ExportedJob): Promise<void> {
  const newestFirst = (
    await call(client.GET('/api/v1/jobs/{id}/script/versions', { params: { path: { id: job.id } } }))
  ).items;
  const [newest, ...older] = newestFirst;
  const isCurrent =
    newest !== undefined &&
    newest.glueType === job.glueType &&
    newest.glueSource === job.glueSource &&
    newest.glueRemark === job.glueRemark;
  const history = (isCurrent ? older : newestFirst)
    .reverse()
    .map(({ glueType, glueSource, glueRemark }) => ({ glueType, glueSource, glueRemark }));
  if (history.length > 0) exported.scriptHistory = history;
}
