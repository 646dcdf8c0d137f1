import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { APP_NAME, type Platform, startPlatform } from './helpers/platform.js';
import { screenshot } from './helpers/screenshot.js';
import { tick } from './helpers/tick.js';

const NEW_APP = 'e2e-manual-app';

function appRow(page: Page, appName: string) {
  return page.getByTestId('apps-table').getByRole('row').filter({ hasText: appName }).first();
}

describe('console: apps', () => {
  let platform: Platform;
  let browser: Browser;

  beforeAll(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it("lists the apps and shows an app's online executor with its last heartbeat", async () => {
    await platform.api('POST', '/api/v1/apps', {
      appName: 'billing-workers',
      title: 'Billing workers',
      addressType: 'MANUAL',
      addressList: ['http://127.0.0.1:9901/', 'http://127.0.0.1:9902/'],
    });
    const page = await newPage(browser);
    await signIn(page, platform.url);
    await page.goto(new URL('apps', platform.url).toString());
    const row = appRow(page, APP_NAME);
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('Console e2e');
    await expect(row.textContent()).resolves.toContain('Automatic');
    await expect(appRow(page, 'billing-workers').textContent()).resolves.toMatch(
      /Billing workers.*Manual.*2/,
    );
    await expect(page.getByTestId(`online-${APP_NAME}`).textContent()).resolves.toBe('1');

    await row.getByRole('button', { name: 'Expand row' }).click();
    const executors = page.getByTestId(`executors-${APP_NAME}`);
    await executors.getByText(platform.executorAddress).waitFor();
    // The heartbeat shown is a recent one (the executor beats every 500 ms).
    const beat = await executors.locator('time').first().getAttribute('datetime');
    expect(Date.now() - Date.parse(beat ?? '')).toBeLessThan(60_000);
    await expect(executors.textContent()).resolves.toMatch(/\d+ s ago/);
    await expect(executors.textContent()).resolves.toMatch(/G[234]/);
    await screenshot(page, 'apps-en');

    await page.getByTestId('language-switch').getByText('中文').click();
    await page.getByRole('heading', { name: '执行器管理' }).waitFor();
    await executors.getByText('秒前').first().waitFor();
    await screenshot(page, 'apps-zh');
    await page.context().close();
  }, 60_000);

  it("creates an app, shows the server's error for a bad address, edits it and deletes it", async () => {
    const page = await newPage(browser);
    await signIn(page, platform.url);
    await page.goto(new URL('apps', platform.url).toString());
    await appRow(page, APP_NAME).waitFor();

    await page.getByRole('button', { name: 'New app' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('App name').fill(NEW_APP);
    await dialog.getByLabel('Title').fill('Manual <b>app</b>');
    await tick(dialog.getByLabel('Manual'));
    // The form asks for an address before asking the server.
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('A manual app needs at least one executor address').waitFor();

    await dialog.getByLabel('Executor addresses').fill('http://127.0.0.1:9/\nnot-a-url');
    await dialog.getByRole('button', { name: 'Save' }).click();
    // The server's reason shows under the address list, quoting the bad line.
    await dialog
      .locator('.ant-form-item')
      .filter({ hasText: 'Executor addresses' })
      .getByText(/'not-a-url' is not a URL/)
      .waitFor();
    expect((await platform.api<{ total: number }>('GET', `/api/v1/apps?appName=${NEW_APP}`)).total).toBe(0);

    await dialog.getByLabel('Executor addresses').fill('http://127.0.0.1:9/\nhttp://127.0.0.1:10/');
    await dialog.getByRole('button', { name: 'Save' }).click();
    // Then the new app's executor token, shown once (apps-tokens.test.ts tests it).
    const tokenDialog = page.getByRole('dialog').filter({ hasText: `Executor token of ${NEW_APP}` });
    await tokenDialog.getByTestId('app-token').waitFor();
    await tokenDialog.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    const row = appRow(page, NEW_APP);
    await row.waitFor();
    // What users type is shown as text.
    await row.getByText('Manual <b>app</b>').waitFor();
    await expect(row.textContent()).resolves.toContain('Manual');
    const created = await platform.api<{
      items: { id: number; addressType: string; addressList: string[] }[];
    }>('GET', `/api/v1/apps?appName=${NEW_APP}`);
    expect(created.items[0]?.addressType).toBe('MANUAL');
    expect(created.items[0]?.addressList).toEqual(['http://127.0.0.1:9/', 'http://127.0.0.1:10/']);

    await row.getByRole('button', { name: `Edit ${NEW_APP}` }).click();
    const edit = page.getByRole('dialog');
    await expect(edit.getByLabel('App name').isDisabled()).resolves.toBe(true);
    await expect(edit.getByLabel('Executor addresses').inputValue()).resolves.toBe(
      'http://127.0.0.1:9/\nhttp://127.0.0.1:10/',
    );
    await edit.getByLabel('Title').fill('Renamed manual app');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    await appRow(page, NEW_APP).getByText('Renamed manual app').waitFor();

    // The filter finds it by name; the executors of a manual app list its configured addresses.
    await page.getByLabel('Filter by app name').fill('manual');
    await page.getByLabel('Filter by app name').press('Enter');
    await page.waitForURL(/name=manual/);
    await appRow(page, APP_NAME).waitFor({ state: 'detached' });
    await appRow(page, NEW_APP).getByRole('button', { name: 'Expand row' }).click();
    await page.getByTestId(`executors-${NEW_APP}`).getByText('http://127.0.0.1:10/').waitFor();

    await appRow(page, NEW_APP)
      .getByRole('button', { name: `Delete ${NEW_APP}` })
      .click();
    await page.getByRole('tooltip').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Deleted').first().waitFor();
    await appRow(page, NEW_APP).waitFor({ state: 'detached' });
    expect((await platform.api<{ total: number }>('GET', `/api/v1/apps?appName=${NEW_APP}`)).total).toBe(0);
    await page.context().close();
  }, 90_000);

  it('refuses to delete an app that jobs use, saying why', async () => {
    await platform.api('POST', '/api/v1/jobs', {
      appId: platform.appId,
      name: 'keeps the app',
      scheduleType: 'NONE',
      executorHandler: 'echo',
    });
    const page = await newPage(browser);
    await signIn(page, platform.url);
    await page.goto(new URL('apps', platform.url).toString());
    await appRow(page, APP_NAME)
      .getByRole('button', { name: `Delete ${APP_NAME}` })
      .click();
    await page.getByRole('tooltip').getByRole('button', { name: 'Delete' }).click();
    await page.getByText(/used by 1 job/).waitFor();
    await appRow(page, APP_NAME).waitFor();
    await page.context().close();
  }, 60_000);

  it('lets a non-admin see the apps but not change them', async () => {
    await platform.api('POST', '/api/v1/users', {
      username: 'apps-viewer',
      password: 'apps-viewer-password',
      role: 'USER',
      appIds: [platform.appId],
    });
    const page = await newPage(browser);
    await signIn(page, platform.url, 'apps-viewer', 'apps-viewer-password');
    await page.goto(new URL('apps', platform.url).toString());
    await appRow(page, APP_NAME).waitFor();
    await page.getByText('Only administrators can change apps.').waitFor();
    expect(await page.getByRole('button', { name: 'New app' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: `Edit ${APP_NAME}` }).count()).toBe(0);
    expect(await page.getByRole('button', { name: `Delete ${APP_NAME}` }).count()).toBe(0);
    await appRow(page, APP_NAME).getByRole('button', { name: 'Expand row' }).click();
    await page.getByTestId(`executors-${APP_NAME}`).getByText(platform.executorAddress).waitFor();
    await page.context().close();
  }, 60_000);
});
