/**
 * The desktop UI end to end, in Debian's Chromium: the built renderer behind the real preload, bridged to
 * main's handlers, the real agent core and a real controller. Signs in, reads a blocked service's failing
 * check in words, enrolls in MFA like a user with an authenticator app (secret read off the screen, code
 * from otplib, recovery codes with Save and Copy), then answers the TOTP window raised by a simulated unlock and
 * sees the service come back. Each screen is saved to docs/screenshots/ and attached to the test results.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { generate } from 'otplib';
import { createUser, type Api } from '../helpers/api.js';
import { guardedService } from '../helpers/agent-setup.js';
import { DesktopE2eWorld } from '../helpers/desktop-e2e-world.js';
import { BROWSER_PRELOAD, RENDERER_DIR, ROOT } from './global-setup.js';

const SCREENSHOTS = join(ROOT, 'docs', 'screenshots');
const GRACE_MS = 300_000;

test.describe.configure({ mode: 'serial' });

let world: DesktopE2eWorld;
let page: Page;
let secret = '';
let recoveryCodes: string[] = [];
let gitWeb: { server: Server; port: number } | undefined;
/** Console errors and page errors (a CSP violation shows up here). */
const problems: string[] = [];

/**
 * Saves a screen to the test's results, and to docs/screenshots/ (committed, shown in docs/DESKTOP.md) when
 * POSTERN_UPDATE_SCREENSHOTS=1, so an ordinary test run leaves the work tree clean.
 */
async function shoot(target: Page, name: string): Promise<void> {
  const updateDocs = process.env.POSTERN_UPDATE_SCREENSHOTS === '1';
  if (updateDocs) mkdirSync(SCREENSHOTS, { recursive: true });
  const body = await target.screenshot({
    ...(updateDocs ? { path: join(SCREENSHOTS, `${name}.png`) } : {}),
    animations: 'disabled',
  });
  const artifact = test.info().outputPath(`${name}.png`);
  writeFileSync(artifact, body);
  await test.info().attach(name, { path: artifact, contentType: 'image/png' });
}

const service = (name: string) =>
  page.locator('li.service', { has: page.getByRole('heading', { name, exact: true }) });
const code = (at: number) => generate({ secret, epoch: Math.floor(at / 1000) });

test.beforeAll(async ({ browser }) => {
  world = await DesktopE2eWorld.start({ rendererDir: RENDERER_DIR, browserPreload: BROWSER_PRELOAD });
  await createUser(world.admin, 'alice', 'correct horse battery', { roleAttributes: ['staff'] });
  await guardedService(world.admin, 'Team wiki', 'staff', {
    typeId: 'MFA',
    timeoutSeconds: -1,
    promptOnUnlock: true,
    promptOnWake: true,
  });
  await guardedService(world.admin, 'Payroll', 'staff', {
    typeId: 'PROCESS',
    process: { osType: 'Linux', path: '/opt/CrowdStrike/falcond' },
  });
  const git = await guardedService(world.admin, 'Git', 'staff');
  gitWeb = await startGitWeb();
  await publishThroughTunnel(world.admin, git.serviceId, gitWeb.port);
  const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
  context.on('page', (opened) => {
    opened.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    opened.on('pageerror', (error) => problems.push(error.message));
  });
  page = await world.openMain(context);
});

test.afterAll(async () => {
  await world?.dispose();
  gitWeb?.server.close();
});

test.afterEach(() => {
  // No screen may log an error: a CSP violation, a failed load or an exception would show here.
  expect(problems).toEqual([]);
});

test("the renderer runs under the app's CSP, with only the schema's API", async () => {
  await expect(page.getByRole('heading', { name: 'Sign in to Postern' })).toBeVisible();
  expect(await page.evaluate(() => Object.keys(window.postern).sort())).toEqual([
    'app',
    'mfa',
    'prompt',
    'services',
    'session',
    'settings',
  ]);
  // An injected inline script must not run (Playwright's own evaluate is exempt from CSP; page scripts are not).
  const ran = await page.evaluate(async () => {
    const script = document.createElement('script');
    script.textContent = 'window.inlineScriptRan = true';
    document.head.append(script);
    await new Promise((resolve) => setTimeout(resolve, 50));
    return (window as unknown as { inlineScriptRan?: boolean }).inlineScriptRan === true;
  });
  expect(ran).toBe(false);
  // Refused by the header and by the meta tag alike.
  const refusals = problems.splice(0);
  expect(refusals.length).toBeGreaterThan(0);
  for (const refusal of refusals)
    expect(refusal).toContain("Content Security Policy directive 'script-src 'self''");
});

test('signs in with controller URL, username and password', async () => {
  await expect(page.getByRole('heading', { name: 'Sign in to Postern' })).toBeVisible();
  await page.getByLabel('Controller URL').fill(world.controller.url);
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill('correct horse battery');
  await shoot(page, 'sign-in');
  await page.getByLabel('Password').fill('wrong password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('The username or password is not right.');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Services' })).toBeVisible();
  await expect(page.locator('.who')).toHaveText('alice');
});

