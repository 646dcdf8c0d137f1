/**
 * The jobs list's filters and page, kept in the URL query (`?appId=2&status=running&name=report
 * &page=3`) so a link or a reload shows the same list. Anything unreadable in the URL is ignored.
 */
import type { Query } from '../../api/types';

export type StatusFilter = 'running' | 'stopped';

export interface ListFilters {
  appId?: number;
  status?: StatusFilter;
  name?: string;
  handler?: string;
  author?: string;
  page: number;
  pageSize: number;
}

export const PAGE_SIZES = [10, 20, 50, 100];
const DEFAULT_PAGE_SIZE = 20;

function positiveInt(text: string | null): number | undefined {
  if (text === null || !/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && Number.isSafeInteger(n) ? n : undefined;
}

function text(value: string | null): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

export function readFilters(params: URLSearchParams): ListFilters {
  const status = params.get('status');
  const pageSize = positiveInt(params.get('pageSize'));
  return {
    appId: positiveInt(params.get('appId')),
    status: status === 'running' || status === 'stopped' ? status : undefined,
    name: text(params.get('name')),
    handler: text(params.get('handler')),
    author: text(params.get('author')),
    page: positiveInt(params.get('page')) ?? 1,
    pageSize: pageSize !== undefined && PAGE_SIZES.includes(pageSize) ? pageSize : DEFAULT_PAGE_SIZE,
  };
}

/** The URL query of `filters`, leaving out what is at its default. */
export function writeFilters(filters: ListFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.appId !== undefined) params.set('appId', String(filters.appId));
  if (filters.status !== undefined) params.set('status', filters.status);
  if (filters.name !== undefined) params.set('name', filters.name);
  if (filters.handler !== undefined) params.set('handler', filters.handler);
  if (filters.author !== undefined) params.set('author', filters.author);
  if (filters.page !== 1) params.set('page', String(filters.page));
  if (filters.pageSize !== DEFAULT_PAGE_SIZE) params.set('pageSize', String(filters.pageSize));
  return params;
}

export function listQuery(filters: ListFilters): Query<'listJobs'> {
  return {
    appId: filters.appId,
    name: filters.name,
    executorHandler: filters.handler,
    author: filters.author,
    triggerStatus: filters.status === undefined ? undefined : filters.status === 'running' ? 1 : 0,
    limit: filters.pageSize,
    offset: (filters.page - 1) * filters.pageSize,
  };
}
