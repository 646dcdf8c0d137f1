import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { storeOf } from '@tickwheel/server/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt } from './helpers/cli-process.js';
import {
  cli,
  cliEnv,
  cliJson,
  type RestServer,
  startRestServer,
  startTestExecutor,
  type TestExecutor,
  waitUntil,
} from './helpers/rest-server.js';

interface App {
  id: number;
  appName: string;
  addressType: string;
  addressList: string[];
}
interface Job {
  id: number;
  appId: number;
  name: string;
  scheduleType: string;
  scheduleConf: string;
  timeZone: string;
  executorHandler: string;
  executorParam: string;
  childJobIds: number[];
  triggerStatus: number;
  nextFireAt: number | null;
}
interface Page<T> {
  items: T[];
  total: number;
}
interface Fire {
  id: number;
  jobId: number;
  status: string;
  handleCode: number | null;
}

let rest: RestServer;
let executor: TestExecutor;

beforeAll(async () => {
  assertCliBuilt();
  rest = await startRestServer();
  await storeOf(rest.server).apps.createApp(
    { appName: 'cli-exec', title: 'CLI tests', addressType: 'AUTO' },
    Date.now(),
  );
  executor = await startTestExecutor(rest.server, 'cli-exec', (ex) => {
    ex.handle('echo', async (ctx) => {
      ctx.log(`param=${ctx.param}`);
      return 'echoed';
    });
    ex.handle('slowLines', async (ctx) => {
      for (let i = 1; i <= 5; i++) {
        ctx.log(`line ${i}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      return 'done';
    });
    ex.handle('sleeper', async (ctx) => {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 20_000);
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve(undefined);
        });
      });
    });
  });
}, 30_000);

afterAll(async () => {
  await executor?.close();
  await rest?.close();
});

async function waitForFinal(fireId: number): Promise<Fire> {
  let fire: Fire | undefined;
  await waitUntil(async () => {
    fire = await cliJson<Fire>(['fire', 'get', String(fireId)], rest.env);
    return ['succeeded', 'failed', 'timeout', 'killed'].includes(fire.status);
  });
  return fire!;
}

describe('tickwheel app', { timeout: 60_000 }, () => {
  it('adds, lists, shows and removes apps, by id and by appName', async () => {
    const added = await cli(['app', 'add', 'cli-billing', '--title', 'Billing'], rest.env);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/created app \d+ \(cli-billing\)/);

    const manual = await cliJson<App>(
      ['app', 'add', 'cli-manual', '--address', 'http://127.0.0.1:9999,http://127.0.0.1:9998/'],
      rest.env,
    );
    expect(manual.addressType).toBe('MANUAL');
    expect(manual.addressList).toEqual(['http://127.0.0.1:9999/', 'http://127.0.0.1:9998/']);

    const table = await cli(['app', 'list'], rest.env);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+APP NAME\s+TITLE\s+ADDRESSES\s+ONLINE\s+TOKEN$/);
    expect(table.stdout).toMatch(/cli-billing\s+Billing\s+AUTO\s+0/);

    const byName = await cliJson<App>(['app', 'get', 'cli-manual'], rest.env);
    expect(byName.id).toBe(manual.id);
    const page = await cliJson<Page<App>>(['app', 'list', '--name', 'cli-'], rest.env);
    expect(page.items.map((app) => app.appName)).toEqual(
      expect.arrayContaining(['cli-billing', 'cli-manual']),
    );

    const removed = await cli(['app', 'rm', 'cli-manual'], rest.env);
    expect(removed.code).toBe(0);
    expect((await cli(['app', 'get', String(manual.id)], rest.env)).code).toBe(5);
  });

  it('exits 1 with the server’s message when the server refuses (an app name already taken)', async () => {
    await cli(['app', 'add', 'cli-taken'], rest.env);

    const again = await cli(['app', 'add', 'cli-taken'], rest.env);

    expect(again.code).toBe(1);
    expect(again.stderr).toBe('error: an app named cli-taken already exists\n');
  });
});

describe('tickwheel app tokens', { timeout: 60_000 }, () => {
  /** The answer of the server's executor API to a registration of `appName` with `token`. */
  const registerWith = async (token: string, appName: string) =>
    (
      (await (
        await fetch(new URL('api/registry', rest.server.url), {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'XXL-JOB-ACCESS-TOKEN': token },
          body: JSON.stringify({
            registryGroup: 'EXECUTOR',
            registryKey: appName,
            registryValue: 'http://127.0.0.1:9/',
          }),
        })
      ).json()) as { code: number }
    ).code;

  it('add prints the app’s own executor token once, which registers executors of that app only', async () => {
    const added = await cli(['app', 'add', 'cli-tokens'], rest.env);
    expect(added.code).toBe(0);
    const token = /executor token \(shown this once\): (\S+)/.exec(added.stdout)?.[1];
    expect(token).toBeDefined();
    expect(await registerWith(token!, 'cli-tokens')).toBe(200);
    expect(await registerWith(token!, 'cli-exec')).toBe(500);

    const shown = await cli(['app', 'get', 'cli-tokens'], rest.env);
    expect(shown.stdout).toMatch(/token\s+its own/);
    expect(shown.stdout).not.toContain(token!);
  });

  it('add --installation-token leaves the app in compatibility mode, and the list says so', async () => {
    const added = await cli(['app', 'add', 'cli-compat', '--installation-token'], rest.env);
    expect(added.stdout).toContain('installation-wide token (compatibility mode)');
    expect(await registerWith(rest.server.accessToken, 'cli-compat')).toBe(200);
    const table = await cli(['app', 'list', '--name', 'cli-compat'], rest.env);
    expect(table.stdout).toMatch(/cli-compat\s+cli-compat\s+AUTO\s+\d+\s+installation/);
  });

  it('add --token-file refuses a file that exists before it creates the app, so no token is lost', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'tw-cli-token-'));
    try {
      const taken = path.join(dir, 'taken.token');
      await writeFile(taken, 'something else\n');
      const added = await cli(['app', 'add', 'cli-token-file-taken', '--token-file', taken], rest.env);
      expect(added.code).toBe(2);
      expect(added.stderr).toContain(`--token-file: cannot create ${taken}`);
      expect((await cli(['app', 'get', 'cli-token-file-taken'], rest.env)).code).toBe(5);
      expect(await readFile(taken, 'utf8')).toBe('something else\n');

      // A refused app leaves no empty file behind either.
      const fresh = path.join(dir, 'fresh.token');
      expect((await cli(['app', 'add', 'cli-exec', '--token-file', fresh], rest.env)).code).toBe(1);
      await expect(stat(fresh)).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rotate-token writes the new token to an owner-only file; the old one works for the overlap only', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'tw-cli-token-'));
    try {
      const first = await cliJson<{ accessToken: string }>(['app', 'add', 'cli-rotate'], rest.env);
      const file = path.join(dir, 'cli-rotate.token');
      const rotated = await cli(
        ['app', 'rotate-token', 'cli-rotate', '--overlap', '0', '--token-file', file],
        rest.env,
      );
      expect(rotated.code).toBe(0);
      expect(rotated.stdout).toContain('the previous one no longer works');
      const token = (await readFile(file, 'utf8')).trim();
      expect(rotated.stdout).not.toContain(token);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(await registerWith(token, 'cli-rotate')).toBe(200);
      // The server reads the apps' tokens every 2 s at most: the revoked one is refused soon after.
      await waitUntil(async () => (await registerWith(first.accessToken, 'cli-rotate')) === 500);

      const again = await cli(['app', 'rotate-token', 'cli-rotate', '--overlap', '60'], rest.env);
      expect(again.stdout).toMatch(/the previous one is valid until \d{4}-/);
      expect(await registerWith(token, 'cli-rotate')).toBe(200);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('tickwheel job', { timeout: 60_000 }, () => {
  it('adds a job with a schedule, shows it, updates it, starts, stops and deletes it', async () => {
    const created = await cliJson<Job>(
      [
        'job',
        'add',
        '--app',
        'cli-exec',
        '--name',
        'nightly',
        '--cron',
        '0 30 2 * * ?',
        '--time-zone',
        'Europe/Paris',
        '--handler',
        'echo',
        '--param',
        'a',
      ],
      rest.env,
    );
    expect(created).toMatchObject({
      name: 'nightly',
      scheduleType: 'CRON',
      scheduleConf: '0 30 2 * * ?',
      timeZone: 'Europe/Paris',
      executorHandler: 'echo',
      triggerStatus: 0,
    });

    const shown = await cli(['job', 'get', String(created.id)], rest.env);
    expect(shown.stdout).toMatch(/schedule\s+CRON 0 30 2 \* \* \?/);
    expect(shown.stdout).toMatch(/status\s+stopped/);

    const updated = await cliJson<Job>(['job', 'update', String(created.id), '--param', 'b'], rest.env);
    expect(updated.executorParam).toBe('b');
    expect(updated.scheduleConf).toBe('0 30 2 * * ?');

    const started = await cli(['job', 'start', String(created.id)], rest.env);
    expect(started.stdout).toMatch(/started job \d+ \(nightly\); next fire at \d{4}-\d\d-\d\d/);
    const listed = await cliJson<Page<Job>>(
      ['job', 'list', '--app', 'cli-exec', '--status', 'running'],
      rest.env,
    );
    expect(listed.items.map((job) => job.id)).toEqual([created.id]);
    const stopped = await cliJson<Job>(['job', 'stop', String(created.id)], rest.env);
    expect(stopped.triggerStatus).toBe(0);

    expect((await cli(['job', 'rm', String(created.id)], rest.env)).code).toBe(0);
    expect((await cli(['job', 'get', String(created.id)], rest.env)).code).toBe(5);
  });

  it('lists jobs as a table with the app’s name and the schedule', async () => {
    await cli(
      ['job', 'add', '--app', 'cli-exec', '--name', 'every-minute', '--fix-rate', '60', '--handler', 'echo'],
      rest.env,
    );

    const table = await cli(['job', 'list', '--app', 'cli-exec'], rest.env);

    expect(table.stdout.split('\n')[0]).toMatch(
      /^ID\s+APP\s+NAME\s+SCHEDULE\s+HANDLER\s+STATUS\s+NEXT FIRE$/,
    );
    expect(table.stdout).toMatch(/cli-exec\s+every-minute\s+FIX_RATE 60\s+echo\s+stopped\s+-/);
  });

  it('previews the next fire times of a job', async () => {
    const job = await cliJson<Job>(
      [
        'job',
        'add',
        '--app',
        'cli-exec',
        '--name',
        'daily-utc',
        '--cron',
        '0 0 6 * * ?',
        '--handler',
        'echo',
      ],
      rest.env,
    );

    const preview = await cliJson<{ nextFireTimes: number[] }>(
      ['job', 'next', String(job.id), '-n', '3'],
      rest.env,
    );
    const table = await cli(['job', 'next', String(job.id), '--count', '2'], rest.env);

    expect(preview.nextFireTimes).toHaveLength(3);
    for (const at of preview.nextFireTimes) expect(new Date(at).toISOString()).toMatch(/T06:00:00.000Z$/);
    expect(preview.nextFireTimes[1]! - preview.nextFireTimes[0]!).toBe(86_400_000);
    expect(table.stdout.trim().split('\n')).toHaveLength(3);
    expect(table.stdout).toMatch(/T06:00:00.000Z/);
  });

  it('refuses conflicting schedule flags as a usage error', async () => {
    const result = await cli(
      ['job', 'add', '--app', 'cli-exec', '--name', 'x', '--cron', '0 * * * * ?', '--fix-rate', '5'],
      rest.env,
    );

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/give one schedule/);
  });
});

describe('tickwheel fire', { timeout: 60_000 }, () => {
  it('triggers a job, lists and shows its fire, and prints its log', async () => {
    const job = await cliJson<Job>(
      ['job', 'add', '--app', 'cli-exec', '--name', 'echo-once', '--handler', 'echo', '--param', 'from-job'],
      rest.env,
    );

    const triggered = await cli(['job', 'trigger', String(job.id), '--param', 'from-cli'], rest.env);
    expect(triggered.code).toBe(0);
    const fireId = Number(triggered.stdout.match(/fire (\d+)/)?.[1]);
    const fire = await waitForFinal(fireId);

    expect(fire).toMatchObject({ jobId: job.id, status: 'succeeded', handleCode: 200 });
    const list = await cliJson<Page<Fire>>(['fire', 'list', '--job', String(job.id)], rest.env);
    expect(list.items.map((item) => item.id)).toEqual([fireId]);
    const table = await cli(['fire', 'list', '--job', String(job.id), '--status', 'succeeded'], rest.env);
    expect(table.stdout).toMatch(
      new RegExp(
        `^${fireId}\\s+${job.id}\\s+\\d{4}-\\d\\d-\\d\\d \\S+\\s+API\\s+http://127.0.0.1:\\d+/\\s+succeeded\\s+200`,
        'm',
      ),
    );
    const log = await cli(['fire', 'log', String(fireId)], rest.env);
    expect(log.stdout).toMatch(/param=from-cli/);
  });

  it('follows the log of a running fire line by line until the run is over', async () => {
    const job = await cliJson<Job>(
      ['job', 'add', '--app', 'cli-exec', '--name', 'slow', '--handler', 'slowLines'],
      rest.env,
    );
    const { fireIds } = await cliJson<{ fireIds: number[] }>(['job', 'trigger', String(job.id)], rest.env);
    const started = Date.now();

    const followed = await cli(
      ['fire', 'log', String(fireIds[0]), '--follow', '--interval', '100'],
      rest.env,
    );

    expect(followed.code).toBe(0);
    // The run takes ~1.25 s: the command stays until it is over, not longer than it needs.
    expect(Date.now() - started).toBeGreaterThan(1_000);
    const lines = followed.stdout.split('\n').filter((line) => /line \d/.test(line));
    expect(lines.map((line) => line.match(/line (\d)/)?.[1])).toEqual(['1', '2', '3', '4', '5']);
    expect(followed.stderr).toMatch(new RegExp(`-- fire ${fireIds[0]} succeeded`));
  });

  it('kills a running fire', async () => {
    const job = await cliJson<Job>(
      ['job', 'add', '--app', 'cli-exec', '--name', 'sleepy', '--handler', 'sleeper'],
      rest.env,
    );
    const { fireIds } = await cliJson<{ fireIds: number[] }>(['job', 'trigger', String(job.id)], rest.env);
    const fireId = fireIds[0]!;
    await waitUntil(
      async () => (await cliJson<Fire>(['fire', 'get', String(fireId)], rest.env)).status === 'dispatched',
    );

    const killed = await cli(['fire', 'kill', String(fireId)], rest.env);

    expect(killed.code).toBe(0);
    expect(killed.stdout).toMatch(`killed fire ${fireId} (killed)`);
    const again = await cli(['fire', 'kill', String(fireId)], rest.env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already finished/);
  });
});

describe('exit codes', { timeout: 60_000 }, () => {
  it('exits 3 naming the URL when no server answers', async () => {
    const result = await cli(['job', 'list'], cliEnv('http://127.0.0.1:9/', 'whatever'));

    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: cannot reach the Tickwheel server at http:\/\/127.0.0.1:9\//);
  });

  it('exits 4 when the token is wrong or missing', async () => {
    const bad = await cli(['app', 'list', '--token', 'not-a-token'], rest.env);
    const none = await cli(['app', 'list'], cliEnv(rest.url, undefined));

    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(/the bearer token is not valid \(check --token or TICKWHEEL_TOKEN\)/);
    expect(none.code).toBe(4);
  });

  it('exits 5 with the server’s message for an unknown id, and prints the envelope with --json', async () => {
    const plain = await cli(['job', 'get', '987654'], rest.env);
    const json = await cli(['fire', 'get', '987654', '--json'], rest.env);

    expect(plain.code).toBe(5);
    expect(plain.stderr).toBe('error: job 987654 does not exist\n');
    expect(json.code).toBe(5);
    expect(JSON.parse(json.stderr)).toEqual({
      error: { code: 'TW_ERR_NOT_FOUND', message: 'fire 987654 does not exist' },
    });
  });

  it('names an app no one has with the API’s code for it, TW_ERR_UNKNOWN_APP', async () => {
    const json = await cli(['job', 'list', '--app', 'no-such-app', '--json'], rest.env);

    expect(json.code).toBe(5);
    expect(JSON.parse(json.stderr)).toEqual({
      error: { code: 'TW_ERR_UNKNOWN_APP', message: 'app no-such-app does not exist' },
    });
  });

  it('exits 2 on a usage error', async () => {
    expect((await cli(['job', 'get', 'seven'], rest.env)).code).toBe(2);
    expect((await cli(['job', 'frobnicate'], rest.env)).code).toBe(2);
    expect((await cli(['fire', 'list', '--url', 'ftp://x'], rest.env)).code).toBe(2);
  });
});