test('shows a blocked service with its failing check in plain words', async () => {
  await expect(service('Git').locator('.badge')).toHaveText('Reachable');
  await expect(service('Payroll').locator('.badge')).toHaveText('Blocked');
  await expect(service('Payroll').getByRole('list', { name: 'What to do for Payroll' })).toContainText(
    'Start falcond (/opt/CrowdStrike/falcond)',
  );
  // The reference to quote, which finds the refusal's audit event in the console (docs/AUDIT.md).
  await expect(service('Payroll').getByTestId('refusal-reference')).toHaveText(
    /^Asking your administrator\? Quote ref [0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{2}\.$/,
  );
  await expect(service('Team wiki').locator('.badge')).toHaveText('Blocked');
  await expect(service('Team wiki')).toContainText('Set up an authenticator app (MFA) for your account');
  await page.getByRole('button', { name: 'Check again' }).click();
  await expect(page.getByRole('button', { name: 'Check again' })).toBeEnabled();
  await expect(page.getByRole('status').first()).toHaveText('1 of 3 services reachable');
  await shoot(page, 'services-blocked');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shoot(page, 'services-blocked-dark');
  await page.emulateMedia({ colorScheme: 'light' });
});

test('a reachable service shows where it listens on this device; Copy copies it; bytes flow through it', async () => {
  const addresses = service('Git').getByRole('list', { name: 'Local addresses of Git' });
  await expect(addresses.locator('code').first()).toHaveText(/^127\.0\.0\.1:\d+$/);
  const address = (await addresses.locator('code').first().textContent())!;
  // The service itself holds its own port on 127.0.0.1, so the agent listens on another one.
  expect(address).not.toBe(`127.0.0.1:${gitWeb!.port}`);
  // No local address for a blocked service: there is nothing to reach.
  await expect(service('Payroll').getByRole('list', { name: 'Local addresses of Payroll' })).toHaveCount(0);
  await service('Git')
    .getByRole('button', { name: `Copy ${address}` })
    .click();
  await expect(service('Git').getByRole('status')).toHaveText(`Copied ${address}.`);
  expect(world.copied.splice(0)).toEqual([address]);
  // The address is real: the agent's listener, the router and the service behind it.
  const answer = await fetch(`http://${address}/`);
  expect(await answer.text()).toBe('git web behind the tunnel');
  await shoot(page, 'services-local-address');
});

test('enrolls in MFA: QR and secret, recovery codes once, then verify', async () => {
  await page.getByRole('link', { name: 'MFA' }).click();
  await expect(page.getByText('No authenticator app is set up for your account.')).toBeVisible();
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();

  const qr = page.getByRole('img', { name: /QR code/ });
  await expect(qr).toBeVisible();
  expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
  secret = (await page.getByTestId('mfa-secret').innerText()).replace(/\s+/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  await shoot(page, 'mfa-enrollment-qr');

  await page.getByRole('button', { name: 'Next' }).click();
  const list = page.getByRole('list', { name: 'Recovery codes' });
  recoveryCodes = (await list.getByRole('listitem').allInnerTexts()).map((c) => c.trim());
  expect(recoveryCodes).toHaveLength(10);
  await expect(page.getByRole('button', { name: 'Next' })).toBeDisabled();
  await page.getByRole('button', { name: 'Copy' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Copied' })).toBeVisible();
  await page.getByRole('button', { name: 'Save codes…' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  expect(world.copied).toEqual([recoveryCodes.join('\n')]);
  expect(world.savedFiles).toEqual([
    { name: 'Postern-recovery-codes-alice.txt', text: `${recoveryCodes.join('\n')}\n` },
  ]);
  await expect(page.getByLabel('I have saved my recovery codes')).toBeChecked();
  await shoot(page, 'mfa-recovery-codes');

  await page.getByRole('button', { name: 'Next' }).click();
  await page.getByLabel('Code from your authenticator app').fill('000000');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toContainText('That code was not accepted');
  await page.getByLabel('Code from your authenticator app').fill(await code(world.controllerNow()));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByText('MFA is on. Your authenticator app now protects your account.')).toBeVisible();
  await expect(page.getByText(/MFA is on\. 10 recovery codes left\./)).toBeVisible();
  await shoot(page, 'mfa-enabled');

  // Shown once: not on this screen any more, nor after coming back to it.
  for (const shown of recoveryCodes) await expect(page.getByText(shown)).toHaveCount(0);
  await page.getByRole('link', { name: 'Services' }).click();
  await page.getByRole('link', { name: 'MFA' }).click();
  await expect(page.getByRole('button', { name: 'Recovery codes' })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Recovery codes' })).toHaveCount(0);
  await page.getByRole('link', { name: 'Services' }).click();
  await expect(service('Team wiki').locator('.badge')).toHaveText('Reachable');
});

test('answers the TOTP prompt after an unlock and gets the service back', async () => {
  world.power.emit('unlock-screen');
  await expect.poll(() => world.promptWindowOpen).toBe(true);
  const prompt = await world.waitForPromptPage();
  // Why it appeared, before what to do.
  await expect(prompt.locator('.prompt-why')).toHaveText('This device was unlocked.');
  await expect(prompt.getByRole('heading')).toHaveText(
    /^Enter your code within 4:\d\d to keep access to Team wiki$/,
  );
  expect(world.notifications).toEqual([
    {
      title: 'Screen unlocked: authenticator code needed',
      body: expect.stringMatching(/^Enter your code within (4:5\d|5:00) to keep access to Team wiki$/),
    },
  ]);
  await prompt.setViewportSize({ width: 420, height: 340 });
  await shoot(prompt, 'totp-prompt');

  // The user lets the grace period run out: the controller now wants a code for the wiki.
  world.shiftControllerClock(GRACE_MS + 1_000);
  await page.getByRole('button', { name: 'Check again' }).click();
  await expect(service('Team wiki').locator('.badge')).toHaveText('Needs your code');
  await expect(service('Team wiki')).toContainText('This device was unlocked: enter your authenticator code');
  await expect(service('Git').locator('.badge')).toHaveText('Reachable');
  await shoot(page, 'services-mfa-needed');

  await prompt.getByLabel('Authenticator code').fill('000000');
  await prompt.getByRole('button', { name: 'Submit' }).click();
  await expect(prompt.getByRole('alert')).toContainText('That code was not accepted');
  await prompt.getByLabel('Authenticator code').fill(await code(world.controllerNow()));
  await prompt.getByRole('button', { name: 'Submit' }).click();
  await expect.poll(() => prompt.isClosed()).toBe(true);

  await expect(service('Team wiki').locator('.badge')).toHaveText('Reachable');
  await expect(page.getByRole('status').first()).toHaveText('2 of 3 services reachable');
  expect(world.notifications).toHaveLength(1);
  await shoot(page, 'services-unblocked');
});

test('a new sign-in owes a code, asked for on the sign-in screen', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to Postern' })).toBeVisible();
  await expect(page.getByLabel('Controller URL')).toHaveValue(world.controller.url);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(
    page.getByText('Enter the code from your authenticator app to finish signing in.'),
  ).toBeVisible();
  await shoot(page, 'sign-in-code');
  // The code is asked for here, where the user is looking: no extra window, no notification.
  expect(world.promptWindowOpen).toBe(false);
  expect(world.notifications).toHaveLength(1);
  world.shiftControllerClock(30_000);
  await page.getByLabel('Authenticator code').fill(await code(world.controllerNow()));
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('heading', { name: 'Services' })).toBeVisible();
  await expect(service('Team wiki').locator('.badge')).toHaveText('Reachable');
});

test('shows recovery codes after a code, and removes MFA with a recovery code', async () => {
  await page.getByRole('link', { name: 'MFA' }).click();
  await page.getByRole('button', { name: 'Recovery codes' }).click();
  world.shiftControllerClock(30_000);
  await page.getByLabel('Code from your authenticator app').fill(await code(world.controllerNow()));
  await page.getByRole('button', { name: 'Show codes' }).click();
  const shown = (
    await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allInnerTexts()
  ).map((c) => c.trim());
  expect(shown).toEqual(recoveryCodes);
  await shoot(page, 'recovery-codes');
  await page.getByRole('button', { name: 'Done' }).click();

  await page.getByRole('button', { name: 'Remove MFA' }).click();
  await page.getByLabel('Authenticator or recovery code').fill(recoveryCodes[0]!);
  await shoot(page, 'mfa-removal');
  await page.getByRole('button', { name: 'Remove MFA' }).click();
  await expect(page.getByText(/^MFA was removed/)).toBeVisible();
  await expect(page.getByText('No authenticator app is set up for your account.')).toBeVisible();
  await page.getByRole('link', { name: 'Services' }).click();
  await expect(service('Team wiki').locator('.badge')).toHaveText('Blocked');
  await expect(service('Team wiki')).toContainText('Set up an authenticator app (MFA) for your account');
});

/** A real HTTP service for the tunnel to carry. */
async function startGitWeb(): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.end('git web behind the tunnel'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** intercept.v1 and host.v1 configs on the service, as an administrator publishes one. */
async function publishThroughTunnel(admin: Api, serviceId: string, port: number): Promise<void> {
  const config = async (name: string, configTypeId: string, data: Record<string, unknown>) => {
    const res = await admin.post('/edge/management/v1/configs', { name, configTypeId, data });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  const configs = [
    await config('git-intercept', 'intercept.v1', {
      protocols: ['tcp'],
      addresses: ['git.internal'],
      portRanges: [{ low: port, high: port }],
    }),
    await config('git-host', 'host.v1', { protocol: 'tcp', address: '127.0.0.1', port }),
  ];
  expect((await admin.patch(`/edge/management/v1/services/${serviceId}`, { configs })).status).toBe(200);
}
