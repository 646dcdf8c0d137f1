import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { ADMIN_USERNAME, type Platform, startPlatform } from './helpers/platform.js';

describe('console: sign-in and the frame', () => {
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

  it('serves the console at / and routes page paths to it, while unknown API paths stay 404 JSON', async () => {
    const root = await fetch(platform.url);
    expect(root.status).toBe(200);
    const html = await root.text();
    expect(html).toContain('<div id="root"></div>');
    expect(root.headers.get('cache-control')).toBe('no-cache');
    // Hashed assets: cached for good, sent compressed to a browser that accepts it.
    const entry = html.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
    expect(entry).toBeDefined();
    const asset = await fetch(new URL(entry!.slice(1), platform.url), {
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-encoding')).toBe('br');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await asset.text()).length).toBeGreaterThan(1000);
    const deep = await fetch(new URL('jobs/12', platform.url));
    expect(deep.status).toBe(200);
    expect(deep.headers.get('content-type')).toContain('text/html');
    const api = await fetch(new URL('api/v1/no-such-thing', platform.url));
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toContain('application/json');
  });

  it('refuses a wrong password with the reason, then signs in and out', async () => {
    const page = await newPage(browser);
    await page.goto(platform.url);
    await page.waitForURL(/\/login$/);
    await page.getByLabel('Username').fill(ADMIN_USERNAME);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').first().textContent()).resolves.toMatch(/password/i);

    await signIn(page, platform.url);
    await expect(page.getByTestId('user-menu').textContent()).resolves.toContain(ADMIN_USERNAME);
    // A reload keeps the session (the cookie) and can still change state (the CSRF token comes back).
    await page.reload();
    await page.getByTestId('user-menu').waitFor();

    await page.getByTestId('user-menu').click();
    await page.getByText('Sign out').click();
    await page.waitForURL(/\/login$/);
    await page.goto(new URL('jobs', platform.url).toString());
    await page.waitForURL(/\/login$/);
    await page.context().close();
  });
});
