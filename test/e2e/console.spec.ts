/**
 * The administrators' console end to end, in Debian's Chromium against a real controller (in this process,
 * serving the built console at /console) and a real agent: sign in with a password and a TOTP code (the
 * administrator's MFA is enrolled through the API and required by an auth policy), create a posture check
 * through its form after seeing the API's error at the bad field, create an identity with an enrollment token,
 * enroll an agent with that token and watch the device appear with its posture, see why a service is refused,
 * read the overview, page and search a long list through the API's filter grammar, reset an identity's MFA
 * and end a session. No screen may log an error (a CSP violation would), and the session token never shows
 * in a URL or in storage. Screens go to docs/screenshots/console-*.png with POSTERN_UPDATE_SCREENSHOTS=1.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page, type Request } from '@playwright/test';
import { generate } from 'otplib';
import { Agent } from '../../src/agent/agent.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import { DeviceEnrollment } from '../../src/agent/enrollment/device-enrollment.js';
import { Api, CLIENT, MGMT, authPolicyBody, createUser } from '../helpers/api.js';
import { ScriptedPromptPort } from '../helpers/agent-setup.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';
import { CONSOLE_DIR, ROOT } from './global-setup.js';

const SCREENSHOTS = join(ROOT, 'docs', 'screenshots');
const BOB_PASSWORD = 'bobs-own-password';

test.describe.configure({ mode: 'serial' });

let controller: TestController;
let admin: Api;
let page: Page;
let adminSecret = '';
let agent: Agent | undefined;
const ids = { payroll: '', carol: '', bob: '' };
/** Console errors and page errors (a CSP violation shows up here). */
const problems: string[] = [];
const requests: Request[] = [];

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

/** The code the authenticator app shows one step ahead: later than any code used so far, within the window. */
const nextCode = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

/** Enrolls TOTP for whoever `api` is signed in as, through `prefix`'s API; returns the secret. */
async function enrollTotp(api: Api, prefix: string): Promise<string> {
  const started = await api.post(`${prefix}/current-identity/mfa`, {});
  if (started.status !== 201) throw new Error(`enroll: ${JSON.stringify(started.body)}`);
  const status = await api.get(`${prefix}/current-identity/mfa`);
  const secret = new URL(status.body.data.provisioningUrl as string).searchParams.get('secret')!;
  const code = await generate({ secret, epoch: Math.floor(Date.now() / 1000) });
  const verified = await api.post(`${prefix}/current-identity/mfa/verify`, { code });
  if (verified.status !== 200) throw new Error(`verify: ${JSON.stringify(verified.body)}`);
  return secret;
}

/** The browser logs a refused request it was meant to make (a wrong password, a wrong code): expected, then cleared. */
async function expectRefusal(status: number): Promise<void> {
  await expect.poll(() => problems.length).toBe(1);
  expect(problems.splice(0)).toEqual([
    expect.stringContaining(`Failed to load resource: the server responded with a status of ${status}`),
  ]);
}

const section = (name: string) => page.getByRole('region', { name, exact: true });
const nav = (name: string) => page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name });

test.beforeAll(async ({ browser }) => {
  controller = await startTestController({ consoleDir: CONSOLE_DIR });
  admin = new Api(controller.url);
  await admin.login('admin', ADMIN_PASSWORD);
  // Administrators need a second factor: an auth policy that requires TOTP, and the admin's own enrollment.
  const adminId = (await admin.get(`${MGMT}/current-identity`)).body.data.id as string;
  const policy = await created('/auth-policies', authPolicyBody('administrators', true));
  await admin.patch(`${MGMT}/identities/${adminId}`, { authPolicyId: policy });
  adminSecret = await enrollTotp(admin, MGMT);
  // Dana administers too, under the same policy, but has not set up an authenticator app yet.
  await createUser(admin, 'dana', 'danas-password', { isAdmin: true, authPolicyId: policy });

  // The catalogue: a service every #staff identity reaches, and one a posture check will guard.
  ids.payroll = await created('/services', { name: 'Payroll' });
  const wiki = await created('/services', { name: 'Team wiki' });
  await created('/service-policies', {
    name: 'staff-payroll',
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: ['#staff'],
    serviceRoles: [`@${ids.payroll}`],
    postureCheckRoles: ['#payroll-os'],
  });
  await created('/service-policies', {
    name: 'staff-wiki',
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: ['#staff'],
    serviceRoles: [`@${wiki}`],
    postureCheckRoles: [],
  });
  // Carol has set up an authenticator app (and will lose her phone).
  ids.carol = await createUser(admin, 'carol', 'carols-password', { roleAttributes: ['staff'] });
  const carol = new Api(controller.url);
  await carol.login('carol', 'carols-password', CLIENT);
  await enrollTotp(carol, CLIENT);
  // Signed out again: the overview's devices are the signed-in ones, and this test's device is Bob's.
  await carol.delete(`${CLIENT}/current-api-session`);
  // Enough identities that the list needs pages.
  for (let i = 1; i <= 30; i++)
    await created('/identities', {
      name: `device-${String(i).padStart(2, '0')}`,
      type: 'Device',
      isAdmin: false,
    });

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('request', (request) => requests.push(request));
});

