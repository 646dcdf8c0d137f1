/**
 * Names behind the ids a fire record carries: its job (name and time zone) and its app. A fire
 * names only ids, so the list asks for each distinct job on the page once (cached a minute).
 */
import { useQueries, useQuery } from '@tanstack/react-query';
import { ApiError, call, client } from '../../api/client';
import type { App, Job } from '../../api/types';

const NAME_STALE_MS = 60_000;

export function jobQuery(id: number) {
  return {
    queryKey: ['getJob', id],
    queryFn: async (): Promise<Job | null> => {
      try {
        return await call(client.GET('/api/v1/jobs/{id}', { params: { path: { id } } }));
      } catch (err) {
        // A deleted job's records stay in the log: show its id alone.
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
    staleTime: NAME_STALE_MS,
  };
}

/** The jobs behind `ids`: a job, null when it no longer exists, undefined while loading. */
export function useJobsById(ids: readonly number[]): Map<number, Job | null | undefined> {
  const distinct = [...new Set(ids)];
  const results = useQueries({ queries: distinct.map((id) => jobQuery(id)) });
  return new Map(distinct.map((id, i) => [id, results[i]?.data]));
}

export function useJob(id: number | undefined) {
  return useQuery({ ...jobQuery(id ?? 0), enabled: id !== undefined });
}

/** Every app the user may see (the API's largest page; an installation has far fewer apps). */
export function useApps() {
  return useQuery({
    queryKey: ['listApps', { limit: 200 }],
    queryFn: () => call(client.GET('/api/v1/apps', { params: { query: { limit: 200, offset: 0 } } })),
    staleTime: NAME_STALE_MS,
    select: (page): App[] => page.items,
  });
}
