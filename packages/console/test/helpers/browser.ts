/**
 * Debian's Chromium (`/usr/bin/chromium`, installed by .ci/run) driven by playwright-core.
 * `TW_CHROMIUM` points elsewhere when needed.
 */
import { type Browser, chromium, type Page } from 'playwright-core';
import { ADMIN_PASSWORD, ADMIN_USERNAME } from './platform.js';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
];

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.TW_CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_FLAGS,
  });
}

/** A fresh page (own cookies and storage) in English, at a laptop's size unless told otherwise. */
export async function newPage(
  browser: Browser,
  options: { width?: number; height?: number; locale?: string } = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    locale: options.locale ?? 'en-US',
  });
  const page = await context.newPage();
  // 30 s: the suite runs two files at a time, and a browser beside another file's servers and
  // executors on two cores has been seen to take over 15 s for one answer to appear (three such
  // timeouts in four CI runs, each after a confirm dialog's button, none reproduced alone).
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
