import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { APP_NAME, type Platform, startPlatform, waitFor } from './helpers/platform.js';
import { tick } from './helpers/tick.js';

const OWN_APP = 'e2e-own-token';
const COMPAT_APP = 'e2e-compat-token';
const ROTATED_APP = 'e2e-rotated-token';

interface ApiApp {
  id: number;
  appName: string;
  credential: 'app' | 'installation';
  previousTokenValidUntil: number | null;
}

function appRow(page: Page, appName: string) {
  return page.getByTestId('apps-table').getByRole('row').filter({ hasText: appName }).first();
}

/** What the server answers an executor registering `appName` with `token` (200: accepted). */
async function register(platform: Platform, appName: string, token: string): Promise<number> {
  const response = await fetch(new URL('api/registry', platform.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'XXL-JOB-ACCESS-TOKEN': token },
    body: JSON.stringify({
      registryGroup: 'EXECUTOR',
      registryKey: appName,
      registryValue: 'http://127.0.0.1:9/',
    }),
  });
  const body = (await response.json().catch(() => ({}))) as { code?: number };
  return body.code ?? response.status;
}

async function findApp(platform: Platform, appName: string): Promise<ApiApp> {
  const page = await platform.api<{ items: ApiApp[] }>('GET', `/api/v1/apps?appName=${appName}`);
  const app = page.items.find((item) => item.appName === appName);
  if (app === undefined) throw new Error(`no app ${appName}`);
  return app;
}

/** The token the show-once dialog shows, after checking what the dialog says around it. */
async function tokenShown(page: Page, appName: string): Promise<string> {
  const dialog = page.getByRole('dialog').filter({ hasText: `Executor token of ${appName}` });
  await dialog.waitFor();
  await dialog.getByText('it is shown only this once and will not be shown again').waitFor();
  await dialog.getByText(`--app ${appName}`).waitFor();
  await dialog.getByText('--token-file').waitFor();
  await dialog.getByText('accessToken: process.env.TICKWHEEL_ACCESS_TOKEN').waitFor();
  await dialog.getByRole('button', { name: 'Copy' }).waitFor();
  const token = (await dialog.getByTestId('app-token').textContent())?.trim() ?? '';
  expect(token.length).toBeGreaterThanOrEqual(32);
  return token;
}

async function closeTokenDialog(page: Page): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'I have copied it' }).click();
  await dialog.waitFor({ state: 'detached' });
}

