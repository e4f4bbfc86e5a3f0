/**
 * The console's Webhooks page in Debian's Chromium against a real controller (in this process, serving the
 * built console) and a real receiver on loopback that verifies every signature: a subscription created with
 * event types ticked from the trail's list and a write-only secret (never shown back, never in the page), a
 * bad URL refused at its field, its first delivery failing into the dead-letter list with the receiver's
 * error, Redeliver, an edit that keeps the secret, and the syslog export's status.
 */
import { expect, test, type Page } from '@playwright/test';
import { Api, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { CONSOLE_DIR } from './global-setup.js';

const SECRET = 'console-webhook-secret-never-shown';

test.describe.configure({ mode: 'serial' });

let controller: TestController;
let admin: Api;
let receiver: WebhookReceiver;
let page: Page;
const problems: string[] = [];

const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name });
const region = (name: string) => page.getByRole('region', { name, exact: true });

test.beforeAll(async ({ browser }) => {
  controller = await startTestController({
    consoleDir: CONSOLE_DIR,
    eventDelivery: { pollMs: 100, retryMinMs: 100, retryMaxMs: 200, maxAttempts: 2 },
  });
  admin = new Api(controller.url);
  await admin.login('admin', ADMIN_PASSWORD);
  receiver = await new WebhookReceiver(SECRET).start();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${controller.url}/console/`);
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
});

test.afterAll(async () => {
  await page?.context().close();
  await receiver?.close();
  await controller?.dispose();
});

test('a bad URL is refused at its field; a subscription is created with chosen types and a hidden secret', async () => {
  await nav('Webhooks').click();
  await expect(page.getByRole('heading', { name: 'Webhooks' })).toBeVisible();
  await expect(region('Syslog export')).toContainText('Not configured');
  await expect(region('Dead letters')).toContainText('None');
  await page.getByRole('link', { name: 'New webhook' }).click();
  await page.getByLabel('Name', { exact: true }).fill('soc');
  await page.getByLabel('URL', { exact: true }).fill('http://siem.example.com/hook');
  await page.getByLabel('Every type').uncheck();
  await page.getByRole('checkbox', { name: 'admin.created' }).check();
  await page.getByRole('checkbox', { name: 'access.refused' }).check();
  await page.getByLabel('Secret', { exact: true }).fill(SECRET);
  await page.getByRole('button', { name: 'Create webhook' }).click();
  // The browser logs the refused request: expected, then cleared.
  await expect(
    page.getByRole('alert').filter({ hasText: 'plain http is allowed only to a loopback address' }),
  ).toBeVisible();
  await expect.poll(() => problems.length).toBe(1);
  problems.splice(0);
  expect((await admin.get(`${MGMT}/webhooks`)).body.data).toEqual([]);

  // Its own creation is its first event: the receiver is down for both attempts, so it is dead-lettered.
  receiver.failNext(2);
  await page.getByLabel('URL', { exact: true }).fill(receiver.url);
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await expect(page.getByRole('heading', { name: 'Webhook soc' })).toBeVisible();
  const [hook] = (await admin.get(`${MGMT}/webhooks`)).body.data;
  expect(hook).toMatchObject({
    name: 'soc',
    url: receiver.url,
    eventTypes: ['admin.created', 'access.refused'],
  });
  await expect(page.getByLabel('New secret', { exact: true })).toHaveValue('');
  expect(await page.content()).not.toContain(SECRET);
});

test('the failed delivery shows in the dead-letter list with its error, and Redeliver delivers it', async () => {
  // The page reads the lists when it opens: open it again until the dead letter is there.
  const dead = region('Dead letters').getByRole('row').filter({ hasText: 'admin.created' });
  await expect(async () => {
    await nav('Overview').click();
    await nav('Webhooks').click();
    await expect(dead).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 60_000 });
  await expect(dead).toContainText('soc');
  await expect(dead).toContainText('dead');
  await expect(dead).toContainText('HTTP 503: down for maintenance');
  await expect(page.getByRole('row').filter({ hasText: 'soc' }).first()).toBeVisible();
  expect(receiver.accepted).toEqual([]);

  await dead.getByRole('button', { name: 'Redeliver' }).click();
  const [event] = await receiver.waitFor(1);
  expect(event).toMatchObject({ type: 'admin.created', details: { entityType: 'webhooks' } });
  expect(receiver.badSignatures).toBe(0);
  await expect(region('Dead letters')).toContainText('None');
});

test("an edit that leaves the secret empty keeps it; the webhook's deliveries show what became of each", async () => {
  await page.getByRole('link', { name: 'soc', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Webhook soc' })).toBeVisible();
  const deliveries = region('Deliveries');
  await expect(deliveries.getByRole('row').filter({ hasText: 'delivered' })).toBeVisible();
  await page.getByLabel('Every type').check();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect.poll(async () => (await admin.get(`${MGMT}/webhooks`)).body.data[0].eventTypes).toEqual(['*']);
  // Signed with the secret it had: the receiver still verifies.
  await admin.post(`${MGMT}/services`, { name: 'after-the-edit' });
  const got = await receiver.waitFor(3);
  expect(got.map((e) => e.type)).toContain('admin.updated');
  expect(receiver.badSignatures).toBe(0);
  expect(await page.content()).not.toContain(SECRET);
  expect(problems).toEqual([]);
});
