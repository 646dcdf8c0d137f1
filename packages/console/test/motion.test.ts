/**
 * The console follows the reader's "reduce motion" setting: with it, a dialog opens without antd's
 * zoom (nothing is left mid-animation under a pointer); without it, the zoom plays as designed; a
 * change of the setting applies to an open console at once. The other console tests run with the
 * setting on (helpers/browser.ts says why).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { type Platform, startPlatform } from './helpers/platform.js';

/**
 * Opens the "New user" dialog and returns the zoom's phases any element went through on the way,
 * then closes it. antd's zoom marks an element `ant-zoom-appear-start` (held small) and then
 * `ant-zoom-appear-active` (growing); without motion only the `-prepare` phase, in which the
 * dialog is measured at its full size, is left.
 */
async function motionOfOpeningDialog(page: Page): Promise<string[]> {
  await page.evaluate(() => {
    const seen = new Set<string>();
    (window as unknown as { motionSeen: Set<string> }).motionSeen = seen;
    const note = (element: Element) => {
      for (const name of element.classList)
        if (/^ant-zoom-(appear|enter)-(start|active)$/.test(name)) seen.add(name);
    };
    new MutationObserver((records) => {
      for (const record of records) {
        if (record.target instanceof Element) note(record.target);
        for (const node of record.addedNodes) {
          if (node instanceof Element) [node, ...node.querySelectorAll('*')].forEach(note);
        }
      }
    }).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['class'],
    });
  });
  await page.getByRole('button', { name: 'New user' }).click();
  const dialog = page.getByRole('dialog', { name: 'New user' });
  await dialog.getByLabel('Username').waitFor();
  // Whatever it plays has ended (antd's zoom takes 0.3 s).
  await page.waitForFunction(() =>
    document.getAnimations().every((animation) => animation.playState !== 'running'),
  );
  const seen = await page.evaluate(() =>
    [...(window as unknown as { motionSeen: Set<string> }).motionSeen].sort(),
  );
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  return seen;
}

describe('console: reduced motion', () => {
  let platform: Platform;
  let browser: Browser;

  beforeAll(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });

  it('opens a dialog without its zoom when the reader asks for reduced motion, with it otherwise, and follows a change at once', async () => {
    const reduced = await newPage(browser, { reducedMotion: 'reduce' });
    await signIn(reduced, platform.url);
    await reduced.goto(new URL('users', platform.url).toString());
    await expect(motionOfOpeningDialog(reduced)).resolves.toEqual([]);
    await reduced.context().close();

    const moving = await newPage(browser, { reducedMotion: 'no-preference' });
    await signIn(moving, platform.url);
    await moving.goto(new URL('users', platform.url).toString());
    const played = await motionOfOpeningDialog(moving);
    expect(played).toEqual(['ant-zoom-appear-active', 'ant-zoom-appear-start']);

    // The setting changes while the console is open: the next dialog opens still.
    await moving.emulateMedia({ reducedMotion: 'reduce' });
    await expect(motionOfOpeningDialog(moving)).resolves.toEqual([]);
    await moving.context().close();
  }, 90_000);
});