describe('console: app executor tokens', () => {
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

  it('creates an app and shows its own executor token once, a token its executors can register with', async () => {
    const page = await newPage(browser);
    await signIn(page, platform.url);
    await page.goto(new URL('apps', platform.url).toString());
    await appRow(page, APP_NAME).waitFor();
    // The platform's app has a token of its own: no compatibility notice.
    await expect(page.getByTestId(`credential-${APP_NAME}`).textContent()).resolves.toBe('Own token');
    expect(await page.getByTestId('installation-token-notice').count()).toBe(0);

    await page.getByRole('button', { name: 'New app' }).click();
    const form = page.getByRole('dialog');
    await form.getByLabel('App name').fill(OWN_APP);
    await form.getByLabel('Title').fill('Own token app');
    await expect(
      form.getByLabel('Use the installation-wide token (compatibility mode)').isChecked(),
    ).resolves.toBe(false);
    await form.getByRole('button', { name: 'Save' }).click();

    const token = await tokenShown(page, OWN_APP);
    // The token works for this app, and only for it; the installation token does not.
    await expect(register(platform, OWN_APP, token)).resolves.toBe(200);
    await expect(register(platform, APP_NAME, token)).resolves.not.toBe(200);
    await expect(register(platform, OWN_APP, platform.installationToken)).resolves.not.toBe(200);
    await expect(register(platform, OWN_APP, `${token}x`)).resolves.not.toBe(200);

    await closeTokenDialog(page);
    await expect(page.getByTestId(`credential-${OWN_APP}`).textContent()).resolves.toBe('Own token');
    // Shown once: the page holds the token nowhere any more.
    expect(await page.content()).not.toContain(token);
    expect((await findApp(platform, OWN_APP)).credential).toBe('app');
    await page.context().close();
  }, 60_000);

  it('creates an app in compatibility mode: no token to show, a warning tag, and a notice on the apps page and the dashboard', async () => {
    const page = await newPage(browser);
    await signIn(page, platform.url);
    await page.goto(new URL('apps', platform.url).toString());
    await appRow(page, APP_NAME).waitFor();

    await page.getByRole('button', { name: 'New app' }).click();
    const form = page.getByRole('dialog');
    await form.getByLabel('App name').fill(COMPAT_APP);
    await form.getByLabel('Title').fill('Compatibility app');
    await tick(form.getByLabel('Use the installation-wide token (compatibility mode)'));
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    await page.getByText(`App ${COMPAT_APP} created`).waitFor();
    expect(await page.getByTestId('app-token').count()).toBe(0);

    const credential = page.getByTestId(`credential-${COMPAT_APP}`);
    await expect(credential.textContent()).resolves.toBe('Installation token (compatibility)');
    await expect(credential.evaluate((tag) => tag.className.includes('warning'))).resolves.toBe(true);
    await credential.hover();
    await page
      .getByRole('tooltip')
      .getByText(/Any executor holding the installation-wide token can register under this app/)
      .waitFor();
    expect((await findApp(platform, COMPAT_APP)).credential).toBe('installation');
    await expect(register(platform, COMPAT_APP, platform.installationToken)).resolves.toBe(200);

    const notice = page.getByTestId('installation-token-notice');
    await notice.getByText('1 app still uses the installation-wide executor token').waitFor();
    await expect(notice.textContent()).resolves.toContain(COMPAT_APP);

    await page.getByRole('menu').getByRole('link', { name: 'Dashboard', exact: true }).click();
    const dashboardNotice = page.getByTestId('installation-token-notice');
    await dashboardNotice.getByText('1 app still uses the installation-wide executor token').waitFor();
    await dashboardNotice.getByRole('link', { name: 'Go to the apps' }).click();
    await page.waitForURL(/\/apps$/);
    await appRow(page, COMPAT_APP).waitFor();

    await page.getByTestId('language-switch').getByText('中文').click();
    await page.getByRole('columnheader', { name: '执行器令牌' }).waitFor();
    await expect(page.getByTestId(`credential-${COMPAT_APP}`).textContent()).resolves.toBe(
      '全局令牌（兼容模式）',
    );
    await page
      .getByTestId('installation-token-notice')
      .getByText('1 个执行器仍在使用全局执行器令牌')
      .waitFor();
    await page.getByTestId('language-switch').getByText('EN', { exact: true }).click();
    await page.getByRole('columnheader', { name: 'Executor token' }).waitFor();
    await page.context().close();
  }, 60_000);

  it('rotates a token: the new one is shown once and works, the list says until when the old one does, "now" ends it at once', async () => {
    const created = await platform.api<ApiApp & { accessToken: string }>('POST', '/api/v1/apps', {
      appName: ROTATED_APP,
      title: 'Rotated app',
    });
    const first = created.accessToken;
    const page = await newPage(browser);
    await signIn(page, platform.url);
    await page.goto(new URL('apps', platform.url).toString());
    const row = appRow(page, ROTATED_APP);
    await row.waitFor();
    expect(await page.getByTestId(`previous-token-${ROTATED_APP}`).count()).toBe(0);

    // Keep the old token for 7 days.
    await row.getByRole('button', { name: `Rotate token ${ROTATED_APP}` }).click();
    const confirm = page
      .getByRole('dialog')
      .filter({ hasText: `Rotate the executor token of ${ROTATED_APP}` });
    await confirm.getByText('The old token stays valid').waitFor();
    await expect(confirm.getByLabel('for 24 hours').isChecked()).resolves.toBe(true);
    await tick(confirm.getByLabel('for 7 days'));
    const asked = Date.now();
    await confirm.getByRole('button', { name: 'Rotate' }).click();
    await confirm.waitFor({ state: 'detached' });
    const second = await tokenShown(page, ROTATED_APP);
    expect(second).not.toBe(first);
    await page.getByRole('dialog').getByText('The previous token stays valid until').waitFor();
    await closeTokenDialog(page);

    const overlapping = await findApp(platform, ROTATED_APP);
    const week = 7 * 24 * 60 * 60 * 1000;
    expect(overlapping.previousTokenValidUntil).toBeGreaterThanOrEqual(asked + week - 60_000);
    expect(overlapping.previousTokenValidUntil).toBeLessThanOrEqual(Date.now() + week + 60_000);
    const previous = page.getByTestId(`previous-token-${ROTATED_APP}`);
    await previous
      .filter({ hasText: /^previous token valid until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/ })
      .waitFor();
    await expect(register(platform, ROTATED_APP, second)).resolves.toBe(200);
    await expect(register(platform, ROTATED_APP, first)).resolves.toBe(200);

    // Rotate again, ending the replaced token now: only the newest one works.
    await row.getByRole('button', { name: `Rotate token ${ROTATED_APP}` }).click();
    const again = page.getByRole('dialog').filter({ hasText: `Rotate the executor token of ${ROTATED_APP}` });
    await tick(again.getByLabel('no, it stops working now'));
    await again.getByText('Executors using the old token are refused at once').waitFor();
    await again.getByRole('button', { name: 'Rotate' }).click();
    await again.waitFor({ state: 'detached' });
    const third = await tokenShown(page, ROTATED_APP);
    expect(await page.getByRole('dialog').getByText('The previous token stays valid until').count()).toBe(0);
    await closeTokenDialog(page);
    await previous.waitFor({ state: 'detached' });
    expect((await findApp(platform, ROTATED_APP)).previousTokenValidUntil).toBeNull();
    await expect(register(platform, ROTATED_APP, third)).resolves.toBe(200);
    await waitFor(
      async () => (await register(platform, ROTATED_APP, second)) !== 200,
      'the replaced token refused',
    );
    await expect(register(platform, ROTATED_APP, first)).resolves.not.toBe(200);
    await page.context().close();
  }, 60_000);

  it('rotating an app in compatibility mode gives it its own token and clears the notice', async () => {
    const compat = await findApp(platform, COMPAT_APP);
    const page = await newPage(browser);
    await signIn(page, platform.url);
    await page.goto(new URL('apps', platform.url).toString());
    await page.getByTestId('installation-token-notice').waitFor();
    await appRow(page, COMPAT_APP)
      .getByRole('button', { name: `Rotate token ${COMPAT_APP}` })
      .click();
    const confirm = page.getByRole('dialog');
    await confirm.getByText('Its executors may keep using the installation-wide token').waitFor();
    await tick(confirm.getByLabel('for 1 hour'));
    await confirm.getByRole('button', { name: 'Rotate' }).click();
    const token = await tokenShown(page, COMPAT_APP);
    await closeTokenDialog(page);
    await page.getByTestId(`credential-${COMPAT_APP}`).filter({ hasText: 'Own token' }).waitFor();
    await page
      .getByTestId(`previous-token-${COMPAT_APP}`)
      .filter({ hasText: /^previous token valid until / })
      .waitFor();
    await page.getByTestId('installation-token-notice').waitFor({ state: 'detached' });
    const rotated = await findApp(platform, COMPAT_APP);
    expect(rotated.id).toBe(compat.id);
    expect(rotated.credential).toBe('app');
    expect(rotated.previousTokenValidUntil).toBeLessThanOrEqual(Date.now() + 60 * 60 * 1000 + 60_000);
    await expect(register(platform, COMPAT_APP, token)).resolves.toBe(200);
    // The installation token still works for the app during the hour of overlap.
    await expect(register(platform, COMPAT_APP, platform.installationToken)).resolves.toBe(200);
    await page.context().close();
  }, 60_000);

  it("shows a user the apps' credentials but no way to rotate them", async () => {
    await platform.api('POST', '/api/v1/users', {
      username: 'tokens-viewer',
      password: 'tokens-viewer-password',
      role: 'USER',
      appIds: [platform.appId],
    });
    const page = await newPage(browser);
    await signIn(page, platform.url, 'tokens-viewer', 'tokens-viewer-password');
    await page.goto(new URL('apps', platform.url).toString());
    await appRow(page, APP_NAME).waitFor();
    await expect(page.getByTestId(`credential-${APP_NAME}`).textContent()).resolves.toBe('Own token');
    expect(await page.getByRole('button', { name: /Rotate token/ }).count()).toBe(0);
    expect(await page.getByLabel('Use the installation-wide token (compatibility mode)').count()).toBe(0);
    await page.context().close();
  }, 60_000);
});
