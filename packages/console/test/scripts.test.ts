/**
 * The script editor in a real Chromium against a real server and executor: CodeMirror is fetched
 * only when the editor opens; a shell job's script is edited and saved with a remark and the
 * executor runs the new one; an old version is viewed, compared and restored and the executor
 * runs the restored one.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { createJob, readWholeLog, triggerOnce, waitForFinished } from './helpers/fire-runs.js';
import { type Platform, startPlatform } from './helpers/platform.js';
import { screenshot } from './helpers/screenshot.js';

interface ScriptVersion {
  id: number;
  glueSource: string;
  glueRemark: string;
}

const VERSION_ONE = '#!/bin/bash\necho "version one"\n';
const VERSION_TWO = '#!/bin/bash\necho "version two"\n';
const CODEMIRROR_CHUNK = /\/assets\/codemirror-[\w-]+\.js$/;

function url(platform: Platform, path: string): string {
  return new URL(path, platform.url).toString();
}

/** Runs the job once and returns its executor log, after checking the run succeeded. */
async function runOnce(platform: Platform, jobId: number): Promise<string> {
  const fireId = await triggerOnce(platform, jobId);
  const fire = await waitForFinished(platform, fireId);
  if (fire.status !== 'succeeded') throw new Error(`the run did not succeed: ${JSON.stringify(fire)}`);
  return readWholeLog(platform, fireId);
}

function editorText(page: Page): Promise<string> {
  return page
    .getByTestId('script-editor')
    .locator('.cm-content')
    .evaluate((content) =>
      [...content.querySelectorAll('.cm-line')].map((line) => line.textContent).join('\n'),
    );
}

