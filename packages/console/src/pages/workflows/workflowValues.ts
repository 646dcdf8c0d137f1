/**
 * The workflow form's values and how they map to the API: a stored workflow (to edit or copy)
 * becomes form values, and form values with the canvas's graph become a create or update body.
 */
import {
  WORKFLOW_CONCURRENCIES,
  WORKFLOW_SCHEDULE_TYPES,
  type WorkflowConcurrency,
  type WorkflowScheduleType,
} from '@tickwheel/protocol';
import type { Workflow, WorkflowBody, WorkflowEdge, WorkflowNode } from '../../api/workflows';
import { browserTimeZone, oneOf } from '../jobs/options';

export const MISFIRE_STRATEGIES = ['DO_NOTHING', 'FIRE_ONCE_NOW'] as const;
type Misfire = (typeof MISFIRE_STRATEGIES)[number];

export interface WorkflowFormValues {
  appId: number | undefined;
  name: string;
  description: string;
  scheduleType: WorkflowScheduleType | undefined;
  scheduleConf: string;
  timeZone: string;
  misfireStrategy: Misfire | undefined;
  concurrency: WorkflowConcurrency | undefined;
  alarmChannelIds: number[];
  alarmEmail: string;
  startNow: boolean;
}

export function newWorkflowValues(appId: number | undefined): WorkflowFormValues {
  return {
    appId,
    name: '',
    description: '',
    scheduleType: 'NONE',
    scheduleConf: '',
    timeZone: browserTimeZone(),
    misfireStrategy: 'DO_NOTHING',
    concurrency: 'SERIAL',
    alarmChannelIds: [],
    alarmEmail: '',
    startNow: false,
  };
}

export function workflowValues(workflow: Workflow): WorkflowFormValues {
  return {
    appId: workflow.appId,
    name: workflow.name,
    description: workflow.description,
    scheduleType: oneOf(WORKFLOW_SCHEDULE_TYPES, workflow.scheduleType),
    scheduleConf: workflow.scheduleConf,
    timeZone: workflow.timeZone,
    misfireStrategy: oneOf(MISFIRE_STRATEGIES, workflow.misfireStrategy),
    concurrency: oneOf(WORKFLOW_CONCURRENCIES, workflow.concurrency),
    alarmChannelIds: workflow.alarmChannelIds,
    alarmEmail: workflow.alarmEmail,
    startNow: false,
  };
}

/** The body of submitted values (the form's rules require every select) and the graph. */
export function workflowBody(
  values: WorkflowFormValues,
  graph: { nodes: WorkflowNode[]; edges: WorkflowEdge[] },
): WorkflowBody {
  const scheduleType = values.scheduleType!;
  return {
    appId: values.appId!,
    name: values.name.trim(),
    description: values.description.trim(),
    scheduleType,
    // NONE takes no configuration; a leftover expression from another type would be refused.
    scheduleConf: scheduleType === 'NONE' ? '' : values.scheduleConf.trim(),
    timeZone: values.timeZone,
    misfireStrategy: values.misfireStrategy!,
    concurrency: values.concurrency!,
    nodes: graph.nodes,
    edges: graph.edges,
    alarmChannelIds: values.alarmChannelIds,
    alarmEmail: values.alarmEmail.trim(),
  };
}
