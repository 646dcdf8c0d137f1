/** Picking an option of an antd select, as a person does: open it, type, click the option. */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Picks, in the antd select labelled `label`, the option whose title starts with `option`
 * (typing `search` first). A loaded machine may re-render the list under the click, so the pick
 * is retried until the select shows it.
 */
export async function choose(page: Page, label: string, option: string, search?: string): Promise<void> {
  const input = page.getByLabel(label, { exact: true });
  const select = page.locator('.ant-select').filter({ has: input });
  const escaped = option.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (let attempt = 1; ; attempt++) {
    try {
      await input.click();
      if (search !== undefined) await input.fill(search);
      await page
        .locator('.ant-select-dropdown:visible')
        .getByTitle(new RegExp(`^${escaped}`))
        .first()
        .click({ timeout: 5_000 });
      await expect.poll(() => select.textContent(), { timeout: 2_000 }).toContain(option);
      return;
    } catch (err) {
      if (attempt === 3) throw err;
      await page.keyboard.press('Escape');
    }
  }
}