describe('console: script editor', () => {
  let platform: Platform;
  let browser: Browser;
  let page: Page;
  const requested: string[] = [];

  beforeAll(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    page = await newPage(browser);
    page.on('request', (request) => requested.push(request.url()));
    await signIn(page, platform.url);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it('fetches CodeMirror only when the script editor opens', async () => {
    await page.goto(platform.url);
    await page.getByTestId('user-menu').waitFor();
    await page.waitForLoadState('networkidle');
    expect(requested.filter((address) => CODEMIRROR_CHUNK.test(address))).toEqual([]);

    const jobId = await createJob(platform, {
      name: 'lazy editor',
      glueType: 'GLUE_SHELL',
      glueSource: VERSION_ONE,
    });
    await page.goto(url(platform, `jobs/${jobId}/script`));
    await page.getByTestId('script-editor').locator('.cm-content').waitFor();
    expect(requested.some((address) => CODEMIRROR_CHUNK.test(address))).toBe(true);
  }, 60_000);

  it('saves an edited shell script with a remark, restores the old version, and the executor runs each', async () => {
    const jobId = await createJob(platform, {
      name: 'shell script',
      glueType: 'GLUE_SHELL',
      glueSource: VERSION_ONE,
      glueRemark: 'first version',
    });
    await page.goto(url(platform, `jobs/${jobId}/script`));
    await page.getByRole('heading', { name: 'Script of shell script' }).waitFor();
    const content = page.getByTestId('script-editor').locator('.cm-content');
    await content.waitFor();
    await expect(editorText(page)).resolves.toBe(VERSION_ONE);
    // The shell mode highlights: the echoed string is a token of its own.
    await content.locator('span', { hasText: '"version one"' }).first().waitFor();

    // Edit, then save with a remark.
    await content.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText(VERSION_TWO);
    await expect(editorText(page)).resolves.toBe(VERSION_TWO);
    await page.getByText('Unsaved changes').waitFor();
    await page.locator('main').getByRole('button', { name: 'Save' }).click();
    const saveDialog = page.getByRole('dialog', { name: 'Save the script' });
    await saveDialog.getByRole('button', { name: 'Save' }).click();
    await saveDialog.getByText('Say in a few words what changed').waitFor();
    await saveDialog.getByLabel('Remark').fill('say version two');
    await saveDialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved: the next run runs this script').waitFor();
    await expect(page.getByText('Unsaved changes').count()).resolves.toBe(0);
    const job = await platform.api<{ glueSource: string; glueRemark: string }>(
      'GET',
      `/api/v1/jobs/${jobId}`,
    );
    expect(job).toMatchObject({ glueSource: VERSION_TWO, glueRemark: 'say version two' });
    const history = page.getByTestId('script-versions');
    await history.getByText('say version two').waitFor();

    const secondRun = await runOnce(platform, jobId);
    expect(secondRun).toContain('version two');
    expect(secondRun).not.toContain('version one');

    const versions = await platform.api<{ items: ScriptVersion[] }>(
      'GET',
      `/api/v1/jobs/${jobId}/script/versions`,
    );
    const first = versions.items.find((version) => version.glueRemark === 'first version')!;
    expect(first.glueSource).toBe(VERSION_ONE);

    // View the old version read-only.
    await page.getByRole('button', { name: `View version #${first.id}` }).click();
    const view = page.getByRole('dialog', { name: `Version #${first.id}` });
    await expect(
      view.getByTestId('script-version-view').locator('.cm-content').textContent(),
    ).resolves.toContain('echo "version one"');
    await expect(view.locator('.cm-content').getAttribute('contenteditable')).resolves.toBe('false');
    await view.getByRole('button', { name: 'Close' }).click();
    await view.waitFor({ state: 'hidden' });

    // Compare it with the editor: version one's line is shown deleted, version two's inserted.
    await page.getByRole('button', { name: `Compare version #${first.id} with the editor` }).click();
    const diff = page.getByRole('dialog', { name: `Changes from version #${first.id} to the editor` });
    await expect(diff.locator('.cm-deletedChunk').first().textContent()).resolves.toContain('version one');
    await expect(diff.locator('.cm-changedLine').first().textContent()).resolves.toContain('version two');
    await diff.getByRole('button', { name: 'Close' }).click();
    await diff.waitFor({ state: 'hidden' });

    // Restore it, after confirming.
    await page.getByRole('button', { name: `Restore version #${first.id}` }).click();
    const confirm = page.locator('.ant-modal-confirm');
    await confirm.locator('.ant-modal-confirm-title').getByText(`Restore version #${first.id}?`).waitFor();
    await confirm.getByRole('button', { name: 'Restore', exact: true }).click();
    await page.getByText(`Version #${first.id} restored: the next run runs it`).waitFor();
    // The editor takes the restored text on its next render, which may come after the message's.
    await expect.poll(() => editorText(page)).toBe(VERSION_ONE);
    await history.getByText(`restored version ${first.id}: first version`).waitFor();

    const thirdRun = await runOnce(platform, jobId);
    expect(thirdRun).toContain('version one');
    expect(thirdRun).not.toContain('version two');

    await screenshotScript(page);
  }, 120_000);

  it('asks before a link leaves an edited script, stays when told to, and leaves when confirmed', async () => {
    const jobId = await createJob(platform, {
      name: 'script left unsaved',
      glueType: 'GLUE_SHELL',
      glueSource: VERSION_ONE,
      glueRemark: 'first version',
    });
    const jobsLink = page.getByRole('menu').getByRole('link', { name: 'Jobs', exact: true });
    const confirm = page.locator('.ant-modal-confirm');

    // Unedited: the link simply goes.
    await page.goto(url(platform, `jobs/${jobId}/script`));
    const content = page.getByTestId('script-editor').locator('.cm-content');
    await content.waitFor();
    await jobsLink.click();
    await page.waitForURL(/\/jobs$/);
    await expect(confirm.count()).resolves.toBe(0);

    // Edited: the link asks; Cancel keeps the page and the edit.
    await page.goto(url(platform, `jobs/${jobId}/script`));
    await content.waitFor();
    await content.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.insertText(VERSION_TWO);
    await page.getByText('Unsaved changes').waitFor();
    await jobsLink.click();
    await confirm.locator('.ant-modal-confirm-title').getByText('Leave the script without saving?').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect(new URL(page.url()).pathname).toBe(`/jobs/${jobId}/script`);
    await expect(editorText(page)).resolves.toBe(VERSION_TWO);

    // Confirmed: it leaves, and nothing was saved.
    await jobsLink.click();
    await confirm.getByRole('button', { name: 'Leave' }).click();
    await page.waitForURL(/\/jobs$/);
    const job = await platform.api<{ glueSource: string }>('GET', `/api/v1/jobs/${jobId}`);
    expect(job.glueSource).toBe(VERSION_ONE);
  }, 60_000);

  it('says a handler (BEAN) job has no script, linking to its settings', async () => {
    const jobId = await createJob(platform, { name: 'bean job', executorHandler: 'echo' });
    await page.goto(url(platform, `jobs/${jobId}/script`));
    await page.getByText('bean job has no script').waitFor();
    await page.getByRole('button', { name: 'Job settings' }).click();
    await page.waitForURL(new RegExp(`/jobs/${jobId}$`));
  }, 60_000);

  /** The editor page with its history, in both languages. */
  async function screenshotScript(target: Page): Promise<void> {
    await screenshot(target, 'script-en');
    await target.getByTestId('language-switch').getByText('中文', { exact: true }).click();
    await target.getByRole('heading', { name: '的脚本' }).waitFor();
    await screenshot(target, 'script-zh');
    await target.getByTestId('language-switch').getByText('EN', { exact: true }).click();
  }
});
