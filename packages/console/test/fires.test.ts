/**
 * The fire-record pages in a real Chromium against a real server and executor: a cron job's
 * fires appear in the list filtered through the URL; old records are cleared with the count the
 * server reports; a running fire's log arrives line by line until the run ends; a long run is
 * killed from its page; a log holding markup is shown as text and never runs.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { createJob, getFire, triggerOnce, waitForFinished, waitForRunning } from './helpers/fire-runs.js';
import { HTML_LOG_LINE, type Platform, startPlatform, waitFor } from './helpers/platform.js';
import { screenshot } from './helpers/screenshot.js';

interface FirePage {
  items: { id: number; jobId: number; status: string }[];
  total: number;
}

const CRON_JOB = 'echo every two seconds';
const OTHER_JOB = 'echo once';

function url(platform: Platform, path: string): string {
  return new URL(path, platform.url).toString();
}

async function switchLanguage(page: Page, language: 'EN' | '中文'): Promise<void> {
  await page.getByTestId('language-switch').getByText(language, { exact: true }).click();
}

/** The log's text once it holds `text`. */
async function logHolding(page: Page, text: string, timeout = 30_000): Promise<string> {
  const log = page.getByTestId('fire-log');
  await expect.poll(async () => (await log.textContent()) ?? '', { timeout, interval: 100 }).toContain(text);
  return (await log.textContent()) ?? '';
}

