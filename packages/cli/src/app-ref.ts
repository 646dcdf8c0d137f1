/**
 * An app named on the command line by id (`7`) or by appName (`billing`), as people know apps by
 * name and scripts by id.
 */
import { type ApiClient, type App, call, notFound } from './api-client.js';

/** The app `ref` names. @throws ApiError status 404 (exit code 5) when no app has that id or name. */
export async function resolveApp(client: ApiClient, ref: string): Promise<App> {
  if (/^\d+$/.test(ref))
    return call(client.GET('/api/v1/apps/{id}', { params: { path: { id: Number(ref) } } }));
  const found = await findAppByName(client, ref);
  if (found === undefined) throw notFound(`app ${ref} does not exist`, 'TW_ERR_UNKNOWN_APP');
  return found;
}

/** The app whose appName is exactly `appName` (the API filters by substring). */
export async function findAppByName(client: ApiClient, appName: string): Promise<App | undefined> {
  const page = await call(client.GET('/api/v1/apps', { params: { query: { appName, limit: 200 } } }));
  return page.items.find((app) => app.appName === appName);
}
