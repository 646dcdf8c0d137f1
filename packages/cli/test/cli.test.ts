import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { callExecutor, trigger } from '@tickwheel/test-fixtures/executor-client';
import { waitUntilStopped } from '@tickwheel/test-fixtures/processes';
import { startTestServer, type TestServer } from '@tickwheel/test-fixtures/test-server';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertCliBuilt, CliProcess, runCli } from './helpers/cli-process.js';

const TOKEN = 'cli-test-token-0123456789abcdefghij';
let logDir: string;
let server: TestServer | undefined;
let cli: CliProcess | undefined;

beforeAll(() => assertCliBuilt());

beforeEach(async () => {
  logDir = await mkdtemp(path.join(os.tmpdir(), 'tw-cli-'));
});

afterEach(async () => {
  await cli?.kill();
  await server?.stop();
  cli = undefined;
  server = undefined;
  await rm(logDir, { recursive: true, force: true });
});

/** Calls the executor at `address` with the test token; answers the ReturnT. */
async function call(address: string, name: string, body: unknown) {
  return (await callExecutor(address, name, body, { token: TOKEN })).returnT;
}

/** Reads a run's log through the `log` call until the script has printed `pid=<n>`. */
async function scriptPid(address: string, logId: number, logDateTim: number): Promise<number> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const answer = await call(address, 'log', { logDateTim, logId, fromLineNum: 1 });
    const match = JSON.stringify(answer).match(/pid=(\d+)/);
    if (match) return Number(match[1]);
    if (Date.now() > deadline) throw new Error(`no pid in the log of run ${logId}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function executorArgs(serverAddress: string): string[] {
  return [
    'executor',
    '--app',
    'cli-scripts',
    '--server',
    serverAddress,
    '--token',
    TOKEN,
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--log-dir',
    logDir,
    '--enable-scripts',
  ];
}

describe('tickwheel', () => {
  it('--help lists the commands', () => {
    const { code, stdout } = runCli(['--help']);
    expect(code).toBe(0);
    for (const command of ['start', 'migrate', 'executor', 'demo']) {
      expect(stdout).toMatch(new RegExp(`^\\s+${command} \\[options\\]`, 'm'));
    }
  });

  it('--version prints the package version', async () => {
    const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
    const { code, stdout } = runCli(['--version']);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(manifest.version);
  });

  it('an unknown command is a usage error (exit 2)', () => {
    const { code, stderr } = runCli(['frobnicate']);
    expect(code).toBe(2);
    expect(stderr).toContain("error: unknown command 'frobnicate'");
  });
});

describe('tickwheel executor', () => {
  it('without --app fails with a message naming the flag and exit 2', () => {
    const { code, stderr } = runCli(['executor', '--token', TOKEN]);
    expect(code).toBe(2);
    expect(stderr).toContain("error: required option '--app <name>' not specified");
  });

  it('names the flag of a value the executor refuses, with exit 2', () => {
    const { code, stderr } = runCli(['executor', '--app', 'x', '--token', TOKEN, '--port', '70000']);
    expect(code).toBe(2);
    expect(stderr).toContain('error: --port: must be an integer from 0 to 65535');
  });

  it('names the flag of a malformed server address', () => {
    const { code, stderr } = runCli([
      'executor',
      '--app',
      'x',
      '--token',
      TOKEN,
      '--server',
      'http://a/,ftp://b/',
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain('error: --server (address 2): must be an http(s) URL, got "ftp://b/"');
  });

  it('refuses a bad --protocol with the allowed choices', () => {
    const { code, stderr } = runCli(['executor', '--app', 'x', '--token', TOKEN, '--protocol', 'G9']);
    expect(code).toBe(2);
    expect(stderr).toContain('Allowed choices are G2, G3, G4');
  });

  it('refuses a bad --log-layout with the allowed choices', () => {
    const { code, stderr } = runCli(['executor', '--app', 'x', '--token', TOKEN, '--log-layout', 'one-file']);
    expect(code).toBe(2);
    expect(stderr).toContain('Allowed choices are file-per-run, file-per-day');
  });

  it('--log-layout file-per-day keeps a script run log in the day file and reads it back', async () => {
    server = await startTestServer({ accessToken: TOKEN });
    cli = new CliProcess([...executorArgs(server.address), '--log-layout', 'file-per-day']);
    const [, address] = await cli.waitForOutput(/listening on (http:\/\/\S+)/);
    const logDateTime = Date.now();
    const run = trigger({
      logId: 701,
      logDateTime,
      glueType: 'GLUE_SHELL',
      glueSource: 'echo "in the day file"',
    });
    expect((await call(address!, 'run', run)).code).toBe(200);
    expect(await server.callbackFor(701)).toMatchObject({ logId: 701, handleCode: 200 });
    const log = await call(address!, 'log', { logDateTim: logDateTime, logId: 701, fromLineNum: 1 });
    expect(JSON.stringify(log)).toContain('in the day file');
    const folders = (await readdir(logDir)).filter((name) => /^\d{4}-\d{2}-\d{2}$/.test(name));
    expect(folders).toHaveLength(1);
    expect((await readdir(path.join(logDir, folders[0]!))).sort()).toEqual(['runs.idx', 'runs.log']);
  });

  it('refuses to start without a token unless --insecure', () => {
    const env = { ...process.env, TICKWHEEL_ACCESS_TOKEN: '' };
    const { code, stderr } = runCli(['executor', '--app', 'x', '--port', '0'], env);
    expect(code).toBe(2);
    expect(stderr).toContain(
      'error: --token-file is required (or --token, or TICKWHEEL_ACCESS_TOKEN); pass --insecure',
    );
  });

  it('registers, runs a GLUE_SHELL job sent over HTTP, calls back, and unregisters on SIGTERM', async () => {
    server = await startTestServer({ accessToken: TOKEN });
    cli = new CliProcess(executorArgs(server.address));
    const [, address] = await cli.waitForOutput(/listening on (http:\/\/\S+)/);
    // The next line may come in a later chunk of the pipe: wait for it rather than read at once.
    const [registering] = await cli.waitForOutput(/Registering \S+ with \S+/);
    expect(registering).toBe(`Registering ${address} with ${server.address}`);
    await server.waitFor(() => server!.registrations.length > 0, 5_000, 'registration');
    expect(server.registrations[0]).toEqual({
      registryGroup: 'EXECUTOR',
      registryKey: 'cli-scripts',
      registryValue: address,
      instance: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });

    const answer = await call(
      address!,
      'run',
      trigger({
        jobId: 5,
        logId: 501,
        glueType: 'GLUE_SHELL',
        glueSource: 'echo "hello $1 from shard $2/$3"',
        glueUpdatetime: 1,
        executorParams: 'world',
      }),
    );
    expect(answer.code).toBe(200);
    expect(await server.callbackFor(501)).toMatchObject({ logId: 501, handleCode: 200 });
    const log = await call(address!, 'log', { logDateTim: Date.now(), logId: 501, fromLineNum: 1 });
    expect(JSON.stringify(log)).toContain('hello world from shard 0/1');

    cli.signal('SIGTERM');
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(server.removals).toEqual([
      { registryGroup: 'EXECUTOR', registryKey: 'cli-scripts', registryValue: address },
    ]);
  });

  it('exits at once on a second SIGTERM, taking a running script down with it', async () => {
    server = await startTestServer({ accessToken: TOKEN });
    cli = new CliProcess(executorArgs(server.address));
    const [, address] = await cli.waitForOutput(/listening on (http:\/\/\S+)/);
    const logDateTime = Date.now();
    const run = trigger({
      logId: 601,
      logDateTime,
      glueType: 'GLUE_SHELL',
      glueSource: 'echo "pid=$$"; sleep 30',
    });
    expect((await call(address!, 'run', run)).code).toBe(200);
    const pid = await scriptPid(address!, 601, logDateTime);

    cli.signal('SIGTERM');
    await cli.waitForOutput(/SIGTERM: stopping/);
    const secondAt = Date.now();
    cli.signal('SIGTERM');
    expect(await cli.exited).toEqual({ code: 143, signal: null });
    expect(Date.now() - secondAt).toBeLessThan(1_000);
    expect(await waitUntilStopped(pid, 2_000)).toBe(true);
  });

  it('reads the token from TICKWHEEL_ACCESS_TOKEN', async () => {
    server = await startTestServer({ accessToken: TOKEN });
    const args = executorArgs(server.address).filter((arg) => arg !== '--token' && arg !== TOKEN);
    cli = new CliProcess(args, { ...process.env, TICKWHEEL_ACCESS_TOKEN: TOKEN });
    const [, address] = await cli.waitForOutput(/listening on (http:\/\/\S+)/);
    expect((await call(address!, 'beat', {})).code).toBe(200);
  });
});

describe('tickwheel demo', () => {
  it('starts the demo executor, says how to run its jobs, runs one, and stops on SIGTERM', async () => {
    server = await startTestServer({ accessToken: TOKEN });
    cli = new CliProcess(['demo', '--port', '0', '--log-dir', logDir, '--server', server.address], {
      ...process.env,
      TICKWHEEL_ACCESS_TOKEN: TOKEN,
    });
    const [, address] = await cli.waitForOutput(/listening on (http:\/\/\S+)/);
    expect(cli.stdout).toContain(
      'Tickwheel demo executor: the example app of examples/demo-executor on its own',
    );
    expect(cli.stdout).toContain(`Access token: ${TOKEN}`);
    expect(cli.stdout).toContain(`curl -s ${address}run -H 'XXL-JOB-ACCESS-TOKEN: ${TOKEN}'`);

    const answer = await call(
      address!,
      'run',
      trigger({ executorHandler: 'report-progress', executorParams: '2', logId: 7 }),
    );
    expect(answer.code).toBe(200);
    expect(await server.callbackFor(7)).toMatchObject({ handleCode: 200, handleMsg: 'reported 2 steps' });

    cli.signal('SIGTERM');
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(server.removals).toHaveLength(1);
  });
});
