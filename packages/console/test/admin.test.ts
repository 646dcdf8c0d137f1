import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newPage, signIn } from './helpers/browser.js';
import { clickUntilGone } from './helpers/click-until-gone.js';
import { APP_NAME, type Platform, startPlatform, waitFor } from './helpers/platform.js';
import { screenshot, screenshotBothLanguages } from './helpers/screenshot.js';
import { tick } from './helpers/tick.js';

const BOB = 'bob';
const BOB_PASSWORD = 'bob-first-password';
const BOB_NEW_PASSWORD = 'bob-second-password';
const WEBHOOK_SECRET = 'webhook-signing-secret';
const DAVE = 'dave';
const DAVE_PASSWORD = 'dave-first-password';
const DAVE_NEW_PASSWORD = 'dave-second-password';

interface User {
  id: number;
  username: string;
  role: 'ADMIN' | 'USER';
  appIds: number[];
}

interface Delivery {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback: what the alarm channel posts, kept in order. */
async function startReceiver(): Promise<{ url: string; deliveries: Delivery[]; close(): Promise<void> }> {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      deliveries.push({
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function signatureOf(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

describe('console: the admin pages', { timeout: 90_000 }, () => {
  let platform: Platform;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let page: Page;

  const goto = (path: string) => page.goto(new URL(path, platform.url).toString());
  const users = async () => (await platform.api<{ items: User[] }>('GET', '/api/v1/users')).items;
  const dialog = () => page.getByRole('dialog');
  /** The form item (label, input and its error) labelled `label` in the open dialog. */
  const formItem = (label: string) =>
    dialog()
      .locator('.ant-form-item')
      .filter({ has: page.getByLabel(label, { exact: true }) });

  const login = (username: string, password: string) =>
    fetch(new URL('api/v1/login', platform.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
  /** Signs in as the user and makes an API token of their own. */
  const ownTokenOf = async (username: string, password: string) => {
    const signedIn = await login(username, password);
    const { csrfToken } = (await signedIn.json()) as { csrfToken: string };
    const created = await fetch(new URL('api/v1/tokens', platform.url), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!,
        'x-csrf-token': csrfToken,
      },
      body: JSON.stringify({ name: 'script' }),
    });
    return ((await created.json()) as { token: string }).token;
  };

  beforeAll(async () => {
    platform = await startPlatform();
    browser = await launchBrowser();
    receiver = await startReceiver();
    page = await newPage(browser);
    await signIn(page, platform.url);
  }, 60_000);

  afterAll(async () => {
    await page?.context().close();
    await browser?.close();
    await receiver?.close();
    await platform?.stop();
  });

  it('creates a user with per-app permissions, and shows the server’s refusal on the field', async () => {
    await goto('users');
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await page.getByRole('button', { name: 'New user' }).click();
    await dialog().getByLabel('Username').fill(BOB);
    await dialog().getByLabel('Password', { exact: true }).fill(BOB_PASSWORD);
    await expect(dialog().getByLabel('User', { exact: true }).isChecked()).resolves.toBe(true);
    await dialog().getByRole('combobox', { name: 'Apps' }).click();
    await page.keyboard.type(APP_NAME);
    await page.keyboard.press('Enter');
    await page.keyboard.press('Escape');
    await dialog().getByRole('button', { name: 'Save' }).click();
    await dialog().waitFor({ state: 'hidden' });

    const bobRow = page.getByRole('row').filter({ hasText: BOB });
    await bobRow.getByText(APP_NAME).waitFor();
    const bob = (await users()).find((user) => user.username === BOB);
    expect(bob).toMatchObject({ role: 'USER', appIds: [platform.appId] });
    await screenshot(page, 'users-en');

    // The same name again: the server's 409 names the field, and the form shows it there.
    await page.getByRole('button', { name: 'New user' }).click();
    await dialog().getByLabel('Username').fill(BOB);
    await dialog().getByLabel('Password', { exact: true }).fill(BOB_PASSWORD);
    await page.keyboard.press('Enter');
    await formItem('Username').getByText(`a user named ${BOB} already exists`).waitFor();
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await dialog().waitFor({ state: 'hidden' });
  });

  it('changes a user’s role, deletes another after confirmation, and never offers to delete yourself', async () => {
    await page.getByRole('button', { name: `Edit ${BOB}` }).click();
    await expect(dialog().getByLabel('Username').isDisabled()).resolves.toBe(true);
    await tick(dialog().getByLabel('Administrator'));
    // An admin holds every app: the per-app field leaves the form (once React has re-rendered).
    await dialog().getByLabel('Apps').waitFor({ state: 'detached' });
    await expect(dialog().getByLabel('Apps').count()).resolves.toBe(0);
    // Under a full suite's load a click on Save was once lost (the dialog stayed open 30 s with
    // nothing sent): it is made again while the dialog is there. Saving the same role twice
    // changes nothing.
    await clickUntilGone(dialog(), { name: 'Save' });
    await page.getByRole('row').filter({ hasText: BOB }).getByText('All apps').waitFor();
    expect((await users()).find((user) => user.username === BOB)?.role).toBe('ADMIN');

    const selfRow = page.getByRole('row').filter({ hasText: 'admin' }).filter({ hasText: 'you' });
    for (const action of ['Edit', 'Delete']) {
      await expect(selfRow.getByRole('button', { name: action }).isDisabled()).resolves.toBe(true);
    }

    await platform.api('POST', '/api/v1/users', { username: 'carol', password: 'carol-password' });
    await page.reload();
    await page.getByRole('button', { name: 'Delete carol' }).click();
    await page.getByRole('tooltip').getByText('Delete carol? This cannot be undone.').waitFor();
    // As with Save above: a click on the confirmation is made again while it is there.
    await clickUntilGone(page.getByRole('tooltip'), { name: 'Delete' });
    await page.getByRole('row').filter({ hasText: 'carol' }).waitFor({ state: 'detached' });
    expect((await users()).map((user) => user.username)).not.toContain('carol');
  });

  it('resets a user’s password, revoking their API tokens when the box is ticked', async () => {
    await platform.api('POST', '/api/v1/users', { username: DAVE, password: DAVE_PASSWORD, role: 'USER' });
    const token = await ownTokenOf(DAVE, DAVE_PASSWORD);
    const asDave = async () =>
      (await fetch(new URL('api/v1/me', platform.url), { headers: { authorization: `Bearer ${token}` } }))
        .status;
    expect(await asDave()).toBe(200);

    await goto('users');
    await page.getByRole('button', { name: `Edit ${DAVE}` }).click();
    await dialog().getByLabel('New password', { exact: true }).fill(DAVE_NEW_PASSWORD);
    await tick(dialog().getByLabel("Also revoke the user's API tokens"));
    await dialog().getByRole('button', { name: 'Save' }).click();
    await dialog().waitFor({ state: 'hidden' });

    expect(await asDave()).toBe(401);
    expect((await login(DAVE, DAVE_PASSWORD)).status).toBe(401);
    expect((await login(DAVE, DAVE_NEW_PASSWORD)).status).toBe(200);
  });

  it('creates an API token shown once that works until it is revoked', async () => {
    await goto('tokens');
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    await page.getByRole('button', { name: 'New token' }).click();
    const name = dialog().getByLabel('Name');
    await name.fill('deploy script');
    // The field holds the name before Create is pressed (a fill during the dialog's opening can be lost).
    await expect.poll(() => name.inputValue(), { timeout: 5_000 }).toBe('deploy script');
    const created = page.waitForResponse(
      (answer) => answer.request().method() === 'POST' && answer.url().endsWith('/api/v1/tokens'),
    );
    await dialog().getByRole('button', { name: 'Create' }).click();
    expect((await created).status()).toBe(201);

    await page.getByText('it is shown only this once').waitFor();
    const token = (await page.getByTestId('new-token').innerText()).trim();
    expect(token.length).toBeGreaterThan(20);
    await expect(page.getByTestId('new-token').getByRole('button', { name: /copy/i }).count()).resolves.toBe(
      1,
    );
    const asToken = () =>
      fetch(new URL('api/v1/me', platform.url), { headers: { authorization: `Bearer ${token}` } });
    const me = await asToken();
    expect(me.status).toBe(200);
    expect(((await me.json()) as User).username).toBe('admin');

    await page.getByRole('button', { name: 'I have copied it' }).click();
    const row = page.getByRole('row').filter({ hasText: 'deploy script' });
    await row.waitFor();
    // Shown once: neither the list nor a reload shows it again.
    await page.reload();
    await row.waitFor();
    await expect(page.locator('body').innerText()).resolves.not.toContain(token);
    await screenshotBothLanguages(page, 'tokens', { en: 'API tokens', zh: 'API 令牌' });

    await row.getByRole('button', { name: 'Revoke deploy script' }).click();
    await page.getByRole('tooltip').getByRole('button', { name: 'Revoke' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await asToken()).status).toBe(401);
  });

  it('creates a webhook channel, tests it, and keeps its masked secret and URL token through an edit', async () => {
    await goto('channels');
    await page.getByRole('heading', { name: 'Alarm channels' }).waitFor();
    await page.getByRole('button', { name: 'New channel' }).click();
    await dialog().getByLabel('Name').fill('ops-webhook');
    await expect(formItem('Type').innerText()).resolves.toContain('Webhook');
    await dialog().getByLabel('Webhook URL').fill(`${receiver.url}/hook?token=hook-token-1`);
    await dialog().getByLabel('Signing secret').fill(WEBHOOK_SECRET);
    await dialog().getByRole('button', { name: 'Save' }).click();
    await dialog().waitFor({ state: 'hidden' });
    const row = page.getByRole('row').filter({ hasText: 'ops-webhook' });
    // The list shows the URL as the server answers it: the token masked.
    await row.getByText(`${receiver.url}/hook?token=***`).waitFor();
    await screenshotBothLanguages(page, 'channels', { en: 'Alarm channels', zh: '告警渠道' });

    const sendTest = async (name: string) => {
      await page.getByRole('button', { name: `Test ${name}` }).click();
      await dialog().getByRole('button', { name: 'Send test' }).click();
      await dialog()
        .getByTestId('channel-test-result')
        .getByText('The channel took the test alarm')
        // A real send to the receiver, through the server: slower than a page change under load.
        .waitFor({ timeout: 25_000 });
      await dialog().getByRole('button', { name: 'Close' }).last().click();
      await dialog().waitFor({ state: 'hidden' });
    };
    await sendTest('ops-webhook');
    expect(receiver.deliveries).toHaveLength(1);
    const first = receiver.deliveries[0]!;
    expect(first.url).toBe('/hook?token=hook-token-1');
    expect(first.headers['x-tickwheel-signature']).toBe(signatureOf(WEBHOOK_SECRET, first.body));

    // Edit only the name: the secret shows as stored-but-hidden, the URL masked as answered.
    await page.getByRole('button', { name: 'Edit ops-webhook' }).click();
    await expect(dialog().getByLabel('Signing secret').inputValue()).resolves.toBe('');
    await expect(dialog().getByLabel('Signing secret').getAttribute('placeholder')).resolves.toContain(
      'Stored',
    );
    await expect(dialog().getByLabel('Webhook URL').inputValue()).resolves.toBe(
      `${receiver.url}/hook?token=***`,
    );
    await dialog().getByLabel('Name').fill('ops-webhook-2');
    await dialog().getByRole('button', { name: 'Save' }).click();
    await dialog().waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Test ops-webhook-2' }).waitFor();

    await sendTest('ops-webhook-2');
    expect(receiver.deliveries).toHaveLength(2);
    const second = receiver.deliveries[1]!;
    expect(second.url).toBe('/hook?token=hook-token-1');
    expect(second.headers['x-tickwheel-signature']).toBe(signatureOf(WEBHOOK_SECRET, second.body));

    // A second channel with the same name: the server's 409 shows on the name field.
    await page.getByRole('button', { name: 'New channel' }).click();
    await dialog().getByLabel('Name').fill('ops-webhook-2');
    await dialog().getByLabel('Webhook URL').fill(`${receiver.url}/other`);
    await dialog().getByRole('button', { name: 'Save' }).click();
    await formItem('Name').getByText('an alarm channel named ops-webhook-2 exists already').waitFor();
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await dialog().waitFor({ state: 'hidden' });
  }, 60_000);

  it('records the user creation in the audit list, and filters it by target type', async () => {
    const bob = (await users()).find((user) => user.username === BOB)!;
    await goto('audit');
    await page.getByRole('heading', { name: 'Audit' }).waitFor();
    const created = page
      .getByRole('row')
      .filter({ hasText: `User #${bob.id}` })
      .filter({ hasText: 'Create' });
    await created.waitFor();
    await expect(created.innerText()).resolves.toMatch(/admin[\s\S]*Create[\s\S]*username: bob/);
    await page.getByRole('row').filter({ hasText: 'Alarm channel' }).first().waitFor();
    await screenshotBothLanguages(page, 'audit', { en: 'Audit', zh: '操作审计' });

    await page.getByRole('combobox', { name: 'Target' }).click();
    await page.keyboard.type('User');
    await page.keyboard.press('Enter');
    await page.waitForURL(/targetType=USER/);
    await page.getByRole('row').filter({ hasText: 'Alarm channel' }).first().waitFor({ state: 'detached' });
    await created.waitFor();
  });

  it('lets a user change their own password with the server’s reasons shown, ending their other sessions', async () => {
    const here = await newPage(browser);
    const elsewhere = await newPage(browser);
    try {
      await signIn(here, platform.url, BOB, BOB_PASSWORD);
      await signIn(elsewhere, platform.url, BOB, BOB_PASSWORD);
      await here.goto(new URL('account', platform.url).toString());
      await here.getByRole('heading', { name: 'Change password' }).waitFor();

      const item = (label: string) =>
        here.locator('.ant-form-item').filter({ has: here.getByLabel(label, { exact: true }) });
      await here.getByLabel('Current password').fill('not-my-password');
      await here.getByLabel('New password', { exact: true }).fill(BOB_NEW_PASSWORD);
      await here.getByLabel('New password again').fill(`${BOB_NEW_PASSWORD}-typo`);
      await here.keyboard.press('Enter');
      await item('New password again').getByText('The two new passwords differ').waitFor();

      await here.getByLabel('New password again').fill(BOB_NEW_PASSWORD);
      await here.keyboard.press('Enter');
      await item('Current password').getByText('is not your password').waitFor();

      await here.getByLabel('Current password').fill(BOB_PASSWORD);
      await here.getByRole('button', { name: 'Change password' }).click();
      await here.getByText('Your password is changed').waitFor();
      await here.getByText('Your other sessions have been signed out').waitFor();

      await elsewhere.reload();
      await elsewhere.waitForURL(/\/login$/);
      await here.reload();
      await here.getByTestId('user-menu').waitFor();
      await signIn(elsewhere, platform.url, BOB, BOB_NEW_PASSWORD);
    } finally {
      await here.context().close();
      await elsewhere.context().close();
    }
  });

  it('answers the page in a phone’s width without the page itself scrolling sideways', async () => {
    const phone = await newPage(browser, { width: 390, height: 844 });
    try {
      await signIn(phone, platform.url);
      for (const [path, heading] of [
        ['users', 'Users'],
        ['tokens', 'API tokens'],
        ['channels', 'Alarm channels'],
        ['audit', 'Audit'],
        ['account', 'Change password'],
      ] as const) {
        await phone.goto(new URL(path, platform.url).toString());
        await phone.getByRole('heading', { name: heading }).waitFor();
        await waitFor(
          async () => phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1),
          `${path} fits a phone's width`,
          5_000,
        );
      }
    } finally {
      await phone.context().close();
    }
  });
});
