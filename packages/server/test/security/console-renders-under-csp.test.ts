/**
 * The built console under the server's Content-Security-Policy, in a real Chromium: every page
 * renders (charts, the script editor, dialogs) without one violation, while a script injected
 * into the page is refused and no other site can frame it. Debian's Chromium through
 * playwright-core, as the console's own browser tests (`TW_CHROMIUM` points elsewhere).
 */
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CONSOLE_DIR } from '../helpers/built-console.js';
import { type E2eServer, startServer } from '../helpers/e2e.js';
import { callApiOk } from '../helpers/http-api.js';

const ADMIN_PASSWORD = 'console-csp-admin-password';
const API_TOKEN = 'tw_console-csp-test-token-0123456789abcdef';

describe('the console under its Content-Security-Policy', { timeout: 120_000 }, () => {
  let started: E2eServer;
  let url: string;
  let browser: Browser;
  let page: Page;
  /** What the browser refused, from the page's securitypolicyviolation events and its console. */
  const violations: string[] = [];
  const ids = { job: 0, scriptJob: 0, fire: 0 };

  beforeAll(async () => {
    started = await startServer({
      adminPassword: ADMIN_PASSWORD,
      apiToken: API_TOKEN,
      consoleDir: BUILT_CONSOLE_DIR,
    });
    url = started.server.url;
    await seed();
    browser = await chromium.launch({
      executablePath: process.env.TW_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await watchedPage(browser);
    await signIn(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await started?.close();
  });

  /** An app, a job with a fire record (its trigger fails: no executor is online), a script job. */
  async function seed(): Promise<void> {
    const call = <T>(method: string, path: string, body?: unknown) =>
      callApiOk<T>(url, method, path, { token: API_TOKEN, ...(body === undefined ? {} : { body }) });
    const app = await call<{ id: number }>('POST', '/api/v1/apps', { appName: 'csp-app', title: 'CSP app' });
    ids.job = (
      await call<{ id: number }>('POST', '/api/v1/jobs', {
        appId: app.id,
        name: 'csp job',
        executorHandler: 'echo',
      })
    ).id;
    ids.scriptJob = (
      await call<{ id: number }>('POST', '/api/v1/jobs', {
        appId: app.id,
        name: 'csp script job',
        glueType: 'GLUE_SHELL',
        glueSource: '#!/bin/bash\necho "hello"\n',
      })
    ).id;
    const triggered = await call<{ fireIds: number[] }>('POST', `/api/v1/jobs/${ids.job}/trigger`, {});
    ids.fire = triggered.fireIds[0]!;
  }

  async function watchedPage(b: Browser): Promise<Page> {
    const context = await b.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    await context.exposeBinding('reportCspViolation', (_source, violation: string) => {
      violations.push(violation);
    });
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        const report = (window as unknown as { reportCspViolation(v: string): void }).reportCspViolation;
        report(`${event.effectiveDirective} refused ${event.blockedURI} at ${event.documentURI}`);
      });
    });
    const created = await context.newPage();
    // The first page loads the console's chunks (the charts' alone is half a megabyte) on a
    // machine the rest of the suite keeps busy: a CI run once waited more than 15 s for its chart.
    created.setDefaultTimeout(30_000);
    created.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    return created;
  }

  async function signIn(p: Page): Promise<void> {
    await p.goto(new URL('login', url).toString());
    await p.getByLabel('Username').fill('admin');
    await p.getByLabel('Password').fill(ADMIN_PASSWORD);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByTestId('user-menu').waitFor();
  }

  /** Opens a page path and waits until it has rendered its heading and settled. */
  async function open(path: string, ready?: string): Promise<void> {
    await page.goto(new URL(path.replace(/^\//, ''), url).toString());
    await page.getByTestId('user-menu').waitFor();
    await page
      .locator(ready ?? 'h3')
      .first()
      .waitFor();
    await page.waitForLoadState('networkidle');
  }

  it('renders every page, its charts, its script editor and its dialogs without a violation', async () => {
    await open('/', '[data-testid="chart-fires"] canvas');
    await open('/apps');
    await open('/jobs');
    await open(`/jobs/${ids.job}`, '[data-testid="job-form"]');
    await open(`/jobs/${ids.scriptJob}/script`, '[data-testid="script-editor"] .cm-editor');
    await open('/fires', '[data-testid="fires-table"]');
    await open(`/fires/${ids.fire}`, '[data-testid="fire-fields"]');
    await open('/channels');
    await open('/users');
    await page.getByRole('button', { name: 'New user' }).click();
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    await open('/tokens');
    await open('/audit');
    await open('/account');
    // The inline style elements antd writes are what 'unsafe-inline' in style-src is for.
    expect(await page.locator('style').count()).toBeGreaterThan(0);
    expect(violations).toEqual([]);
  });

  it('refuses a script injected into the page', async () => {
    await open('/jobs');
    const ran = await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__injected = true;';
      document.head.append(script);
      return (window as unknown as { __injected?: boolean }).__injected === true;
    });
    expect(ran).toBe(false);
    await expect.poll(() => violations.some((v) => v.startsWith('script-src'))).toBe(true);
    violations.length = 0;
  });

  it('cannot be framed by another page', async () => {
    const framing = await watchedPage(browser);
    await framing.setContent(`<iframe src="${new URL('login', url)}"></iframe>`);
    await expect.poll(() => violations.some((v) => /frame-ancestors/.test(v))).toBe(true);
    const frame = framing.frames().find((f) => f !== framing.mainFrame());
    expect(await frame?.locator('#root').count()).toBe(0);
    violations.length = 0;
  });
});
