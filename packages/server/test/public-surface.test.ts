/**
 * The package's public surface is a decision, not a side effect: its runtime exports are the list
 * below, and the same list is in README.md's "Public surface" section. Exporting something more
 * (or less) fails here until both the list and the README say so. The package is imported by its
 * name, so this checks the built `dist` an embedder gets (`npm run build` first). A running server
 * hands out no store either: `storeOf` (`@tickwheel/server/internal`) is the way to it.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  createServer,
  readRetentionSettings,
  type TickwheelServer,
  writeRetentionSettings,
} from '@tickwheel/server';
import { storeOf } from '@tickwheel/server/internal';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SURFACE = [
  'LOG_LEVELS',
  'RETENTION_LIMITS',
  'SERVER_DEFAULTS',
  'SERVER_ENV',
  'TickwheelError',
  'createServer',
  'isTickwheelError',
  'migrateDatabase',
  'readRetentionSettings',
  'resetPassword',
  'writeRetentionSettings',
];

/** The names in the first `text` block of the README's "Public surface" section. */
async function listedInReadme(): Promise<string[]> {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Public surface\n'));
  const block = /```text\n([^`]*)```/.exec(section ?? '')?.[1];
  return block?.split(/\s+/).filter((name) => name !== '') ?? [];
}

describe('the public surface of @tickwheel/server', () => {
  it('exports at runtime exactly the listed names', async () => {
    const server = await import('@tickwheel/server');
    expect(Object.keys(server).sort()).toEqual(SURFACE);
  });

  it('is listed, the same, in the README', async () => {
    expect(await listedInReadme()).toEqual(SURFACE);
  });
});

describe('a server made by createServer', () => {
  let dataDir: string;
  let server: TickwheelServer;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'tw-surface-'));
    server = await createServer({
      port: 0,
      host: '127.0.0.1',
      dataDir,
      logger: pino({ level: 'silent' }),
      env: {},
      deferScheduling: true,
    });
  });

  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('does not hand out its store; the internal subpath reaches it with storeOf', async () => {
    expect('store' in server).toBe(false);
    await expect(storeOf(server).ping()).resolves.toBeUndefined();
    expect(await storeOf(server).users.findUserByName('admin')).toBeDefined();
  });

  it('storeOf refuses what createServer did not make (a copy of a server included)', () => {
    expect(() => storeOf({ ...server })).toThrow(/not a server made by createServer/);
    expect(() => storeOf({} as TickwheelServer)).toThrow(/not a server made by createServer/);
  });

  it('gives the retention settings their store through `settings`, and nothing more of it', async () => {
    expect(Object.keys(server.settings).sort()).toEqual(['getSetting', 'setSetting']);
    await writeRetentionSettings(server.settings, { retentionDays: 12 }, Date.now());
    expect(await readRetentionSettings(server.settings)).toEqual({ retentionDays: 12 });
    expect(await readRetentionSettings(storeOf(server).settings)).toEqual({ retentionDays: 12 });
  });
});
