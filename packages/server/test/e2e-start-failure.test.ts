/**
 * A server whose start fails after the store is open (its port is taken) undoes what it started
 * and rejects, in a process of its own where nothing else keeps the event loop alive: the
 * failure must reach the caller, not end the process quietly with exit code 0.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer as createNetServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChildProcess, tempDir } from './helpers/e2e.js';

const SERVER_PROCESS = fileURLToPath(new URL('./fixtures/server-process.mjs', import.meta.url));
const SERVER_DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

let dataDir: string | undefined;
let blocker: Server | undefined;
let child: ChildProcess | undefined;

beforeAll(() => {
  if (!existsSync(SERVER_DIST)) throw new Error(`${SERVER_DIST} is missing: run \`npx tsc -b\` first`);
});

afterEach(async () => {
  await child?.kill();
  child = undefined;
  await new Promise((resolve) => (blocker === undefined ? resolve(undefined) : blocker.close(resolve)));
  blocker = undefined;
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

describe('a server that cannot listen', () => {
  it('rejects its start with the listen error, and its process ends with a failure', async () => {
    blocker = createNetServer();
    await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    dataDir = await tempDir('tw-e2e-start-failure-');

    child = new ChildProcess([SERVER_PROCESS], {
      TW_PORT: String(port),
      TW_DATA_DIR: dataDir,
      TW_TOKEN: 'e2e-start-failure-token-0123456789abcdef',
    });
    const { code } = await child.exited;

    expect(child.stdout).not.toMatch(/listening/);
    expect(child.stderr).toMatch(new RegExp(`EADDRINUSE.*127\\.0\\.0\\.1:${port}`));
    expect(code).toBe(1);
  });
});
