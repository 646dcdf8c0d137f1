/**
 * Debian's Chromium (`/usr/bin/chromium`, installed by .ci/run) driven by playwright-core.
 * `TW_CHROMIUM` points elsewhere when needed.
 */

import { basename, join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from './platform.js';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
];

export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: process.env.TW_CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_FLAGS,
  });
  if (process.env.TW_TRACE_DIR) {
    const close = browser.close.bind(browser);
    browser.close = async (options) => {
      for (const context of browser.contexts()) await saveTrace(context);
      return close(options);
    };
  }
  return browser;
}

let traces = 0;

/**
 * With `TW_TRACE_DIR`, saves a context's Playwright trace there before it closes (its own close
 * or its browser's), named after the test file: `npx playwright-core show-trace <file>`.
 */
async function saveTrace(context: BrowserContext): Promise<void> {
  const traceDir = process.env.TW_TRACE_DIR;
  if (!traceDir) return;
  const name = `${basename(expect.getState().testPath ?? 'test')}-${process.pid}-${++traces}.zip`;
  // A context whose trace was saved already (closed before its browser) has none to stop.
  await context.tracing.stop({ path: join(traceDir, name) }).catch(() => undefined);
}

/**
 * A fresh page (own cookies and storage) in English, at a laptop's size, asking for reduced motion,
 * unless told otherwise.
 *
 * Reduced motion: the console then opens its dialogs without their zoom. With it, a button in a
 * dialog that had just opened was at times clicked and nothing happened: antd holds the dialog at
 * a fifth of its size for a few frames before the zoom starts, Playwright's "stable" check passed
 * on that still box, the press landed on the small button, and the release, after the zoom had
 * grown it, landed beside it, so no click reached the button (a trace of a failed run showed the
 * button 10×6 px at the press). On two loaded cores that was the console tests' one flake (a
 * confirm's Clear, Kill, Restore or Leave seemingly ignored). `motion.test.ts` checks both settings.
 */
export async function newPage(
  browser: Browser,
  options: {
    width?: number;
    height?: number;
    locale?: string;
    reducedMotion?: 'reduce' | 'no-preference';
  } = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    locale: options.locale ?? 'en-US',
    reducedMotion: options.reducedMotion ?? 'reduce',
  });
  if (process.env.TW_TRACE_DIR) {
    await context.tracing.start({ screenshots: true, snapshots: true });
    const close = context.close.bind(context);
    context.close = async (options) => {
      await saveTrace(context);
      return close(options);
    };
  }
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error(`[browser] page error: ${error.stack ?? error.message}`));
  // Not the browser's line for each 4xx/5xx answer: many tests ask for refusals on purpose (a
  // trace shows every request).
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource:'))
      console.error(`[browser] console error: ${message.text()}`);
  });
  // 30 s: the suite runs two files at a time, and a browser beside another file's servers and
  // executors on two cores can take seconds for one answer to appear.
  page.setDefaultTimeout(30_000);
  return page;
}

/** Signs in through the console's sign-in page and waits for the dashboard's frame. */
export async function signIn(
  page: Page,
  baseUrl: string,
  username = ADMIN_USERNAME,
  password = ADMIN_PASSWORD,
): Promise<void> {
  await page.goto(new URL('login', baseUrl).toString());
  await page.getByLabel(/username|用户名/i).fill(username);
  await page.getByLabel(/password|密码/i).fill(password);
  // antd spaces out a two-character Chinese button label (登 录).
  await page.getByRole('button', { name: /sign in|登\s*录/i }).click();
  await page.getByTestId('user-menu').waitFor();
}
