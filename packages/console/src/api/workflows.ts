/** The workflow resources of the REST API (issue 18), named after what the workflow pages call them. */
import type { Body, Ok, Query } from './types';

export type Workflow = Ok<'getWorkflow'>;
export type WorkflowBody = Body<'createWorkflow'>;
export type WorkflowNode = Workflow['nodes'][number];
export type WorkflowEdge = Workflow['edges'][number];
export type WorkflowRunSummary = Ok<'listWorkflowRuns'>['items'][number];
export type WorkflowRun = Ok<'getWorkflowRun'>;
export type WorkflowRunNode = WorkflowRun['nodes'][number];
export type ListWorkflowsQuery = Query<'listWorkflows'>;
export type ListWorkflowRunsQuery = Query<'listWorkflowRuns'>;
