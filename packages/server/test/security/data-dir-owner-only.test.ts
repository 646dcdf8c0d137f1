import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIAL_SECRETS_FILE_NAME, writeInitialSecrets } from '../../src/security/initial-secrets-file.js';
import { openStore } from '../../src/store/connect.js';
import { startServer } from '../helpers/e2e.js';

const LOOSE_WARNING = 'files that may hold secrets were open to other users';

let umaskBefore: number;
let root: string;
beforeAll(async () => {
  // The usual umask, which leaves new files readable by everyone: the modes must not depend on it.
  umaskBefore = process.umask(0o022);
  root = await mkdtemp(path.join(os.tmpdir(), 'tw-modes-'));
});
afterAll(async () => {
  process.umask(umaskBefore);
  await rm(root, { recursive: true, force: true });
});
let cases = 0;

/** A path of its own (not yet created) under the suite's temp dir. */
function freshPath(name = 'data'): string {
  cases += 1;
  return path.join(root, `case-${cases}`, name);
}

async function modeOf(file: string): Promise<number> {
  return (await stat(file)).mode & 0o7777;
}

/** A pino logger whose warn lines (parsed) are kept. */
function warnLog(): { logger: pino.Logger; warnings: Array<Record<string, unknown>> } {
  const warnings: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line)) });
  return { logger, warnings };
}

describe('data directory modes', () => {
  it('a new SQLite store is a 0700 directory of 0600 files, -wal and -shm included, under umask 022', async () => {
    const dataDir = freshPath();
    const store = await openStore({ database: 'sqlite:tickwheel.db', dataDir });
    try {
      await store.settings.setSetting('probe', 'x', Date.now());
      const db = path.join(dataDir, 'tickwheel.db');
      expect(await modeOf(dataDir)).toBe(0o700);
      expect(await modeOf(db)).toBe(0o600);
      expect(await modeOf(`${db}-wal`)).toBe(0o600);
      expect(await modeOf(`${db}-shm`)).toBe(0o600);
      if (store.connection.dialect !== 'sqlite') throw new Error('unreachable');
      expect(store.connection.looseModes).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('a server started on a new data directory keeps the store and the initial secrets file owner-only, and warns of nothing', async () => {
    const dataDir = freshPath();
    const { logger, warnings } = warnLog();
    const s = await startServer({ logger }, dataDir);
    try {
      expect(await modeOf(dataDir)).toBe(0o700);
      expect(await modeOf(path.join(dataDir, INITIAL_SECRETS_FILE_NAME))).toBe(0o600);
      expect(await modeOf(path.join(dataDir, 'tickwheel.db'))).toBe(0o600);
      expect(await modeOf(path.join(dataDir, 'tickwheel.db-wal'))).toBe(0o600);
      expect(warnings.filter((w) => String(w.msg).startsWith(LOOSE_WARNING))).toEqual([]);
    } finally {
      await s.server.stop();
    }
  });

  it('a data directory left readable by others is narrowed at the next start, with one warning, and not again', async () => {
    const dataDir = freshPath();
    const first = await startServer({}, dataDir);
    await first.server.stop();
    const db = path.join(dataDir, 'tickwheel.db');
    const secrets = path.join(dataDir, INITIAL_SECRETS_FILE_NAME);
    // As an earlier version left them, with the -wal and -shm of a process that did not stop cleanly.
    await chmod(dataDir, 0o755);
    await chmod(db, 0o644);
    await chmod(secrets, 0o644);
    await writeFile(`${db}-wal`, '', { mode: 0o644 });
    await writeFile(`${db}-shm`, '', { mode: 0o644 });

    const { logger, warnings } = warnLog();
    const second = await startServer({ logger }, dataDir);
    try {
      expect(await modeOf(dataDir)).toBe(0o700);
      for (const file of [db, `${db}-wal`, `${db}-shm`, secrets])
        expect(await modeOf(file), file).toBe(0o600);
      const loose = warnings.filter((w) => String(w.msg).startsWith(LOOSE_WARNING));
      expect(loose).toHaveLength(1);
      expect(loose[0]!.level).toBe(40);
      expect([...(loose[0]!.narrowed as string[])].sort()).toEqual(
        [
          `${dataDir} (was 0755)`,
          `${db} (was 0644)`,
          `${db}-wal (was 0644)`,
          `${db}-shm (was 0644)`,
          `${secrets} (was 0644)`,
        ].sort(),
      );
      // The store still works: the first start's admin is there.
      expect(await second.store.users.findUserByName('admin')).toBeDefined();
    } finally {
      await second.server.stop();
    }

    const { logger: thirdLogger, warnings: thirdWarnings } = warnLog();
    const third = await startServer({ logger: thirdLogger }, dataDir);
    await third.server.stop();
    expect(thirdWarnings.filter((w) => String(w.msg).startsWith(LOOSE_WARNING))).toEqual([]);
  });

  it('a shared directory (sticky, as /tmp is) is left as it is, while the database files in it are 0600', async () => {
    const shared = freshPath('shared');
    await mkdir(shared, { recursive: true });
    await chmod(shared, 0o1777);
    const store = await openStore({ database: `sqlite:${path.join(shared, 'tw.db')}` });
    try {
      await store.settings.setSetting('probe', 'x', Date.now());
      expect(await modeOf(shared)).toBe(0o1777);
      expect(await modeOf(path.join(shared, 'tw.db'))).toBe(0o600);
      expect(await modeOf(path.join(shared, 'tw.db-wal'))).toBe(0o600);
    } finally {
      await store.close();
    }
  });

  it('the initial secrets file is narrowed before new secrets go into a readable leftover', async () => {
    const dataDir = freshPath();
    const file = path.join(dataDir, INITIAL_SECRETS_FILE_NAME);
    await mkdir(dataDir, { recursive: true, mode: 0o755 });
    await writeFile(file, 'admin-password=old\n', { mode: 0o644 });
    await writeInitialSecrets(file, { adminUsername: 'admin', adminPassword: 'new-password' }, Date.now());
    expect(await modeOf(file)).toBe(0o600);
    expect(await readFile(file, 'utf8')).toContain('admin-password=new-password');

    const fresh = path.join(freshPath(), 'nested', INITIAL_SECRETS_FILE_NAME);
    await writeInitialSecrets(fresh, { adminUsername: 'admin', adminPassword: 'p' }, Date.now());
    expect(await modeOf(path.dirname(fresh))).toBe(0o700);
    expect(await modeOf(fresh)).toBe(0o600);
  });
});
