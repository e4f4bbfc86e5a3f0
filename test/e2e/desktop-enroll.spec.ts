/**
 * "Enroll with a token" end to end, in Debian's Chromium: the built renderer behind the real preload, main's
 * handlers, the real DesktopAgent and a real controller on HTTPS (a certificate sign-in needs TLS). An
 * administrator creates identities with enrollment tokens; the device enrolls with one pasted (`ott`: its own
 * key, a certificate, then signed in with it and its services shown), and with a picture of a token's QR code
 * squeezed to 200 pixels for another (`updb`: the password chosen here works afterwards). A QR code that holds no
 * enrollment token, a picture with no QR code, a spent token and an expired one are each refused in words.
 * Screens go to docs/screenshots/desktop-enroll-*.png when POSTERN_UPDATE_SCREENSHOTS=1.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import QRCode from 'qrcode';
import { Api, MGMT } from '../helpers/api.js';
import { guardedService } from '../helpers/agent-setup.js';
import { DesktopE2eWorld } from '../helpers/desktop-e2e-world.js';
import { BROWSER_PRELOAD, RENDERER_DIR, ROOT } from './global-setup.js';

const SCREENSHOTS = join(ROOT, 'docs', 'screenshots');
const DANA_PASSWORD = 'a long enough passphrase 42';

test.describe.configure({ mode: 'serial' });

let world: DesktopE2eWorld;
let page: Page;
/** The updb token, spent by the QR test and tried again later. */
let spentJwt = '';
/** Console errors and page errors (a CSP violation shows up here). */
const problems: string[] = [];

/** As desktop-ui.spec.ts: to the test's results always, to docs/screenshots/ only when asked. */
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

let names = 0;
/** An identity in `#enrolled` with an enrollment of one method; its JWT as the console shows it. */
async function identityWithToken(
  enrollment: Record<string, unknown>,
): Promise<{ id: string; name: string; jwt: string }> {
  const name = `laptop-${++names}`;
  const res = await world.admin.post(`${MGMT}/identities`, {
    name,
    type: 'User',
    isAdmin: false,
    roleAttributes: ['enrolled'],
    enrollment,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = res.body.data.id as string;
  const detail = (await world.admin.get(`${MGMT}/identities/${id}`)).body.data;
  return { id, name, jwt: detail.enrollment[Object.keys(enrollment)[0]!].jwt as string };
}

/**
 * `text` as a QR image squeezed into 200 pixels, as a resized screenshot or an earlier console drew it: uneven
 * modules, the hard case for a decoder (the console now draws whole pixels per module, the easy one).
 */
const squeezedQrPng = (text: string) =>
  QRCode.toBuffer(text, { margin: 1, width: 200, errorCorrectionLevel: 'M' });

/** "Open a QR code image…" as a user does it: the button, then the file chooser. */
async function openQrImage(name: string, buffer: Buffer): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Open a QR code image…' }).click();
  await (await chooser).setFiles({ name, mimeType: 'image/png', buffer });
}

const tokenField = () => page.getByLabel('Enrollment token');
const enrollButton = () => page.getByRole('button', { name: 'Enroll', exact: true });
const service = (name: string) =>
  page.locator('li.service', { has: page.getByRole('heading', { name, exact: true }) });

async function startEnrolling(): Promise<void> {
  await expect(page.getByRole('heading', { name: 'Sign in to Postern' })).toBeVisible();
  await page.getByRole('button', { name: 'Enroll with a token' }).click();
  await expect(tokenField()).toBeVisible();
}

async function signOut(): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in to Postern' })).toBeVisible();
}

test.beforeAll(async ({ browser }) => {
  world = await DesktopE2eWorld.start({
    rendererDir: RENDERER_DIR,
    browserPreload: BROWSER_PRELOAD,
    https: true,
  });
  await guardedService(world.admin, 'Team wiki', 'enrolled');
  const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
  context.on('page', (opened) => {
    opened.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    opened.on('pageerror', (error) => problems.push(error.message));
  });
  page = await world.openMain(context);
});

test.afterAll(async () => {
  await world?.dispose();
});

test.afterEach(() => {
  // No screen may log an error: reading a picture must not trip the CSP (no blob: image, no eval).
  expect(problems).toEqual([]);
});

