/**
 * The workflow lists' filters and page, kept in the URL query so a link or a reload shows the
 * same list: the workflows by app, name and schedule status; the runs by workflow, app and status.
 */
import { WORKFLOW_RUN_STATUSES, type WorkflowRunStatus } from '@tickwheel/protocol';
import type { ListWorkflowRunsQuery, ListWorkflowsQuery } from '../../api/workflows';

export const PAGE_SIZES = [10, 20, 50, 100];
const DEFAULT_PAGE_SIZE = 20;

export type ScheduleFilter = 'running' | 'stopped';

interface Paging {
  page: number;
  pageSize: number;
}

export interface WorkflowFilters extends Paging {
  appId?: number;
  name?: string;
  status?: ScheduleFilter;
}

export interface RunFilters extends Paging {
  workflowId?: number;
  appId?: number;
  status?: WorkflowRunStatus;
}

/** The id in a path segment or query value, or undefined when it is none. */
export function idOf(text: string | null | undefined): number | undefined {
  if (text === null || text === undefined || !/^\d+$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && Number.isSafeInteger(id) ? id : undefined;
}

function positiveInt(text: string | null): number | undefined {
  if (text === null || !/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && Number.isSafeInteger(n) ? n : undefined;
}

function paging(params: URLSearchParams): Paging {
  const pageSize = positiveInt(params.get('pageSize'));
  return {
    page: positiveInt(params.get('page')) ?? 1,
    pageSize: pageSize !== undefined && PAGE_SIZES.includes(pageSize) ? pageSize : DEFAULT_PAGE_SIZE,
  };
}

/** The URL query of `values`, leaving out what is unset or at its default. */
function write(values: Record<string, string | number | undefined>, page: Paging): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values))
    if (value !== undefined) params.set(name, String(value));
  if (page.page !== 1) params.set('page', String(page.page));
  if (page.pageSize !== DEFAULT_PAGE_SIZE) params.set('pageSize', String(page.pageSize));
  return params;
}

export function readWorkflowFilters(params: URLSearchParams): WorkflowFilters {
  const status = params.get('status');
  const name = params.get('name')?.trim();
  return {
    appId: positiveInt(params.get('appId')),
    name: name === undefined || name === '' ? undefined : name,
    status: status === 'running' || status === 'stopped' ? status : undefined,
    ...paging(params),
  };
}

export function writeWorkflowFilters(filters: WorkflowFilters): URLSearchParams {
  return write({ appId: filters.appId, name: filters.name, status: filters.status }, filters);
}

export function workflowListQuery(filters: WorkflowFilters): ListWorkflowsQuery {
  return {
    appId: filters.appId,
    name: filters.name,
    triggerStatus: filters.status === undefined ? undefined : filters.status === 'running' ? 1 : 0,
    limit: filters.pageSize,
    offset: (filters.page - 1) * filters.pageSize,
  };
}

export function readRunFilters(params: URLSearchParams): RunFilters {
  const status = params.get('status') ?? '';
  return {
    workflowId: positiveInt(params.get('workflowId')),
    appId: positiveInt(params.get('appId')),
    status: (WORKFLOW_RUN_STATUSES as readonly string[]).includes(status)
      ? (status as WorkflowRunStatus)
      : undefined,
    ...paging(params),
  };
}

export function writeRunFilters(filters: RunFilters): URLSearchParams {
  return write({ workflowId: filters.workflowId, appId: filters.appId, status: filters.status }, filters);
}

export function runListQuery(filters: RunFilters): ListWorkflowRunsQuery {
  return {
    workflowId: filters.workflowId,
    appId: filters.appId,
    status: filters.status,
    limit: filters.pageSize,
    offset: (filters.page - 1) * filters.pageSize,
  };
}
