/**
 * Database faults are weather: a connection the database drops (a terminated backend, a
 * restarted PostgreSQL or pgbouncer, a killed MariaDB thread) fails the statements in flight,
 * and the node goes on firing on fresh connections.
 */
import { randomBytes } from 'node:crypto';
import { startTcpProxy, type TcpProxy } from '@tickwheel/test-fixtures/tcp-proxy';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerOptions } from '../src/index.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import {
  createApp,
  createJob,
  type E2eExecutor,
  type E2eServer,
  firesOf,
  startExecutor,
  startServer,
  waitFor,
} from './helpers/e2e.js';

let server: E2eServer | undefined;
let database: TestDatabase | undefined;
const executors: E2eExecutor[] = [];
let proxy: TcpProxy | undefined;

afterEach(async () => {
  for (const executor of executors.splice(0)) await executor.close();
  proxy?.restore();
  await server?.close();
  await proxy?.close();
  proxy = undefined;
  await database?.drop();
  server = undefined;
  database = undefined;
});

/** Succeeded fires of `jobId` triggered at or after `since`; a statement lost to the fault counts as none yet. */
async function succeededSince(jobId: number, since: number): Promise<number> {
  try {
    const fires = await firesOf(server!.store, jobId);
    return fires.filter((f) => f.status === 'succeeded' && (f.trigger_at ?? 0) >= since).length;
  } catch {
    return 0;
  }
}

/** Starts a server on `dialect` with an executor and an every-second job; returns the job id. */
async function startFiring(
  dialect: 'postgres' | 'mysql',
  nodeId: string,
  url = (db: TestDatabase) => db.url,
  logger?: pino.Logger,
  internal: ServerOptions['internal'] = {},
): Promise<number> {
  database = await createTestDatabase(dialect);
  server = await startServer({
    database: url(database),
    nodeId,
    apiToken: API_TOKEN,
    internal,
    ...(logger === undefined ? {} : { logger }),
  });
  executors.push(
    await startExecutor(server.server, 'e2e-faults', (ex) => {
      ex.handle('tick', async () => 'ticked');
    }),
  );
  const appId = await createApp(server.store, 'e2e-faults');
  const job = await createJob(server.store, {
    app_id: appId,
    name: 'tick',
    executor_handler: 'tick',
    schedule_type: 'CRON',
    schedule_conf: '* * * * * ?',
  });
  await waitFor(async () => (await succeededSince(job.id, 0)) >= 1, { what: 'a first succeeded tick' });
  return job.id;
}

describe('a dropped database connection', () => {
  it('on PostgreSQL: the node survives pg_terminate_backend on its connections and fires on', async () => {
    const nodeId = `faults-${randomBytes(4).toString('hex')}`;
    const jobId = await startFiring('postgres', nodeId);

    const killed = await database!.query<{ pid: number }>(
      `SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity
        WHERE pid <> pg_backend_pid() AND application_name = 'tickwheel:${nodeId}'`,
    );
    expect(killed.length).toBeGreaterThan(0);
    const after = Date.now();

    await waitFor(async () => (await succeededSince(jobId, after)) >= 2, {
      timeoutMs: 10_000,
      what: 'two succeeded ticks after the connections were terminated',
    });
    const reconnected = await database!.query(
      `SELECT pid FROM pg_stat_activity WHERE application_name = 'tickwheel:${nodeId}'`,
    );
    expect(reconnected.length).toBeGreaterThan(0);
  });

  it('on MariaDB: the node survives KILL on its connections and fires on', async () => {
    const jobId = await startFiring('mysql', `faults-${randomBytes(4).toString('hex')}`);
    const name = new URL(database!.url).pathname.slice(1);

    const threads = await database!.query<{ id: number }>(
      `SELECT id FROM information_schema.processlist WHERE db = '${name}' AND id <> CONNECTION_ID()`,
    );
    expect(threads.length).toBeGreaterThan(0);
    for (const { id } of threads) await database!.query(`KILL ${id}`).catch(() => undefined);
    const after = Date.now();

    await waitFor(async () => (await succeededSince(jobId, after)) >= 2, {
      timeoutMs: 10_000,
      what: 'two succeeded ticks after the connections were killed',
    });
  });
});

/** The URL of `db` with its port swapped for the proxy's. */
function throughProxy(db: TestDatabase): string {
  const url = new URL(db.url);
  url.port = String(proxy!.port);
  return url.toString();
}

const API_TOKEN = `tw_${'f'.repeat(40)}`;

/** A REST API read with the seeded API token: its status and error code. */
async function listJobs(): Promise<{ status: number; code?: string; retryAfter: string | null }> {
  const response = await fetch(`${server!.server.url}api/v1/jobs`, {
    headers: { authorization: `Bearer ${API_TOKEN}` },
  });
  const body = (await response.json()) as { error?: { code: string } };
  return { status: response.status, code: body.error?.code, retryAfter: response.headers.get('retry-after') };
}

async function readyzStatus(): Promise<number> {
  return (await fetch(`${server!.server.url}readyz`)).status;
}

/** The port of the local database of `dialect`, which a test's proxy stands in front of. */
const PORT = { postgres: 5432, mysql: 3306 } as const;

