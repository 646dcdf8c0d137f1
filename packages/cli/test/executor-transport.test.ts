/**
 * `tickwheel executor --transport`: with http-pull the process holds no listening socket at all
 * (read from the kernel's own tables, /proc/<pid>/net/tcp{,6} and /proc/<pid>/fd), registers its
 * pull address and runs what comes over its connection; with redis likewise, under its stream
 * address, running what is written to its run stream on the real Redis; with http it listens, as
 * the control.
 */
import { mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pullAddress, runStreamKey, streamAddress } from '@tickwheel/protocol';
import { trigger } from '@tickwheel/test-fixtures/executor-client';
import { type PullTestServer, startPullTestServer } from '@tickwheel/test-fixtures/pull-server';
import {
  connectionNameOf,
  REDIS_URL,
  type RedisStreamsServer,
  startRedisStreamsServer,
} from '@tickwheel/test-fixtures/redis-streams';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertCliBuilt, CliProcess, runCli } from './helpers/cli-process.js';

const TOKEN = 'cli-transport-token-0123456789abcdef';
/** `st` of a TCP socket in LISTEN state in /proc/net/tcp. */
const TCP_LISTEN = '0A';

/** The CLI process, with its pid to look at its sockets. */
class InspectedCli extends CliProcess {
  get pid(): number {
    return this.child.pid!;
  }
}

let dir: string;
let tokenFile: string;
let server: PullTestServer | undefined;
let cli: InspectedCli | undefined;
let redis: RedisStreamsServer | undefined;

beforeAll(() => assertCliBuilt());

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-cli-transport-'));
  tokenFile = path.join(dir, 'token');
  await writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  server = await startPullTestServer({ accessToken: TOKEN });
});

afterEach(async () => {
  await cli?.kill();
  await server?.stop();
  await redis?.close();
  cli = undefined;
  server = undefined;
  redis = undefined;
  await rm(dir, { recursive: true, force: true });
});

function executorArgs(transport: string, ...more: string[]): string[] {
  return [
    'executor',
    '--app',
    'cli-pull',
    '--server',
    server!.address,
    '--token-file',
    tokenFile,
    '--log-dir',
    path.join(dir, 'logs'),
    '--enable-scripts',
    '--transport',
    transport,
    ...more,
  ];
}

/** The TCP sockets the process holds, from its descriptors and its network namespace's tables. */
async function tcpSocketsOf(pid: number): Promise<Array<{ local: string; state: string }>> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match) inodes.add(match[1]!);
  }
  const sockets: Array<{ local: string; state: string }> = [];
  for (const table of ['tcp', 'tcp6']) {
    const text = await readFile(`/proc/${pid}/net/${table}`, 'utf8');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      if (fields.length > 9 && inodes.has(fields[9]!)) sockets.push({ local: fields[1]!, state: fields[3]! });
    }
  }
  return sockets;
}

