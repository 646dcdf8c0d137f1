/**
 * Script (GLUE) jobs made and changed entirely in the console, in a real Chromium against a real
 * server and executor: the form (which has no Handler field for a script job) creates a shell and
 * a Node.js job, saving opens the script editor, the script is written and saved, the job is
 * triggered once from the list, and the run's log in the fire record's page shows what the
 * script printed. Editing a script job's settings saves them and leaves its script alone.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { choose } from './helpers/choose.js';
import { APP_NAME, type Platform, startPlatform } from './helpers/platform.js';

interface JobAnswer {
  id: number;
  name: string;
  glueType: string;
  glueSource: string;
  executorHandler: string;
  executorParam: string;
  scheduleType: string;
}

const SCRIPTS = [
  {
    type: 'Shell script',
    glueType: 'GLUE_SHELL',
    name: 'shell from the console',
    source: '#!/bin/bash\necho "shell says $1"\n',
    printed: 'shell says from-the-console',
  },
  {
    type: 'Node.js script',
    glueType: 'GLUE_NODEJS',
    name: 'node from the console',
    source: "console.log('node says ' + process.argv[2]);\n",
    printed: 'node says from-the-console',
  },
] as const;

describe('console: script jobs', () => {
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

  const open = (path: string) => page.goto(new URL(path.replace(/^\//, ''), platform.url).toString());

  async function jobNamed(name: string): Promise<JobAnswer | undefined> {
    const list = await platform.api<{ items: JobAnswer[] }>(
      'GET',
      `/api/v1/jobs?name=${encodeURIComponent(name)}`,
    );
    return list.items.find((job) => job.name === name);
  }

  for (const script of SCRIPTS) {
    it(`creates a ${script.type} job in the form, writes its script, triggers it and reads its output in the run's log`, async () => {
      const saveErrors: string[] = [];
      page.on('pageerror', (err) => saveErrors.push(err.message));

      await open('/jobs/new');
      await choose(page, 'App', APP_NAME, APP_NAME);
      await page.getByLabel('Name', { exact: true }).fill(script.name);
      await choose(page, 'Schedule type', 'None (trigger only)');
      await choose(page, 'Run as', script.type);
      // A script job has no handler to name (waited for: the form re-renders after the choice).
      await page.getByText('Saving the job opens the script editor').waitFor();
      await page.getByLabel('Handler', { exact: true }).waitFor({ state: 'detached' });
      await expect(page.getByLabel('Handler', { exact: true }).count()).resolves.toBe(0);
      await page.getByRole('button', { name: 'Save' }).click();

      // Saved, and the script editor is the next step.
      await page.waitForURL(/\/jobs\/\d+\/script$/);
      expect(saveErrors).toEqual([]);
      const created = await jobNamed(script.name);
      expect(created).toMatchObject({ glueType: script.glueType, executorHandler: '', scheduleType: 'NONE' });
      const jobId = created!.id;
      expect(new URL(page.url()).pathname).toBe(`/jobs/${jobId}/script`);

      const content = page.getByTestId('script-editor').locator('.cm-content');
      await content.click();
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.insertText(script.source);
      await page.locator('main').getByRole('button', { name: 'Save' }).click();
      const saveDialog = page.getByRole('dialog', { name: 'Save the script' });
      await saveDialog.getByLabel('Remark').fill('written in the console');
      await saveDialog.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved: the next run runs this script').waitFor();
      await expect(jobNamed(script.name)).resolves.toMatchObject({ glueSource: script.source });

      // Triggered once from the list, with a param the script prints.
      await page.getByRole('menu').getByRole('link', { name: 'Jobs', exact: true }).click();
      await page.waitForURL(/\/jobs$/);
      await page.getByTestId(`job-actions-${jobId}`).getByRole('button', { name: 'Trigger once' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Param').fill('from-the-console');
      await dialog.getByRole('button', { name: 'Trigger', exact: true }).click();
      await page
        .getByTestId('trigger-result')
        .getByRole('link', { name: /Fire record #\d+/ })
        .click();
      await page.waitForURL(/\/fires\/\d+$/);

      await expect
        .poll(async () => (await page.getByTestId('fire-log').textContent()) ?? '', { timeout: 30_000 })
        .toContain(script.printed);
    }, 90_000);
  }

  it('edits a script job’s settings and saves them, its script untouched', async () => {
    const source = '#!/bin/bash\necho "made through the API"\n';
    const { id: jobId } = await platform.api<JobAnswer>('POST', '/api/v1/jobs', {
      appId: platform.appId,
      name: 'script job to edit',
      scheduleType: 'NONE',
      glueType: 'GLUE_SHELL',
      glueSource: source,
    });
    await open(`/jobs/${jobId}`);
    await page.getByText('The script is edited in the script editor').waitFor();
    await page.getByLabel('Param', { exact: true }).fill('edited param');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('script job to edit saved').waitFor();
    await page.waitForURL(/\/jobs$/);
    await expect(platform.api<JobAnswer>('GET', `/api/v1/jobs/${jobId}`)).resolves.toMatchObject({
      executorParam: 'edited param',
      glueType: 'GLUE_SHELL',
      glueSource: source,
    });
  }, 60_000);
});
