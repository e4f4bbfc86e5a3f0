/**
 * The service list tells each refusal apart, in Debian's Chromium against the real controller and agent:
 * "checking…" until this device's first report (the collector is held back to see it), then per service the
 * fix for the reason the controller gives: another OS, a newer OS, an unapproved build, one of several
 * programs, a domain, and an administrator's own advice. Screens go to docs/screenshots/ like the others.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { createUser } from '../helpers/api.js';
import { guardedService, machineFacts } from '../helpers/agent-setup.js';
import { DesktopE2eWorld } from '../helpers/desktop-e2e-world.js';
import { HeldCollector } from '../helpers/held-collector.js';
import { BROWSER_PRELOAD, RENDERER_DIR, ROOT } from './global-setup.js';

const SCREENSHOTS = join(ROOT, 'docs', 'screenshots');
const REMEDIATION = 'Printing works from the office network only: dock your laptop at your desk.';
const facts = machineFacts();
const [kernelMajor] = facts.osRange.replace('>=', '').split('.');
const binary = facts.processPath.split('/').at(-1)!;

test.describe.configure({ mode: 'serial' });

let world: DesktopE2eWorld;
let page: Page;
const collector = new HeldCollector();

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

const service = (name: string) =>
  page.locator('li.service', { has: page.getByRole('heading', { name, exact: true }) });
const advice = (name: string) => service(name).getByRole('list', { name: `What to do for ${name}` });

test.beforeAll(async ({ browser }) => {
  world = await DesktopE2eWorld.start({
    rendererDir: RENDERER_DIR,
    browserPreload: BROWSER_PRELOAD,
    collector,
  });
  await createUser(world.admin, 'bob-reasons', 'bob-password', { roleAttributes: ['staff'] });
  const checks: Record<string, Record<string, unknown>> = {
    'Build farm': { typeId: 'OS', operatingSystems: [{ type: 'Windows', versions: ['>=10.0.19041'] }] },
    'Kernel lab': {
      typeId: 'OS',
      operatingSystems: [{ type: 'Linux', versions: [`>=${Number(kernelMajor) + 50}.0.0`] }],
    },
    'Source code': {
      typeId: 'PROCESS',
      process: { osType: 'Linux', path: facts.processPath, hashes: ['ab'.repeat(32)] },
    },
    Backups: {
      typeId: 'PROCESS_MULTI',
      semantic: 'AnyOf',
      processes: [
        { osType: 'Linux', path: '/opt/restic/restic' },
        { osType: 'Linux', path: '/opt/borg/borg' },
      ],
    },
    Printers: { typeId: 'MAC', macAddresses: ['AA-BB-CC-DD-EE-0F'], remediation: REMEDIATION },
    Intranet: { typeId: 'DOMAIN', domains: ['CORP'] },
  };
  for (const [name, check] of Object.entries(checks)) await guardedService(world.admin, name, 'staff', check);
  const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
  page = await world.openMain(context);
});

test.afterAll(async () => {
  collector.release();
  await world?.dispose();
});

test('before the first report every service reads "Checking…", never a failure', async () => {
  await page.getByLabel('Controller URL').fill(world.controller.url);
  await page.getByLabel('Username').fill('bob-reasons');
  await page.getByLabel('Password').fill('bob-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Services' })).toBeVisible();
  await expect(service('Build farm').locator('.badge')).toHaveText('Checking…');
  await expect(page.locator('li.service .badge.checking')).toHaveCount(6);
  await expect(page.locator('li.service .badge.blocked')).toHaveCount(0);
  await expect(page.locator('ul.failing')).toHaveCount(0);
  await shoot(page, 'services-checking');
});

test('after the report each service says what to do for its own reason', async () => {
  collector.release();
  await expect(service('Build farm').locator('.badge')).toHaveText('Blocked');
  await expect(advice('Build farm')).toContainText(
    'This service needs Windows 10.0.19041 or later; this device runs Linux',
  );
  await expect(advice('Kernel lab')).toContainText(
    new RegExp(
      `Update Linux to ${Number(kernelMajor) + 50}\\.0 or later \\(this device runs \\d+\\.\\d+\\.\\d+\\)`,
    ),
  );
  await expect(advice('Source code')).toContainText(
    `${binary} is running but is not an approved build: install the approved version at ${facts.processPath}`,
  );
  await expect(advice('Backups')).toContainText(
    'Any one of these: Start restic (/opt/restic/restic); or Start borg (/opt/borg/borg)',
  );
  await expect(advice('Printers')).toContainText('Connect from an allowed network adapter');
  await expect(advice('Printers').locator('.remediation')).toHaveText(
    `Your administrator says: ${REMEDIATION}`,
  );
  await expect(advice('Intranet')).toContainText("Join your organisation's Windows domain");
  for (const code of [
    'OS_TYPE_NOT_ALLOWED',
    'PROCESS_HASH_NOT_APPROVED',
    'MAC_NOT_ALLOWED',
    'DOMAIN_MISMATCH',
  ])
    await expect(page.locator(`li[data-code="${code}"]`)).toHaveCount(1);
  await shoot(page, 'services-reasons');
});