describe('tickwheel executor --transport', () => {
  it('http-pull holds no listening socket, registers its pull address and runs a job sent over its connection', async () => {
    cli = new InspectedCli(executorArgs('http-pull'));
    const [, address] = await cli.waitForOutput(/started as (pull:\/\/\S+), opening no port/);
    await server!.waitFor(() => server!.registrations.length > 0, 10_000, 'registration');
    const { headers } = await server!.connection();
    const instance = headers['tickwheel-instance'] as string;
    expect(address).toBe(pullAddress(instance));
    expect(server!.registrations[0]).toMatchObject({ registryKey: 'cli-pull', registryValue: address });

    const sockets = await tcpSocketsOf(cli.pid);
    // Its connection to the server (and its HTTP client's) are there: the check sees its sockets.
    expect(sockets.length).toBeGreaterThan(0);
    expect(sockets.filter((s) => s.state === TCP_LISTEN)).toEqual([]);

    const frame = await server!.call(
      'run',
      trigger({ logId: 901, glueType: 'GLUE_SHELL', glueSource: 'echo pulled', glueUpdatetime: 1 }),
    );
    expect(frame.answer).toMatchObject({ code: 200 });
    expect(await server!.callbackFor(901)).toMatchObject({ logId: 901, handleCode: 200 });
    expect(server!.requestsTo('/api/callback').at(-1)!.headers['tickwheel-address']).toBe(address);

    cli.signal('SIGTERM');
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(server!.removals).toEqual([
      { registryGroup: 'EXECUTOR', registryKey: 'cli-pull', registryValue: address },
    ]);
  });

  it('http (the control) holds the listening socket the same check finds', async () => {
    cli = new InspectedCli(executorArgs('http', '--host', '127.0.0.1', '--port', '0'));
    const [, port] = await cli.waitForOutput(/listening on http:\/\/127\.0\.0\.1:(\d+)\//);
    await server!.waitFor(() => server!.registrations.length > 0, 10_000, 'registration');
    const listening = (await tcpSocketsOf(cli.pid)).filter((s) => s.state === TCP_LISTEN);
    const hexPort = Number(port).toString(16).toUpperCase().padStart(4, '0');
    expect(listening.map((s) => s.local)).toEqual([`0100007F:${hexPort}`]);
  });

  it('refuses --port with http-pull, naming the flag', () => {
    const { code, stderr } = runCli(executorArgs('http-pull', '--port', '9999'));
    expect(code).toBe(2);
    expect(stderr).toContain(
      'error: --port: must not be given with the http-pull transport, which opens no port (the executor connects out to its servers)',
    );
  });

  it('refuses http-pull without --server', () => {
    const args = executorArgs('http-pull').filter((a) => a !== '--server' && a !== server!.address);
    const { code, stderr } = runCli(args);
    expect(code).toBe(2);
    expect(stderr).toContain('error: --server: at least one is required with the http-pull transport');
  });

  it('refuses an unknown transport with the allowed choices', () => {
    const { code, stderr } = runCli(executorArgs('carrier-pigeon'));
    expect(code).toBe(2);
    expect(stderr).toContain(
      "argument 'carrier-pigeon' is invalid. Allowed choices are http, http-pull, redis.",
    );
  });
});

describe('tickwheel executor --transport redis', () => {
  it('holds no listening socket, registers its stream address and runs a job written to its run stream', async () => {
    redis = await startRedisStreamsServer();
    cli = new InspectedCli(executorArgs('redis', '--redis', REDIS_URL));
    const [, address, from] = await cli.waitForOutput(
      /started as (stream:\/\/\S+), opening no port \(transport redis, reading (\S+)\)/,
    );
    const instance = address!.slice('stream://'.length, -1);
    redis.watch(instance);
    expect(address).toBe(streamAddress(instance));
    expect(from).toBe(`${REDIS_URL}`.replace(/\/?$/, ''));
    await server!.waitFor(() => server!.registrations.length > 0, 10_000, 'registration');
    expect(server!.registrations[0]).toMatchObject({ registryKey: 'cli-pull', registryValue: address });
    // Reader and writer; the reader connects with its first read, which the registration does not wait for.
    await expect.poll(async () => (await redis.clientIds(connectionNameOf(instance))).length).toBe(2);

    const sockets = await tcpSocketsOf(cli.pid);
    // Its Redis connections are there: the check sees its sockets.
    expect(sockets.length).toBeGreaterThan(0);
    expect(sockets.filter((s) => s.state === TCP_LISTEN)).toEqual([]);

    await redis.writeRun(
      instance,
      trigger({ logId: 902, glueType: 'GLUE_SHELL', glueSource: 'echo streamed', glueUpdatetime: 1 }),
    );
    expect(await server!.callbackFor(902)).toMatchObject({ logId: 902, handleCode: 200 });
    expect(server!.requestsTo('/api/callback').at(-1)!.headers['tickwheel-address']).toBe(address);
    await redis.allAcknowledged(runStreamKey(instance));

    cli.signal('SIGTERM');
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(server!.removals).toEqual([
      { registryGroup: 'EXECUTOR', registryKey: 'cli-pull', registryValue: address },
    ]);
  });

  it('does not print the Redis password', async () => {
    redis = await startRedisStreamsServer();
    const url = new URL(REDIS_URL);
    url.username = 'default';
    // The test Redis's default user has no password, so it takes any.
    url.password = 'not-the-password';
    cli = new InspectedCli(executorArgs('redis', '--redis', url.href));
    const [line] = await cli.waitForOutput(/started as stream:\/\/(\S+)\/, opening no port .*/);
    redis.watch(line!.split('stream://')[1]!.split('/')[0]!);
    expect(line).toContain('reading redis://default:***@127.0.0.1');
    cli.signal('SIGTERM');
    await cli.exited;
    expect(`${cli.stdout}${cli.stderr}`).not.toContain('not-the-password');
  });

  it('refuses --transport redis without --redis', () => {
    const { code, stderr } = runCli(executorArgs('redis'));
    expect(code).toBe(2);
    expect(stderr).toContain(
      'error: --redis: is required with the redis transport: the URL of the Redis the servers write runs to (redis://host:6379)',
    );
  });

  it('refuses --redis without --transport redis', () => {
    for (const args of [
      executorArgs('http-pull', '--redis', REDIS_URL),
      executorArgs('http', '--redis', REDIS_URL).filter(
        (a, i, all) => a !== '--transport' && all[i - 1] !== '--transport',
      ),
    ]) {
      const { code, stderr } = runCli(args);
      expect(code).toBe(2);
      expect(stderr).toMatch(
        /error: --redis is only for --transport redis \(the transport is (http-pull|http)\); add --transport redis/,
      );
    }
  });

  it('refuses --port and a bad --redis URL with redis, naming the flag', () => {
    const port = runCli(executorArgs('redis', '--redis', REDIS_URL, '--port', '9999'));
    expect(port.code).toBe(2);
    expect(port.stderr).toContain(
      'error: --port: must not be given with the redis transport, which opens no port (the executor reads its runs from Redis)',
    );
    const url = runCli(executorArgs('redis', '--redis', 'http://127.0.0.1:6379'));
    expect(url.code).toBe(2);
    expect(url.stderr).toContain('error: --redis: must be a redis:// or rediss:// URL, not http://');
  });
});
