/**
 * The console's "Sign in with <provider>" in Debian's Chromium, against a real controller (serving the built
 * console) with a real external JWT signer pointing at a real OpenID provider (oidc-provider): the
 * authorization code flow with PKCE in the page, the provider sending the browser back to `/console/`, the
 * code exchanged there and the provider's token sent to `authenticate?method=ext-jwt`. An administrator's
 * identity gets in; an identity without the admin flag is signed out again with the reason shown. The code
 * never stays in the address bar, and no token lands in storage.
 */
import { expect, test, type Page } from '@playwright/test';
import { adminApi } from '../helpers/agent-setup.js';
import { MGMT, type Api } from '../helpers/api.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import {
  startOidcProvider,
  TEST_AUDIENCE,
  TEST_CLIENT_ID,
  type OidcProviderServer,
} from '../helpers/oidc-provider-server.js';
import { CONSOLE_DIR } from './global-setup.js';

let controller: TestController;
let provider: OidcProviderServer;
let admin: Api;

test.beforeAll(async () => {
  controller = await startTestController({ consoleDir: CONSOLE_DIR });
  provider = await startOidcProvider({ consoleRedirectUri: `${controller.url}/console/` });
  admin = await adminApi(controller.url);
  const signer = await admin.post(`${MGMT}/external-jwt-signers`, {
    name: 'Corp SSO',
    enabled: true,
    issuer: provider.issuer,
    audience: TEST_AUDIENCE,
    jwksEndpoint: `${provider.issuer}/jwks`,
    useExternalId: true,
    clientId: TEST_CLIENT_ID,
    externalAuthUrl: provider.issuer,
  });
  if (signer.status !== 201) throw new Error(`signer: ${JSON.stringify(signer.body)}`);
  for (const [name, isAdmin] of [
    ['alice', true],
    ['bob', false],
  ] as const) {
    const res = await admin.post(`${MGMT}/identities`, { name, type: 'User', isAdmin, externalId: name });
    if (res.status !== 201) throw new Error(`identity: ${JSON.stringify(res.body)}`);
  }
});

test.afterAll(async () => {
  await controller?.dispose();
  await provider?.close();
});

async function signInThroughProvider(page: Page, user: string): Promise<void> {
  await page.goto(`${controller.url}/console/`);
  await page.getByRole('button', { name: 'Sign in with Corp SSO' }).click();
  await page.waitForURL((url) => url.origin === provider.issuer);
  const authorize = new URL(page.url());
  // oidc-provider moves on to its interaction page; the first request was the authorization request.
  expect(authorize.origin).toBe(provider.issuer);
  await page.locator('input[name="login"]').fill(user);
  await page.locator('input[name="password"]').fill('any');
  await page.locator('button[type="submit"]').click();
  // oidc-provider's development interactions confirm the grant once more.
  await page.getByRole('button', { name: 'Continue' }).click();
}

test('an administrator signs in through the provider with PKCE and lands in the console', async ({
  page,
}) => {
  const problems: string[] = [];
  // The console's own errors (a CSP violation would be one); the provider's development pages load a CDN
  // stylesheet this machine cannot resolve.
  const onConsole = () => new URL(page.url()).origin === controller.url;
  page.on('console', (message) => message.type() === 'error' && onConsole() && problems.push(message.text()));
  page.on('pageerror', (error) => onConsole() && problems.push(error.message));
  const authorizations: URL[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin === provider.issuer && url.pathname === '/auth') authorizations.push(url);
  });
  await signInThroughProvider(page, 'alice');
  await expect(page.getByRole('button', { name: /sign out/i })).toBeVisible();
  expect(authorizations[0]?.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorizations[0]?.searchParams.get('redirect_uri')).toBe(`${controller.url}/console/`);
  // The one-time code left the address bar; nothing of the sign-in is left in storage.
  expect(new URL(page.url()).search).toBe('');
  const stored = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
  expect(stored).toBe('{}');
  expect(problems).toEqual([]);
});

test('an identity without the admin flag is turned away after the provider signed it in', async ({
  page,
}) => {
  await signInThroughProvider(page, 'bob');
  await expect(page.getByRole('alert')).toContainText('bob is not an administrator');
  await expect(page.getByRole('button', { name: 'Sign in with Corp SSO' })).toBeVisible();
});
