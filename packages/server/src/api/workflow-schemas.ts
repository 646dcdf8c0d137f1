/**
 * The REST API's schemas of workflows and their runs (api/workflows.ts). The graph's own rules
 * (keys, edges between known nodes, no cycle) are checked by `checkWorkflowGraph` from the
 * protocol package, which the console runs too; these schemas check shapes and sizes.
 */
import {
  MISFIRE_STRATEGIES,
  WORKFLOW_CONCURRENCIES,
  WORKFLOW_EDGE_CONDITIONS,
  WORKFLOW_LIMITS,
  WORKFLOW_NODE_STATUSES,
  WORKFLOW_NODE_TYPES,
  WORKFLOW_RUN_STATUSES,
  WORKFLOW_SCHEDULE_TYPES,
} from '@tickwheel/protocol';
import { type Static, Type } from 'typebox';
import { EpochMs, Id, LIMITS, Nullable, Origin, paging } from './schemas.js';
import { ONE_LINE } from './text-rules.js';

/** `${path}`: a placeholder of a node's param. */
const placeholder = (path: string) => `\${${path}}`;
const PARAM_DESCRIPTION = `JOB: the param instead of the job's own; ${placeholder('run.param')}, ${placeholder('A.output')} and ${placeholder('A.output.field')} are filled when the node starts. WORKFLOW: the nested run's param`;

const NodeKey = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: WORKFLOW_LIMITS.keyPattern.source,
  description: 'Unique in the workflow: a letter, then letters, digits, _ and -',
});

export const WorkflowNode = Type.Object(
  {
    key: NodeKey,
    type: Type.Optional(Type.Enum([...WORKFLOW_NODE_TYPES], { description: 'Default JOB' })),
    jobId: Type.Optional(Id),
    param: Type.Optional(
      Nullable(
        Type.String({
          maxLength: LIMITS.executorParamBytes,
          description: PARAM_DESCRIPTION,
        }),
      ),
    ),
    timeoutSeconds: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 2_147_483_647 }))),
    retryCount: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1000 }))),
    expression: Type.Optional(
      Type.String({
        maxLength: WORKFLOW_LIMITS.expressionLength,
        description: 'DECISION: a CEL expression over `run`, `upstream` and `nodes`',
      }),
    ),
    workflowId: Type.Optional(Id),
    continueOnFailure: Type.Optional(Type.Boolean()),
    disabled: Type.Optional(Type.Boolean()),
    position: Type.Optional(
      Type.Object({ x: Type.Number(), y: Type.Number() }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

export const WorkflowEdge = Type.Object(
  {
    from: NodeKey,
    to: NodeKey,
    condition: Type.Optional(Type.Enum([...WORKFLOW_EDGE_CONDITIONS], { description: 'Default SUCCESS' })),
    value: Type.Optional(
      Type.String({
        maxLength: 255,
        description: "From a DECISION: followed when the decision's value is this",
      }),
    ),
  },
  { additionalProperties: false },
);

const workflowFields = {
  name: Type.String({ minLength: 1, maxLength: 255, ...ONE_LINE }),
  description: Type.String({ maxLength: 512 }),
  scheduleType: Type.Enum([...WORKFLOW_SCHEDULE_TYPES]),
  scheduleConf: Type.String({ maxLength: 255, ...ONE_LINE }),
  timeZone: Type.String({ minLength: 1, maxLength: 64, ...ONE_LINE }),
  misfireStrategy: Type.Enum([...MISFIRE_STRATEGIES]),
  concurrency: Type.Enum([...WORKFLOW_CONCURRENCIES], {
    description: 'SERIAL: a new run waits for the running one; DISCARD: it is skipped; PARALLEL',
  }),
  nodes: Type.Array(WorkflowNode, { minItems: 1, maxItems: WORKFLOW_LIMITS.nodes }),
  edges: Type.Array(WorkflowEdge, { maxItems: WORKFLOW_LIMITS.edges }),
  alarmEmail: Type.String({ maxLength: 255, ...ONE_LINE }),
  alarmChannelIds: Type.Array(Id, { maxItems: 20, uniqueItems: true }),
  origin: Origin('workflow'),
};

export const Workflow = Type.Object({
  id: Id,
  appId: Id,
  name: Type.String(),
  description: Type.String(),
  scheduleType: Type.String(),
  scheduleConf: Type.String(),
  timeZone: Type.String(),
  misfireStrategy: Type.String(),
  concurrency: Type.String(),
  nodes: Type.Array(WorkflowNode),
  edges: Type.Array(WorkflowEdge),
  alarmEmail: Type.String(),
  alarmChannelIds: Type.Array(Id),
  origin: Origin('workflow'),
  triggerStatus: Type.Integer({ description: '1 = scheduled, 0 = stopped' }),
  nextFireAt: Nullable(EpochMs),
  createdAt: EpochMs,
  updatedAt: EpochMs,
});
export type Workflow = Static<typeof Workflow>;

export const NewWorkflowBody = Type.Object(
  {
    appId: Id,
    name: workflowFields.name,
    nodes: workflowFields.nodes,
    edges: workflowFields.edges,
    description: Type.Optional(workflowFields.description),
    scheduleType: Type.Optional(workflowFields.scheduleType),
    scheduleConf: Type.Optional(workflowFields.scheduleConf),
    timeZone: Type.Optional(workflowFields.timeZone),
    misfireStrategy: Type.Optional(workflowFields.misfireStrategy),
    concurrency: Type.Optional(workflowFields.concurrency),
    alarmEmail: Type.Optional(workflowFields.alarmEmail),
    alarmChannelIds: Type.Optional(workflowFields.alarmChannelIds),
    origin: Type.Optional(workflowFields.origin),
    triggerStatus: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1, description: '1 starts the schedule at once; default 0' }),
    ),
  },
  { additionalProperties: false },
);
export type NewWorkflowBody = Static<typeof NewWorkflowBody>;

