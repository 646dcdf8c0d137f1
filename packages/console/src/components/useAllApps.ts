/**
 * Every app the caller may see (all pages of `listApps`), for pickers and for naming an app
 * by its id in lists.
 */
import { useQuery } from '@tanstack/react-query';
import { call, client } from '../api/client';
import type { App } from '../api/types';

/** The largest page `listApps` answers. */
const PAGE = 200;

export async function fetchAllApps(): Promise<App[]> {
  const apps: App[] = [];
  for (;;) {
    const page = await call(
      client.GET('/api/v1/apps', { params: { query: { limit: PAGE, offset: apps.length } } }),
    );
    apps.push(...page.items);
    if (page.items.length === 0 || apps.length >= page.total) return apps;
  }
}

export function useAllApps() {
  const query = useQuery({ queryKey: ['apps', 'all'], queryFn: fetchAllApps });
  const apps = query.data ?? [];
  const byId = new Map(apps.map((app) => [app.id, app]));
  return { ...query, apps, byId };
}
