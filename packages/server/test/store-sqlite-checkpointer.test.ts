import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteCheckpointer, type WalCheckpoint } from '../src/store/sqlite-checkpointer.js';

/** A WAL database file written the way the server's connection writes it: no checkpoint of its own. */
describe('SQLite checkpoint thread', () => {
  let dir: string;
  let db: BetterSqlite3.Database;
  let checkpointer: SqliteCheckpointer | undefined;
  const warnings: string[] = [];
  const logger = { warn: (_: unknown, message: string) => void warnings.push(message) };

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tw-checkpointer-'));
    db = new BetterSqlite3(path.join(dir, 'tickwheel.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)');
    warnings.length = 0;
  });
  afterEach(async () => {
    await checkpointer?.close();
    checkpointer = undefined;
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const insert = () => db.prepare('INSERT INTO t (v) VALUES (randomblob(3000))').run();

  /**
   * Writes a transaction of `rows` rows about every millisecond for `ms`: a steady stream, with
   * the gaps between a server's batches in which a RESTART checkpoint takes the write lock.
   */
  async function writeFor(ms: number, rows = 8): Promise<void> {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      db.transaction(() => {
        for (let i = 0; i < rows; i++) insert();
      })();
      await sleep(1);
    }
  }

  /**
   * Writes `count` transactions of `rows` rows, a millisecond apart at the least: the same amount
   * of log however busy the machine is, so two runs of it can be compared.
   */
  async function writeTransactions(count: number, rows = 8): Promise<void> {
    for (let n = 0; n < count; n++) {
      db.transaction(() => {
        for (let i = 0; i < rows; i++) insert();
      })();
      await sleep(1);
    }
  }

  it('takes the checkpoints off the connection and runs them on its thread; close gives them back', async () => {
    const seen: WalCheckpoint[] = [];
    checkpointer = new SqliteCheckpointer(db, { intervalMs: 40, restartFrames: 1_000_000_000 });
    expect(await checkpointer.start(logger, (checkpoint) => seen.push(checkpoint))).toBe(true);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);

    await writeFor(400);
    // Two checkpoints after the last write: the second finds nothing left to copy.
    const atEnd = seen.length;
    for (let waited = 0; seen.length < atEnd + 2 && waited < 5_000; waited += 20) await sleep(20);
    expect(seen.length).toBeGreaterThanOrEqual(atEnd + 2);
    expect(seen.every((checkpoint) => checkpoint.mode === 'PASSIVE')).toBe(true);
    // Everything written has been copied into the database file by the thread.
    expect(seen.at(-1)!.walFrames).toBeGreaterThan(0);
    expect(seen.at(-1)!.checkpointedFrames).toBe(seen.at(-1)!.walFrames);
    expect(checkpointer.last).toEqual(seen.at(-1));

    await checkpointer.close();
    expect(checkpointer.running).toBe(false);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(warnings).toEqual([]);
  });

  it('starts the log over once it is long, under a steady stream of writes', async () => {
    // Without the restart, passive checkpoints alone: while writes go on, the log keeps growing.
    const passive: WalCheckpoint[] = [];
    checkpointer = new SqliteCheckpointer(db, { intervalMs: 30, restartFrames: 1_000_000_000 });
    await checkpointer.start(logger, (checkpoint) => passive.push(checkpoint));
    // A count, not a time: on a loaded machine fewer writes in a time would make a shorter log.
    await writeTransactions(500);
    await checkpointer.close();
    expect(passive.length).toBeGreaterThanOrEqual(5);
    const frames = passive.map((checkpoint) => checkpoint.walFrames);
    const longest = Math.max(...frames);

    const restarting: WalCheckpoint[] = [];
    checkpointer = new SqliteCheckpointer(db, { intervalMs: 30, restartFrames: 200 });
    await checkpointer.start(logger, (checkpoint) => restarting.push(checkpoint));
    await writeTransactions(500);
    const first = restarting.findIndex((checkpoint) => checkpoint.mode === 'RESTART' && !checkpoint.busy);
    expect(first).toBeGreaterThanOrEqual(0);
    // After a restart the log starts over with the next write: from the first checkpoint that
    // finds it shorter than the restart did, it never grows the way passive checkpoints let it
    // (the same writes made a log of `longest` frames then).
    const startedOver = restarting.findIndex(
      (checkpoint, i) => i > first && checkpoint.walFrames < restarting[first]!.walFrames,
    );
    expect(startedOver).toBeGreaterThan(first);
    const after = restarting.slice(startedOver).map((checkpoint) => checkpoint.walFrames);
    expect(Math.max(...after)).toBeLessThan(longest / 2);
  });

  it('when the thread cannot start, the connection keeps checkpointing itself and says so', async () => {
    const gone = new BetterSqlite3(path.join(dir, 'gone.db'));
    gone.pragma('journal_mode = WAL');
    await rm(path.join(dir, 'gone.db'));
    checkpointer = new SqliteCheckpointer(gone);
    expect(await checkpointer.start(logger)).toBe(false);
    expect(checkpointer.running).toBe(false);
    expect(gone.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(warnings).toEqual([
      'the WAL checkpoint thread did not start; the server checkpoints the WAL itself',
    ]);
    gone.close();
  });
});
