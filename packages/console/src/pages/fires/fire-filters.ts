/**
 * The fire list's filters and page, kept in the URL query so a link (the jobs page links to
 * `/fires?jobId=12`), a reload or the back button shows the same list:
 * `?appId=3&jobId=12&status=failed,killed&from=<epoch ms>&to=<epoch ms>&page=2&size=50`.
 * Values that do not parse are ignored rather than sent to the API.
 */
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { Query } from '../../api/types';
import { type FireStatusName, isFireStatus, isInFlight } from './fire-status';

export interface FireFilters {
  appId?: number;
  jobId?: number;
  status: FireStatusName[];
  /** Scheduled at or after (epoch ms). */
  from?: number;
  /** Scheduled before (epoch ms). */
  to?: number;
  /** 1-based. */
  page: number;
  pageSize: number;
}

export const PAGE_SIZES = [10, 20, 50, 100] as const;
const DEFAULT_PAGE_SIZE = 20;

function positiveInt(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

export function parseFilters(params: URLSearchParams): FireFilters {
  // Both `status=a,b` and `status=a&status=b` are read.
  const status = params
    .getAll('status')
    .flatMap((value) => value.split(','))
    .filter(isFireStatus);
  const size = positiveInt(params.get('size'));
  return {
    appId: positiveInt(params.get('appId')),
    jobId: positiveInt(params.get('jobId')),
    status: [...new Set(status)],
    from: positiveInt(params.get('from')),
    to: positiveInt(params.get('to')),
    page: positiveInt(params.get('page')) ?? 1,
    pageSize:
      size !== undefined && (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
  };
}

export function filtersToParams(filters: FireFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.appId !== undefined) params.set('appId', String(filters.appId));
  if (filters.jobId !== undefined) params.set('jobId', String(filters.jobId));
  if (filters.status.length > 0) params.set('status', filters.status.join(','));
  if (filters.from !== undefined) params.set('from', String(filters.from));
  if (filters.to !== undefined) params.set('to', String(filters.to));
  if (filters.page !== 1) params.set('page', String(filters.page));
  if (filters.pageSize !== DEFAULT_PAGE_SIZE) params.set('size', String(filters.pageSize));
  return params;
}

/** The `listFires` query of the filters. */
export function toListQuery(filters: FireFilters): Query<'listFires'> {
  return {
    ...(filters.appId === undefined ? {} : { appId: filters.appId }),
    ...(filters.jobId === undefined ? {} : { jobId: filters.jobId }),
    ...(filters.status.length === 0 ? {} : { status: filters.status }),
    ...(filters.from === undefined ? {} : { from: filters.from }),
    ...(filters.to === undefined ? {} : { to: filters.to }),
    limit: filters.pageSize,
    offset: (filters.page - 1) * filters.pageSize,
  };
}

/**
 * Whether the list of these filters can change by itself, so it is worth refreshing: while the
 * time range is open (no end, or an end still ahead) new fires arrive and finish into any status;
 * with an end in the past, only records still pending or running change, so only a filter that
 * can match those (no status filter, or one naming them) keeps refreshing.
 */
export function mayChange(filters: FireFilters, now: number): boolean {
  if (filters.to === undefined || filters.to > now) return true;
  return filters.status.length === 0 || filters.status.some(isInFlight);
}

/** The filters read from the URL, and a setter that writes them back (a filter change goes to page 1). */
export function useFireFilters(): [FireFilters, (change: Partial<FireFilters>) => void] {
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => parseFilters(params), [params]);
  const update = useCallback(
    (change: Partial<FireFilters>) => {
      setParams(
        (current) => {
          const before = parseFilters(current);
          const paging = 'page' in change || 'pageSize' in change;
          return filtersToParams({ ...before, ...(paging ? {} : { page: 1 }), ...change });
        },
        { replace: false },
      );
    },
    [setParams],
  );
  return [filters, update];
}
