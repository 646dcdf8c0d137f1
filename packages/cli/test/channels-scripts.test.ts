/**
 * `tickwheel channel` and `tickwheel script` against a real server: alarm channels created,
 * listed, changed, tested against a real webhook receiver on loopback and deleted; script
 * versions saved from files, listed, shown byte for byte and restored. Exit codes as in
 * exit-codes.ts: 1 refused or failed, 2 usage, 5 not found.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { storeOf } from '@tickwheel/server/internal';
import { type HttpReceiver, startHttpReceiver } from '@tickwheel/test-fixtures/alarm-receivers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertCliBuilt } from './helpers/cli-process.js';
import { cli, cliJson, type RestServer, startRestServer } from './helpers/rest-server.js';

interface AlarmChannel {
  id: number;
  name: string;
  type: string;
  enabled: boolean;
  config: Record<string, unknown>;
}
interface Page<T> {
  items: T[];
  total: number;
}
interface ScriptVersion {
  id: number;
  jobId: number;
  glueType: string;
  glueSource: string;
  glueRemark: string;
}
interface Job {
  id: number;
  glueType: string;
  glueSource: string;
  glueRemark: string;
}

let rest: RestServer;
let receiver: HttpReceiver;
let dir: string;
let appId: number;

beforeAll(async () => {
  assertCliBuilt();
  rest = await startRestServer();
  // The receiver takes alarms posted to /ok and refuses those posted anywhere else.
  receiver = await startHttpReceiver((request) =>
    request.url.startsWith('/ok')
      ? { status: 204 }
      : { status: 503, body: { error: 'down for maintenance' } },
  );
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-cli-scripts-'));
  appId = (
    await storeOf(rest.server).apps.createApp(
      { appName: 'cli-scripts', title: 'Scripts', addressType: 'AUTO' },
      Date.now(),
    )
  ).id;
}, 30_000);

afterAll(async () => {
  await receiver?.close();
  await rest?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('tickwheel channel', { timeout: 60_000 }, () => {
  it('adds, lists, shows, changes and removes alarm channels, by id and by name', async () => {
    const added = await cli(
      [
        'channel',
        'add',
        'cli-hook',
        '--type',
        'webhook',
        '--set',
        `url=${receiver.url}/ok`,
        '--set',
        'secret=s3cret',
      ],
      rest.env,
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^created alarm channel \d+ \(cli-hook, WEBHOOK\), enabled$/m);
    const robot = await cliJson<AlarmChannel>(
      [
        'channel',
        'add',
        'cli-robot',
        '--type',
        'DINGTALK',
        '--disabled',
        '--config',
        JSON.stringify({ url: `${receiver.url}/robot?access_token=abc` }),
      ],
      rest.env,
    );
    expect(robot).toMatchObject({ name: 'cli-robot', type: 'DINGTALK', enabled: false });

    const table = await cli(['channel', 'list'], rest.env);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+TYPE\s+ENABLED\s+TARGET$/);
    expect(table.stdout).toMatch(new RegExp(`cli-hook\\s+WEBHOOK\\s+yes\\s+${receiver.url}/ok`));
    expect(table.stdout).toMatch(/cli-robot\s+DINGTALK\s+no/);
    const robots = await cliJson<Page<AlarmChannel>>(['channel', 'list', '--type', 'dingtalk'], rest.env);
    expect(robots.items.map((item) => item.name)).toEqual(['cli-robot']);

    const shown = await cli(['channel', 'get', 'cli-hook'], rest.env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^config\.url\s+http:\/\/127\.0\.0\.1:\d+\/ok$/m);
    expect(shown.stdout).toMatch(/^config\.secret\s+\*\*\*$/m);
    expect(shown.stdout).not.toContain('s3cret');

    const hookId = (await cliJson<AlarmChannel>(['channel', 'get', 'cli-hook'], rest.env)).id;
    const updated = await cli(
      ['channel', 'update', String(hookId), '--disable', '--name', 'cli-hook-2'],
      rest.env,
    );
    expect(updated.code).toBe(0);
    expect(updated.stdout).toBe(`updated alarm channel ${hookId} (cli-hook-2)\n`);
    const changed = await cliJson<AlarmChannel>(['channel', 'get', String(hookId)], rest.env);
    expect(changed).toMatchObject({ name: 'cli-hook-2', enabled: false });
    // The secret sent back masked was kept; the URL changed to the one set.
    await cli(
      ['channel', 'update', 'cli-hook-2', '--enable', '--set', `url=${receiver.url}/ok/v2`],
      rest.env,
    );
    const stored = await storeOf(rest.server).alarmChannels.findAlarmChannelById(hookId);
    expect(JSON.parse(stored!.config)).toEqual({ url: `${receiver.url}/ok/v2`, secret: 's3cret' });
    expect(stored!.enabled).toBe(1);

    const removed = await cli(['channel', 'rm', 'cli-robot'], rest.env);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(`deleted alarm channel ${robot.id} (cli-robot)\n`);
    const gone = await cli(['channel', 'get', 'cli-robot'], rest.env);
    expect(gone.code).toBe(5);
    expect(gone.stderr).toBe('error: alarm channel cli-robot does not exist\n');
    expect((await cli(['channel', 'get', String(robot.id)], rest.env)).code).toBe(5);
  });

  it('tests a channel: exit 0 when the receiver took the alarm, 1 with its reason when it did not', async () => {
    await cli(
      ['channel', 'add', 'cli-test-ok', '--type', 'WEBHOOK', '--set', `url=${receiver.url}/ok/test`],
      rest.env,
    );
    await cli(
      ['channel', 'add', 'cli-test-down', '--type', 'WEBHOOK', '--set', `url=${receiver.url}/down`],
      rest.env,
    );
    const before = receiver.requests.length;

    const ok = await cli(['channel', 'test', 'cli-test-ok'], rest.env);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^alarm channel \d+ \(cli-test-ok\) took the test alarm in \d+ ms$/m);
    const down = await cli(['channel', 'test', 'cli-test-down'], rest.env);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      /^error: alarm channel \d+ \(cli-test-down\) did not take the test alarm: .*503/,
    );
    const json = await cli(['channel', 'test', 'cli-test-down', '--json'], rest.env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ sent: false });
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'TW_ERR_ALARM_SEND_FAILED' } });

    expect(receiver.requests.slice(before).map((request) => request.url)).toEqual([
      '/ok/test',
      '/down',
      '/down',
    ]);
  });

  it('names the flag of a usage error (exit 2) and passes the server’s refusal on (exit 1)', async () => {
    const badJson = await cli(['channel', 'add', 'x', '--type', 'WEBHOOK', '--config', '{url:'], rest.env);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/^error: --config: not JSON/);
    const notObject = await cli(['channel', 'add', 'x', '--type', 'WEBHOOK', '--config', '[1]'], rest.env);
    expect(notObject.code).toBe(2);
    expect(notObject.stderr).toBe('error: --config: must be a JSON object of settings\n');
    const noConfig = await cli(['channel', 'add', 'x', '--type', 'WEBHOOK'], rest.env);
    expect(noConfig.code).toBe(2);
    expect(noConfig.stderr).toContain('give --config, --config-file or --set');
    const badSet = await cli(['channel', 'add', 'x', '--type', 'WEBHOOK', '--set', 'url'], rest.env);
    expect(badSet.code).toBe(2);
    expect(badSet.stderr).toContain("option '--set <key=value>' argument 'url' is invalid");
    const missingFile = await cli(
      ['channel', 'add', 'x', '--type', 'WEBHOOK', '--config-file', path.join(dir, 'none.json')],
      rest.env,
    );
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toMatch(/^error: --config-file: cannot read /);
    const nothing = await cli(['channel', 'update', 'cli-test-ok'], rest.env);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('nothing to change');

    const refused = await cli(
      ['channel', 'add', 'x', '--type', 'WEBHOOK', '--set', 'url=ftp://example.org/'],
      rest.env,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: .*url/);
    const taken = await cli(
      ['channel', 'add', 'cli-test-ok', '--type', 'WEBHOOK', '--set', `url=${receiver.url}/ok`],
      rest.env,
    );
    expect(taken.code).toBe(1);
  });
});

describe('tickwheel script', { timeout: 60_000 }, () => {
  it('saves files as script versions, lists them, shows one byte for byte and restores an older one', async () => {
    const job = await storeOf(rest.server).jobs.createJob(
      { app_id: appId, name: 'nightly cleanup', glue_type: 'GLUE_SHELL', glue_source: 'echo 0\n' },
      Date.now(),
    );
    const first = path.join(dir, 'v1.sh');
    const second = path.join(dir, 'v2.sh');
    const firstSource = '#!/bin/sh\necho "first: $1"  \n\texit 0\n';
    await writeFile(first, firstSource);
    await writeFile(second, '#!/bin/sh\necho second\n');

    const saved = await cli(
      ['script', 'update', String(job.id), '--file', first, '--remark', 'first cut'],
      rest.env,
    );
    expect(saved.code).toBe(0);
    expect(saved.stdout).toBe(
      `saved the script of job ${job.id} (nightly cleanup) as its newest version, GLUE_SHELL\n`,
    );
    const python = await cliJson<Job>(
      [
        'script',
        'update',
        String(job.id),
        '--file',
        second,
        '--remark',
        'second cut',
        '--type',
        'glue_python',
      ],
      rest.env,
    );
    expect(python).toMatchObject({
      glueType: 'GLUE_PYTHON',
      glueSource: '#!/bin/sh\necho second\n',
      glueRemark: 'second cut',
    });

    const table = await cli(['script', 'versions', String(job.id)], rest.env);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^VERSION\s+TYPE\s+SAVED\s+LINES\s+REMARK$/);
    expect(lines[1]).toMatch(/^\d+\s+GLUE_PYTHON\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+2\s+second cut$/);
    expect(lines[2]).toMatch(/^\d+\s+GLUE_SHELL\s+.*\s+3\s+first cut$/);
    const { items } = await cliJson<{ items: ScriptVersion[] }>(
      ['script', 'versions', String(job.id)],
      rest.env,
    );
    const firstVersion = items.find((item) => item.glueRemark === 'first cut')!;

    const shown = await cli(['script', 'show', String(job.id), String(firstVersion.id)], rest.env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe(firstSource);

    const restored = await cli(['script', 'restore', String(job.id), String(firstVersion.id)], rest.env);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toBe(
      `restored version ${firstVersion.id} as the script of job ${job.id} (nightly cleanup)\n`,
    );
    const now = await cliJson<Job>(['job', 'get', String(job.id)], rest.env);
    expect(now).toMatchObject({ glueType: 'GLUE_SHELL', glueSource: firstSource });
    const after = await cliJson<{ items: ScriptVersion[] }>(['script', 'versions', String(job.id)], rest.env);
    expect(after.items).toHaveLength(items.length + 1);
    expect(after.items[0]!.glueRemark).toBe(`restored version ${firstVersion.id}: first cut`);
  });

  it('says what is wrong: unknown version or job (exit 5), a BEAN job without --type (exit 1), no file (exit 2)', async () => {
    const bean = await storeOf(rest.server).jobs.createJob(
      { app_id: appId, name: 'bean job', executor_handler: 'report' },
      Date.now(),
    );
    const script = path.join(dir, 'bean.sh');
    await writeFile(script, 'echo hi\n');

    const noVersion = await cli(['script', 'show', String(bean.id), '999999'], rest.env);
    expect(noVersion.code).toBe(5);
    expect(noVersion.stderr).toContain(`job ${bean.id} has no script version 999999`);
    expect((await cli(['script', 'restore', String(bean.id), '999999'], rest.env)).code).toBe(5);
    expect((await cli(['script', 'versions', '999999'], rest.env)).code).toBe(5);

    const beanUpdate = await cli(
      ['script', 'update', String(bean.id), '--file', script, '--remark', 'x'],
      rest.env,
    );
    expect(beanUpdate.code).toBe(1);
    expect(beanUpdate.stderr).toContain('glueType');

    const noFile = await cli(
      ['script', 'update', String(bean.id), '--file', path.join(dir, 'missing.sh'), '--remark', 'x'],
      rest.env,
    );
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toMatch(/^error: --file: cannot read /);
    const noRemark = await cli(['script', 'update', String(bean.id), '--file', script], rest.env);
    expect(noRemark.code).toBe(2);
    expect(noRemark.stderr).toContain("required option '--remark <text>' not specified");
    const badId = await cli(['script', 'versions', 'seven'], rest.env);
    expect(badId.code).toBe(2);
  });
});
