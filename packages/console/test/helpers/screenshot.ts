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
