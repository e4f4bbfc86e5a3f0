/**
 * The console's audit trail in Debian's Chromium against a real controller (in this process, serving the built
 * console): a device that reported an old kernel loses Payroll when an administrator adds a posture check, and
 * the Audit page finds that access.refused event by identity and type, newest first and paged, and by the
 * reference its user quotes (typed as read out); the event's page shows the failing check's actual against
 * expected, an admin change's page its before and after; and the identity's "What happened today" tells its
 * day in plain words, oldest first. No screen may log an error. Screens go to docs/screenshots/console-audit*.png
 * with POSTERN_UPDATE_SCREENSHOTS=1.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';
import { CONSOLE_DIR, ROOT } from './global-setup.js';

const SCREENSHOTS = join(ROOT, 'docs', 'screenshots');

test.describe.configure({ mode: 'serial' });

let controller: TestController;
let admin: Api;
let page: Page;
const ids = { payroll: '', laptop: '', policy: '' };
/** Console errors and page errors: no screen may log one. */
const problems: string[] = [];

async function shoot(target: Page, name: string): Promise<void> {
  const updateDocs = process.env.POSTERN_UPDATE_SCREENSHOTS === '1';
  if (updateDocs) mkdirSync(SCREENSHOTS, { recursive: true });
  const body = await target.screenshot({
    ...(updateDocs ? { path: join(SCREENSHOTS, `${name}.png`) } : {}),
    animations: 'disabled',
    fullPage: true,
  });
  const artifact = test.info().outputPath(`${name}.png`);
  writeFileSync(artifact, body);
  await test.info().attach(name, { path: artifact, contentType: 'image/png' });
}

async function created(path: string, body: unknown): Promise<string> {
  const res = await admin.post(`${MGMT}${path}`, body);
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
}

async function events(filter: string): Promise<any[]> {
  const res = await admin.get(`${MGMT}/audit-events?limit=500&filter=${encodeURIComponent(filter)}`);
  return res.body.data;
}

const osCheck = (name: string, roleAttributes: string[], versions: string[]) => ({
  typeId: 'OS',
  name,
  roleAttributes,
  operatingSystems: [{ type: 'Linux', versions }],
});

const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name });
const filters = () => page.getByRole('search', { name: 'Audit filters' });
const eventRows = () => page.getByRole('table', { name: 'Audit events' }).locator('tbody tr');

async function search(values: Record<string, string>): Promise<void> {
  await filters().getByRole('button', { name: 'Clear' }).click();
  for (const [label, value] of Object.entries(values))
    await filters().getByLabel(label, { exact: true }).fill(value);
  await filters().getByRole('button', { name: 'Search' }).click();
}

