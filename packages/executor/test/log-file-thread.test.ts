import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogFileThread, type LogFileWrite } from '../src/log-file-thread.js';

const silent = pino({ level: 'silent' });
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

let dir: string;
let thread: LogFileThread;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tw-log-thread-'));
  thread = new LogFileThread(silent);
});

afterEach(async () => {
  await thread.close();
  await rm(dir, { recursive: true, force: true });
});

/** A one-off write: `text` appended to `file` under writer `id`, closing it when `close`. */
function write(id: number, file: string, text: string, close: boolean): Promise<void> {
  const entry: LogFileWrite = { id, logId: id, path: path.join(dir, file), text, close, first: false };
  return thread.mark({ takeWrite: () => entry });
}

describe('the job log files thread', () => {
  it('while the worker writes one message, the writes of the following turns gather into the next', async () => {
    const turns = 100;
    const done: Promise<void>[] = [];
    for (let i = 0; i < turns; i++) {
      done.push(write(i + 1, `run-${i}.log`, `line of run ${i}\n`, true));
      await nextTurn();
    }
    await Promise.all(done);
    for (let i = 0; i < turns; i++) {
      expect(await readFile(path.join(dir, `run-${i}.log`), 'utf8')).toBe(`line of run ${i}\n`);
    }
    // One message a turn before; the first message starts the worker, which takes far longer
    // than a turn, and each waits FLUSH_DELAY_MS for more, so the rest gather behind it.
    expect(thread.messages).toBeGreaterThanOrEqual(1);
    expect(thread.messages).toBeLessThan(turns / 2);
  });

  it('with the worker idle, writes of the next turn join the text waiting FLUSH_DELAY_MS', async () => {
    await write(1_000, 'warm.log', 'the worker is up\n', true);
    // Sent at the end of its turn, the first write would be in flight when the second comes, which
    // would go in a message of its own: two messages. Held FLUSH_DELAY_MS (5 ms), they share one.
    // Three tries: a pause of the test process between two turns longer than that is possible on a
    // loaded machine, not three times in a row.
    const messages: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = thread.messages;
      const first = write(1 + attempt * 2, `a-${attempt}.log`, 'first\n', true);
      await nextTurn();
      const second = write(2 + attempt * 2, `b-${attempt}.log`, 'second\n', true);
      await Promise.all([first, second]);
      messages.push(thread.messages - before);
    }
    expect(Math.min(...messages)).toBe(1);
    expect(await readFile(path.join(dir, 'b-2.log'), 'utf8')).toBe('second\n');
  });

  it("keeps one file's writes in order across gathered turns, and its file open until the closing write", async () => {
    const done: Promise<void>[] = [];
    for (let i = 1; i <= 50; i++) {
      done.push(write(7, 'one.log', `line ${i}\n`, i === 50));
      await nextTurn();
    }
    await Promise.all(done);
    const expected = Array.from({ length: 50 }, (_, i) => `line ${i + 1}\n`).join('');
    expect(await readFile(path.join(dir, 'one.log'), 'utf8')).toBe(expected);
  });

  it('settled() waits for writes still gathering behind a message in flight', async () => {
    void write(1, 'a.log', 'first\n', true);
    await nextTurn();
    void write(2, 'b.log', 'second\n', true);
    await thread.settled();
    expect(await readFile(path.join(dir, 'a.log'), 'utf8')).toBe('first\n');
    expect(await readFile(path.join(dir, 'b.log'), 'utf8')).toBe('second\n');
  });
});
