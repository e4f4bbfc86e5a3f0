/**
 * The desktop app's "Sign in with <provider>": the buttons come from the controller's
 * `GET /edge/client/v1/external-jwt-signers`; a click opens the provider's page in the system browser (here a
 * Chromium page, the shell's only stand-in) with PKCE and a loopback redirect to main; the provider's tokens
 * land in the credential store; the services the provider's groups grant appear; sign-out revokes at the
 * provider and opens its sign-out page. The renderer, preload, IPC, desktop agent, agent core, controller
 * (with a real external JWT signer) and OpenID provider (oidc-provider) are all real.
 */
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { guardedService } from '../helpers/agent-setup.js';
import { MGMT } from '../helpers/api.js';
import { DesktopE2eWorld } from '../helpers/desktop-e2e-world.js';
import {
  startOidcProvider,
  TEST_AUDIENCE,
  TEST_CLIENT_ID,
  type OidcProviderServer,
} from '../helpers/oidc-provider-server.js';
import { BROWSER_PRELOAD, RENDERER_DIR } from './global-setup.js';

test.describe.configure({ mode: 'serial' });

let world: DesktopE2eWorld;
let provider: OidcProviderServer;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];

test.beforeAll(async ({ browser }) => {
  provider = await startOidcProvider();
  world = await DesktopE2eWorld.start({ rendererDir: RENDERER_DIR, browserPreload: BROWSER_PRELOAD });
  const res = await world.admin.post(`${MGMT}/external-jwt-signers`, {
    name: 'Corp SSO',
    enabled: true,
    issuer: provider.issuer,
    audience: TEST_AUDIENCE,
    jwksEndpoint: `${provider.issuer}/jwks`,
    useExternalId: true,
    clientId: TEST_CLIENT_ID,
    externalAuthUrl: provider.issuer,
    enrollToTokenEnabled: true,
    enrollAttributeClaimsSelector: 'groups',
  });
  if (res.status !== 201) throw new Error(`signer: ${JSON.stringify(res.body)}`);
  await guardedService(world.admin, 'Staff wiki', 'staff');
  context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
  page = await world.openMain(context);
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(error.message));
});

test.afterAll(async () => {
  await world?.dispose();
  await provider?.close();
});

test('"Sign in with Corp SSO" signs in through the system browser with PKCE; sign-out ends it at the provider', async () => {
  await expect(page.getByRole('heading', { name: 'Sign in to Postern' })).toBeVisible();
  await page.getByLabel('Controller URL').fill(world.controller.url);
  const button = page.getByRole('button', { name: 'Sign in with Corp SSO' });
  await expect(button).toBeVisible();

  // The system browser: the provider's login page, where the user signs in.
  world.onOpenExternal = async (url) => {
    if (url.searchParams.get('code_challenge_method') !== 'S256') throw new Error(`no PKCE in ${url}`);
    const browserPage = await context.newPage();
    await browserPage.goto(url.toString());
    await browserPage.locator('input[name="login"]').fill('alice');
    await browserPage.locator('input[name="password"]').fill('any');
    await browserPage.locator('button[type="submit"]').click();
    await browserPage.getByRole('button', { name: 'Continue' }).click();
    await expect(browserPage.locator('body')).toContainText('return to Postern');
  };
  await button.click();
  await expect(page.getByRole('heading', { name: 'Services' })).toBeVisible();
  await expect(page.getByText('Staff wiki')).toBeVisible();
  const opened = world.opened[0]!;
  expect(opened.origin).toBe(provider.issuer);
  expect(opened.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

  // The provider's tokens are in the credential store (the keychain in the app), tied to this controller.
  const agent = world.agent.current!;
  const stored = await agent.provider.vault.load(world.controller.url);
  expect(stored?.refreshToken).toBeTruthy();
  expect(agent.status().signInMethod).toBe('provider');

  // Sign-out: the provider's sign-out page opened (with the ID token as the hint), the tokens gone.
  world.onOpenExternal = async () => undefined;
  await page
    .getByRole('button', { name: /sign out/i })
    .first()
    .click();
  await expect(page.getByRole('heading', { name: 'Sign in to Postern' })).toBeVisible();
  const signOutPage = world.opened.at(-1)!;
  expect(signOutPage.pathname).toMatch(/session\/end/);
  expect(signOutPage.searchParams.get('id_token_hint')).toBe(stored?.idToken);
  expect(await agent.provider.vault.load(world.controller.url)).toBeUndefined();
  expect(problems).toEqual([]);
});
