/**
 * The first start's secrets survive the terminal that showed them: they are kept owner-only in
 * `<data-dir>/initial-secrets.txt` until the admin password is changed, and
 * `tickwheel admin reset-password` sets a new password straight in the store.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertCliBuilt, CLI_BIN, CliProcess, runCli } from './helpers/cli-process.js';

let dataDir: string;
let cli: CliProcess | undefined;

beforeAll(() => assertCliBuilt());

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'tw-cli-secrets-'));
});

afterEach(async () => {
  await cli?.kill();
  cli = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

const secretsFile = () => path.join(dataDir, 'initial-secrets.txt');

/** `tickwheel start` on the test's data dir; resolves with its base URL once it listens. */
async function start(): Promise<string> {
  cli = new CliProcess([
    'start',
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--data-dir',
    dataDir,
    '--log-level',
    'warn',
  ]);
  const [, url] = await cli.waitForOutput(/listening on (http:\/\/\S+)/);
  await cli.waitForOutput(/Ctrl\+C stops/);
  return url!;
}

async function stop(): Promise<void> {
  cli!.signal('SIGTERM');
  expect((await cli!.exited).code).toBe(0);
  cli = undefined;
}

/** Signs in; the session cookie and CSRF token, or the refusal's status. */
async function signIn(url: string, username: string, password: string) {
  const response = await fetch(`${url}api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  const body = response.status === 200 ? ((await response.json()) as { csrfToken: string }) : undefined;
  return { status: response.status, cookie, csrfToken: body?.csrfToken };
}

function fileValue(name: string): string | undefined {
  return new RegExp(`^${name}=(.*)$`, 'm').exec(readFileSync(secretsFile(), 'utf8'))?.[1];
}

function resetPassword(args: string[], stdin?: string) {
  const result = spawnSync(
    process.execPath,
    [CLI_BIN, 'admin', 'reset-password', '--data-dir', dataDir, ...args],
    { encoding: 'utf8', timeout: 15_000, ...(stdin === undefined ? {} : { input: stdin }) },
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the initial secrets file', () => {
  it('keeps the printed secrets owner-only, and every start names it while it exists', async () => {
    const url = await start();
    const printed = cli!.stdout;
    const password = /admin login:\s+admin \/ (\S+)/.exec(printed)?.[1];
    const accessToken = /access token:\s+(\S+)/.exec(printed)?.[1];
    const apiToken = /API token:\s+(tw_\S+)/.exec(printed)?.[1];

    expect(statSync(secretsFile()).mode & 0o777).toBe(0o600);
    expect(fileValue('admin-username')).toBe('admin');
    expect(fileValue('admin-password')).toBe(password);
    expect(fileValue('executor-access-token')).toBe(accessToken);
    expect(fileValue('api-token')).toBe(apiToken);
    expect(printed).toContain(`also kept in ${secretsFile()}`);
    expect((await signIn(url, 'admin', fileValue('admin-password')!)).status).toBe(200);
    await stop();

    await start();
    expect(cli!.stdout).not.toMatch(/admin login|API token:/);
    expect(cli!.stdout).toContain(`The first admin password is still in ${secretsFile()}`);
  });

  it('goes when the admin changes the password, and later starts no longer mention it', async () => {
    const url = await start();
    const password = fileValue('admin-password')!;
    const session = await signIn(url, 'admin', password);

    const changed = await fetch(`${url}api/v1/me/password`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: session.cookie!,
        'x-csrf-token': session.csrfToken!,
      },
      body: JSON.stringify({ currentPassword: password, newPassword: 'a new admin password' }),
    });

    expect(changed.status).toBe(204);
    expect(existsSync(secretsFile())).toBe(false);
    await stop();
    await start();
    expect(cli!.stdout).not.toMatch(/initial-secrets/);
  });
});

describe('tickwheel admin reset-password', () => {
  it('sets a generated password for admin, ends its sessions and removes the initial secrets file', async () => {
    let url = await start();
    const firstPassword = fileValue('admin-password')!;
    const session = await signIn(url, 'admin', firstPassword);
    await stop();

    const reset = resetPassword([]);

    expect(reset.code).toBe(0);
    expect(reset.stdout).toContain('the password of admin was reset');
    expect(reset.stdout).toContain('sessions ended: 1');
    expect(reset.stdout).toContain(`removed ${secretsFile()}`);
    const newPassword = /new password:\s+(\S+)/.exec(reset.stdout)?.[1];
    expect(newPassword).toBeDefined();
    expect(existsSync(secretsFile())).toBe(false);

    url = await start();
    expect(cli!.stdout).not.toMatch(/initial-secrets/);
    const me = await fetch(`${url}api/v1/me`, { headers: { cookie: session.cookie! } });
    expect(me.status).toBe(401);
    expect((await signIn(url, 'admin', firstPassword)).status).toBe(401);
    expect((await signIn(url, 'admin', newPassword!)).status).toBe(200);
  });

  it('takes the password from stdin and another user with --user; refuses a short one and an unknown user', async () => {
    let url = await start();
    const apiToken = fileValue('api-token')!;
    const created = await fetch(`${url}api/v1/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiToken}` },
      body: JSON.stringify({ username: 'ops', password: 'the first ops password' }),
    });
    expect(created.status).toBe(201);
    await stop();

    const short = resetPassword(['--user', 'ops', '--password-stdin'], 'short\n');
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/--password-stdin: .*at least 8 characters/);
    const unknown = resetPassword(['--user', 'nobody']);
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toContain('there is no user named nobody');

    const reset = resetPassword(['--user', 'ops', '--password-stdin'], 'chosen ops password\n');
    expect(reset.code).toBe(0);
    expect(reset.stdout).not.toMatch(/new password:/);
    // The admin's first password is untouched: its file stays.
    expect(existsSync(secretsFile())).toBe(true);

    url = await start();
    expect((await signIn(url, 'ops', 'chosen ops password')).status).toBe(200);
  });

  it('is listed in the help with its flags', () => {
    const help = runCli(['admin', 'reset-password', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--user <name>/);
    expect(help.stdout).toMatch(/--password-stdin/);
    expect(help.stdout).toMatch(/--data-dir <dir>/);
  });
});
