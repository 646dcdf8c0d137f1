/** The jobs pages' reads, shared by the list, the form and the trigger dialog. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { call, client } from '../../api/client';
import type { Query } from '../../api/types';

/** Query keys: every job change invalidates `JOBS`, which covers the list, one job and the pickers. */
export const JOBS = ['jobs'] as const;

/** The largest page the API serves; the channel picker loads one such page. */
const PAGE_MAX = 200;

export function useJobList(query: Query<'listJobs'>) {
  return useQuery({
    queryKey: [...JOBS, 'list', query],
    queryFn: () => call(client.GET('/api/v1/jobs', { params: { query } })),
    placeholderData: keepPreviousData,
    // Next fire times move on by themselves.
    refetchInterval: 10_000,
  });
}

export function useJob(id: number | undefined) {
  return useQuery({
    queryKey: [...JOBS, 'one', id],
    queryFn: () => call(client.GET('/api/v1/jobs/{id}', { params: { path: { id: id! } } })),
    enabled: id !== undefined,
    // The form is seeded once from the job; a background refetch must not reset what is typed.
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnMount: 'always',
  });
}

/** Jobs whose name holds `search`, for the child-job picker. */
export function useJobChoices(search: string) {
  return useQuery({
    queryKey: [...JOBS, 'choices', search],
    queryFn: () =>
      call(client.GET('/api/v1/jobs', { params: { query: { name: search || undefined, limit: 50 } } })),
    placeholderData: keepPreviousData,
  });
}

/** Alarm channels are an admin's to list; for anyone else the query answers 403. */
export function useAlarmChannels(enabled: boolean) {
  return useQuery({
    enabled,
    queryKey: ['alarm-channels', 'all'],
    queryFn: () => call(client.GET('/api/v1/alarm-channels', { params: { query: { limit: PAGE_MAX } } })),
    staleTime: 30_000,
  });
}

export function useAppExecutors(appId: number | undefined, enabled: boolean) {
  return useQuery({
    queryKey: ['apps', 'executors', appId],
    queryFn: () => call(client.GET('/api/v1/apps/{id}/executors', { params: { path: { id: appId! } } })),
    enabled: enabled && appId !== undefined,
  });
}

/** `value` once it has stayed the same for `delayMs`. */
export function useDebounced<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