test.afterAll(async () => {
  await agent?.stop();
  await page?.context().close();
  await controller?.dispose();
});

test.afterEach(() => {
  // No screen may log an error: a CSP violation, a failed load or an exception would show here.
  expect(problems).toEqual([]);
});

test('is served at /console with a strict CSP, and runs no injected inline script', async () => {
  const response = await page.goto(`${controller.url}/console/`);
  const headers = response!.headers();
  expect(headers['content-security-policy']).toContain("script-src 'self'");
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
  await expect(page.getByRole('heading', { name: 'Postern console' })).toBeVisible();
  const ran = await page.evaluate(async () => {
    const script = document.createElement('script');
    script.textContent = 'window.inlineScriptRan = true';
    document.head.append(script);
    await new Promise((resolve) => setTimeout(resolve, 50));
    return (window as unknown as { inlineScriptRan?: boolean }).inlineScriptRan === true;
  });
  expect(ran).toBe(false);
  const refusals = problems.splice(0);
  expect(refusals.length).toBeGreaterThan(0);
  for (const refusal of refusals) expect(refusal).toContain('Content Security Policy');
});

test('an administrator who owes an authenticator app is told how to set one up, and can go back', async () => {
  await page.getByLabel('Username', { exact: true }).fill('dana');
  await page.getByLabel('Password', { exact: true }).fill('danas-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('must set up an authenticator app');
  await expect(page.getByRole('alert')).toContainText('npm run agent -- mfa setup');
  await page.getByRole('button', { name: 'Back to sign-in' }).click();
  await expect(page.getByLabel('Password', { exact: true })).toHaveValue('');
  await page.getByLabel('Username', { exact: true }).fill('');
});

test('signs in with a password, then the TOTP code the policy requires', async () => {
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('The username or password is not right.');
  await expectRefusal(401);
  await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
  await shoot(page, 'console-sign-in');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByLabel('Authenticator code', { exact: true })).toBeVisible();
  await page.getByLabel('Authenticator code', { exact: true }).fill('000000');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toContainText('That code is not right');
  await expectRefusal(400);
  await page.getByLabel('Authenticator code', { exact: true }).fill(await nextCode(adminSecret));
  await shoot(page, 'console-sign-in-totp');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  await expect(page.locator('.who')).toHaveText('Default Admin');
});

