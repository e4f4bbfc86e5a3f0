/**
 * The desktop window shows a service kept only by warn mode as its own state, "Action needed" in orange
 * (neither the red "Blocked" nor the plain "Reachable"), with the date it will be blocked from and what to
 * fix; a service kept by an exception reads "Reachable" with "Exception until …"; "Check again" re-reads the
 * state like any other. The renderer, preload, IPC, desktop agent and agent core are the real ones; the
 * controller is the client-API stand-in answering GET /services with the wire docs/AGENT.md describes
 * (`warning: {enforceFrom}` and `exception: {expiresAt}` on a passing query that carries its `reason`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import type { PostureFailureReason } from '../../src/api/posture-reasons.js';
import type { ServiceDetail } from '../../src/api/services.js';
import { DesktopE2eWorld } from '../helpers/desktop-e2e-world.js';
import { RecordingController, serviceWith } from '../helpers/desktop-recording-controller.js';
import { BROWSER_PRELOAD, RENDERER_DIR, ROOT } from './global-setup.js';

const SCREENSHOTS = join(ROOT, 'docs', 'screenshots');
const MARCH = '2027-03-03T09:00:00.000Z';
const APRIL = '2027-04-12T17:30:00.000Z';
const REMEDIATION = 'Open System Settings, General, Software Update.';
const oldMacos: PostureFailureReason = {
  code: 'OS_VERSION_OUT_OF_RANGE',
  osType: 'macOS',
  osVersion: '14.2.0',
  allowed: [{ type: 'macOS', versions: ['>=14.4.0'] }],
};

test.describe.configure({ mode: 'serial' });

let world: DesktopE2eWorld;
let controller: RecordingController;
let page: Page;

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

function services(fixed = false): ServiceDetail[] {
  return [
    serviceWith(
      'svc-wiki',
      'wiki',
      fixed
        ? [{ queryType: 'OS', isPassing: true }]
        : [
            {
              queryType: 'OS',
              isPassing: true,
              reason: oldMacos,
              warning: { enforceFrom: MARCH },
              remediation: REMEDIATION,
            },
          ],
    ),
    serviceWith('svc-crm', 'crm', [
      {
        queryType: 'PROCESS',
        isPassing: true,
        process: { osType: 'macOS', path: '/opt/edr/edrd' },
        reason: { code: 'PROCESS_NOT_RUNNING', path: '/opt/edr/edrd' },
        exception: { expiresAt: APRIL },
      },
    ]),
    serviceWith('svc-db', 'db', [
      { queryType: 'MAC', isPassing: false, reason: { code: 'MAC_NOT_ALLOWED' } },
    ]),
  ];
}

const service = (name: string) =>
  page.locator('li.service', { has: page.getByRole('heading', { name, exact: true }) });

test.beforeAll(async ({ browser }) => {
  world = await DesktopE2eWorld.start({ rendererDir: RENDERER_DIR, browserPreload: BROWSER_PRELOAD });
  controller = await RecordingController.start();
  controller.setServices(services());
  // Deadlines are shown in the user's zone: pin it so the words are known.
  const context = await browser.newContext({ viewport: { width: 1000, height: 760 }, timezoneId: 'UTC' });
  page = await world.openMain(context);
});

test.afterAll(async () => {
  await world?.dispose();
  await controller?.close();
});

test('a warned service says "Action needed", from when it will be blocked and what to fix', async () => {
  await page.getByLabel('Controller URL').fill(controller.url);
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill('pw');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Services' })).toBeVisible();

  const wiki = service('wiki');
  await expect(wiki.locator('.badge')).toHaveText('Action needed');
  await expect(wiki.locator('.badge')).toHaveClass(/\bwarned\b/);
  await expect(wiki).toHaveAttribute('data-access', 'warned');
  await expect(wiki.getByRole('note')).toContainText(
    'Will be blocked from 3 March 2027, 09:00 unless this device is fixed:',
  );
  const fixes = wiki.getByRole('list', { name: 'What to fix for wiki before the deadline' });
  await expect(fixes).toContainText('Update macOS to 14.4 or later (this device runs 14.2.0)');
  await expect(fixes.locator('.remediation')).toHaveText(`Your administrator says: ${REMEDIATION}`);
  // Still reachable: no refusal list, and the count says so.
  await expect(wiki.locator('ul.failing[aria-label="What to do for wiki"]')).toHaveCount(0);
  await expect(page.getByRole('status')).toHaveText('2 of 3 services reachable');

  // Its colours are its own: neither the block's red nor the all-clear's green.
  const colour = (name: string) =>
    service(name)
      .locator('.badge')
      .evaluate((e) => getComputedStyle(e).color);
  const warnedColour = await colour('wiki');
  expect(warnedColour).not.toBe(await colour('db'));
  expect(warnedColour).not.toBe(await colour('crm'));
});

test('an excepted service reads "Reachable" with "Exception until …" and the fix for good', async () => {
  const crm = service('crm');
  await expect(crm.locator('.badge')).toHaveText('Reachable');
  await expect(crm.getByRole('note')).toContainText('Exception until 12 April 2027, 17:30');
  await expect(
    crm.getByRole('list', { name: 'What to fix for crm before the exception ends' }),
  ).toContainText('Start edrd (/opt/edr/edrd)');
  await expect(service('db').locator('.badge')).toHaveText('Blocked');
  await shoot(page, 'services-warned');
});

test('"Check again" re-reads it: fixed, the deadline is gone', async () => {
  controller.setServices(services(true));
  await page.getByRole('button', { name: 'Check again' }).click();
  await expect(service('wiki').locator('.badge')).toHaveText('Reachable');
  await expect(service('wiki').getByRole('note')).toHaveCount(0);
  await expect(page.getByRole('status')).toHaveText('2 of 3 services reachable');
});
