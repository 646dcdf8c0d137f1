/**
 * The fire-record pages in a real Chromium against a real server and executor: a cron job's
 * fires appear in the list filtered through the URL; old records are cleared with the count the
 * server reports; a running fire's log arrives line by line until the run ends; a long run is
 * killed from its page, and the kill says first what it stops (on an XXL-JOB executor, every run
 * of the job there); a log holding markup is shown as text and never runs.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { choose } from './helpers/choose.js';
import { clickUntilGone } from './helpers/click-until-gone.js';
import {
  createJob,
  getFire,
  readWholeLog,
  triggerOnce,
  waitForFinished,
  waitForRunning,
} from './helpers/fire-runs.js';
import { HTML_LOG_LINE, type Platform, startPlatform, waitFor } from './helpers/platform.js';
import { screenshot } from './helpers/screenshot.js';

interface FirePage {
  items: { id: number; jobId: number; status: string }[];
  total: number;
}

const CRON_JOB = 'echo every two seconds';
const OTHER_JOB = 'echo once';

/**
 * An executor that answers as XXL-JOB 2.x does (text/html, `{"code":200}`, no Tickwheel headers):
 * it takes runs and never ends them, and has no log file for them.
 */
async function startXxlExecutor(): Promise<{ address: string; calls: string[]; stop(): Promise<void> }> {
  const calls: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls.push(req.url ?? '');
      const answer =
        req.url === '/log'
          ? {
              code: 200,
              content: {
                fromLineNum: 1,
                toLineNum: 0,
                logContent: 'readLog fail, logFile not exists',
                isEnd: true,
              },
            }
          : { code: 200 };
      res.writeHead(200, { 'Content-Type': 'text/html;charset=UTF-8' });
      res.end(JSON.stringify(answer));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    address: `http://127.0.0.1:${port}/`,
    calls,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

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
    // The helper tries again when a click lands while the dropdown is still opening; the list
    // must be gone before the footer's button can take a click.
    await choose(page, 'Which records', 'All finished records');
    await page.locator('.ant-select-dropdown:visible').waitFor({ state: 'hidden' });
    await dialog.locator('.ant-modal-footer').getByRole('button', { name: 'Clear', exact: true }).click();
    // Nothing is deleted before the second question is answered.
    const confirm = page.locator('.ant-modal-confirm');
    await confirm.locator('.ant-modal-confirm-title').getByText('This cannot be undone').waitFor();
    expect((await platform.api<FirePage>('GET', `/api/v1/fires?jobId=${jobId}`)).total).toBe(before);
    await confirm.getByRole('button', { name: 'Clear', exact: true }).click();
    // The dialog shows the server's answer: the count deleted, or the error (whose text a failure
    // then names). A loaded machine may take a while.
    const answer = dialog.locator('[data-testid="clear-result"], .ant-alert-error').first();
    await answer.waitFor({ timeout: 30_000 });
    expect(await answer.textContent()).toBe(`Fire records deleted: ${before}`);
    expect((await platform.api<FirePage>('GET', `/api/v1/fires?jobId=${jobId}`)).total).toBe(0);
    await dialog.getByRole('button', { name: 'Close' }).first().click();
    await page.getByText('No fire records match these filters').waitFor();
  }, 90_000);

  it('streams a running fire’s log, appending lines as they come, until the run ends', async () => {
    const jobId = await createJob(platform, { name: 'gated lines', executorHandler: 'gated' });
    const fireId = await triggerOnce(platform, jobId);
    await page.goto(url(platform, `fires/${fireId}`));

    // The run logs five lines and waits for the test: what shows came while it ran.
    const early = await logHolding(page, 'gated line 5\n');
    expect(early).not.toContain('gated line 6');
    const state = page.getByTestId('fire-log-state');
    expect(await state.getAttribute('data-state')).not.toBe('ended');
    platform.openGate();
    await waitFor(async () => (await state.getAttribute('data-state')) === 'ended', 'the log to end', 30_000);
    const whole = (await page.getByTestId('fire-log').textContent()) ?? '';
    const lines = whole.split('\n').filter((line) => /gated line \d+$/.test(line));
    expect(lines.map((line) => line.replace(/^.*gated line /, ''))).toEqual(
      Array.from({ length: 10 }, (_, i) => String(i + 1)),
    );
    await expect(state.textContent()).resolves.toContain('End of the log');
    await page.locator('h3 [data-status="succeeded"]').waitFor();
    await expect(page.getByTestId('handle-msg').textContent()).resolves.toBe('gated done');

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
    // A Tickwheel executor stops this run alone.
    expect(await confirm.getByTestId('kill-scope').textContent()).toBe(
      "The executor stops this run alone; the job's other runs go on. The record ends as killed.",
    );
    await confirm.getByRole('button', { name: 'Kill', exact: true }).click();

    // The page shows the kill's answer: the record killed, or the error (whose text a failure then
    // names). A loaded machine may take a while.
    const answer = page.locator('h3 [data-status="killed"], .ant-alert-error').first();
    await answer.waitFor({ timeout: 30_000 }).catch(async (err: Error) => {
      const fire = await getFire(platform, fireId);
      throw new Error(`${err.message}\nthe record meanwhile: ${JSON.stringify(fire)}`);
    });
    expect(await answer.getAttribute('data-status'), (await answer.textContent()) ?? '').toBe('killed');
    await expect(page.locator('main').getByRole('button', { name: 'Kill' }).count()).resolves.toBe(0);
    expect((await getFire(platform, fireId)).status).toBe('killed');
    const state = page.getByTestId('fire-log-state');
    await waitFor(async () => (await state.getAttribute('data-state')) === 'ended', 'the log to end', 30_000);
    const log = (await page.getByTestId('fire-log').textContent()) ?? '';
    expect(log).not.toContain('slow line 100');
  }, 90_000);

  it('says before a kill on an XXL-JOB executor that it stops every run of the job there', async () => {
    const xxl = await startXxlExecutor();
    try {
      const app = await platform.api<{ id: number; accessToken: string }>('POST', '/api/v1/apps', {
        appName: 'xxl-java',
        title: 'XXL',
      });
      const registered = await fetch(new URL('api/registry', platform.server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'XXL-JOB-ACCESS-TOKEN': app.accessToken },
        body: JSON.stringify({
          registryGroup: 'EXECUTOR',
          registryKey: 'xxl-java',
          registryValue: xxl.address,
        }),
      });
      expect(((await registered.json()) as { code: number }).code).toBe(200);
      const jobId = await platform.api<{ id: number }>('POST', '/api/v1/jobs', {
        appId: app.id,
        name: 'runs on a Java executor',
        executorHandler: 'javaHandler',
      });
      const fireId = await triggerOnce(platform, jobId.id);
      await waitForRunning(platform, fireId);
      await page.goto(url(platform, `fires/${fireId}`));

      await page.getByRole('button', { name: 'Kill' }).click();
      const confirm = page.locator('.ant-modal-confirm');
      const notice = confirm.getByTestId('kill-scope');
      await notice.waitFor();
      expect(await notice.textContent()).toBe(
        `The executor at ${xxl.address} is an XXL-JOB executor: its kill acts on the whole job. It stops the job's running run there and drops every run of the job queued there, and each of them ends as killed.`,
      );
      // The question's text comes after it opened and redraws it: a click that landed on the
      // redrawn button is made again until the question is gone.
      await clickUntilGone(confirm, { name: 'Cancel' }, { timeoutMs: 15_000, intervalMs: 100 });
      // Nothing was killed: the question was only asked.
      expect(xxl.calls).not.toContain('/kill');
      expect((await getFire(platform, fireId)).status).toBe('dispatched');
    } finally {
      await xxl.stop();
    }
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

  it('follows a log longer than the view keeps page by page to its last line, keeping the last part', async () => {
    const jobId = await createJob(platform, {
      name: 'big log',
      glueType: 'GLUE_SHELL',
      glueSource: 'pad=$(printf "%0100d" 0)\nfor i in $(seq 1 30000); do echo "big line $i $pad"; done\n',
    });
    const fireId = await triggerOnce(platform, jobId);
    await page.goto(url(platform, `fires/${fireId}`));
    const state = page.getByTestId('fire-log-state');
    await waitFor(async () => (await state.getAttribute('data-state')) === 'ended', 'the log to end', 60_000);

    const dropped = Number(
      /The first (\d+) lines are not shown/.exec(
        (await page.getByTestId('fire-log-dropped').textContent()) ?? '',
      )?.[1],
    );
    expect(dropped).toBeGreaterThan(0);
    const kept = ((await page.getByTestId('fire-log').textContent()) ?? '')
      .split('\n')
      .filter((line) => line.startsWith('big line '))
      .map((line) => Number(line.split(' ')[2]));
    // The view starts right after the dropped lines (the run's own lines come before the script's
    // output) and holds every later line once, in order, to the last.
    const whole = (await readWholeLog(platform, fireId)).split('\n');
    const before = whole.findIndex((line) => line.startsWith('big line 1 '));
    expect(kept[0]).toBe(dropped - before + 1);
    expect(kept.at(-1)).toBe(30_000);
    expect(kept).toEqual(Array.from({ length: 30_001 - kept[0]! }, (_, i) => kept[0]! + i));
    expect((await getFire(platform, fireId)).status).toBe('succeeded');
  }, 120_000);
});
