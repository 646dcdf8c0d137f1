/** The workflow pages' reads: the list, one workflow, the runs, one run (asked again while it runs). */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { ApiError, call, client } from '../../api/client';
import type { ListWorkflowRunsQuery, ListWorkflowsQuery, WorkflowRun } from '../../api/workflows';

/** Query keys: a workflow change invalidates `WORKFLOWS`, a run action `WORKFLOW_RUNS`. */
export const WORKFLOWS = ['workflows'] as const;
export const WORKFLOW_RUNS = ['workflow-runs'] as const;

/** How often a run still going is asked for again. */
const RUN_REFRESH_MS = 1_000;
const RUN_LIST_REFRESH_MS = 5_000;

export function useWorkflowList(query: ListWorkflowsQuery) {
  return useQuery({
    queryKey: [...WORKFLOWS, 'list', query],
    queryFn: () => call(client.GET('/api/v1/workflows', { params: { query } })),
    placeholderData: keepPreviousData,
    refetchInterval: 10_000,
  });
}

export function useWorkflow(id: number | undefined) {
  return useQuery({
    queryKey: [...WORKFLOWS, 'one', id],
    queryFn: () => call(client.GET('/api/v1/workflows/{id}', { params: { path: { id: id! } } })),
    enabled: id !== undefined,
    // The editor is seeded once from the workflow; a background refetch must not reset the canvas.
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnMount: 'always',
  });
}

/** Workflows whose name holds `search`, for a WORKFLOW node's picker. */
export function useWorkflowChoices(search: string) {
  return useQuery({
    queryKey: [...WORKFLOWS, 'choices', search],
    queryFn: () =>
      call(
        client.GET('/api/v1/workflows', {
          params: { query: { name: search || undefined, limit: 50 } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

export function useWorkflowRuns(query: ListWorkflowRunsQuery) {
  return useQuery({
    queryKey: [...WORKFLOW_RUNS, 'list', query],
    queryFn: () => call(client.GET('/api/v1/workflow-runs', { params: { query } })),
    placeholderData: keepPreviousData,
    refetchInterval: RUN_LIST_REFRESH_MS,
  });
}

/** A run still waiting or running moves on by itself. */
export function isRunGoing(run: Pick<WorkflowRun, 'status'>): boolean {
  return run.status === 'running' || run.status === 'waiting';
}

export function useWorkflowRun(id: number | undefined) {
  return useQuery({
    queryKey: [...WORKFLOW_RUNS, 'one', id],
    queryFn: () => call(client.GET('/api/v1/workflow-runs/{id}', { params: { path: { id: id! } } })),
    enabled: id !== undefined,
    refetchInterval: (query) =>
      query.state.data !== undefined && isRunGoing(query.state.data) ? RUN_REFRESH_MS : false,
  });
}

/** A workflow's name for a WORKFLOW node's card (null once it no longer exists). */
export function useWorkflowName(id: number | undefined) {
  return useQuery({
    queryKey: [...WORKFLOWS, 'name', id],
    queryFn: async () => {
      try {
        const found = await call(client.GET('/api/v1/workflows/{id}', { params: { path: { id: id! } } }));
        return found.name;
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
    enabled: id !== undefined,
    staleTime: 60_000,
  });
}
