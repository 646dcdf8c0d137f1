import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ACCESS_TOKEN_HEADER, isTickwheelError, type TickwheelError } from '@tickwheel/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTOR_TOKEN_SETTING } from '../../src/security/secrets.js';
import { openStore } from '../../src/store/connect.js';
import { startServer } from '../helpers/e2e.js';

const STRONG_TOKEN = 'Vq3x9Lk2mP8sR4tW7yZ1aB5cD6eF0gHj';
const HOW_TO_GENERATE = /openssl rand -base64 32/;

let root: string;
let cases = 0;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'tw-weak-tokens-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A data directory of its own, not created yet. */
function freshDataDir(): string {
  cases += 1;
  return path.join(root, `case-${cases}`);
}

/** The error a start fails with; fails the test when the start succeeds. */
async function startFailure(
  options: Parameters<typeof startServer>[0],
  dataDir: string,
): Promise<TickwheelError> {
  const started = await startServer(options, dataDir).then(
    async (s) => {
      await s.close();
      return undefined;
    },
    (err: unknown) => err,
  );
  expect(isTickwheelError(started, 'TW_ERR_INVALID_OPTION'), String(started)).toBe(true);
  return started as TickwheelError;
}

describe('weak executor access tokens', () => {
  it.each([
    ['one character', 'a', /at least 32 characters \(got 1\)/],
    ['the published default_token', 'default_token', /'default_token' is a published default token/],
    ['31 characters', 'k'.repeat(15) + 'Q7'.repeat(8), /at least 32 characters \(got 31\)/],
    ['a published default in upper case', 'DEFAULT_TOKEN', /published default token/],
    ['one character repeated 40 times', 'x'.repeat(40), /one character repeated/],
  ])('accessToken of %s is refused at start, naming accessToken and how to generate one, before anything is written', async (_name, token, reason) => {
    const dataDir = freshDataDir();

    const err = await startFailure({ accessToken: token }, dataDir);

    expect(err.field).toBe('accessToken');
    expect(err.message).toMatch(/^accessToken: /);
    expect(err.message).toMatch(reason);
    expect(err.message).toMatch(HOW_TO_GENERATE);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('a weak TICKWHEEL_ACCESS_TOKEN is refused too, naming the variable', async () => {
    const err = await startFailure(
      { accessToken: undefined, env: { TICKWHEEL_ACCESS_TOKEN: 'default_token' } },
      freshDataDir(),
    );

    expect(err.field).toBe('accessToken');
    expect(err.message).toMatch(/^TICKWHEEL_ACCESS_TOKEN: 'default_token' is a published default token/);
  });

  it('a random token of 32 characters starts, and executors authenticate with it', async () => {
    const s = await startServer({ accessToken: STRONG_TOKEN }, freshDataDir());
    try {
      const res = await fetch(new URL('api/registry', s.server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', [ACCESS_TOKEN_HEADER]: STRONG_TOKEN },
        body: JSON.stringify({
          registryGroup: 'EXECUTOR',
          registryKey: 'strong',
          registryValue: 'http://10.0.0.5:9999/',
        }),
      });
      expect(await res.json()).toMatchObject({ code: 200 });
      expect(s.server.accessToken).toBe(STRONG_TOKEN);
    } finally {
      await s.close();
    }
  });

  it('the token generated at the first start is strong', async () => {
    const s = await startServer({ accessToken: undefined }, freshDataDir());
    try {
      expect(s.server.firstStartSecrets.accessToken).toBe(s.server.accessToken);
      expect(s.server.accessToken.length).toBeGreaterThanOrEqual(32);
    } finally {
      await s.close();
    }
  });

  it('a weak token an earlier version stored is refused with how to replace it, and a strong accessToken replaces it', async () => {
    const dataDir = freshDataDir();
    // What `tickwheel start --token default_token` left in the database before tokens were judged.
    const first = await startServer({ accessToken: undefined }, dataDir);
    await first.store.settings.setSetting(EXECUTOR_TOKEN_SETTING, 'default_token', Date.now());
    await first.server.stop();

    const err = await startFailure({ accessToken: undefined }, dataDir);
    expect(err.field).toBe('accessToken');
    expect(err.message).toMatch(/stored in the database: 'default_token' is a published default token/);
    expect(err.message).toMatch(HOW_TO_GENERATE);
    expect(err.message).toMatch(
      /start once with it as accessToken \(tickwheel start --token, or TICKWHEEL_ACCESS_TOKEN\)/,
    );

    const replaced = await startServer({ accessToken: STRONG_TOKEN }, dataDir);
    await replaced.server.stop();
    const store = await openStore({ database: 'sqlite:tickwheel.db', dataDir });
    try {
      expect(await store.settings.getSetting(EXECUTOR_TOKEN_SETTING)).toBe(STRONG_TOKEN);
    } finally {
      await store.close();
    }
    const again = await startServer({ accessToken: undefined }, dataDir);
    expect(again.server.accessToken).toBe(STRONG_TOKEN);
    await again.server.stop();
  });
});
