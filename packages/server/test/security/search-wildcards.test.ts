/**
 * The listings' substring filters match what was typed, character for character, on every
 * dialect: `%` and `_` are not LIKE wildcards, `!` (the escape character) and `\` (PostgreSQL's
 * and MySQL's default escape) are plain characters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, createApp, createJob, startApiServer } from '../helpers/api-server.js';
import { DIALECTS } from '../helpers/databases.js';

const JOB_NAMES = ['100% done', '100 done', 'a_b', 'axb', 'wow!', 'wow', 'C:\\tmp', 'C:tmp', 'x\\%y', 'x%y'];
const TITLES = ['50% off', '50 off', 'snake_case', 'snakeXcase', 'hey!%', 'back\\slash', 'backslash'];

describe.each(DIALECTS)('search filters on %s', (dialect) => {
  let api: ApiHarness;
  let appId: number;

  beforeAll(async () => {
    api = await startApiServer(dialect);
    appId = await createApp(api, { appName: 'wild_card.app', title: 'wildcards' });
    await createApp(api, { appName: 'wildXcard.app', title: 'no wildcards' });
    for (const title of TITLES) await createApp(api, { title });
    for (const name of JOB_NAMES) {
      await createJob(api, appId, { name, author: name.slice(0, 60), executorHandler: `h ${name}` });
    }
  });
  afterAll(async () => {
    await api?.close();
  });

  async function listed(path: string, param: string, text: string, key: string): Promise<string[]> {
    const res = await api.call('GET', `/api/v1/${path}?${param}=${encodeURIComponent(text)}&limit=200`);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json();
    expect(page.total).toBe(page.items.length);
    return page.items.map((item: Record<string, string>) => item[key]).sort();
  }

  it('listJobs matches % _ ! and \\ in a job name, handler and author literally', async () => {
    const cases: Array<[string, string[]]> = [
      ['%', ['100% done', 'x%y', 'x\\%y']],
      ['0% d', ['100% done']],
      ['_', ['a_b']],
      ['a_b', ['a_b']],
      ['!', ['wow!']],
      ['\\', ['C:\\tmp', 'x\\%y']],
      ['C:\\t', ['C:\\tmp']],
      ['\\%', ['x\\%y']],
    ];
    for (const [text, names] of cases) {
      expect(await listed('jobs', 'name', text, 'name'), `name=${text}`).toEqual([...names].sort());
      const handlers = (await listed('jobs', 'executorHandler', text, 'executorHandler')).map((h) =>
        h.slice(2),
      );
      expect(handlers, `executorHandler=${text}`).toEqual([...names].sort());
      expect(await listed('jobs', 'author', text, 'author'), `author=${text}`).toEqual([...names].sort());
    }
  });

  it('listApps matches % _ ! and \\ in an app name and title literally', async () => {
    expect(await listed('apps', 'appName', 'd_c', 'appName')).toEqual(['wild_card.app']);
    expect(await listed('apps', 'appName', '_', 'appName')).toEqual(['wild_card.app']);
    expect(await listed('apps', 'title', '%', 'title')).toEqual(['50% off', 'hey!%'].sort());
    expect(await listed('apps', 'title', '0% o', 'title')).toEqual(['50% off']);
    expect(await listed('apps', 'title', 'e_c', 'title')).toEqual(['snake_case']);
    expect(await listed('apps', 'title', '!%', 'title')).toEqual(['hey!%']);
    expect(await listed('apps', 'title', 'k\\s', 'title')).toEqual(['back\\slash']);
  });

  it("a user's app listing filters the same way", async () => {
    const token = (await api.call('POST', '/api/v1/tokens', { body: { name: 'same as admin' } })).json()
      .token as string;
    const res = await api.call('GET', `/api/v1/apps?title=${encodeURIComponent('_')}`, { token });
    expect(res.json().items.map((a: { title: string }) => a.title)).toEqual(['snake_case']);
  });
});
