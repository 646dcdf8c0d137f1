/**
 * The export document of `tickwheel export` / `tickwheel import`: apps, jobs and workflows named
 * by name, never by id, so it moves between servers. A job carries every writable field the
 * server returned (fields of newer servers pass through), its current script, the child jobs by
 * (appName, name), and optionally earlier script versions to replay when it is created. A
 * workflow's JOB nodes name their job, and its WORKFLOW nodes their workflow, by (appName, name).
 *
 * `workflows` came with version 1 unchanged: a document without it (written before workflows)
 * imports as it always did.
 *
 * @example
 * { "format": "tickwheel-export", "version": 1, "exportedAt": "2026-05-01T09:30:00.000Z",
 *   "apps": [{ "appName": "billing", "title": "Billing", "addressType": "AUTO", "addressList": [] }],
 *   "jobs": [{ "appName": "billing", "name": "nightly invoices", "scheduleType": "CRON",
 *              "scheduleConf": "0 0 2 * * ?", "executorHandler": "invoices", "childJobs": [] }] }
 */
import { CliFailure } from '../rest-command.js';

export const EXPORT_FORMAT = 'tickwheel-export';
export const EXPORT_VERSION = 1;

export interface ExportedApp {
  appName: string;
  title: string;
  addressType: 'AUTO' | 'MANUAL';
  /** MANUAL apps only; AUTO apps learn theirs from the registry. */
  addressList: string[];
  /** Where the app was imported from (an importer's record); absent: not said. */
  origin?: string | null;
}

export interface JobRef {
  appName: string;
  name: string;
}

export interface ScriptVersion {
  glueType: string;
  glueSource: string;
  glueRemark: string;
}

export interface ExportedJob extends JobRef {
  childJobs: JobRef[];
  /** Earlier script versions, oldest first, replayed before the current script when the job is created. */
  scriptHistory?: ScriptVersion[];
  /** 1 when the job was scheduled where it was exported; informational: an import never starts jobs. */
  triggerStatus?: number;
  /** The job's other fields, as the REST API's job body names them. */
  [field: string]: unknown;
}

/** A workflow named across servers, as a job is. */
export type WorkflowRef = JobRef;

/** A node whose `jobId` is `job` and whose `workflowId` is `workflow`, by name. */
export interface ExportedWorkflowNode {
  key: string;
  type?: 'JOB' | 'DECISION' | 'WORKFLOW';
  job?: JobRef;
  workflow?: WorkflowRef;
  /** The node's other fields, as the REST API names them (param, expression, position, …). */
  [field: string]: unknown;
}

export interface ExportedWorkflow extends WorkflowRef {
  description?: string;
  scheduleType?: string;
  scheduleConf?: string;
  timeZone?: string;
  misfireStrategy?: string;
  concurrency?: string;
  /** 1 when the schedule was on where it was exported; informational: an import never starts one. */
  triggerStatus?: number;
  alarmEmail?: string;
  /** The alarm channels by name (their ids mean nothing on another server). */
  alarmChannels?: string[];
  nodes: ExportedWorkflowNode[];
  edges: Array<{ from: string; to: string; condition?: string; value?: string }>;
  /** The workflow's other fields, as the REST API's workflow body names them. */
  [field: string]: unknown;
}

export interface ExportDocument {
  format: typeof EXPORT_FORMAT;
  version: number;
  exportedAt: string;
  apps: ExportedApp[];
  jobs: ExportedJob[];
  /** Absent in documents written before workflows. */
  workflows?: ExportedWorkflow[];
}

/** Reads and checks an export document. @throws CliFailure naming what is wrong. */
export function parseDocument(text: string, source: string): ExportDocument {
  let doc: Partial<ExportDocument>;
  try {
    doc = JSON.parse(text) as Partial<ExportDocument>;
  } catch (err) {
    throw new CliFailure('TW_ERR_INVALID_JSON', `${source} is not JSON: ${(err as Error).message}`);
  }
  if (doc.format !== EXPORT_FORMAT)
    throw new CliFailure(
      'TW_ERR_INVALID_FIELD',
      `${source} is not a Tickwheel export (format must be "${EXPORT_FORMAT}")`,
    );
  if (doc.version !== EXPORT_VERSION)
    throw new CliFailure(
      'TW_ERR_INVALID_FIELD',
      `${source} has version ${String(doc.version)}; this CLI reads version ${EXPORT_VERSION}`,
    );
  if (!Array.isArray(doc.apps) || !Array.isArray(doc.jobs))
    throw new CliFailure('TW_ERR_INVALID_FIELD', `${source} needs "apps" and "jobs" arrays`);
  doc.apps.forEach((app, i) => {
    if (typeof app?.appName !== 'string' || app.appName === '')
      throw new CliFailure('TW_ERR_INVALID_FIELD', `${source}: apps[${i}].appName is missing`);
  });
  doc.jobs.forEach((job, i) => {
    if (typeof job?.appName !== 'string' || typeof job.name !== 'string') {
      throw new CliFailure('TW_ERR_INVALID_FIELD', `${source}: jobs[${i}] needs appName and name`);
    }
    if (job.childJobs !== undefined && !Array.isArray(job.childJobs)) {
      throw new CliFailure(
        'TW_ERR_INVALID_FIELD',
        `${source}: jobs[${i}].childJobs must be an array of { appName, name }`,
      );
    }
  });
  if (doc.workflows !== undefined) checkWorkflows(doc.workflows, source);
  return doc as ExportDocument;
}

function checkWorkflows(workflows: unknown, source: string): void {
  if (!Array.isArray(workflows))
    throw new CliFailure('TW_ERR_INVALID_FIELD', `${source}: "workflows" must be an array`);
  workflows.forEach((workflow: Partial<ExportedWorkflow> | null, i) => {
    const at = `${source}: workflows[${i}]`;
    if (typeof workflow?.appName !== 'string' || typeof workflow.name !== 'string')
      throw new CliFailure('TW_ERR_INVALID_FIELD', `${at} needs appName and name`);
    if (!Array.isArray(workflow.nodes) || !Array.isArray(workflow.edges))
      throw new CliFailure('TW_ERR_INVALID_FIELD', `${at} needs "nodes" and "edges" arrays`);
    workflow.nodes.forEach((node, j) => {
      if (typeof node?.key !== 'string')
        throw new CliFailure('TW_ERR_INVALID_FIELD', `${at}.nodes[${j}] needs a key`);
      for (const ref of ['job', 'workflow'] as const) {
        const value = node[ref];
        if (value !== undefined && (typeof value?.appName !== 'string' || typeof value.name !== 'string'))
          throw new CliFailure('TW_ERR_INVALID_FIELD', `${at}.nodes[${j}].${ref} must be { appName, name }`);
      }
    });
  });
}

/** The key of a job across servers. */
export function jobKey(ref: JobRef): string {
  return `${ref.appName}\u0000${ref.name}`;
}