test.beforeAll(async ({ browser }) => {
  controller = await startTestController({ consoleDir: CONSOLE_DIR });
  admin = new Api(controller.url);
  await admin.login('admin', ADMIN_PASSWORD);

  // Payroll behind the #payroll-os checks (none yet); the laptop reports its kernel for a baseline check.
  ids.payroll = await created('/services', { name: 'Payroll' });
  const baseline = await created('/posture-checks', osCheck('linux-any', ['baseline'], ['>=1.0.0']));
  ids.policy = await created('/service-policies', {
    name: 'staff-payroll',
    type: 'Dial',
    semantic: 'AllOf',
    identityRoles: ['#staff'],
    serviceRoles: [`@${ids.payroll}`],
    postureCheckRoles: ['#payroll-os'],
  });
  ids.laptop = await createUser(admin, 'dana-laptop', 'dana-laptop-password', { roleAttributes: ['staff'] });
  const wrong = await new Api(controller.url).login('dana-laptop', 'not-her-password', CLIENT);
  if (wrong.status !== 401) throw new Error(`a wrong password answered ${wrong.status}`);
  const device = new Api(controller.url);
  if ((await device.login('dana-laptop', 'dana-laptop-password', CLIENT)).status !== 200)
    throw new Error('dana-laptop: login');
  const reported = await device.post(`${CLIENT}/posture-response`, {
    id: baseline,
    typeId: 'OS',
    type: 'Linux',
    version: '5.4.0',
  });
  if (reported.status !== 201) throw new Error(`posture: ${JSON.stringify(reported.body)}`);
  // The administrator's new check refuses the laptop Payroll: an access transition on the trail.
  await created('/posture-checks', osCheck('linux-6', ['payroll-os'], ['>=6.0.0']));
  await expect
    .poll(async () => (await events(`identityId = "${ids.laptop}" and type = "access.refused"`)).length, {
      timeout: 30_000,
    })
    .toBe(1);
  // Enough other changes for a second page of the trail.
  for (let i = 0; i < 30; i++) await created('/services', { name: `filler-${String(i).padStart(2, '0')}` });

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

test.afterEach(() => {
  expect(problems).toEqual([]);
});

test.afterAll(async () => {
  await page?.context().close();
  await controller?.dispose();
});

test('the Audit page lists events newest first, pages, and filters by identity and type', async () => {
  await nav('Audit').click();
  await expect(page.getByRole('heading', { name: 'Audit trail' })).toBeVisible();
  const total = (await admin.get(`${MGMT}/audit-events?limit=1`)).body.meta.pagination.totalCount as number;
  expect(total).toBeGreaterThan(25);
  await expect(page.getByText(`1–25 of ${total}`)).toBeVisible();
  // Newest first: this console's own sign-in, then the last filler service.
  await expect(eventRows().nth(0)).toContainText('Default Admin signed in with a password');
  await expect(eventRows().nth(1)).toContainText("Default Admin created service 'filler-29'");
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByText(`26–${Math.min(50, total)} of ${total}`)).toBeVisible();
  await expect(eventRows().first()).toContainText("created service 'filler-05'");

  await search({ Identity: 'dana-laptop', Type: 'access.refused' });
  await expect(eventRows()).toHaveCount(1);
  await expect(eventRows().first()).toContainText('Lost access to Payroll: linux-6 failed');
  await expect(eventRows().first()).toContainText('dana-laptop');
  await expect(eventRows().first()).toContainText('Payroll');
  // The filters are in the address: a reload shows the same.
  expect(new URL(page.url()).searchParams.get('type')).toBe('access.refused');

  await search({ Identity: 'dana-laptop', Type: 'auth.*' });
  await expect(eventRows()).toHaveCount(2);
  await expect(eventRows().nth(0)).toContainText('dana-laptop signed in with a password');
  await expect(eventRows().nth(1)).toContainText("Sign-in as 'dana-laptop' with a password refused");
  await shoot(page, 'console-audit');
});

test('a reference as the user reads it out finds the event, whose page shows actual against expected', async () => {
  const [refused] = await events(`identityId = "${ids.laptop}" and type = "access.refused"`);
  const spoken = (refused.reference as string).replace('-', ' ').toLowerCase();
  await search({ Reference: spoken });
  await expect(eventRows()).toHaveCount(1);
  await expect(eventRows().first()).toContainText(refused.reference);
  await eventRows().first().getByRole('link').first().click();

  await expect(page.getByRole('heading', { name: `Event ${refused.reference}` })).toBeVisible();
  const checks = page.getByRole('table', { name: 'Failing checks' });
  await expect(checks.getByRole('row', { name: /linux-6/ })).toContainText('5.4.0');
  await expect(checks.getByRole('row', { name: /linux-6/ })).toContainText('>=6.0.0');
  await expect(page.getByRole('region', { name: 'Event' })).toContainText('the controller');
  await shoot(page, 'console-audit-event');
});

test("an admin change's page shows its before and after", async () => {
  expect(
    (await admin.patch(`${MGMT}/service-policies/${ids.policy}`, { postureCheckRoles: ['#baseline'] }))
      .status,
  ).toBe(200);
  await nav('Audit').click();
  await search({ Type: 'admin.updated' });
  await expect(eventRows()).toHaveCount(1);
  await expect(eventRows().first()).toContainText(
    "Default Admin changed service policy 'staff-payroll' (postureCheckRoles)",
  );
  await eventRows().first().getByRole('link').first().click();
  const table = page.getByRole('table', { name: 'Before and after' });
  const changed = table.getByRole('row', { name: /postureCheckRoles \(changed\)/ });
  await expect(changed).toContainText('#payroll-os');
  await expect(changed).toContainText('#baseline');
  await expect(table.getByRole('row', { name: /^name / })).toContainText('staff-payroll');
});

test("the identity's page tells what happened to the device today, oldest first, in plain words", async () => {
  await nav('Identities').click();
  await page.getByRole('link', { name: 'dana-laptop', exact: true }).click();
  await page.getByRole('link', { name: 'What happened today' }).click();
  await expect(page.getByRole('heading', { name: 'What happened to dana-laptop today' })).toBeVisible();
  const items = page.getByRole('region', { name: 'Timeline' }).getByRole('listitem');
  const expected = (await events(`identityId = "${ids.laptop}"`)).length;
  await expect(items).toHaveCount(expected);
  const texts = await items.allInnerTexts();
  const at = (words: string) => texts.findIndex((t) => t.includes(words));
  expect(at("Default Admin created identity 'dana-laptop'")).toBe(0);
  expect(at("Sign-in as 'dana-laptop' with a password refused")).toBeGreaterThan(0);
  expect(at('dana-laptop signed in with a password')).toBeGreaterThan(
    at("Sign-in as 'dana-laptop' with a password refused"),
  );
  // The policy change of the previous test gave Payroll back: the day ends with it.
  expect(at('Lost access to Payroll: linux-6 failed')).toBe(texts.length - 2);
  expect(at('Access to Payroll restored')).toBe(texts.length - 1);
  await shoot(page, 'console-audit-timeline');
});
