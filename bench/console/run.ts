/**
 * The console's first load from a cold browser, and its bundle sizes.
 *
 *   npm run bench:console                   # 5 rounds
 *   npm run bench:console -- --rounds 10 --json
 *
 * A real server (SQLite in a temp folder, 127.0.0.1, an ephemeral port) serves the built console.
 * Each round starts a new Chromium process (Debian's /usr/bin/chromium, or TW_CHROMIUM) with an
 * empty profile — nothing cached — opens `/` (which sends a signed-out visitor to the sign-in
 * page) and measures until the sign-in form is visible, then signs in and measures until the
 * dashboard's figures are on screen. The bundle table lists every built file with its size raw
 * and gzip-compressed, and which of them the first page loaded.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { consoleDir } from '@tickwheel/console';
import { createServer } from '@tickwheel/server';
import { pino } from 'pino';
import { chromium } from 'playwright-core';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, json: { type: 'boolean', default: false } },
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds: must be a whole number ≥ 1');

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
];
const PASSWORD = 'bench-console-password';

interface Round {
  signInVisibleMs: number;
  domContentLoadedMs: number;
  firstContentfulPaintMs: number | undefined;
  dashboardAfterSignInMs: number;
  firstPageBytes: number;
  firstPageRequests: number;
  loaded: string[];
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'tw-bench-console-'));
  const server = await createServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    adminPassword: PASSWORD,
    accessToken: randomBytes(16).toString('hex'),
    consoleDir,
    logger: pino({ level: 'warn' }),
    env: {},
  });
  const results: Round[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      results.push(await round(server.url));
      process.stderr.write(`round ${i + 1}/${rounds}: sign-in page ${results.at(-1)!.signInVisibleMs} ms\n`);
    }
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  const bundle = await bundleSizes(new Set(results[0]!.loaded));
  if (values.json) {
    console.log(JSON.stringify({ rounds: results, bundle }, null, 2));
    return;
  }
  const cols = (r: Round) =>
    [
      r.signInVisibleMs,
      r.domContentLoadedMs,
      r.firstContentfulPaintMs ?? '—',
      r.dashboardAfterSignInMs,
      kb(r.firstPageBytes),
      r.firstPageRequests,
    ].join(' | ');
  console.log(
    '| round | sign-in form visible ms | DOMContentLoaded ms | first contentful paint ms | dashboard after sign-in ms | first page JS+HTML (decoded) | requests |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [i, r] of results.entries()) console.log(`| ${i + 1} | ${cols(r)} |`);
  const median = (pick: (r: Round) => number) => {
    const sorted = results.map(pick).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  };
  console.log(
    `\nmedian: sign-in form visible ${median((r) => r.signInVisibleMs)} ms, dashboard after sign-in ${median((r) => r.dashboardAfterSignInMs)} ms\n`,
  );
  const first = bundle.filter((file) => file.firstPage);
  const sum = (files: typeof bundle, pick: (file: (typeof bundle)[number]) => number) =>
    kb(files.reduce((total, file) => total + pick(file), 0));
  console.log('| file | raw | gzip | brotli | on the first page |');
  console.log('| --- | ---: | ---: | ---: | :---: |');
  for (const file of bundle) {
    console.log(
      `| ${file.name} | ${kb(file.raw)} | ${kb(file.gzip)} | ${kb(file.brotli)} | ${file.firstPage ? 'yes' : ''} |`,
    );
  }
  console.log(
    `| **first page (${first.length} files)** | ${sum(first, (f) => f.raw)} | ${sum(first, (f) => f.gzip)} | ${sum(first, (f) => f.brotli)} | |`,
  );
  console.log(
    `| **all (${bundle.length} files)** | ${sum(bundle, (f) => f.raw)} | ${sum(bundle, (f) => f.gzip)} | ${sum(bundle, (f) => f.brotli)} | |`,
  );
}

async function round(baseUrl: string): Promise<Round> {
  const browser = await chromium.launch({
    executablePath: process.env.TW_CHROMIUM ?? '/usr/bin/chromium',
    args: FLAGS,
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    const page = await context.newPage();
    const loaded: string[] = [];
    let bytes = 0;
    page.on('response', (response) => {
      loaded.push(new URL(response.url()).pathname);
      void response
        .body()
        .then((body) => {
          bytes += body.length;
        })
        .catch(() => {});
    });
    const started = Date.now();
    await page.goto(baseUrl);
    await page.getByLabel('Username').waitFor({ state: 'visible' });
    const signInVisibleMs = Date.now() - started;
    // A string: this runs in the page, whose types (DOM) the harness is not compiled with.
    const timing = (await page.evaluate(`(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      return { dcl: nav ? nav.domContentLoadedEventEnd : 0, fcp: fcp ? fcp.startTime : undefined };
    })()`)) as { dcl: number; fcp: number | undefined };
    const firstPageLoaded = [...loaded];
    const firstPageBytes = bytes;
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(PASSWORD);
    const signInAt = Date.now();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('dashboard-figures').waitFor({ state: 'visible' });
    const dashboardAfterSignInMs = Date.now() - signInAt;
    return {
      signInVisibleMs,
      domContentLoadedMs: Math.round(timing.dcl),
      firstContentfulPaintMs: timing.fcp === undefined ? undefined : Math.round(timing.fcp),
      dashboardAfterSignInMs,
      firstPageBytes,
      firstPageRequests: firstPageLoaded.length,
      loaded: firstPageLoaded,
    };
  } finally {
    await browser.close();
  }
}

/** Every built file (not the .br/.gz copies) with its size raw, as served gzip and as served brotli. */
async function bundleSizes(firstPage: Set<string>) {
  const files: { name: string; raw: number; gzip: number; brotli: number; firstPage: boolean }[] = [];
  const sizeOf = async (file: string) => (await stat(file).catch(() => undefined))?.size;
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const name = `${prefix}${entry.name}`;
      if (entry.isDirectory()) await walk(full, `${name}/`);
      else if (!/\.(br|gz)$/.test(entry.name)) {
        const raw = (await stat(full)).size;
        files.push({
          name,
          raw,
          gzip: (await sizeOf(`${full}.gz`)) ?? gzipSync(await readFile(full)).length,
          brotli: (await sizeOf(`${full}.br`)) ?? raw,
          firstPage: firstPage.has(`/${name}`) || (name === 'index.html' && firstPage.has('/')),
        });
      }
    }
  };
  await walk(consoleDir, '');
  return files.sort((a, b) => b.raw - a.raw);
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} kB`;
}

await main();
