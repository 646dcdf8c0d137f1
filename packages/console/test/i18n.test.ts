import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { type Platform, startPlatform } from './helpers/platform.js';
import { screenshot } from './helpers/screenshot.js';

/** The side menu (the frame's navigation), by its links. */
function menuLink(page: Page, name: string) {
  return page.getByRole('menu').getByRole('link', { name, exact: true });
}

describe('console: English and Simplified Chinese', { timeout: 60_000 }, () => {
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

  it('shows the sign-in page in the language of a browser set to Chinese, and in English otherwise', async () => {
    const english = await newPage(browser, { locale: 'en-US' });
    await english.goto(new URL('login', platform.url).toString());
    await english.getByRole('heading', { name: 'Sign in to Tickwheel' }).waitFor();
    await screenshot(english, 'login-en');
    await english.context().close();

    const chinese = await newPage(browser, { locale: 'zh-CN' });
    await chinese.goto(new URL('login', platform.url).toString());
    await chinese.getByRole('heading', { name: '登录 Tickwheel' }).waitFor();
    await expect(chinese.evaluate(() => document.documentElement.lang)).resolves.toBe('zh-CN');
    await screenshot(chinese, 'login-zh');
    await chinese.context().close();
  });

  it('switches to Chinese in the header, remembers it across a reload and a new sign-in, and switches back', async () => {
    const page = await newPage(browser, { locale: 'en-US' });
    await signIn(page, platform.url);
    await menuLink(page, 'Jobs').waitFor();

    await page.getByTestId('language-switch').getByText('中文').click();
    await menuLink(page, '任务管理').waitFor();
    await menuLink(page, '用户管理').click();
    await page.getByRole('heading', { name: '用户管理' }).waitFor();
    await page.getByRole('button', { name: /新增用户/ }).waitFor();
    // antd's own words follow too (the table's pagination, here "共 1 条").
    await page.getByText('共 1 条').waitFor();
    await expect(page.evaluate(() => document.documentElement.lang)).resolves.toBe('zh-CN');
    await screenshot(page, 'users-zh');

    await page.reload();
    await page.getByRole('heading', { name: '用户管理' }).waitFor();
    await menuLink(page, '任务管理').waitFor();
    await expect(page.evaluate(() => localStorage.getItem('tickwheel.language'))).resolves.toBe('zh');

    // Signing out and in again keeps it: the choice belongs to the browser, not the session.
    await page.getByTestId('user-menu').click();
    await page.getByText('退出登录').click();
    await page.getByRole('heading', { name: '登录 Tickwheel' }).waitFor();
    await signIn(page, platform.url);
    await menuLink(page, '运行报表').waitFor();

    await page.getByTestId('language-switch').getByText('EN').click();
    await menuLink(page, 'Jobs').waitFor();
    await page.goto(new URL('users', platform.url).toString());
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await expect(page.getByRole('menu').textContent()).resolves.not.toMatch(/任务管理|用户管理/);
    await expect(page.evaluate(() => document.documentElement.lang)).resolves.toBe('en');
    await page.context().close();
  });

  it('puts the meaning of the server’s error code, in Chinese, before the server’s English message', async () => {
    const page = await newPage(browser, { locale: 'zh-CN' });
    await signIn(page, platform.url);
    await menuLink(page, '任务管理').waitFor();
    await page.goto(new URL('jobs/999999', platform.url).toString());
    const alert = page.getByRole('alert');
    await alert.getByText('任务不存在：job 999999 does not exist').waitFor();

    await page.getByTestId('language-switch').getByText('EN').click();
    await alert.getByText('job 999999 does not exist', { exact: true }).waitFor();
    await expect(alert.textContent()).resolves.not.toContain('任务不存在');
    await page.context().close();
  });
});