test("creates a posture check through its form, showing the API's error at the field", async () => {
  await nav('Posture checks').click();
  await page.getByRole('link', { name: 'New posture check' }).click();
  await page.getByLabel('Type', { exact: true }).selectOption('OS');
  await page.getByLabel('Name', { exact: true }).fill('linux-99');
  await page.getByLabel('Attributes', { exact: true }).fill('payroll-os');
  const versions = page.getByLabel('Versions', { exact: true });
  await versions.fill('>=6.0.0\nnot-a-version');
  await page
    .getByLabel('Advice for a blocked user', { exact: true })
    .fill('Payroll needs the 2031 laptop image: ask IT.');
  await page.getByRole('button', { name: 'Create check' }).click();
  // The API names `operatingSystems[0].versions[1]`; the form shows it at that textarea, as its line 2.
  const error = page.locator('.field', { has: versions }).locator('.field-error');
  await expect(error).toContainText('line 2: is not a valid version range');
  await expect(versions).toHaveAttribute('aria-invalid', 'true');
  await expectRefusal(400);
  await shoot(page, 'console-posture-check-error');
  await versions.fill('>=99.0.0');
  await page.getByRole('button', { name: 'Create check' }).click();
  // The policy requiring #payroll-os already selects a device: the preview says whom the check would block.
  await expect(
    page.getByRole('status').filter({ hasText: 'This blocks 1 device from 1 service.' }),
  ).toBeVisible();
  await page.getByRole('button', { name: 'Save this change' }).click();
  await expect(page.getByRole('heading', { name: 'Posture check linux-99' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Created the check.' })).toBeVisible();
  const checks = await admin.get(`${MGMT}/posture-checks?filter=${encodeURIComponent('name = "linux-99"')}`);
  expect(checks.body.data[0]).toMatchObject({
    typeId: 'OS',
    operatingSystems: [{ type: 'Linux', versions: ['>=99.0.0'] }],
    roleAttributes: ['payroll-os'],
  });
});

test('creates an identity with an enrollment token, shown as a QR code with its expiry', async () => {
  await nav('Identities').click();
  await page.getByRole('link', { name: 'New identity' }).click();
  await page.getByLabel('Name', { exact: true }).fill('laptop-bob');
  await page.getByLabel('Attributes', { exact: true }).fill('staff');
  await page.getByLabel('First sign-in', { exact: true }).selectOption('updb');
  await page.getByLabel('Username', { exact: true }).fill('bob-laptop-user');
  await page.getByRole('button', { name: 'Create identity' }).click();
  await expect(page.getByRole('heading', { name: 'laptop-bob' })).toBeVisible();
  await expect(
    page.getByRole('status').filter({ hasText: 'Created the identity laptop-bob.' }),
  ).toContainText('Send its enrollment token');
  ids.bob = page.url().split('/').pop()!;
  const enrollment = section('Enrollment');
  await expect(enrollment.getByRole('img', { name: 'Enrollment token for laptop-bob' })).toBeVisible();
  await expect(enrollment).toContainText('Expires');
  await expect(enrollment.getByTestId('enrollment-token')).toHaveText(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  await shoot(page, 'console-identity-enrollment');
});

test('an agent enrolls with that token; the device appears with its posture', async () => {
  const jwt = (await section('Enrollment').getByTestId('enrollment-token').textContent())!.trim();
  const enrollment = await DeviceEnrollment.check(jwt, {
    controllerUrl: controller.url,
    allowPlainHttp: true,
  });
  try {
    await enrollment.withPassword(BOB_PASSWORD);
  } finally {
    enrollment.close();
  }
  agent = new Agent({
    controllerUrl: controller.url,
    credentials: new MemoryCredentialStore(),
    prompt: new ScriptedPromptPort(),
  });
  await agent.login({ username: 'bob-laptop-user', password: BOB_PASSWORD });
  await agent.reportNow();
  // A refused session request, as a tunnel would make it.
  await expect(agent.api.createSession(ids.payroll)).rejects.toMatchObject({ status: 409 });

  // The page reads again by itself: the token is used up, the device and its posture appear.
  await expect(section('Enrollment')).toContainText('No enrollment is pending', { timeout: 15_000 });
  await expect(section('Posture data').getByTestId('posture-data')).toContainText('linux', {
    timeout: 15_000,
  });
  await expect(section('API sessions').getByRole('button', { name: 'End session' })).toHaveCount(1);
  // Enrolled with a password: its sign-in methods say so, and that no device holds a certificate for it.
  await expect(section('Sign-in methods')).toContainText('Password login: bob-laptop-user');
  await expect(section('Sign-in methods')).toContainText('No certificate login');
  const services = section('Services');
  await expect(services.locator('tr[data-service="Team wiki"]')).toContainText('granted');
  const payroll = services.locator('tr[data-service="Payroll"]');
  await expect(payroll).toContainText('refused');
  await expect(payroll).toContainText('linux-99');
  await expect(section('Refused requests')).toContainText('Payroll');
  await shoot(page, 'console-identity-device');
});

test('says why a service is refused: each policy and check, actual against expected, and the fix', async () => {
  await section('Services').locator('tr[data-service="Payroll"]').getByRole('link', { name: 'Why?' }).click();
  await expect(page.getByRole('heading', { name: 'Why is this blocked?' })).toBeVisible();
  const decision = page.getByRole('region', { name: 'Decision' });
  await expect(decision.getByRole('status')).toContainText('Refused');
  await expect(decision.getByRole('status')).toContainText('staff-payroll');
  const policy = decision.getByRole('region', { name: 'Policy staff-payroll' });
  await expect(policy).toContainText('linux-99');
  await expect(policy).toContainText('OS_VERSION_OUT_OF_RANGE');
  await expect(policy).toContainText('Update Linux to 99.0 or later (this device runs');
  await expect(policy).toContainText('Payroll needs the 2031 laptop image: ask IT.');
  await shoot(page, 'console-why-blocked');

  // The same tool for a service the identity is not selected for at all.
  await page.getByLabel('Identity', { exact: true }).fill('device-0');
  await page
    .getByRole('list', { name: 'Identity: matches' })
    .getByRole('button', { name: 'device-01' })
    .click();
  await expect(decision.getByRole('status')).toContainText('no Dial policy selects device-01');
  await expect(decision.getByRole('status')).toContainText('#staff');
});

test('the overview counts devices per service, refused sessions and the MFA share', async () => {
  await nav('Overview').click();
  const perService = page.getByRole('row', { name: /Payroll/ });
  await expect(perService.getByRole('cell').nth(1)).toHaveText('0');
  await expect(perService.getByRole('cell').nth(2)).toHaveText('1');
  await expect(
    page
      .getByRole('row', { name: /Team wiki/ })
      .getByRole('cell')
      .nth(1),
  ).toHaveText('1');
  await expect(page.getByText('enrolled in MFA (2 of 34)')).toBeVisible();
  const refused = page.locator('section', {
    has: page.getByRole('heading', { name: 'Recently refused sessions' }),
  });
  await expect(refused).toContainText('laptop-bob');
  await expect(refused).toContainText('linux-99');
  await shoot(page, 'console-overview');
});

test('lists search, sort and page on the server, in the API filter grammar', async () => {
  await nav('Identities').click();
  await expect(page.getByText('1–25 of 34')).toBeVisible();
  const asked = () =>
    requests
      .map((r) => new URL(r.url()))
      .filter((u) => u.pathname === `${MGMT}/identities`)
      .map((u) => u.searchParams.get('filter'));
  expect(asked().at(-1)).toBe('sort by name asc skip 0 limit 25');
  await page.getByRole('button', { name: 'Name' }).click();
  await expect(page.getByRole('row').nth(1)).toContainText('laptop-bob');
  expect(asked().at(-1)).toBe('sort by name desc skip 0 limit 25');
  await page.getByRole('searchbox', { name: 'Search by name' }).fill('DEVICE-');
  await expect(page.getByText('1–25 of 30')).toBeVisible();
  await page.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByText('26–30 of 30')).toBeVisible();
  await expect(page.getByRole('row').nth(1)).toContainText('device-05');
  expect(asked().at(-1)).toBe('name icontains "DEVICE-" sort by name desc skip 25 limit 25');
  await page.getByRole('button', { name: 'Previous' }).click();
  await expect(page.getByText('1–25 of 30')).toBeVisible();
  await shoot(page, 'console-identities');
});

test("resets an identity's MFA", async () => {
  await page.getByRole('searchbox', { name: 'Search by name' }).fill('carol');
  await page.getByRole('link', { name: 'carol', exact: true }).click();
  const mfa = section('MFA');
  await expect(mfa).toContainText('on');
  await mfa.getByRole('button', { name: 'Reset MFA' }).click();
  await shoot(page, 'console-mfa-reset');
  await mfa.getByRole('button', { name: 'Yes, reset MFA' }).click();
  await expect(mfa).toContainText('No authenticator app is set up.');
  expect((await admin.get(`${MGMT}/identities/${ids.carol}`)).body.data.isMfaEnabled).toBe(false);
});

test("ends a device's API session", async () => {
  await nav('Identities').click();
  await page.getByRole('searchbox', { name: 'Search by name' }).fill('laptop-bob');
  await page.getByRole('link', { name: 'laptop-bob' }).click();
  const sessions = section('API sessions');
  await sessions.getByRole('button', { name: 'End session' }).click();
  await shoot(page, 'console-end-session');
  await sessions.getByRole('button', { name: 'Yes, end session' }).click();
  await expect(sessions).toContainText('Not signed in anywhere.');
  const left = await admin.get(
    `${MGMT}/api-sessions?filter=${encodeURIComponent(`identity = "${ids.bob}"`)}`,
  );
  expect(left.body.data).toEqual([]);
});

test('keeps the session token out of every URL and all storage, and sends it only as zt-session', async () => {
  const apiCalls = requests.filter((r) => new URL(r.url()).pathname.startsWith(MGMT));
  const token = apiCalls.map((r) => r.headers()['zt-session']).find(Boolean);
  expect(token).toBeTruthy();
  for (const r of requests) expect(r.url()).not.toContain(token!);
  const stored = await page.evaluate(() => ({
    local: JSON.stringify({ ...localStorage }),
    session: JSON.stringify({ ...sessionStorage }),
    cookies: document.cookie,
  }));
  expect(stored).toEqual({ local: '{}', session: '{}', cookies: '' });
  // Sign-out ends the API session on the controller too.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  expect((await new Api(controller.url, token).get(`${MGMT}/current-api-session`)).status).toBe(401);
});