describe('console: fire records', () => {
  let platform: Platform;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    page = await newPage(browser);
    await signIn(page, platform.url);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it('lists a cron job’s fires as they succeed, filtered by the job through the URL, and opens one', async () => {
    const otherId = await createJob(platform, { name: OTHER_JOB, executorHandler: 'echo' });
    await waitForFinished(platform, await triggerOnce(platform, otherId, 'other'));
    const jobId = await createJob(platform, {
      name: CRON_JOB,
      scheduleType: 'CRON',
      scheduleConf: '*/2 * * * * ?',
      executorHandler: 'echo',
      executorParam: 'tick',
    });
    await platform.api('POST', `/api/v1/jobs/${jobId}/start`);

    // The jobs page links here with ?jobId=; the filter shows the job by name.
    await page.goto(url(platform, `fires?jobId=${jobId}`));
    await page.getByText(`${CRON_JOB} (#${jobId})`).waitFor();
    const table = page.getByTestId('fires-table');
    // New fires come in by themselves (the list refreshes while fires may be in flight).
    await table.locator('[data-status="succeeded"]').first().waitFor({ timeout: 45_000 });
    const rows = table.locator('tbody tr[data-row-key]');
    const shown = await rows.count();
    expect(shown).toBeGreaterThan(0);
    await expect(table.getByRole('link', { name: CRON_JOB, exact: true }).count()).resolves.toBe(shown);
    await expect(table.getByRole('link', { name: OTHER_JOB }).count()).resolves.toBe(0);
    const succeeded = rows.filter({ has: page.locator('[data-status="succeeded"]') });
    await expect(succeeded.first().textContent()).resolves.toContain(platform.executorAddress);

    // A status filter in the URL: only succeeded records.
    await page.goto(url(platform, `fires?jobId=${jobId}&status=succeeded`));
    await table.locator('[data-status="succeeded"]').first().waitFor();
    const statuses = await table
      .locator('tbody [data-status]')
      .evaluateAll((tags) => tags.map((tag) => tag.getAttribute('data-status')));
    expect(new Set(statuses)).toEqual(new Set(['succeeded']));
    // The time range is open, so the filtered list keeps refreshing: a newer succeeded fire arrives.
    const newest = Number(await rows.first().getAttribute('data-row-key'));
    await waitFor(
      async () => Number(await rows.first().getAttribute('data-row-key')) > newest,
      'a newer succeeded fire in the status-filtered list',
    );
    await screenshot(page, 'fires-en');
    await switchLanguage(page, '中文');
    await page.getByRole('heading', { name: '调度日志' }).waitFor();
    await screenshot(page, 'fires-zh');
    await switchLanguage(page, 'EN');
    await page.getByRole('heading', { name: 'Fire records' }).waitFor();

    // A row opens its record.
    const firstId = await rows.first().getAttribute('data-row-key');
    await rows.first().locator('td').nth(4).click();
    await page.waitForURL(new RegExp(`/fires/${firstId}$`));
    await page.getByRole('heading', { name: `Fire record #${firstId}` }).waitFor();
    await page.getByRole('link', { name: `${CRON_JOB} (#${jobId})` }).waitFor();

    await platform.api('POST', `/api/v1/jobs/${jobId}/stop`);
  }, 120_000);

  it('clears a job’s finished records after asking, showing how many the server deleted', async () => {
    const { items } = await platform.api<{ items: { id: number; name: string }[] }>(
      'GET',
      `/api/v1/jobs?appId=${platform.appId}&name=${encodeURIComponent(CRON_JOB)}`,
    );
    const jobId = items[0]!.id;
    const inFlight = () =>
      platform.api<FirePage>('GET', `/api/v1/fires?jobId=${jobId}&status=pending&status=dispatched`);
    await waitFor(async () => (await inFlight()).total === 0, 'the stopped job’s fires to finish');
    const before = (await platform.api<FirePage>('GET', `/api/v1/fires?jobId=${jobId}`)).total;
    expect(before).toBeGreaterThan(0);

    await page.goto(url(platform, `fires?jobId=${jobId}`));
    await page.getByTestId('fires-table').locator('[data-status]').first().waitFor();
    await page.getByRole('button', { name: 'Clear old records' }).click();
    const dialog = page.locator('.ant-modal').filter({ hasText: 'Clear old fire records' });
    await dialog.getByLabel('Which records').click();
    await page.locator('.ant-select-dropdown:visible').getByTitle('All finished records').click();
    await dialog.locator('.ant-modal-footer').getByRole('button', { name: 'Clear', exact: true }).click();
    // Nothing is deleted before the second question is answered.
    const confirm = page.locator('.ant-modal-confirm');
    await confirm.locator('.ant-modal-confirm-title').getByText('This cannot be undone').waitFor();
    expect((await platform.api<FirePage>('GET', `/api/v1/fires?jobId=${jobId}`)).total).toBe(before);
    await confirm.getByRole('button', { name: 'Clear', exact: true }).click();
    await expect(dialog.getByTestId('clear-result').textContent()).resolves.toBe(
      `Fire records deleted: ${before}`,
    );
    expect((await platform.api<FirePage>('GET', `/api/v1/fires?jobId=${jobId}`)).total).toBe(0);
    await dialog.getByRole('button', { name: 'Close' }).first().click();
    await page.getByText('No fire records match these filters').waitFor();
  }, 90_000);

  it('streams a running fire’s log, appending lines as they come, until the run ends', async () => {
    const jobId = await createJob(platform, { name: 'slow lines', executorHandler: 'slow' });
    const fireId = await triggerOnce(platform, jobId, '3');
    await page.goto(url(platform, `fires/${fireId}`));

    const early = await logHolding(page, 'slow line 1\n');
    // The run writes 10 lines over 3 s: the first ones show before the run is over.
    expect(early).not.toContain('slow line 10');
    const state = page.getByTestId('fire-log-state');
    await waitFor(async () => (await state.getAttribute('data-state')) === 'ended', 'the log to end', 30_000);
    const whole = (await page.getByTestId('fire-log').textContent()) ?? '';
    const lines = whole.split('\n').filter((line) => /slow line \d+$/.test(line));
    expect(lines.map((line) => line.replace(/^.*slow line /, ''))).toEqual(
      Array.from({ length: 10 }, (_, i) => String(i + 1)),
    );
    await expect(state.textContent()).resolves.toContain('End of the log');
    await page.locator('h3 [data-status="succeeded"]').waitFor();
    await expect(page.getByTestId('handle-msg').textContent()).resolves.toBe('slow done');

    await screenshot(page, 'fire-detail-en');
    await switchLanguage(page, '中文');
    await page.getByRole('heading', { name: `调度记录 #${fireId}` }).waitFor();
    await screenshot(page, 'fire-detail-zh');
    await switchLanguage(page, 'EN');
  }, 90_000);

  it('kills a long run from its page after asking; the record ends killed', async () => {
    const jobId = await createJob(platform, { name: 'long run', executorHandler: 'slow' });
    const fireId = await triggerOnce(platform, jobId, '60');
    await waitForRunning(platform, fireId);
    await page.goto(url(platform, `fires/${fireId}`));
    await logHolding(page, 'slow line 1\n');

    await page.getByRole('button', { name: 'Kill' }).click();
    const confirm = page.locator('.ant-modal-confirm');
    await confirm
      .locator('.ant-modal-confirm-title')
      .getByText(`Kill the run of fire record #${fireId}?`)
      .waitFor();
    await confirm.getByRole('button', { name: 'Kill', exact: true }).click();

    await page.locator('h3 [data-status="killed"]').waitFor();
    await expect(page.locator('main').getByRole('button', { name: 'Kill' }).count()).resolves.toBe(0);
    expect((await getFire(platform, fireId)).status).toBe('killed');
    const state = page.getByTestId('fire-log-state');
    await waitFor(async () => (await state.getAttribute('data-state')) === 'ended', 'the log to end', 30_000);
    const log = (await page.getByTestId('fire-log').textContent()) ?? '';
    expect(log).not.toContain('slow line 100');
  }, 90_000);

  it('fits a phone screen: the list scrolls inside its table, the record and its log wrap', async () => {
    const phone = await newPage(browser, { width: 390, height: 844 });
    try {
      await signIn(phone, platform.url);
      const { items } = await platform.api<FirePage>('GET', '/api/v1/fires?status=succeeded&limit=1');
      const fireId = items[0]!.id;
      const overflow = () => phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      await phone.goto(url(platform, 'fires'));
      await phone.getByTestId('fires-table').locator('[data-status]').first().waitFor();
      await expect(overflow()).resolves.toBeLessThanOrEqual(0);
      await phone.goto(url(platform, `fires/${fireId}`));
      await phone.getByTestId('fire-log-state').and(phone.locator('[data-state="ended"]')).waitFor();
      await expect(overflow()).resolves.toBeLessThanOrEqual(0);
    } finally {
      await phone.context().close();
    }
  }, 60_000);

  it('shows a job log and result holding HTML as text, without running it', async () => {
    const jobId = await createJob(platform, { name: 'prints markup', executorHandler: 'html' });
    const fireId = await triggerOnce(platform, jobId);
    await waitForFinished(platform, fireId);
    await page.goto(url(platform, `fires/${fireId}`));

    await logHolding(page, HTML_LOG_LINE);
    await expect(page.getByTestId('handle-msg').textContent()).resolves.toBe(HTML_LOG_LINE);
    await expect(page.content()).resolves.toContain('&lt;script&gt;window.__pwned = 1&lt;/script&gt;');
    await expect(
      page.locator('main script, [data-testid="fire-log"] *, [data-testid="handle-msg"] *').count(),
    ).resolves.toBe(0);

    await page.goto(url(platform, `fires?jobId=${jobId}`));
    await page.getByTestId('fires-table').locator('[data-status="succeeded"]').waitFor();
    await expect(page.getByTestId('fires-table').textContent()).resolves.toContain(
      '<script>window.__pwned = 1</script>',
    );
    await expect(page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).resolves.toBeUndefined();
  }, 60_000);
});
