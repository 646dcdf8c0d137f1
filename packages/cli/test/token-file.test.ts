/**
 * The executor access token on the command line: `--token-file` keeps it out of the process's
 * command line and environment; `--token` and TICKWHEEL_ACCESS_TOKEN still work but warn; weak
 * tokens are refused.
 */
import { spawnSync } from 'node:child_process';
import { chmod, chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { callExecutor, trigger } from '@tickwheel/test-fixtures/executor-client';
import { startTestServer, type TestServer } from '@tickwheel/test-fixtures/test-server';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertCliBuilt, CLI_BIN, CliProcess, runCli } from './helpers/cli-process.js';

const TOKEN = 'cli-token-file-test-0123456789abcdef';
const ARGV_WARNING = 'warning: a token given with --token is visible to every local user';
const NOBODY = 65_534;
const ENV_WARNING = 'warning: a token in TICKWHEEL_ACCESS_TOKEN stays readable';

/** The CLI process, with its pid to look at its /proc entries. */
class InspectedCli extends CliProcess {
  /** What `/proc/<pid>/cmdline` and `/proc/<pid>/environ` hold, NULs as spaces. */
  async procText(): Promise<string> {
    const pid = this.child.pid;
    const [cmdline, environ] = await Promise.all([
      readFile(`/proc/${pid}/cmdline`, 'utf8'),
      readFile(`/proc/${pid}/environ`, 'utf8'),
    ]);
    return `${cmdline}\n${environ}`.replaceAll('\0', ' ');
  }
}

let dir: string;
let tokenFile: string;
let server: TestServer | undefined;
let cli: InspectedCli | undefined;

beforeAll(() => assertCliBuilt());

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-cli-token-'));
  tokenFile = path.join(dir, 'token');
  await writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
});

