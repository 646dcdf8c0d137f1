/** Ticking a checkbox or a radio of an antd form, as a person does, and waiting until it shows. */
import type { Locator } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Ticks `box` and waits until it reads as ticked. Playwright's `check()` reads the state once,
 * right after its click, and a controlled antd input on a loaded machine can show the change a
 * render later than that ("Clicking the checkbox did not change its state", seen once in a CI
 * run); so this clicks, waits for the state, and clicks again only while the box still reads
 * unticked — a second click never unticks it.
 */
export async function tick(box: Locator): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (await box.isChecked()) return;
    await box.click();
    try {
      await expect.poll(() => box.isChecked(), { timeout: 3_000 }).toBe(true);
      return;
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
}
