/** Screenshots for the docs: written under docs/screenshots/ only when TW_SCREENSHOTS=1. */
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

const DIR = fileURLToPath(new URL('../../../../docs/screenshots/', import.meta.url));

/** Saves `page` as docs/screenshots/<name>.png (e.g. `users-en`) when TW_SCREENSHOTS=1. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.TW_SCREENSHOTS !== '1') return;
  // Let fonts and the network settle so the picture shows the page at rest.
  await page.evaluate(() => document.fonts.ready);
  await page.waitForLoadState('networkidle');
  // Not the toast of what the test just did, nor a hover highlight where the pointer stopped.
  await page.waitForFunction(() => document.querySelector('.ant-message-notice') === null, undefined, {
    timeout: 15_000,
  });
  const viewport = page.viewportSize();
  if (viewport !== null) await page.mouse.move(viewport.width - 1, viewport.height - 1);
  await page.screenshot({ path: `${DIR}${name}.png` });
}

/**
 * Saves `<name>-en` and `<name>-zh` of the page in view when TW_SCREENSHOTS=1: switches the
 * console to Chinese for the second (waiting for the page's Chinese heading) and back to English.
 */
export async function screenshotBothLanguages(
  page: Page,
  name: string,
  headings: { en: string; zh: string },
): Promise<void> {
  if (process.env.TW_SCREENSHOTS !== '1') return;
  await screenshot(page, `${name}-en`);
  const languages = page.getByTestId('language-switch');
  await languages.getByText('中文', { exact: true }).click();
  await page.getByRole('heading', { name: headings.zh }).waitFor();
  await screenshot(page, `${name}-zh`);
  await languages.getByText('EN', { exact: true }).click();
  await page.getByRole('heading', { name: headings.en }).waitFor();
}