test('a QR code that holds no enrollment token, or a picture without one, is refused in words', async () => {
  await startEnrolling();
  const noQr = await page.screenshot();

  await openQrImage(
    'authenticator.png',
    await squeezedQrPng('otpauth://totp/Postern:dana?secret=JBSWY3DPEHPK3PXP'),
  );
  await expect(page.getByRole('alert')).toHaveText(
    'This QR code is for an authenticator app (MFA), not an enrollment token. Open a picture of the enrollment QR code your administrator sent, or paste the token instead.',
  );

  await openQrImage('poster.png', await squeezedQrPng('https://intranet.example.com/welcome'));
  await expect(page.getByRole('alert')).toHaveText(
    'This QR code holds “https://intranet.example.com/welcome”, not an enrollment token. Open a picture of the enrollment QR code your administrator sent, or paste the token instead.',
  );
  await expect(tokenField()).toHaveValue('');
  await expect(enrollButton()).toBeDisabled();
  await shoot(page, 'desktop-enroll-qr-refused');

  await openQrImage('screen.png', noQr);
  await expect(page.getByRole('alert')).toHaveText(
    'No QR code was found in screen.png. Open a sharper picture with the whole code in view, or paste the token instead.',
  );
  await openQrImage('notes.png', Buffer.from('not a picture at all'));
  await expect(page.getByRole('alert')).toHaveText(
    'notes.png could not be read as a picture. Open a PNG or JPEG image of the QR code.',
  );
});

test('a pasted one-time token enrolls the device, which signs in with its certificate and sees its services', async () => {
  const device = await identityWithToken({ ott: true });
  await tokenField().fill(device.jwt);
  // What the token will do, before anything is sent.
  await expect(page.getByTestId('token-summary')).toContainText(
    `Enrolls this device with the controller at ${world.controller.url}, with a certificate for a key made on this device.`,
  );
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(page.getByLabel('New password', { exact: true })).toHaveCount(0);
  await shoot(page, 'desktop-enroll-token');

  await enrollButton().click();
  await expect(page.getByRole('heading', { name: 'Services' })).toBeVisible();
  await expect(page.locator('.who')).toHaveText(device.name);
  await expect(service('Team wiki').locator('.badge')).toHaveText('Reachable');
  await shoot(page, 'desktop-enroll-signed-in');

  // The token is spent, and the identity has a certificate and no password: it signed in with the certificate.
  const identity = (await world.admin.get(`${MGMT}/identities/${device.id}`)).body.data;
  expect(identity.enrollment).toEqual({});
  expect(identity.authenticators.cert.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  expect(identity.authenticators.updb).toBeUndefined();
  await signOut();
});

test("a picture of the console's QR code of a password token sets the password and signs in", async () => {
  const user = await identityWithToken({ updb: 'dana' });
  spentJwt = user.jwt;
  await startEnrolling();
  await openQrImage('enrollment-qr.png', await squeezedQrPng(user.jwt));
  // Exactly the token the console encodes, read from its picture.
  await expect(tokenField()).toHaveValue(user.jwt);
  await expect(page.getByTestId('token-summary')).toContainText('with a new password');
  // The token names the identity, not its login: the user types the username the administrator gave.
  await page.getByLabel('Username', { exact: true }).fill('dana');
  await page.getByLabel('New password', { exact: true }).fill(DANA_PASSWORD);
  await page.getByLabel('Repeat the new password').fill(`${DANA_PASSWORD}!`);
  await expect(page.getByText('The two passwords differ.')).toBeVisible();
  await expect(enrollButton()).toBeDisabled();
  await page.getByLabel('Repeat the new password').fill(DANA_PASSWORD);
  await shoot(page, 'desktop-enroll-qr');

  await enrollButton().click();
  await expect(page.getByRole('heading', { name: 'Services' })).toBeVisible();
  await expect(page.locator('.who')).toHaveText(user.name);
  await expect(service('Team wiki').locator('.badge')).toHaveText('Reachable');
  // The password chosen here is the login now.
  const dana = new Api(world.controller.url, undefined, world.controller.tls!.cert);
  expect((await dana.login('dana', DANA_PASSWORD)).status).toBe(200);
  await signOut();
});

test('a spent token and an expired one are refused with a sentence', async () => {
  await startEnrolling();
  await tokenField().fill(spentJwt);
  await page.getByLabel('Username', { exact: true }).fill('dana');
  await page.getByLabel('New password', { exact: true }).fill(DANA_PASSWORD);
  await page.getByLabel('Repeat the new password').fill(DANA_PASSWORD);
  await enrollButton().click();
  await expect(page.getByRole('alert')).toHaveText(
    'The controller refused this enrollment token: already used.',
  );
  await expect(page.getByRole('heading', { name: 'Sign in to Postern' })).toBeVisible();

  const created = await world.admin.post(`${MGMT}/identities`, {
    name: 'laptop-late',
    type: 'User',
    isAdmin: false,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.data.id as string;
  const expiresAt = new Date(Date.now() + 1_500).toISOString();
  const made = await world.admin.post(`${MGMT}/enrollments`, { method: 'ott', identityId: id, expiresAt });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const expired = (await world.admin.get(`${MGMT}/enrollments/${made.body.data.id}`)).body.data.jwt as string;
  await page.waitForTimeout(Date.parse(expiresAt) - Date.now() + 200);
  await tokenField().fill(expired);
  await expect(page.getByTestId('token-summary')).toHaveText(
    /^This token expired on .+\. Ask your administrator for a new one\.$/,
  );
  await expect(enrollButton()).toBeDisabled();
  await shoot(page, 'desktop-enroll-expired');
});
