/**
 * The warning about dropped database connections: one per interval however many drop at once
 * (a restart drops the whole pool), saying how many it held back; and a MySQL connection that
 * fails twice while connecting, which must not end the process.
 */
import { startTcpProxy } from '@tickwheel/test-fixtures/tcp-proxy';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { openStore, warnConnectionErrors } from '../src/store/index.js';

function recording(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('warnConnectionErrors', () => {
  it('warns once per interval and counts the errors it held back', () => {
    const { logger, lines } = recording();
    let now = 1_000_000;
    const report = warnConnectionErrors(logger, 10_000, () => now);

    for (let i = 0; i < 10; i++) report(new Error('Connection terminated unexpectedly'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, droppedSinceLastWarning: 0 });

    now += 9_999;
    report(new Error('Connection terminated unexpectedly'));
    expect(lines).toHaveLength(1);

    now += 1;
    report(new Error('Connection terminated unexpectedly'));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ droppedSinceLastWarning: 10 });
  });
});

describe('a MySQL pool connection that fails twice while it connects', () => {
  it('reports both errors and does not end the process (mysql2 itself hears only the first)', async () => {
    const proxy = await startTcpProxy(3306);
    const reported: string[] = [];
    const store = await openStore({
      database: `mysql://root@127.0.0.1:${proxy.port}/test`,
      connectTimeoutMs: 300,
      onConnectionError: (err) => reported.push(err.message),
    });
    try {
      // The promise pool's callback pool, the one Kysely and mysql2 make connections in.
      const pool = (
        store.connection as unknown as { pool: { pool: { _allConnections: { push(c: unknown): unknown } } } }
      ).pool.pool;
      const made: Array<{ emit(event: string, err: Error): boolean }> = [];
      const push = pool._allConnections.push.bind(pool._allConnections);
      pool._allConnections.push = (connection) => {
        made.push(connection as (typeof made)[number]);
        return push(connection);
      };
      // The open connections reset (the pool drops them), then a new one is made while the
      // database host drops packets: its connect times out.
      proxy.outage();
      await new Promise((resolve) => setTimeout(resolve, 200));
      proxy.restore();
      proxy.stall();
      made.length = 0;
      await expect(store.db.selectFrom('job').select('id').limit(1).execute()).rejects.toThrow(/ETIMEDOUT/);
      expect(made).toHaveLength(1);
      // A second error on it, as a stalled socket can raise after the timeout: without a listener
      // of ours, this emit would throw (and, from a timer, end the process).
      expect(() => made[0]!.emit('error', new Error('connect ETIMEDOUT (again)'))).not.toThrow();
      expect(reported).toContain('connect ETIMEDOUT (again)');
    } finally {
      proxy.restore();
      await store.close();
      await proxy.close();
    }
  });
});

describe('a MySQL store closed while one of its connections is still connecting', () => {
  it('closes: the connect timeout that ends that connection afterwards is not the close’s failure', async () => {
    const proxy = await startTcpProxy(3306);
    const store = await openStore({
      database: `mysql://root@127.0.0.1:${proxy.port}/test`,
      connectTimeoutMs: 300,
    });
    try {
      // The open connections reset (the pool drops them), then new ones hang (no answer, no
      // reset): a statement makes one and waits for its handshake.
      proxy.outage();
      await new Promise((resolve) => setTimeout(resolve, 200));
      proxy.restore();
      proxy.stall();
      const waiting = store.db.selectFrom('job').select('id').limit(1).execute();
      void waiting.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
      // mysql2 queues its quit behind the handshake, and hands the handshake's ETIMEDOUT to the pool's end.
      await expect(store.close()).resolves.toBeUndefined();
      await expect(waiting).rejects.toThrow(/ETIMEDOUT|closed/);
    } finally {
      proxy.restore();
      await proxy.close();
    }
  });
});
