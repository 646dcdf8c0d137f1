/**
 * The README's start command: `tickwheel start --demo` serves the console, and signing in with
 * the admin password it printed shows the demo jobs firing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';

const CLI = fileURLToPath(new URL('../../cli/bin/tickwheel.js', import.meta.url));

describe('console: tickwheel start --demo', () => {
  let child: ChildProcess;
  let dataDir: string;
  let browser: Browser;
  let output = '';

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'tw-console-demo-'));
    child = spawn(
      process.execPath,
      [
        CLI,
        'start',
        '--demo',
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--data-dir',
        dataDir,
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TICKWHEEL_ADMIN_PASSWORD: '' } },
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const deadline = Date.now() + 60_000;
    while (!/Ctrl\+C stops the server/.test(output)) {
      if (child.exitCode !== null) throw new Error(`tickwheel start exited: ${output}`);
      if (Date.now() > deadline) throw new Error(`tickwheel start did not come up: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    browser = await launchBrowser();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  it('prints where the console is and the admin password, and the console shows the demo jobs firing', async () => {
    const url = output.match(/listening on (http:\/\/\S+)/)?.[1];
    const password = output.match(/admin login:\s+admin \/ (\S+)/)?.[1];
    expect(url).toBeDefined();
    expect(password).toBeDefined();
    expect(output).toContain(`web console:   ${url}`);

    const page = await newPage(browser);
    await signIn(page, url!, 'admin', password!);
    await page.goto(new URL('jobs', url).toString());
    await page.getByText('Say hello every 5 seconds').first().waitFor();
    await page.getByText('Sweep the shards every 30 seconds (broadcast)').first().waitFor();

    // The every-5-second job's records arrive in the records list, succeeded.
    await page.goto(new URL('fires?status=succeeded', url).toString());
    await page.getByText('Say hello every 5 seconds').first().waitFor({ timeout: 30_000 });
    await page.context().close();
  }, 90_000);
});
