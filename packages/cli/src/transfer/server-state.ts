/**
 * What a server holds, read whole for export and import: every app, every job of an app, every
 * workflow, and the job and workflow fields its `createJob` and `createWorkflow` bodies accept
 * (read from its OpenAPI document, so fields that later servers add travel without a new CLI).
 */
import {
  type ApiClient,
  type App,
  call,
  type Job,
  type OpenApiDocument,
  readOpenApiDocument,
  type Workflow,
} from '../api-client.js';

/** Fields of a job body that are not carried by name in an export document. */
const NOT_EXPORTED = new Set(['appId', 'childJobIds', 'triggerStatus']);

/**
 * Ids of other records (`alarmChannelIds`) mean nothing on another server: such fields are not
 * carried (child jobs travel by name instead).
 */
function isLocalIds(field: string): boolean {
  return field.endsWith('Ids');
}

/** The fields of the job bodies of servers without a readable OpenAPI document. */
const BASE_JOB_FIELDS = [
  'name',
  'author',
  'alarmEmail',
  'scheduleType',
  'scheduleConf',
  'timeZone',
  'misfireStrategy',
  'executorRouteStrategy',
  'executorHandler',
  'executorParam',
  'executorBlockStrategy',
  'executorTimeout',
  'executorFailRetryCount',
  'glueType',
  'glueSource',
  'glueRemark',
];

/**
 * Fields of a workflow body that the document carries otherwise: by name (appId, the nodes' and
 * channels' ids), or not written by an import (triggerStatus).
 */
const NOT_EXPORTED_OF_WORKFLOWS = new Set(['appId', 'name', 'triggerStatus', 'nodes', 'edges']);

/** The workflow fields of the contract, for a server whose OpenAPI document does not list them. */
const BASE_WORKFLOW_FIELDS = [
  'description',
  'scheduleType',
  'scheduleConf',
  'timeZone',
  'misfireStrategy',
  'concurrency',
  'alarmEmail',
];

/** Every item of a paged listing, 200 at a time. */
export async function listAll<T>(
  fetchPage: (limit: number, offset: number) => Promise<{ items: T[]; total: number }>,
): Promise<T[]> {
  const items: T[] = [];
  for (let offset = 0; ; ) {
    const page = await fetchPage(200, offset);
    items.push(...page.items);
    offset += page.items.length;
    if (page.items.length === 0 || offset >= page.total) return items;
  }
}

export function listAllApps(client: ApiClient): Promise<App[]> {
  return listAll((limit, offset) =>
    call(client.GET('/api/v1/apps', { params: { query: { limit, offset } } })),
  );
}

export function listAllJobs(client: ApiClient, appId: number): Promise<Job[]> {
  return listAll((limit, offset) =>
    call(client.GET('/api/v1/jobs', { params: { query: { appId, limit, offset } } })),
  );
}

export function listAllWorkflows(client: ApiClient): Promise<Workflow[]> {
  return listAll((limit, offset) =>
    call(client.GET('/api/v1/workflows', { params: { query: { limit, offset } } })),
  );
}

/**
 * The scalar fields of a workflow its `createWorkflow` accepts, the export carries and the import
 * writes: all but the name, app, graph, ids and schedule state, which travel otherwise.
 */
export function workflowFields(capabilities: ServerCapabilities): string[] {
  const fields = capabilities.bodyFields('createWorkflow');
  if (fields.length === 0) return BASE_WORKFLOW_FIELDS;
  return fields.filter((field) => !NOT_EXPORTED_OF_WORKFLOWS.has(field) && !isLocalIds(field));
}

/** What a server offers, from its OpenAPI document. */
export interface ServerCapabilities {
  /** The job fields (besides appId, childJobIds, triggerStatus) its `createJob` accepts. */
  jobFields: string[];
  /** Its operationIds. */
  operations: Set<string>;
  /** The fields of an operation's JSON body (empty when the document does not say). */
  bodyFields(operationId: string): string[];
}

export async function serverCapabilities(client: ApiClient): Promise<ServerCapabilities> {
  const doc = await readOpenApiDocument(client);
  const operations = new Set<string>();
  for (const byMethod of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(byMethod)) {
      if (operation.operationId !== undefined) operations.add(operation.operationId);
    }
  }
  return {
    jobFields: writableJobFields(doc),
    operations,
    bodyFields: (operationId) => Object.keys(bodySchemaOf(doc, operationId)?.properties ?? {}),
  };
}

function bodySchemaOf(doc: OpenApiDocument, operationId: string): { properties?: object } | undefined {
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      if (operation.operationId !== operationId) continue;
      return (operation.requestBody as { content?: Record<string, { schema?: { properties?: object } }> })
        ?.content?.['application/json']?.schema;
    }
  }
  return undefined;
}

function writableJobFields(doc: OpenApiDocument): string[] {
  const schema = bodySchemaOf(doc, 'createJob');
  if (schema?.properties === undefined) return BASE_JOB_FIELDS;
  return Object.keys(schema.properties).filter((field) => !NOT_EXPORTED.has(field) && !isLocalIds(field));
}
