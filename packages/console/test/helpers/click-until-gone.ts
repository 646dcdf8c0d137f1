/** Clicking a button of a dialog or a question until it is gone, as a person whose click was lost does. */
import type { Locator } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Clicks `button` inside `container` while `container` is there, until it is gone. A click on a
 * loaded machine can be lost (a dialog stayed open 30 s with nothing sent) or land on a button a
 * redraw has just replaced (a question whose text came after it opened); each further click is
 * made only while the container is still there, so the action happens once as far as the page
 * is concerned — the caller's assertions say what it did.
 */
export async function clickUntilGone(
  container: Locator,
  button: { name: string },
  { timeoutMs = 30_000, intervalMs = 2_000 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  await expect
    .poll(
      async () => {
        if ((await container.count()) > 0) {
          await container
            .getByRole('button', button)
            .click({ timeout: 1_000 })
            .catch(() => {});
        }
        return container.count();
      },
      { timeout: timeoutMs, intervals: [intervalMs] },
    )
    .toBe(0);
}