describe.each(['postgres', 'mysql'] as const)('a database outage on %s', (dialect) => {
  it('makes /readyz and the REST API answer 503 while it lasts and 200 soon after, and the node fires on', async () => {
    proxy = await startTcpProxy(PORT[dialect]);
    const { logger, messages } = recordingLogger();
    const nodeId = `outage-${randomBytes(4).toString('hex')}`;
    const jobId = await startFiring(dialect, nodeId, throughProxy, logger);
    expect(await readyzStatus()).toBe(200);

    proxy.outage();
    const outageAt = Date.now();
    await waitFor(async () => (await readyzStatus()) === 503, { what: '/readyz 503 during the outage' });
    const body = (await (await fetch(`${server!.server.url}readyz`)).json()) as {
      checks: { store: string };
    };
    expect(body.checks.store).toMatch(/^unreachable/);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await readyzStatus()).toBe(503);
    // The REST API says the database is away (to be tried again), not an internal error.
    expect(await listJobs()).toEqual({ status: 503, code: 'TW_ERR_STORE_UNAVAILABLE', retryAfter: '5' });

    proxy.restore();
    const restoredAt = Date.now();
    // The planner backs off while its ticks fail (50 ms doubling to 2 s here), not one line per tick.
    const failedTicks = messages.filter((m) => m === 'planner tick failed; retrying at the next tick');
    expect(failedTicks.length).toBeGreaterThan(0);
    expect(failedTicks.length).toBeLessThanOrEqual(Math.ceil((restoredAt - outageAt) / 1_000) + 6);
    await waitFor(async () => (await readyzStatus()) === 200, {
      timeoutMs: 5_000,
      what: '/readyz 200 after the outage',
    });
    await waitFor(async () => (await succeededSince(jobId, restoredAt)) >= 2, {
      timeoutMs: 10_000,
      what: 'two succeeded ticks after the outage',
    });
    expect((await listJobs()).status).toBe(200);
  });
});

describe.each(['postgres', 'mysql'] as const)('a stalled database on %s', (dialect) => {
  it('fails the statements that get no answer, and the node fires on within seconds of the database answering again', async () => {
    proxy = await startTcpProxy(PORT[dialect]);
    const jobId = await startFiring(
      dialect,
      `stall-${randomBytes(4).toString('hex')}`,
      throughProxy,
      undefined,
      {
        databaseStatementTimeoutMs: 2_000,
        // Connections opened during the stall stay silent too (the proxy's worst case): give them up soon.
        databaseConnectTimeoutMs: 2_000,
      },
    );

    // Every open connection falls silent for good (no answer, no reset), new ones hang for 4 s.
    proxy.blackHole();
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    proxy.restore();
    const restoredAt = Date.now();

    // Without the statement limit the node stays wedged on its silent connections (minutes).
    await waitFor(async () => (await succeededSince(jobId, restoredAt)) >= 2, {
      timeoutMs: 15_000,
      what: 'two succeeded ticks after the stall',
    });
  });
});

/** A logger that keeps its warnings' messages. */
function recordingLogger(): { logger: pino.Logger; messages: string[] } {
  const messages: string[] = [];
  const logger = pino(
    { level: 'warn' },
    { write: (line: string) => messages.push((JSON.parse(line) as { msg: string }).msg) },
  );
  return { logger, messages };
}

describe.each(['postgres', 'mysql'] as const)('a start while the database is away on %s', (dialect) => {
  it('waits, warning once per attempt, and starts once the database answers', async () => {
    proxy = await startTcpProxy(PORT[dialect]);
    database = await createTestDatabase(dialect);
    const { logger, messages } = recordingLogger();
    proxy.outage();
    const startedAt = Date.now();
    setTimeout(() => proxy?.restore(), 2_500);

    server = await startServer({ database: throughProxy(database), logger });

    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(2_000);
    const waits = messages.filter((m) => m === 'database unreachable at start; trying again');
    expect(waits.length).toBeGreaterThanOrEqual(2);
    expect(await readyzStatus()).toBe(200);
  });

  it('fails at once when the database answers but refuses (a database that does not exist)', async () => {
    database = await createTestDatabase(dialect);
    const url = new URL(database.url);
    url.pathname = `/tw_missing_${randomBytes(4).toString('hex')}`;
    const startedAt = Date.now();

    await expect(startServer({ database: url.toString() })).rejects.toThrow(
      /does not exist|Unknown database/,
    );

    expect(Date.now() - startedAt).toBeLessThan(2_000);
  });

  it('waits out a database host that drops packets (connections time out and are tried again)', async () => {
    proxy = await startTcpProxy(PORT[dialect]);
    database = await createTestDatabase(dialect);
    proxy.stall();
    setTimeout(() => proxy?.restore(), 1_500);

    server = await startServer({
      database: throughProxy(database),
      internal: { databaseConnectTimeoutMs: 500 },
    });

    expect(await readyzStatus()).toBe(200);
  });

  it('fails with the connection error once databaseWaitMs has passed', async () => {
    proxy = await startTcpProxy(PORT[dialect]);
    database = await createTestDatabase(dialect);
    proxy.outage();
    const startedAt = Date.now();

    await expect(startServer({ database: throughProxy(database), databaseWaitMs: 1_500 })).rejects.toThrow();

    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_400);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  });
});
