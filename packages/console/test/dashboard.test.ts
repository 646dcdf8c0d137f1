import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { type Platform, startPlatform, waitFor } from './helpers/platform.js';
import { screenshot } from './helpers/screenshot.js';

/** The number a dashboard figure card shows (Statistic groups thousands with commas). */
async function figure(page: Page, testId: string): Promise<number> {
  const text = await page.getByTestId(`${testId}-value`).textContent();
  return Number((text ?? '').replace(/[^0-9.]/g, ''));
}

describe('console: dashboard', () => {
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

  it('shows the empty state before any job fired', async () => {
    const page = await newPage(browser);
    await signIn(page, platform.url);
    await page.getByTestId('dashboard-empty').waitFor();
    expect(await figure(page, 'figure-jobs')).toBe(0);
    expect(await figure(page, 'figure-fires-today')).toBe(0);
    // The executor of the test platform is online.
    expect(await figure(page, 'figure-executors')).toBe(1);
    // No report yet: the fire figures say so rather than pass for a computed 0.
    await expect(page.getByTestId('figure-fires-today-as-of').textContent()).resolves.toBe(
      'not computed yet',
    );
    await expect(page.getByTestId('dashboard-updated-at').textContent()).resolves.toMatch(
      /Updated at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/,
    );
    expect(await page.locator('canvas').count()).toBe(0);
    await page.context().close();
  }, 60_000);

  it('shows the fires of a running job by itself (auto-refresh) and draws both charts', async () => {
    const page = await newPage(browser);
    // Charts drawn at once (no animation), as for people who ask for less motion: the pictures show them whole.
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await signIn(page, platform.url);
    await page.getByTestId('dashboard-empty').waitFor();
    const updatedBefore = await page.getByTestId('dashboard-updated-at').textContent();

    const job = await platform.api<{ id: number }>('POST', '/api/v1/jobs', {
      appId: platform.appId,
      name: 'dashboard e2e',
      scheduleType: 'CRON',
      scheduleConf: '* * * * * ?',
      executorHandler: 'echo',
      executorParam: 'dashboard',
      triggerStatus: 1,
    });
    await waitFor(
      async () => {
        const fires = await platform.api<{ total: number }>(
          'GET',
          `/api/v1/fires?jobId=${job.id}&status=succeeded&limit=1`,
        );
        return fires.total >= 3;
      },
      'three successful fires',
      40_000,
    );

    // No reload: the page asks again every 10 s and the server recomputes its reports every 2 s.
    await page
      .getByTestId('figure-fires-today-value')
      .filter({ hasNotText: /^0$/ })
      .waitFor({ timeout: 60_000 });
    expect(await figure(page, 'figure-fires-today')).toBeGreaterThan(0);
    expect(await figure(page, 'figure-jobs')).toBe(1);
    expect(await page.getByTestId('dashboard-updated-at').textContent()).not.toBe(updatedBefore);
    await expect(page.getByTestId('fires-today-by-result').textContent()).resolves.toMatch(/Succeeded [1-9]/);
    await expect(page.getByTestId('dashboard-computed-at').textContent()).resolves.toMatch(
      /Figures computed at \d{4}-/,
    );
    // Each fire figure says when the server computed it (the moment of the line under the cards),
    // so a figure behind the fire list reads as older, not as wrong. Read at once: the page refreshes.
    const shown = await page.evaluate(() => {
      const text = (id: string) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? '';
      return {
        firesToday: text('figure-fires-today-as-of'),
        running: text('figure-running-as-of'),
        line: text('dashboard-computed-at'),
      };
    });
    expect(shown.firesToday).toMatch(/^as of \d\d:\d\d:\d\d$/);
    expect(shown.running).toBe(shown.firesToday);
    expect(shown.line).toContain(shown.firesToday.replace('as of ', ''));

    // Both charts draw on a canvas of a real size.
    for (const chart of ['chart-fires', 'chart-lateness']) {
      const canvas = page.getByTestId(chart).locator('canvas');
      await canvas.first().waitFor();
      const box = await canvas.first().boundingBox();
      expect(box?.width ?? 0).toBeGreaterThan(100);
      expect(box?.height ?? 0).toBeGreaterThan(100);
    }
    await expect(page.getByTestId('chart-fires').getAttribute('aria-label')).resolves.toContain('7 days');
    await screenshot(page, 'dashboard-en');

    // The 30-day view asks for 30 days and says so.
    await page.getByText('Last 30 days').click();
    await page.waitForURL(/days=30/);
    await page.getByTestId('chart-fires').and(page.locator('[aria-label*="30 days"]')).waitFor();
    await page.getByTestId('chart-fires').locator('canvas').first().waitFor();
    await page.getByText('Last 7 days').click();
    await page.waitForURL((url) => !url.search.includes('days=30'));

    await page.getByTestId('language-switch').getByText('中文').click();
    await page.getByRole('heading', { name: '运行报表' }).waitFor();
    await page.getByText('今日调度次数').waitFor();
    await page.getByTestId('chart-fires').and(page.locator('[aria-label*="柱状图"]')).waitFor();
    await screenshot(page, 'dashboard-zh');

    await platform.api('POST', `/api/v1/jobs/${job.id}/stop`);
    await page.context().close();
  }, 150_000);

  it('narrows every figure to the app chosen in the toolbar, kept in the URL', async () => {
    const quiet = await platform.api<{ id: number }>('POST', '/api/v1/apps', {
      appName: 'dashboard-quiet',
      title: 'Quiet app',
    });
    const page = await newPage(browser);
    await signIn(page, platform.url);
    await page.getByTestId('chart-fires').locator('canvas').first().waitFor();
    // All apps: the job of the test above, the platform's executor.
    expect(await figure(page, 'figure-jobs')).toBe(1);
    expect(await figure(page, 'figure-executors')).toBe(1);

    await page.getByTestId('dashboard-app').click();
    await page.locator('.ant-select-dropdown:visible').getByTitle('Quiet app').click();
    await page.waitForURL(new RegExp(`appId=${quiet.id}`));
    await page.getByTestId('dashboard-empty').waitFor();
    expect(await figure(page, 'figure-jobs')).toBe(0);
    expect(await figure(page, 'figure-executors')).toBe(0);

    // The choice survives a reload; the platform's app shows its own fires again.
    await page.reload();
    await page.getByTestId('dashboard-empty').waitFor();
    await page.getByTestId('dashboard-app').click();
    await page.locator('.ant-select-dropdown:visible').getByTitle('Console e2e').click();
    await page.waitForURL(new RegExp(`appId=${platform.appId}`));
    await page.getByTestId('chart-fires').locator('canvas').first().waitFor();
    expect(await figure(page, 'figure-jobs')).toBe(1);
    expect(await figure(page, 'figure-fires-today')).toBeGreaterThan(0);
    await page.context().close();
  }, 60_000);

  it('fits a phone screen: the figures stack and the charts keep their width', async () => {
    const page = await newPage(browser, { width: 390, height: 844 });
    await signIn(page, platform.url);
    await page.getByTestId('chart-fires').locator('canvas').first().waitFor();
    const box = await page.getByTestId('chart-fires').boundingBox();
    expect(box?.width ?? 0).toBeGreaterThan(250);
    expect(box?.width ?? 0).toBeLessThanOrEqual(390);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scrollWidth).toBeLessThanOrEqual(390);
    await page.context().close();
  }, 60_000);
});
