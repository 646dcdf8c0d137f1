/**
 * Groovy (GLUE_GROOVY) jobs, as the XXL-JOB importer brings them over, in a real Chromium against
 * a real server: their script editor and their job form warn that only Java executors run them,
 * and the editor shows their Groovy source; a shell job's editor does not warn, and its form warns
 * as soon as Groovy is chosen.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { choose } from './helpers/choose.js';
import { createJob } from './helpers/fire-runs.js';
import { type Platform, startPlatform } from './helpers/platform.js';

const GROOVY_SOURCE = [
  'package com.xxl.job.service.handler;',
  '',
  'import com.xxl.job.core.handler.IJobHandler;',
  '',
  'public class DemoGlueJobHandler extends IJobHandler {',
  '    @Override',
  '    public void execute() throws Exception {',
  '    }',
  '}',
].join('\n');

const WARNING_TITLE = "Groovy runs only on Java executors (XXL-JOB's executor).";

function editorText(page: Page): Promise<string> {
  return page
    .getByTestId('script-editor')
    .locator('.cm-content')
    .evaluate((content) =>
      [...content.querySelectorAll('.cm-line')].map((line) => line.textContent).join('\n'),
    );
}

describe('console: Groovy script jobs', () => {
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

  it("warns in a Groovy job's script editor and job form, and shows its Groovy source", async () => {
    const jobId = await createJob(platform, {
      name: 'imported groovy',
      glueType: 'GLUE_GROOVY',
      glueSource: GROOVY_SOURCE,
      glueRemark: 'imported from XXL-JOB',
    });

    await open(`/jobs/${jobId}/script`);
    await page.getByRole('heading', { name: 'Script of imported groovy' }).waitFor();
    const warning = page.getByTestId('groovy-warning');
    await warning.waitFor();
    await expect(warning.isVisible()).resolves.toBe(true);
    await expect(warning.textContent()).resolves.toContain(WARNING_TITLE);
    await expect(warning.textContent()).resolves.toContain('Tickwheel executors refuse GLUE_GROOVY runs');
    await page.getByTestId('script-editor').locator('.cm-content').waitFor();
    await expect(editorText(page)).resolves.toBe(GROOVY_SOURCE);

    await open(`/jobs/${jobId}`);
    await page.getByTestId('job-form').waitFor();
    await page.getByTestId('groovy-warning').waitFor();
    await expect(page.getByTestId('groovy-warning').textContent()).resolves.toContain(WARNING_TITLE);
  }, 60_000);

  it("does not warn in a shell job's script editor; its form warns once Groovy is chosen", async () => {
    const jobId = await createJob(platform, {
      name: 'plain shell',
      glueType: 'GLUE_SHELL',
      glueSource: '#!/bin/bash\necho "shell"\n',
    });

    await open(`/jobs/${jobId}/script`);
    await page.getByRole('heading', { name: 'Script of plain shell' }).waitFor();
    await page.getByTestId('script-editor').locator('.cm-content').waitFor();
    await expect(editorText(page)).resolves.toBe('#!/bin/bash\necho "shell"\n');
    await expect(page.getByTestId('groovy-warning').count()).resolves.toBe(0);

    await open(`/jobs/${jobId}`);
    await page.getByTestId('job-form').waitFor();
    await page.getByLabel('Name', { exact: true }).waitFor();
    await expect(page.getByTestId('groovy-warning').count()).resolves.toBe(0);
    await choose(page, 'Run as', 'Groovy script');
    await page.getByTestId('groovy-warning').waitFor();
    await choose(page, 'Run as', 'Shell script');
    await page.getByTestId('groovy-warning').waitFor({ state: 'detached' });
  }, 60_000);
});
