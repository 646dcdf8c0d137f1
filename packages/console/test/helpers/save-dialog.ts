/** Saving an antd form dialog as a person does, and saying what it shows when it does not close. */
import type { Locator } from 'playwright-core';

/**
 * Clicks the dialog's Save and waits until the dialog is gone. A dialog that stays open has
 * refused the save (a field's rule, the server's error shown in it): the failure then carries
 * the dialog's text, so a run that fails says why instead of only "timeout".
 */
export async function saveDialog(dialog: Locator, timeoutMs = 30_000): Promise<void> {
  await dialog.getByRole('button', { name: 'Save' }).click();
  try {
    await dialog.waitFor({ state: 'hidden', timeout: timeoutMs });
  } catch (err) {
    const shown = await dialog.innerText({ timeout: 1_000 }).catch(() => '(its text could not be read)');
    throw new Error(`the dialog did not close after Save; it shows:\n${shown}`, { cause: err });
  }
}
