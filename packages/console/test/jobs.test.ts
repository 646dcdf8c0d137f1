/**
 * The jobs pages in a real Chromium against a real server and executor: create a cron job
 * through the form (previewing it, after being told why a bad expression is bad), see it fire,
 * trigger it once on a chosen executor, stop and start it, filter the list through the URL,
 * copy, edit (a refused field is marked), delete — and the same pages in Chinese and on a phone.
 */
import { mkdir } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { choose } from './helpers/choose.js';
import { APP_NAME, type Platform, startPlatform, waitFor } from './helpers/platform.js';

interface JobAnswer {
  id: number;
  name: string;
  appId: number;
  scheduleType: string;
  scheduleConf: string;
  timeZone: string;
  executorHandler: string;
  executorParam: string;
  triggerStatus: number;
  alarmEmail: string;
}

interface FireAnswer {
  id: number;
  jobId: number;
  status: string;
  triggerType: string;
  executorAddress: string | null;
  executorParam: string | null;
  handleMsg: string | null;
}

interface PageOf<T> {
  items: T[];
  total: number;
}

const JOB_NAME = 'every two seconds';
const COPY_NAME = `${JOB_NAME} (copy)`;
const CRON = '*/2 * * * * ?';
const ZONE = 'Asia/Shanghai';
const SCREENSHOTS = process.env.TW_SCREENSHOTS === '1';
const SCREENSHOT_DIR = new URL('../../../docs/screenshots/', import.meta.url);

