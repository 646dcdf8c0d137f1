import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { type Platform, startPlatform } from './helpers/platform.js';

const ALICE = 'alice';
const ALICE_PASSWORD = 'alice-console-e2e-password';
const VISIBLE_JOB = 'alice-may-see-this-job';
const HIDDEN_JOB = 'other-app-secret-job';

describe('console: what a USER with one app sees', { timeout: 60_000 }, () => {
  let platform: Platform;
  let browser: Browser;
  let page: Page;
  let hiddenJobId: number;

  beforeAll(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    const otherApp = await platform.api<{ id: number }>('POST', '/api/v1/apps', {
      appName: 'other-app',
      title: 'Another team',
    });
    const job = (appId: number, name: string) =>
      platform.api<{ id: number }>('POST', '/api/v1/jobs', {
        appId,
        name,
        scheduleType: 'NONE',
        executorHandler: 'echo',
      });
    await job(platform.appId, VISIBLE_JOB);
    hiddenJobId = (await job(otherApp.id, HIDDEN_JOB)).id;
    await platform.api('POST', '/api/v1/users', {
      username: ALICE,
      password: ALICE_PASSWORD,
      role: 'USER',
      appIds: [platform.appId],
    });
    page = await newPage(browser);
    await signIn(page, platform.url, ALICE, ALICE_PASSWORD);
  }, 60_000);

  afterAll(async () => {
    await page?.context().close();
    await browser?.close();
    await platform?.stop();
  });

  it('lists the jobs of her app and not those of another app', async () => {
    await page.getByRole('menu').getByRole('link', { name: 'Jobs', exact: true }).click();
    await page.waitForURL(/\/jobs$/);
    await page.getByText(VISIBLE_JOB).first().waitFor({ timeout: 30_000 });
    await expect(page.locator('body').innerText()).resolves.not.toContain(HIDDEN_JOB);
    // Nor can her session read it by its id.
    const status = await page.evaluate(async (id) => (await fetch(`/api/v1/jobs/${id}`)).status, hiddenJobId);
    expect([403, 404]).toContain(status);
    const listed = await page.evaluate(async () => {
      const answer = (await (await fetch('/api/v1/jobs?limit=200')).json()) as { items: { name: string }[] };
      return answer.items.map((job) => job.name);
    });
    expect(listed).toEqual([VISIBLE_JOB]);
  });

  it('answers a job of another app as it answers a job that does not exist, in English and Chinese', async () => {
    // The server answers another app's job as a missing one (404), so its id cannot be probed.
    const missingJobId = hiddenJobId + 1000;
    await page.goto(new URL(`jobs/${missingJobId}`, platform.url).toString());
    const alert = page.getByRole('alert');
    await alert.getByText(`job ${missingJobId} does not exist`).waitFor();
    const missingText = (await alert.textContent())?.replace(String(missingJobId), '<id>');

    await page.goto(new URL(`jobs/${hiddenJobId}`, platform.url).toString());
    await alert.getByText(`job ${hiddenJobId} does not exist`).waitFor();
    await expect(alert.textContent()).resolves.not.toContain(HIDDEN_JOB);
    await expect(alert.textContent()).resolves.not.toContain('permission');
    expect((await alert.textContent())?.replace(String(hiddenJobId), '<id>')).toBe(missingText);

    await page.getByTestId('language-switch').getByText('中文').click();
    await alert.getByText(`任务不存在：job ${hiddenJobId} does not exist`).waitFor();
    await page.getByTestId('language-switch').getByText('EN').click();
    await alert.getByText(`job ${hiddenJobId} does not exist`).waitFor();
  });

  it('has no admin entries in the menu, and the admin pages answer 403', async () => {
    const menu = page.getByRole('menu');
    await menu.getByRole('link', { name: 'API tokens', exact: true }).waitFor();
    const entries = await menu.getByRole('link').allInnerTexts();
    expect(entries).toContain('Jobs');
    expect(entries).not.toContain('Users');
    expect(entries).not.toContain('Audit');
    expect(entries).not.toContain('Alarm channels');

    for (const adminPath of ['users', 'audit', 'channels']) {
      await page.goto(new URL(adminPath, platform.url).toString());
      await page.getByText('You may not see this page').waitFor();
      await expect(page.getByText('403', { exact: true }).count()).resolves.toBeGreaterThan(0);
    }
  });

  it('manages her own API tokens', async () => {
    await page.goto(new URL('tokens', platform.url).toString());
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    await page.getByRole('button', { name: 'New token' }).click();
    await page.getByLabel('Name').fill('alice laptop');
    await page.keyboard.press('Enter');
    const token = (await page.getByTestId('new-token').innerText()).trim();
    const me = await fetch(new URL('api/v1/me', platform.url), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { username: string }).username).toBe(ALICE);
  });
});