export const WorkflowPatchBody = Type.Object(
  {
    appId: Type.Optional(Id),
    name: Type.Optional(workflowFields.name),
    nodes: Type.Optional(workflowFields.nodes),
    edges: Type.Optional(workflowFields.edges),
    description: Type.Optional(workflowFields.description),
    scheduleType: Type.Optional(workflowFields.scheduleType),
    scheduleConf: Type.Optional(workflowFields.scheduleConf),
    timeZone: Type.Optional(workflowFields.timeZone),
    misfireStrategy: Type.Optional(workflowFields.misfireStrategy),
    concurrency: Type.Optional(workflowFields.concurrency),
    alarmEmail: Type.Optional(workflowFields.alarmEmail),
    alarmChannelIds: Type.Optional(workflowFields.alarmChannelIds),
    origin: Type.Optional(workflowFields.origin),
  },
  { additionalProperties: false },
);
export type WorkflowPatchBody = Static<typeof WorkflowPatchBody>;

export const WorkflowQuery = Type.Object({
  appId: Type.Optional(Id),
  name: Type.Optional(Type.String({ maxLength: 255, description: 'Substring of the name' })),
  triggerStatus: Type.Optional(Type.Integer({ minimum: 0, maximum: 1 })),
  ...paging,
});
export type WorkflowQuery = Static<typeof WorkflowQuery>;

export const TriggerWorkflowBody = Type.Object(
  {
    param: Type.Optional(
      Type.String({ maxLength: WORKFLOW_LIMITS.paramBytes, description: 'The run param every node sees' }),
    ),
  },
  { additionalProperties: false },
);
export type TriggerWorkflowBody = Static<typeof TriggerWorkflowBody>;

export const TriggerWorkflowResult = Type.Object({
  runId: Id,
  status: Type.Enum(['running', 'waiting', 'skipped'], {
    description: 'waiting: behind a running run of a SERIAL workflow; skipped: DISCARD while one runs',
  }),
});

const runSummaryFields = {
  id: Id,
  workflowId: Id,
  workflowName: Type.String(),
  appId: Id,
  status: Type.Enum([...WORKFLOW_RUN_STATUSES]),
  triggerType: Type.String(),
  param: Nullable(Type.String()),
  scheduledAt: EpochMs,
  startedAt: Nullable(EpochMs),
  finishedAt: Nullable(EpochMs),
  parentRunId: Nullable(Id),
  parentNodeKey: Nullable(Type.String()),
};

export const WorkflowRunSummary = Type.Object(runSummaryFields);
export type WorkflowRunSummary = Static<typeof WorkflowRunSummary>;

export const WorkflowRunNode = Type.Object({
  key: Type.String(),
  type: Type.Enum([...WORKFLOW_NODE_TYPES]),
  status: Type.Enum([...WORKFLOW_NODE_STATUSES]),
  fireIds: Type.Array(Id, { description: "The node's fire records, first attempt first" }),
  output: Type.Optional(Type.Unknown({ description: "The node's output (a JOB's handler output)" })),
  decision: Type.Optional(Type.String({ description: "A DECISION's value" })),
  childRunId: Nullable(Id),
  startedAt: Nullable(EpochMs),
  finishedAt: Nullable(EpochMs),
  message: Nullable(Type.String()),
  markedBy: Nullable(Type.String()),
});

export const WorkflowRun = Type.Object({
  ...runSummaryFields,
  nodes: Type.Array(WorkflowRunNode),
  definition: Type.Object({ nodes: Type.Array(WorkflowNode), edges: Type.Array(WorkflowEdge) }),
});
export type WorkflowRun = Static<typeof WorkflowRun>;

export const WorkflowRunQuery = Type.Object({
  workflowId: Type.Optional(Id),
  appId: Type.Optional(Id),
  status: Type.Optional(Type.Enum([...WORKFLOW_RUN_STATUSES])),
  ...paging,
});
export type WorkflowRunQuery = Static<typeof WorkflowRunQuery>;

export const WorkflowNodeParams = Type.Object({ id: Id, key: NodeKey });
export type WorkflowNodeParams = Static<typeof WorkflowNodeParams>;

export const MarkWorkflowNodeBody = Type.Object(
  { status: Type.Enum(['succeeded', 'skipped']) },
  { additionalProperties: false },
);
export type MarkWorkflowNodeBody = Static<typeof MarkWorkflowNodeBody>;
