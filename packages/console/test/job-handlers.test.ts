/**
 * The job form's Handler field in a real Chromium against a real server and executor: it offers
 * the handler names the chosen app's online executors registered (the executor sends them with
 * its heartbeat), narrows them as one types, and still saves any name typed (XXL-JOB executors
 * send no names; a job may be written before its executor runs).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { APP_NAME, type Platform, startPlatform } from './helpers/platform.js';

interface JobAnswer {
  name: string;
  appId: number;
  executorHandler: string;
}

const OTHER_APP = 'console-e2e-xxl';

describe('console: the job form suggests handler names', () => {
  let platform: Platform;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    platform = await startPlatform();
    await platform.api('POST', '/api/v1/apps', { appName: OTHER_APP, title: 'No Tickwheel executor' });
    browser = await launchBrowser();
    page = await newPage(browser);
    await signIn(page, platform.url);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  const handlerField = () => page.getByLabel('Handler', { exact: true });
  const suggestions = () => page.locator('.ant-select-dropdown:visible .ant-select-item-option');

  /** Picks the app in the App select by typing its name and clicking its option. */
  async function chooseApp(appName: string): Promise<void> {
    const input = page.getByLabel('App', { exact: true });
    await input.click();
    await input.fill(appName);
    // An option reads `<app name> (<title>)`.
    await page
      .locator('.ant-select-dropdown:visible')
      .getByTitle(new RegExp(`^${appName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( |$)`))
      .click();
    await page.keyboard.press('Escape');
  }

  async function openNewJob(): Promise<void> {
    await page.goto(new URL('jobs/new', platform.url).toString());
    await page.getByTestId('job-form').waitFor();
  }

  it("offers the names the app's executor registered, narrowed by what is typed", async () => {
    await openNewJob();
    await chooseApp(APP_NAME);
    await handlerField().click();
    await expect
      .poll(() => suggestions().allTextContents())
      .toEqual(['echo', 'fail', 'gated', 'html', 'slow']);

    await handlerField().fill('SL');
    await expect.poll(() => suggestions().allTextContents()).toEqual(['slow']);
    await suggestions().first().click();
    await expect.poll(() => handlerField().inputValue()).toBe('slow');
  });

  it('saves a handler name no executor registered, typed as free text', async () => {
    await openNewJob();
    await chooseApp(APP_NAME);
    await page.getByLabel('Name', { exact: true }).fill('runs a handler of an XXL-JOB executor');
    await page.getByLabel('Cron expression', { exact: true }).fill('0 0 3 * * ?');
    await handlerField().fill('legacyXxlHandler');
    await expect.poll(() => suggestions().count()).toBe(0);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/jobs$/);

    const jobs = await platform.api<{ items: JobAnswer[] }>(
      'GET',
      `/api/v1/jobs?name=${encodeURIComponent('runs a handler of an XXL-JOB executor')}`,
    );
    expect(jobs.items).toEqual([
      expect.objectContaining({ appId: platform.appId, executorHandler: 'legacyXxlHandler' }),
    ]);
  });

  it('offers nothing for an app without a Tickwheel executor online', async () => {
    await openNewJob();
    await chooseApp(OTHER_APP);
    await handlerField().click();
    await handlerField().fill('e');
    // The suggestions of the app chosen before must not linger either.
    await page.waitForTimeout(500);
    expect(await suggestions().count()).toBe(0);
    await expect.poll(() => handlerField().inputValue()).toBe('e');
  });
});
