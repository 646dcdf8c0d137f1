/**
 * A user who must change their password (`mustChangePassword`, e.g. imported from XXL-JOB or
 * given a reset password), in a real Chromium against a real server: after signing in they see
 * only the "Choose a new password" form, also after a reload; a wrong current password shows the
 * server's reason; the right one and a new password open the console on the page they asked for,
 * and the flag is cleared. A call the server refuses with TW_ERR_PASSWORD_CHANGE_REQUIRED (an
 * admin set the flag during the session) brings the form up too, and signing out stays possible.
 * The admin's users page tags such users and its form sets and clears the flag.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { type Platform, startPlatform } from './helpers/platform.js';
import { saveDialog } from './helpers/save-dialog.js';
import { tick } from './helpers/tick.js';

interface User {
  id: number;
  username: string;
  mustChangePassword: boolean;
}

const FORM_TITLE = 'Choose a new password';
const WHY =
  'Your account was created for you (e.g. imported from XXL-JOB) or your password was reset: choose a password of your own to continue.';

describe('console: a user who must change their password', () => {
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

  const url = (path: string) => new URL(path.replace(/^\//, ''), platform.url).toString();
  const userNamed = async (username: string) =>
    (await platform.api<{ items: User[] }>('GET', '/api/v1/users')).items.find(
      (user) => user.username === username,
    );

  /** Fills the sign-in page (the frame may not come: the helper's signIn waits for it). */
  async function signInAs(page: Page, username: string, password: string) {
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function fillNewPassword(page: Page, current: string, next: string) {
    const form = page.getByTestId('password-change-required');
    await form.getByLabel('Current password', { exact: true }).fill(current);
    await form.getByLabel('New password', { exact: true }).fill(next);
    await form.getByLabel('New password again', { exact: true }).fill(next);
    await form.getByRole('button', { name: 'Change password' }).click();
  }

  it('shows only the change-password form after sign-in and on reload, refuses a wrong current password, then opens the console', async () => {
    const created = await platform.api<User>('POST', '/api/v1/users', {
      username: 'erin',
      password: 'erin-given-password',
      role: 'USER',
      appIds: [platform.appId],
      mustChangePassword: true,
    });
    expect(created.mustChangePassword).toBe(true);

    const page = await newPage(browser);
    await page.goto(url('/jobs'));
    await page.waitForURL(/\/login$/);
    await signInAs(page, 'erin', 'erin-given-password');

    const form = page.getByTestId('password-change-required');
    await form.getByRole('heading', { name: FORM_TITLE }).waitFor();
    await form.getByText(WHY).waitFor();
    await form.getByText('Signed in as erin').waitFor();
    // Instead of the console, not in it.
    await expect(page.getByTestId('user-menu').count()).resolves.toBe(0);
    await expect(page.getByRole('menu').count()).resolves.toBe(0);

    // A page load where getCurrentUser says so shows it as well.
    await page.reload();
    await form.getByRole('heading', { name: FORM_TITLE }).waitFor();
    await expect(page.getByTestId('user-menu').count()).resolves.toBe(0);

    // The server's reason for a wrong current password, on that field.
    await fillNewPassword(page, 'not-erins-password', 'erin-own-password');
    await form
      .locator('.ant-form-item')
      .filter({ has: page.getByLabel('Current password', { exact: true }) })
      .getByText('is not your password')
      .waitFor();
    await expect(page.getByTestId('user-menu').count()).resolves.toBe(0);

    await fillNewPassword(page, 'erin-given-password', 'erin-own-password');
    // Into the console, on the page asked for before signing in.
    await page.getByTestId('user-menu').waitFor();
    await page.getByRole('heading', { name: 'Jobs', exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/jobs');
    await expect(form.count()).resolves.toBe(0);

    const me = await page.request.get(url('/api/v1/me'));
    expect(me.status()).toBe(200);
    expect(((await me.json()) as User).mustChangePassword).toBe(false);
    await expect(userNamed('erin')).resolves.toMatchObject({ mustChangePassword: false });
    await page.context().close();

    // The new password is the one that signs in now.
    const again = await newPage(browser);
    await signIn(again, platform.url, 'erin', 'erin-own-password');
    await again.context().close();
  }, 90_000);

  it('shows the form when a call is refused with TW_ERR_PASSWORD_CHANGE_REQUIRED, and can sign out from it', async () => {
    const frank = await platform.api<User>('POST', '/api/v1/users', {
      username: 'frank',
      password: 'frank-password',
      role: 'USER',
      appIds: [platform.appId],
    });
    expect(frank.mustChangePassword).toBe(false);
    const page = await newPage(browser);
    await signIn(page, platform.url, 'frank', 'frank-password');

    // An admin asks for a new password while frank is signed in: his next call is refused.
    await platform.api('PATCH', `/api/v1/users/${frank.id}`, { mustChangePassword: true });
    // Moving to Jobs makes a call; the dashboard's own refresh may be refused first, and then the
    // form replaces the menu while the click is under way — either way the form must show.
    const form = page.getByTestId('password-change-required');
    await page
      .getByRole('menu')
      .getByRole('link', { name: 'Jobs', exact: true })
      .click()
      .catch(async (error: unknown) => {
        if ((await form.count()) === 0) throw error;
      });
    await form.getByRole('heading', { name: FORM_TITLE }).waitFor();
    await expect(page.getByTestId('user-menu').count()).resolves.toBe(0);

    await form.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login$/);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const me = await page.request.get(url('/api/v1/me'));
    expect(me.status()).toBe(401);
    await page.context().close();
  }, 60_000);

  it('tags such users in the users list, and the user form sets and clears the flag', async () => {
    const page = await newPage(browser);
    await signIn(page, platform.url);
    await page.goto(url('/users'));
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    const dialog = page.getByRole('dialog');
    const flag = dialog.getByLabel('Must change password at next sign-in', { exact: true });

    // A new user told to change the password the admin chose.
    await page.getByRole('button', { name: 'New user' }).click();
    await dialog.getByLabel('Username', { exact: true }).fill('gina');
    await dialog.getByLabel('Password', { exact: true }).fill('gina-given-password');
    await expect(flag.isChecked()).resolves.toBe(false);
    await tick(flag);
    await saveDialog(dialog);
    const gina = await userNamed('gina');
    expect(gina?.mustChangePassword).toBe(true);
    await page.getByTestId(`must-change-password-${gina!.id}`).waitFor();
    await expect(page.getByTestId(`must-change-password-${gina!.id}`).textContent()).resolves.toBe(
      'Must change password',
    );
    // Nobody else is tagged (erin changed hers; frank still must).
    const frank = await userNamed('frank');
    const erin = await userNamed('erin');
    await page.getByTestId(`must-change-password-${frank!.id}`).waitFor();
    await expect(page.getByTestId(`must-change-password-${erin!.id}`).count()).resolves.toBe(0);

    // Cleared in the edit form: the tag goes.
    await page.getByRole('button', { name: 'Edit gina' }).click();
    await expect(flag.isChecked()).resolves.toBe(true);
    await flag.uncheck();
    await saveDialog(dialog);
    await page.getByTestId(`must-change-password-${gina!.id}`).waitFor({ state: 'detached' });
    await expect(userNamed('gina')).resolves.toMatchObject({ mustChangePassword: false });

    // Set again with a reset password.
    await page.getByRole('button', { name: 'Edit gina' }).click();
    await expect(flag.isChecked()).resolves.toBe(false);
    await dialog.getByLabel('New password', { exact: true }).fill('gina-reset-password');
    await tick(flag);
    await saveDialog(dialog);
    await page.getByTestId(`must-change-password-${gina!.id}`).waitFor();
    await expect(userNamed('gina')).resolves.toMatchObject({ mustChangePassword: true });
    await page.context().close();
  }, 60_000);
});
