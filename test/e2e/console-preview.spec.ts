/**
 * The console's impact preview before save, in Debian's Chromium against a real controller (in this process,
 * serving the built console) whose identities have reported their operating systems through the client API:
 * a new posture check that two of three devices fail shows "This blocks 2 devices from 1 service" with the
 * devices, the service and actual against expected, and is saved only after "Save this change"; a check no
 * policy selects saves at once and says that nothing changed; loosening a service policy shows whom it newly
 * lets in, and deleting it says whom that would block before asking. The screen with the preview goes to
 * docs/screenshots/console-preview.png with POSTERN_UPDATE_SCREENSHOTS=1.
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
const ids = { payroll: '', payrollPolicy: '' };
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

const osCheck = (name: string, roleAttributes: string[], versions: string[]) => ({
  typeId: 'OS',
  name,
  roleAttributes,
  operatingSystems: [{ type: 'Linux', versions }],
});

/** A signed-in device of #staff that reported its Linux kernel for the baseline check. */
async function reportingDevice(name: string, baselineCheck: string, version: string): Promise<void> {
  await createUser(admin, name, `${name}-password`, { roleAttributes: ['staff'] });
  const device = new Api(controller.url);
  if ((await device.login(name, `${name}-password`, CLIENT)).status !== 200)
    throw new Error(`${name}: login`);
  const reported = await device.post(`${CLIENT}/posture-response`, {
    id: baselineCheck,
    typeId: 'OS',
    type: 'Linux',
    version,
  });
  if (reported.status !== 201) throw new Error(`${name}: posture ${JSON.stringify(reported.body)}`);
}

const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name });
const impact = () => page.getByRole('region', { name: 'Impact of this change' });

test.beforeAll(async ({ browser }) => {
  controller = await startTestController({ consoleDir: CONSOLE_DIR });
  admin = new Api(controller.url);
  await admin.login('admin', ADMIN_PASSWORD);

  // Payroll is behind the #payroll-os checks (none yet); every device reports its kernel for a baseline check.
  ids.payroll = await created('/services', { name: 'Payroll' });
  const baseline = await created('/posture-checks', osCheck('linux-any', ['baseline'], ['>=1.0.0']));
  const wiki = await created('/services', { name: 'Team wiki' });
  await created('/service-policies', {
    name: 'staff-wiki',
    type: 'Dial',
    semantic: 'AllOf',
    identityRoles: ['#staff'],
    serviceRoles: [`@${wiki}`],
    postureCheckRoles: ['#baseline'],
  });
  ids.payrollPolicy = await created('/service-policies', {
    name: 'staff-payroll',
    type: 'Dial',
    semantic: 'AllOf',
    identityRoles: ['#staff'],
    serviceRoles: [`@${ids.payroll}`],
    postureCheckRoles: ['#payroll-os'],
  });
  await reportingDevice('alice-laptop', baseline, '6.1.0');
  await reportingDevice('bob-laptop', baseline, '5.4.0');
  await reportingDevice('carol-laptop', baseline, '5.10.0');

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

test('a new posture check shows whom it blocks from which service before it is saved', async () => {
  await nav('Posture checks').click();
  await page.getByRole('link', { name: 'New posture check' }).click();
  await page.getByLabel('Type', { exact: true }).selectOption('OS');
  await page.getByLabel('Name', { exact: true }).fill('linux-6');
  await page.getByLabel('Attributes', { exact: true }).fill('payroll-os');
  await page.getByLabel('Versions', { exact: true }).fill('>=6.0.0');
  await page
    .getByLabel('Advice for a blocked user', { exact: true })
    .fill('Payroll needs kernel 6: run the IT updater.');
  await page.getByRole('button', { name: 'Create check' }).click();

  await expect(impact()).toContainText('This blocks 2 devices from 1 service.');
  const refused = impact().getByRole('table', { name: 'Newly refused' });
  await expect(refused.getByRole('row')).toHaveCount(3);
  await expect(refused.getByRole('row', { name: /bob-laptop/ })).toContainText('Payroll');
  await expect(refused.getByRole('row', { name: /bob-laptop/ })).toContainText('linux-6');
  await expect(refused.getByRole('row', { name: /bob-laptop/ })).toContainText('5.4.0');
  await expect(refused.getByRole('row', { name: /carol-laptop/ })).toContainText('5.10.0');
  await expect(refused).not.toContainText('alice-laptop');
  // Nothing is stored before the confirmation.
  const before = await admin.get(`${MGMT}/posture-checks?filter=${encodeURIComponent('name = "linux-6"')}`);
  expect(before.body.data).toEqual([]);
  await shoot(page, 'console-preview');

  await impact().getByRole('button', { name: 'Save this change' }).click();
  await expect(page.getByRole('heading', { name: 'Posture check linux-6' })).toBeVisible();
  const after = await admin.get(`${MGMT}/posture-checks?filter=${encodeURIComponent('name = "linux-6"')}`);
  expect(after.body.data).toHaveLength(1);
});

test('going back to the form saves nothing; a change that alters nobody’s access saves at once and says so', async () => {
  await nav('Posture checks').click();
  await page.getByRole('link', { name: 'New posture check' }).click();
  await page.getByLabel('Type', { exact: true }).selectOption('OS');
  await page.getByLabel('Name', { exact: true }).fill('linux-7-later');
  await page.getByLabel('Attributes', { exact: true }).fill('payroll-os');
  await page.getByLabel('Versions', { exact: true }).fill('>=7.0.0');
  await page.getByRole('button', { name: 'Create check' }).click();
  await expect(impact()).toContainText('This blocks 1 device from 1 service.');
  await impact().getByRole('button', { name: 'Back to the form' }).click();
  await expect(impact()).toHaveCount(0);
  // Selected by no policy: nobody's access changes.
  await page.getByLabel('Attributes', { exact: true }).fill('not-yet-used');
  await page.getByRole('button', { name: 'Create check' }).click();
  await expect(page.getByRole('heading', { name: 'Posture check linux-7-later' })).toBeVisible();
  await expect(page.getByText('no device gains or loses access with this change')).toBeVisible();
  const stored = await admin.get(
    `${MGMT}/posture-checks?filter=${encodeURIComponent('name = "linux-7-later"')}`,
  );
  expect(stored.body.data[0]).toMatchObject({ roleAttributes: ['not-yet-used'] });
});

test('loosening a service policy shows whom it newly lets in', async () => {
  await page.goto(`${controller.url}/console/service-policies/${ids.payrollPolicy}`);
  // A reload signs out (the token lives in memory only): sign in again.
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Service policy staff-payroll' })).toBeVisible();
  await page.getByLabel('Posture checks', { exact: true }).fill('');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(impact()).toContainText('This lets 2 devices into 1 service they cannot reach now.');
  await expect(impact().getByRole('table', { name: 'Newly granted' })).toContainText('bob-laptop');
  await impact().getByRole('button', { name: 'Save this change' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  const policy = await admin.get(`${MGMT}/service-policies/${ids.payrollPolicy}`);
  expect(policy.body.data.postureCheckRoles).toEqual([]);
});

test('deleting a policy says whom it would block before asking', async () => {
  await page.getByRole('button', { name: 'Delete policy' }).click();
  const asked = page.getByRole('group', { name: 'Delete this policy?' });
  await expect(asked).toContainText('This blocks 3 devices from 1 service.');
  await asked.getByRole('button', { name: 'No' }).click();
  expect((await admin.get(`${MGMT}/service-policies/${ids.payrollPolicy}`)).status).toBe(200);
});
