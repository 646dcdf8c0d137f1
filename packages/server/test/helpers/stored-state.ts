/**
 * Everything the REST API writes, read straight from the store: the suites that try bad input
 * compare it before and after a refused request, which must leave it as it was. A token's
 * `last_used_at` is left out: authenticating the request writes it, whatever the request asks.
 */
import type { Store } from '../../src/store/index.js';

const ALL = 100_000;

export async function storedState(store: Store): Promise<unknown> {
  const jobs = await store.jobs.listJobs({ limit: ALL });
  const users = await store.users.listUsers(ALL, 0);
  return {
    apps: await store.apps.listApps({ limit: ALL }),
    jobs,
    scriptVersions: await Promise.all(jobs.map((job) => store.jobs.listGlueVersions(job.id))),
    fires: await store.fires.listFires({ limit: ALL }),
    users,
    apiTokens: await Promise.all(
      users.map(async (user) =>
        (await store.users.listApiTokens(user.id)).map(({ last_used_at: _lastUsedAt, ...token }) => token),
      ),
    ),
    alarmChannels: await store.alarmChannels.listAlarmChannels(),
    audit: await store.audit.listAudit({ limit: ALL }),
  };
}
