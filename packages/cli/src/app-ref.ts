/**
 * An app named on the command line by id (`7`) or by appName (`billing`), as people know apps by
 * name and scripts by id.
 */
import { type ApiClient, ApiClientError, type App } from './api-client.js';
import { EXIT_CODES } from './exit-codes.js';

/** The app `ref` names. @throws ApiClientError exit code 5 when no app has that id or name. */
export async function resolveApp(client: ApiClient, ref: string): Promise<App> {
  if (/^\d+$/.test(ref)) return client.getApp(Number(ref));
  const found = await findAppByName(client, ref);
  if (found === undefined) {
    throw new ApiClientError(`app ${ref} does not exist`, {
      status: 404,
      code: 'TW_ERR_NOT_FOUND',
      exitCode: EXIT_CODES.notFound,
    });
  }
  return found;
}

/** The app whose appName is exactly `appName` (the API filters by substring). */
export async function findAppByName(client: ApiClient, appName: string): Promise<App | undefined> {
  const page = await client.listApps({ appName, limit: 200 });
  return page.items.find((app) => app.appName === appName);
}