afterEach(async () => {
  await cli?.kill();
  await server?.stop();
  cli = undefined;
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** Environment of the CLI without the token variable a developer's shell may have set. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  if (extra.TICKWHEEL_ACCESS_TOKEN === undefined) delete env.TICKWHEEL_ACCESS_TOKEN;
  return env;
}

function executorArgs(...tokenArgs: string[]): string[] {
  return [
    'executor',
    '--app',
    'token-file',
    '--server',
    server!.address,
    ...tokenArgs,
    '--port',
    '0',
    '--log-dir',
    path.join(dir, 'logs'),
    '--enable-scripts',
  ];
}

/** Starts `tickwheel executor` and waits until it has registered with the test server. */
async function startExecutor(args: string[], env = cleanEnv()): Promise<string> {
  server ??= await startTestServer({ accessToken: TOKEN });
  cli = new InspectedCli(executorArgs(...args), env);
  const [, address] = await cli.waitForOutput(/listening on (http:\/\/\S+)/);
  await server.waitFor(() => server!.registrations.length > 0, 5_000, 'registration');
  return address!;
}

describe('tickwheel executor --token-file', () => {
  it('reads the token from the file and keeps it off the command line and out of the environment', async () => {
    const address = await startExecutor(['--token-file', tokenFile]);
    expect((await callExecutor(address, 'beat', {}, { token: TOKEN })).returnT.code).toBe(200);
    const proc = await cli!.procText();
    expect(proc).toContain('--token-file');
    expect(proc).not.toContain(TOKEN);
    expect(cli!.stderr).not.toContain('warning: a token');
  });

  it('--token still works but warns that argv is visible to everyone', async () => {
    const address = await startExecutor(['--token', TOKEN]);
    expect((await callExecutor(address, 'beat', {}, { token: TOKEN })).returnT.code).toBe(200);
    expect(cli!.stderr).toContain(ARGV_WARNING);
    expect(cli!.stderr).toContain('--token-file <path>');
  });

  it('TICKWHEEL_ACCESS_TOKEN still works but warns, and scripts do not inherit it', async () => {
    const address = await startExecutor([], cleanEnv({ TICKWHEEL_ACCESS_TOKEN: TOKEN }));
    expect(cli!.stderr).toContain(ENV_WARNING);
    await callExecutor(
      address,
      'run',
      trigger({ logId: 11, glueType: 'GLUE_SHELL', glueSource: 'env', glueUpdatetime: 1 }),
      { token: TOKEN },
    );
    expect(await server!.callbackFor(11)).toMatchObject({ handleCode: 200 });
    const log = await callExecutor(
      address,
      'log',
      { logDateTim: Date.now(), logId: 11, fromLineNum: 1 },
      { token: TOKEN },
    );
    const content = (log.returnT.content as { logContent: string }).logContent;
    expect(content).toMatch(/^PATH=/m);
    expect(content).not.toContain(TOKEN);
  });

  it('refuses a published default token with exit 2, saying how to make one', () => {
    const { code, stderr } = runCli(['executor', '--app', 'x', '--token', 'default_token'], cleanEnv());
    expect(code).toBe(2);
    expect(stderr).toContain("error: --token: 'default_token' is a published default token");
    expect(stderr).toContain('openssl rand -base64 32');
  });

  it('refuses a short token read from the environment, naming the variable', () => {
    const { code, stderr } = runCli(
      ['executor', '--app', 'x'],
      cleanEnv({ TICKWHEEL_ACCESS_TOKEN: 'short' }),
    );
    expect(code).toBe(2);
    expect(stderr).toContain('error: TICKWHEEL_ACCESS_TOKEN: must be at least 32 characters (got 5)');
  });

  it('refuses a missing or weak token file, and a token given two ways, naming --token-file', async () => {
    const missing = runCli(['executor', '--app', 'x', '--token-file', path.join(dir, 'none')], cleanEnv());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/error: --token-file: cannot read .*none/);

    await writeFile(tokenFile, 'a\n');
    const weak = runCli(['executor', '--app', 'x', '--token-file', tokenFile], cleanEnv());
    expect(weak.code).toBe(2);
    expect(weak.stderr).toContain('error: --token-file: must be at least 32 characters (got 1)');

    const both = runCli(['executor', '--app', 'x', '--token-file', tokenFile, '--token', TOKEN], cleanEnv());
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('error: give the token one way: --token-file or --token, not both');
  });

  it('--uid without root is refused at start with EPERM, naming --uid', async () => {
    // Run as root, the test runs the CLI as nobody, who may switch to no other user.
    const asRoot = process.getuid?.() === 0;
    const otherUid = asRoot ? 0 : 65_534;
    if (asRoot) {
      await chmod(dir, 0o755);
      await chown(tokenFile, NOBODY, NOBODY);
    }
    const args = ['executor', '--app', 'x', '--token-file', tokenFile, '--port', '0'];
    const result = spawnSync(
      process.execPath,
      [CLI_BIN, ...args, '--uid', String(otherUid), '--gid', String(otherUid)],
      { encoding: 'utf8', env: cleanEnv(), timeout: 10_000, ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}) },
    );
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^error: --uid: EPERM: the executor runs as uid \d+, not root/m);
  });
});

describe('tickwheel start --token-file', () => {
  it('gives the server the executor token from the file, not from argv', async () => {
    cli = new InspectedCli(
      [
        'start',
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--data-dir',
        path.join(dir, 'data'),
        '--log-level',
        'warn',
        '--token-file',
        tokenFile,
      ],
      cleanEnv(),
    );
    const [, url] = await cli.waitForOutput(/listening on (http:\/\/\S+)/);
    const registry = {
      registryGroup: 'EXECUTOR',
      registryKey: 'token-file',
      registryValue: 'http://127.0.0.1:9/',
    };
    expect((await callExecutor(url!, 'api/registry', registry, { token: TOKEN })).returnT.code).toBe(200);
    expect(
      (await callExecutor(url!, 'api/registry', registry, { token: `${TOKEN}x` })).returnT.code,
    ).not.toBe(200);
    expect(await cli.procText()).not.toContain(TOKEN);
    expect(cli.stdout).not.toContain(TOKEN);
  });

  it('warns when the token is given with --token, before anything else', () => {
    // A database it refuses ends the start early: the warning comes first all the same.
    const { code, stderr } = runCli(
      ['start', '--data-dir', path.join(dir, 'data'), '--database', 'oracle://db/x', '--token', TOKEN],
      cleanEnv(),
    );
    expect(code).toBe(2);
    expect(stderr).toContain(ARGV_WARNING);
  });
});