/** The server's answer to a preview it refuses, as a body `{ error: { field, message } }`. */
async function refusedPreview(platform: Platform, conf: string): Promise<{ field: string; message: string }> {
  const query = new URLSearchParams({ scheduleType: 'CRON', scheduleConf: conf, timeZone: ZONE });
  try {
    await platform.api('GET', `/api/v1/schedules/preview?${query}`);
  } catch (err) {
    const body = (err as Error).message.replace(/^[^{]*/, '');
    return (JSON.parse(body) as { error: { field: string; message: string } }).error;
  }
  throw new Error(`the server accepted the cron expression '${conf}'`);
}

async function jobNamed(platform: Platform, name: string): Promise<JobAnswer | undefined> {
  const page = await platform.api<PageOf<JobAnswer>>('GET', `/api/v1/jobs?name=${encodeURIComponent(name)}`);
  return page.items.find((job) => job.name === name);
}

/** The wall time `YYYY-MM-DD HH:mm:ss` as comparable milliseconds (the zone does not matter for gaps). */
function wallMs(text: string): number {
  return Date.parse(`${text.trim().replace(' ', 'T')}Z`);
}

/** A few more jobs of other kinds, so the screenshots show a list rather than one row. */
async function addScreenshotJobs(platform: Platform): Promise<void> {
  const base = { appId: platform.appId, author: 'ops', executorHandler: 'echo' };
  await platform.api('POST', '/api/v1/jobs', {
    ...base,
    name: 'nightly report',
    scheduleType: 'CRON',
    scheduleConf: '0 0 2 * * ?',
    timeZone: 'Europe/Berlin',
    triggerStatus: 1,
  });
  await platform.api('POST', '/api/v1/jobs', {
    ...base,
    name: 'sync orders',
    scheduleType: 'FIX_RATE',
    scheduleConf: '300',
    triggerStatus: 1,
  });
  await platform.api('POST', '/api/v1/jobs', {
    ...base,
    name: 'clean temp files',
    scheduleType: 'NONE',
    glueType: 'GLUE_SHELL',
    glueSource: 'echo cleaning',
    executorHandler: '',
  });
}

describe('console: jobs', () => {
  let platform: Platform;
  let browser: Browser;
  let page: Page;
  let jobId: number;
  let copyId: number;

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

  const open = (path: string) => page.goto(new URL(path.replace(/^\//, ''), platform.url).toString());
  const row = (name: string) =>
    page.getByRole('row').filter({ has: page.getByRole('link', { name, exact: true }) });

  it('creates a cron job through the form: a bad expression shows the server’s reason, a good one previews 5 fire times', async () => {
    await open('/jobs');
    await page.getByRole('button', { name: 'New job' }).click();
    await page.waitForURL(/\/jobs\/new/);
    // The URL changes before the form's page has replaced the list, whose App filter would
    // otherwise take the choice below.
    await page.getByLabel('Name', { exact: true }).waitFor();

    await choose(page, 'App', APP_NAME, APP_NAME);
    await page.getByLabel('Name', { exact: true }).fill(JOB_NAME);
    await choose(page, 'Time zone', ZONE, 'shanghai');

    // A five-field (Unix) expression: Quartz wants seconds first.
    const conf = page.getByLabel('Cron expression', { exact: true });
    await conf.fill('*/2 * * * *');
    const refused = await refusedPreview(platform, '*/2 * * * *');
    expect(refused.field).toBe('scheduleConf');
    const reason = refused.message.replace(/^scheduleConf:\s*/, '');
    await expect
      .poll(() => page.locator('#scheduleConf_help').textContent(), { timeout: 15_000 })
      .toContain(reason);
    await expect(page.getByTestId('schedule-preview').textContent()).resolves.toContain('invalid');

    await conf.fill(CRON);
    const times = page.getByTestId('schedule-preview-times').locator('li time');
    await expect.poll(() => times.count(), { timeout: 15_000 }).toBe(5);
    // The reason goes away with the mistake (after antd's fade-out).
    await expect.poll(() => page.locator('#scheduleConf_help').count(), { timeout: 5_000 }).toBe(0);
    await expect(page.getByTestId('schedule-preview').textContent()).resolves.toContain(ZONE);
    const shown = (await times.allTextContents()).map(wallMs);
    expect(shown.slice(1).map((time, i) => time - shown[i]!)).toEqual([2000, 2000, 2000, 2000]);

    await page.getByLabel('Handler', { exact: true }).fill('echo');
    await page.getByLabel('Start scheduling after saving').click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/jobs$/);
    await row(JOB_NAME).waitFor();

    const job = await jobNamed(platform, JOB_NAME);
    expect(job).toMatchObject({
      appId: platform.appId,
      scheduleType: 'CRON',
      scheduleConf: CRON,
      timeZone: ZONE,
      executorHandler: 'echo',
      triggerStatus: 1,
    });
    jobId = job!.id;
    await expect(row(JOB_NAME).textContent()).resolves.toContain(CRON);

    await waitFor(
      async () => {
        const fires = await platform.api<PageOf<FireAnswer>>(
          'GET',
          `/api/v1/fires?jobId=${jobId}&status=succeeded`,
        );
        return fires.total >= 2 && fires.items.every((fire) => fire.handleMsg === 'echoed ');
      },
      'two scheduled fires of the job to succeed',
      30_000,
    );
  }, 90_000);

  it('triggers the job once with a param on the chosen executor and links to the fire record', async () => {
    await open('/jobs');
    await page.getByTestId(`job-actions-${jobId}`).getByRole('button', { name: 'Trigger once' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Param').fill('hello-from-console');
    await choose(page, 'Executor', platform.executorAddress);
    await dialog.getByRole('button', { name: 'Trigger', exact: true }).click();

    const result = page.getByTestId('trigger-result');
    await result.waitFor();
    const fireLink = result.getByRole('link', { name: /Fire record #\d+/ });
    const fireId = Number((await fireLink.getAttribute('href'))?.match(/\/fires\/(\d+)$/)?.[1]);
    expect(fireId).toBeGreaterThan(0);
    await expect(
      result.getByRole('link', { name: 'All fire records of this job' }).getAttribute('href'),
    ).resolves.toBe(`/fires?jobId=${jobId}`);

    let fire: FireAnswer | undefined;
    await waitFor(async () => {
      fire = await platform.api<FireAnswer>('GET', `/api/v1/fires/${fireId}`);
      return fire.status === 'succeeded';
    }, 'the triggered fire to succeed');
    expect(fire).toMatchObject({
      jobId,
      triggerType: 'MANUAL',
      executorAddress: platform.executorAddress,
      executorParam: 'hello-from-console',
      handleMsg: 'echoed hello-from-console',
    });
    await dialog.getByRole('button', { name: 'Close' }).first().click();
    await dialog.waitFor({ state: 'detached' });
  }, 60_000);

  it('keeps a long job name in the trigger dialog’s title clear of the close button', async () => {
    const long = await platform.api<{ id: number }>('POST', '/api/v1/jobs', {
      appId: platform.appId,
      name: 'nightly export of the orders ledger to the warehouse for finance reconciliation',
      scheduleType: 'NONE',
      executorHandler: 'echo',
    });
    for (const width of [1280, 390]) {
      const sized = await newPage(browser, { width, height: 844 });
      await signIn(sized, platform.url);
      await sized.goto(new URL('jobs', platform.url).toString());
      await sized.getByTestId(`job-actions-${long.id}`).getByRole('button', { name: 'Trigger once' }).click();
      const dialog = sized.getByRole('dialog');
      await dialog.getByText(/^Trigger nightly export .* once$/).waitFor();
      // The dialog's opening animation over, so the boxes are where they stay.
      await sized.waitForFunction(() => document.querySelector('.ant-zoom-appear, .ant-zoom-enter') === null);
      const title = (await dialog.locator('.ant-modal-title').boundingBox())!;
      const close = (await dialog.locator('.ant-modal-close').boundingBox())!;
      const apart =
        title.x + title.width <= close.x ||
        close.x + close.width <= title.x ||
        title.y + title.height <= close.y ||
        close.y + close.height <= title.y;
      expect(
        apart,
        `title ${JSON.stringify(title)} overlaps close ${JSON.stringify(close)} at ${width}px`,
      ).toBe(true);
      await sized.context().close();
    }
    await platform.api('DELETE', `/api/v1/jobs/${long.id}`);
  }, 60_000);

  it('stops the job from its status switch only once confirmed, and starts it again at once', async () => {
    await open('/jobs');
    const status = page.getByTestId(`job-status-${jobId}`);
    await expect(status.getAttribute('aria-checked')).resolves.toBe('true');
    const confirm = page.locator('.ant-popconfirm:visible');
    const stopConfirmed = async () => {
      // Up to three tries: a click that lands while the row is drawn again (the list is read again
      // after each change) can open no confirmation, or one that is gone before Stop is clicked.
      for (let attempt = 1; ; attempt++) {
        const stopped = page.waitForResponse(
          (answer) => answer.url().endsWith(`/api/v1/jobs/${jobId}/stop`),
          {
            timeout: 5_000,
          },
        );
        stopped.catch(() => undefined);
        try {
          await status.click();
          await confirm.getByRole('button', { name: 'Stop', exact: true }).click({ timeout: 3_000 });
          await stopped;
          break;
        } catch (err) {
          // The stop went out after all (its answer was slow): clicking again would start the job.
          if ((await jobNamed(platform, JOB_NAME))?.triggerStatus === 0) break;
          if (attempt === 3) throw err;
          await page.keyboard.press('Escape');
        }
      }
      await confirm.waitFor({ state: 'hidden' });
      await expect.poll(() => status.getAttribute('aria-checked'), { timeout: 10_000 }).toBe('false');
    };

    // The switch asks first; Cancel leaves the job running.
    await status.click();
    await expect(confirm.textContent()).resolves.toContain(`Stop scheduling ${JOB_NAME}?`);
    await expect(jobNamed(platform, JOB_NAME)).resolves.toMatchObject({ triggerStatus: 1 });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await expect(status.getAttribute('aria-checked')).resolves.toBe('true');
    await expect(jobNamed(platform, JOB_NAME)).resolves.toMatchObject({ triggerStatus: 1 });

    await stopConfirmed();
    await expect(jobNamed(platform, JOB_NAME)).resolves.toMatchObject({ triggerStatus: 0 });

    // Starting loses nothing: it goes at once.
    await status.click();
    await expect.poll(() => status.getAttribute('aria-checked')).toBe('true');
    await expect(jobNamed(platform, JOB_NAME)).resolves.toMatchObject({ triggerStatus: 1 });

    // Stopped again, so the rest of the file does not race a job firing every 2 s.
    await stopConfirmed();
  }, 60_000);

  it('keeps the filters in the URL, so a reload shows the same list', async () => {
    await open('/jobs?status=running');
    await page.getByText('No jobs match these filters').waitFor();

    await open(`/jobs?status=stopped&appId=${platform.appId}`);
    await row(JOB_NAME).waitFor();
    await page.getByLabel('Name contains').fill('no such job');
    await page.getByLabel('Name contains').press('Enter');
    await page.waitForURL(/name=no\+such\+job/);
    await page.getByText('No jobs match these filters').waitFor();

    await page.reload();
    await page.getByText('No jobs match these filters').waitFor();
    await expect(page.getByLabel('Name contains').inputValue()).resolves.toBe('no such job');
    expect(new URL(page.url()).searchParams.get('status')).toBe('stopped');

    await page.getByLabel('Name contains').fill('two');
    await page.getByLabel('Name contains').press('Enter');
    await row(JOB_NAME).waitFor();
    expect(new URL(page.url()).searchParams.get('name')).toBe('two');
  }, 60_000);

  it('copies a job into a prefilled form and saves the copy stopped', async () => {
    await open('/jobs');
    await page.getByTestId(`job-actions-${jobId}`).getByRole('link', { name: 'Copy' }).click();
    await page.waitForURL(/\/jobs\/new\?copyFrom=/);
    await expect(page.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe(COPY_NAME);
    await expect(page.getByLabel('Cron expression', { exact: true }).inputValue()).resolves.toBe(CRON);
    await expect
      .poll(() => page.getByTestId('schedule-preview-times').locator('li').count(), { timeout: 15_000 })
      .toBe(5);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/jobs$/);
    await row(COPY_NAME).waitFor();

    const copy = await jobNamed(platform, COPY_NAME);
    expect(copy).toMatchObject({
      appId: platform.appId,
      scheduleConf: CRON,
      timeZone: ZONE,
      executorHandler: 'echo',
      triggerStatus: 0,
    });
    copyId = copy!.id;
    expect(copyId).not.toBe(jobId);
  }, 60_000);

  it('edits a job: a field the server refuses is marked on that field and in an alert', async () => {
    await open(`/jobs/${copyId}`);
    const email = page.getByLabel('Alarm e-mail');
    await email.fill('not-an-email');
    await page.getByRole('button', { name: 'Save' }).click();

    await expect
      .poll(() => page.locator('#alarmEmail_help').textContent())
      .toContain('"not-an-email" is not one e-mail address');
    await expect(page.getByTestId('job-save-error').textContent()).resolves.toContain('not-an-email');
    expect(page.url()).toContain(`/jobs/${copyId}`);

    await email.fill('ops@example.com');
    await page.getByLabel('Param', { exact: true }).fill('edited param');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/jobs$/);
    await expect(jobNamed(platform, COPY_NAME)).resolves.toMatchObject({
      alarmEmail: 'ops@example.com',
      executorParam: 'edited param',
    });
  }, 60_000);

  it('asks before leaving the form with unsaved changes, stays when told to, and leaves when confirmed', async () => {
    const jobsLink = page.getByRole('menu').getByRole('link', { name: 'Jobs', exact: true });
    const confirm = page.locator('.ant-modal-confirm');

    // Unchanged: the link simply goes.
    await open(`/jobs/${copyId}`);
    await page.getByLabel('Param', { exact: true }).waitFor();
    await jobsLink.click();
    await page.waitForURL(/\/jobs$/);
    await expect(confirm.count()).resolves.toBe(0);

    // Changed: the menu's link asks; Cancel keeps the page and the edit.
    await open(`/jobs/${copyId}`);
    const param = page.getByLabel('Param', { exact: true });
    await param.fill('never saved');
    await jobsLink.click();
    await confirm.locator('.ant-modal-confirm-title').getByText('Leave the job without saving?').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect(new URL(page.url()).pathname).toBe(`/jobs/${copyId}`);
    await expect(param.inputValue()).resolves.toBe('never saved');

    // So does the page's own button to the job's fire records; confirmed, it leaves unsaved.
    await page.locator('main').getByRole('button', { name: 'Fire records' }).click();
    await confirm.getByRole('button', { name: 'Leave' }).click();
    await page.waitForURL(new RegExp(`/fires\\?jobId=${copyId}$`));
    await expect(jobNamed(platform, COPY_NAME)).resolves.toMatchObject({ executorParam: 'edited param' });

    // Reloading asks the browser's own question.
    await open(`/jobs/${copyId}`);
    await param.fill('never saved either');
    const asked = new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.type());
        void dialog.accept();
      }),
    );
    await page.reload();
    await expect(asked).resolves.toBe('beforeunload');
  }, 60_000);

  it('deletes a job after confirmation', async () => {
    await open('/jobs');
    await page.getByTestId(`job-actions-${copyId}`).getByRole('button', { name: 'Delete' }).click();
    const confirm = page.locator('.ant-popconfirm:visible');
    await expect(confirm.textContent()).resolves.toContain(`Delete ${COPY_NAME}?`);
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await row(COPY_NAME).waitFor({ state: 'detached' });
    await expect(jobNamed(platform, COPY_NAME)).resolves.toBeUndefined();
    await expect(platform.api('GET', `/api/v1/jobs/${copyId}`)).rejects.toThrow(/HTTP 404/);
    await row(JOB_NAME).waitFor();
  }, 60_000);

  it('lays the form out in one column on a phone', async () => {
    const phone = await newPage(browser, { width: 390, height: 844 });
    await signIn(phone, platform.url);
    await phone.goto(new URL(`jobs/${jobId}`, platform.url).toString());
    const app = await phone.getByLabel('App', { exact: true }).boundingBox();
    const name = await phone.getByLabel('Name', { exact: true }).boundingBox();
    expect(app).not.toBeNull();
    expect(name).not.toBeNull();
    expect(name!.y).toBeGreaterThan(app!.y + app!.height);
    expect(name!.x + name!.width).toBeLessThanOrEqual(390);
    await phone.context().close();
  }, 60_000);

  it('shows the list and the form in Chinese', async () => {
    if (SCREENSHOTS) await addScreenshotJobs(platform);
    await open('/jobs');
    await page.getByTestId('language-switch').getByText('中文').click();
    await page.getByRole('columnheader', { name: '下次触发' }).waitFor();
    await row(JOB_NAME).waitFor();
    if (SCREENSHOTS) {
      await mkdir(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: new URL('jobs-zh.png', SCREENSHOT_DIR).pathname });
    }
    await open(`/jobs/${jobId}`);
    await page.getByText('调度配置').waitFor();
    await expect
      .poll(() => page.getByTestId('schedule-preview-times').locator('li').count(), { timeout: 15_000 })
      .toBe(5);
    // The times to come, not "the latest five" (最近 reads as past).
    await expect(page.getByTestId('schedule-preview').getAttribute('aria-label')).resolves.toBe(
      '接下来的触发时间',
    );
    if (SCREENSHOTS) await page.screenshot({ path: new URL('job-edit-zh.png', SCREENSHOT_DIR).pathname });

    await page.getByTestId('language-switch').getByText('EN').click();
    await page.getByText('Next fire times').waitFor();
    if (SCREENSHOTS) await page.screenshot({ path: new URL('job-edit-en.png', SCREENSHOT_DIR).pathname });
    await open('/jobs');
    await row(JOB_NAME).waitFor();
    if (SCREENSHOTS) await page.screenshot({ path: new URL('jobs-en.png', SCREENSHOT_DIR).pathname });
  }, 60_000);
});
