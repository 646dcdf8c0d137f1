/**
 * The workflow resources of the REST API (issue 18) and the client the workflow pages call them
 * with. Until the server's OpenAPI document lists the workflow routes, their types are declared
 * here from the contract, in the generated schema's shape, so the pages call `workflowClient`
 * exactly as others call `client`; once `npm run gen:api` brings them, this file only names them.
 */
import type { WorkflowEdge, WorkflowNode } from '@tickwheel/protocol';
import type { Client } from 'openapi-fetch';
import { client } from './client';
import type { paths } from './schema';

export type { WorkflowEdge, WorkflowNode };

export interface Workflow {
  id: number;
  appId: number;
  name: string;
  description: string;
  scheduleType: string;
  scheduleConf: string;
  timeZone: string;
  misfireStrategy: string;
  concurrency: string;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  alarmChannelIds: number[];
  alarmEmail: string;
  /** 1 while the schedule runs. */
  triggerStatus: number;
  nextFireAt: number | null;
  origin: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface WorkflowBody {
  appId: number;
  name: string;
  description?: string;
  scheduleType: 'NONE' | 'CRON' | 'FIX_RATE' | 'ONCE';
  scheduleConf?: string;
  timeZone?: string;
  misfireStrategy?: 'DO_NOTHING' | 'FIRE_ONCE_NOW';
  concurrency?: 'SERIAL' | 'DISCARD' | 'PARALLEL';
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  alarmChannelIds?: number[];
  alarmEmail?: string;
  triggerStatus?: number;
}

export interface WorkflowRunSummary {
  id: number;
  workflowId: number;
  workflowName: string;
  appId: number;
  status: string;
  triggerType: string;
  param: string | null;
  scheduledAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  parentRunId: number | null;
  parentNodeKey: string | null;
}

export interface WorkflowRunNode {
  key: string;
  type: string;
  status: string;
  fireIds: number[];
  output?: unknown;
  decision?: string | null;
  childRunId?: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  message?: string | null;
  markedBy?: string | null;
}

export interface WorkflowRun extends WorkflowRunSummary {
  nodes: WorkflowRunNode[];
  definition: { nodes: WorkflowNode[]; edges: WorkflowEdge[] };
}

export interface WorkflowFigures {
  total: number;
  /** Workflows whose schedule is on. */
  running: number;
  runsToday: { succeeded: number; failed: number; running: number };
}

export interface ListWorkflowsQuery {
  appId?: number;
  name?: string;
  triggerStatus?: number;
  limit?: number;
  offset?: number;
}

export interface ListWorkflowRunsQuery {
  workflowId?: number;
  appId?: number;
  status?: string;
  limit?: number;
  offset?: number;
}

interface PageOf<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

type Json<T> = { headers: Record<string, unknown>; content: { 'application/json': T } };
interface ErrorBody {
  error: { code: string; field?: string; message: string };
}
type Refusals = { 400: Json<ErrorBody>; 404: Json<ErrorBody>; 409: Json<ErrorBody> };
type IdPath = { query?: never; header?: never; path: { id: number }; cookie?: never };
type NodePath = { query?: never; header?: never; path: { id: number; key: string }; cookie?: never };
type QueryOnly<Q> = { query?: Q; header?: never; path?: never; cookie?: never };
/** An operation without a body (a read, or an action named by its path). */
type Bodiless<P, R> = { parameters: P; requestBody?: never; responses: { 200: Json<R> } & Refusals };
type WithBody<P, B, R, S extends 200 | 201 = 200> = {
  parameters: P;
  requestBody: { content: { 'application/json': B } };
  responses: (S extends 201 ? { 201: Json<R> } : { 200: Json<R> }) & Refusals;
};
/** The workflow routes as the contract has them (operationIds in the comments). */
interface WorkflowPaths {
  '/api/v1/workflows': {
    /** listWorkflows */
    get: Bodiless<QueryOnly<ListWorkflowsQuery>, PageOf<Workflow>>;
    /** createWorkflow */
    post: WithBody<QueryOnly<never>, WorkflowBody, Workflow, 201>;
  };
  '/api/v1/workflows/{id}': {
    /** getWorkflow */
    get: Bodiless<IdPath, Workflow>;
    /** updateWorkflow */
    patch: WithBody<IdPath, Partial<WorkflowBody>, Workflow>;
    /** deleteWorkflow */
    delete: { parameters: IdPath; requestBody?: never; responses: { 204: { content?: never } } & Refusals };
  };
  '/api/v1/workflows/{id}/start': { post: Bodiless<IdPath, Workflow> };
  '/api/v1/workflows/{id}/stop': { post: Bodiless<IdPath, Workflow> };
  '/api/v1/workflows/{id}/trigger': {
    post: WithBody<IdPath, { param?: string }, { runId: number }>;
  };
  '/api/v1/workflow-runs': {
    get: Bodiless<QueryOnly<ListWorkflowRunsQuery>, PageOf<WorkflowRunSummary>>;
  };
  '/api/v1/workflow-runs/{id}': { get: Bodiless<IdPath, WorkflowRun> };
  '/api/v1/workflow-runs/{id}/stop': { post: Bodiless<IdPath, WorkflowRun> };
  '/api/v1/workflow-runs/{id}/nodes/{key}/retry': { post: Bodiless<NodePath, WorkflowRun> };
  '/api/v1/workflow-runs/{id}/nodes/{key}/mark': {
    post: WithBody<NodePath, { status: 'succeeded' | 'skipped' }, WorkflowRun>;
  };
}

/** The API client, knowing the workflow routes too. */
export const workflowClient = client as unknown as Client<paths & WorkflowPaths>;

/** The dashboard's workflow figures: absent from a server that does not have them yet. */
export function workflowFigures(dashboard: object): WorkflowFigures | undefined {
  const figures = (dashboard as { workflows?: WorkflowFigures }).workflows;
  return figures !== undefined && figures !== null && typeof figures.total === 'number' ? figures : undefined;
}
