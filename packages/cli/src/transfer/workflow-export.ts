/**
 * The workflows of an export document: each workflow's fields, its nodes with their job and
 * nested workflow named by (appName, name) instead of id, its edges, and its alarm channels by
 * name. A node whose job or workflow the caller may not see keeps no reference: the import then
 * refuses that workflow, naming the node, rather than run it on a guess.
 */
import { type ApiClient, ApiError, call, type Workflow, type WorkflowNode } from '../api-client.js';
import type { ExportedWorkflow, ExportedWorkflowNode, JobRef, WorkflowRef } from './document.js';
import { listAll, listAllWorkflows, type ServerCapabilities, workflowFields } from './server-state.js';

export async function exportWorkflows(
  client: ApiClient,
  capabilities: ServerCapabilities,
  appNameById: ReadonlyMap<number, string>,
  jobRefById: ReadonlyMap<number, JobRef>,
): Promise<ExportedWorkflow[]> {
  const workflows = await listAllWorkflows(client);
  const workflowRefById = new Map<number, WorkflowRef>(
    workflows.map((workflow) => [
      workflow.id,
      { appName: appNameById.get(workflow.appId) ?? '', name: workflow.name },
    ]),
  );
  const channelNames = await channelNamesOf(client, workflows);
  const fields = workflowFields(capabilities);
  return workflows
    .map((workflow) => {
      const scalars: Record<string, unknown> = {};
      // The fields are the server's (its OpenAPI document's), which may be newer than this CLI's types.
      const values: Record<string, unknown> = workflow;
      for (const field of fields) {
        if (values[field] !== undefined) scalars[field] = values[field];
      }
      const channels =
        channelNames === undefined
          ? {}
          : {
              alarmChannels: (workflow.alarmChannelIds ?? []).flatMap((id) => {
                const name = channelNames.get(id);
                return name === undefined ? [] : [name];
              }),
            };
      // The graph last: it is the long part, read after the fields that say what the workflow is.
      const exported: ExportedWorkflow = {
        appName: appNameById.get(workflow.appId) ?? '',
        name: workflow.name,
        ...scalars,
        triggerStatus: workflow.triggerStatus,
        ...channels,
        nodes: workflow.nodes.map((node) => exportNode(node, jobRefById, workflowRefById)),
        edges: workflow.edges,
      };
      return exported;
    })
    .sort((a, b) => a.appName.localeCompare(b.appName) || a.name.localeCompare(b.name));
}

function exportNode(
  node: WorkflowNode,
  jobRefById: ReadonlyMap<number, JobRef>,
  workflowRefById: ReadonlyMap<number, WorkflowRef>,
): ExportedWorkflowNode {
  const { jobId, workflowId, ...rest } = node;
  const exported: ExportedWorkflowNode = { ...rest };
  const job = jobId === undefined ? undefined : jobRefById.get(jobId);
  if (job !== undefined) exported.job = job;
  const workflow = workflowId === undefined ? undefined : workflowRefById.get(workflowId);
  if (workflow !== undefined) exported.workflow = workflow;
  return exported;
}

/**
 * The names of the alarm channels by id, when any workflow has one; undefined when the caller
 * may not list them (only admins may): the document then says nothing of the channels, and an
 * import leaves those of the target's workflows as they are.
 */
async function channelNamesOf(
  client: ApiClient,
  workflows: Workflow[],
): Promise<Map<number, string> | undefined> {
  if (!workflows.some((workflow) => (workflow.alarmChannelIds ?? []).length > 0)) return new Map();
  try {
    const channels = await listAll((limit, offset) =>
      call(client.GET('/api/v1/alarm-channels', { params: { query: { limit, offset } } })),
    );
    return new Map(channels.map((channel) => [channel.id, channel.name]));
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) return undefined;
    throw err;
  }
}
