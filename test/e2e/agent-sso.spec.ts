/**
 * The agent signs in through a real OpenID provider (oidc-provider on loopback) in Debian's Chromium, to a
 * real controller with a real external JWT signer pointing at that provider: the authorization code flow with
 * PKCE through the loopback redirect, the device grant, the provider's token checked by the controller
 * (`authenticate?method=ext-jwt`, the identity created just in time, the `groups` claim mapped to role
 * attributes), the services those attributes grant; then a running agent refreshing the provider's token
 * before it expires and signing in again with it (a user moved out of a group loses the group's services), and
 * a refresh the provider refuses ending the session with a message that says why.
 */
import { expect, test, type Page } from '@playwright/test';
import { Agent } from '../../src/agent/agent.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import { OidcRelyingParty, ProviderRefusedError } from '../../src/agent/sso/oidc-relying-party.js';
import { pickSigner } from '../../src/agent/sso/provider-signer.js';
import { signInWithDevice } from '../../src/agent/sso/provider-sign-in.js';
import { openLoopbackRedirect } from '../../src/agent/sso/loopback-redirect.js';
import { ScriptedPromptPort, adminApi, guardedService } from '../helpers/agent-setup.js';
import { MGMT, type Api } from '../helpers/api.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import {
  startOidcProvider,
  TEST_AUDIENCE,
  TEST_CLIENT_ID,
  type OidcProviderServer,
} from '../helpers/oidc-provider-server.js';

/** Short enough that a running agent refreshes within the test (a fifth of it before expiry: at 16 s). */
const ACCESS_TOKEN_TTL_S = 20;

let provider: OidcProviderServer;
let controller: TestController;
let admin: Api;
let signerId: string;

test.beforeAll(async () => {
  provider = await startOidcProvider({ accessTokenTtl: ACCESS_TOKEN_TTL_S });
  controller = await startTestController();
  admin = await adminApi(controller.url);
  const res = await admin.post(`${MGMT}/external-jwt-signers`, {
    name: 'Corp',
    enabled: true,
    issuer: provider.issuer,
    audience: TEST_AUDIENCE,
    jwksEndpoint: `${provider.issuer}/jwks`,
    claimsProperty: 'sub',
    useExternalId: true,
    clientId: TEST_CLIENT_ID,
    scopes: [],
    externalAuthUrl: provider.issuer,
    targetToken: 'ACCESS',
    enrollToTokenEnabled: true,
    enrollAttributeClaimsSelector: 'groups',
  });
  if (res.status !== 201) throw new Error(`signer: ${JSON.stringify(res.body)}`);
  signerId = res.body.data.id;
  await guardedService(admin, 'staff-wiki', 'staff');
});

test.afterAll(async () => {
  await controller?.dispose();
  await provider?.close();
});

function newAgent(prompt = new ScriptedPromptPort(), credentials = new MemoryCredentialStore()): Agent {
  return new Agent({ controllerUrl: controller.url, credentials, prompt });
}

async function identityWithExternalId(externalId: string): Promise<any[]> {
  const filter = encodeURIComponent(`externalId = "${externalId}"`);
  return (await admin.get(`${MGMT}/identities?filter=${filter}`)).body.data;
}

async function providerLogin(page: Page, user: string): Promise<void> {
  await page.locator('input[name="login"]').fill(user);
  await page.locator('input[name="password"]').fill('any');
  await page.locator('button[type="submit"]').click();
  // oidc-provider's development consent page asks once more for the offline_access grant.
  await page.getByRole('button', { name: 'Continue' }).click();
}

test('browser sign-in: PKCE through the loopback redirect, the controller checks the token, creates the identity and grants its group services', async ({
  page,
}) => {
  const keychain = new MemoryCredentialStore();
  const agent = newAgent(undefined, keychain);
  try {
    const signer = pickSigner(await agent.api.listExternalJwtSigners(), 'corp');
    expect(signer?.id).toBe(signerId);
    let opened: URL | undefined;
    const status = await agent.provider.signInWithBrowser(signer!, async (url) => {
      opened = url;
      await page.goto(url.toString());
      await providerLogin(page, 'alice');
    });
    expect(opened?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(opened?.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    await expect(page.locator('body')).toContainText('return to Postern');

    expect(status.state).toBe('active');
    expect(status.signInMethod).toBe('provider');
    // The controller made the identity from the token (just in time) with the provider's groups.
    const [alice] = await identityWithExternalId('alice');
    expect(alice).toMatchObject({ id: status.identityId, isAdmin: false, roleAttributes: ['staff'] });
    expect((await agent.refreshServices()).map((s) => s.name)).toContain('staff-wiki');

    const stored = await agent.provider.vault.load(controller.url);
    expect(stored?.signerId).toBe(signerId);
    expect(await agent.provider.vault.load('http://elsewhere:1')).toBeUndefined();

    // A restart after the API session ended: the stored provider tokens sign in again.
    const ended = status.apiSessionId;
    expect(
      (await admin.as(agent.client.sessionToken).delete('/edge/client/v1/current-api-session')).status,
    ).toBe(200);
    const restarted = newAgent(undefined, keychain);
    try {
      const again = await restarted.resume();
      expect(again).toMatchObject({
        state: 'active',
        signInMethod: 'provider',
        identityId: status.identityId,
      });
      expect(again.apiSessionId).not.toBe(ended);
    } finally {
      await restarted.stop();
    }

    // Sign-out: the refresh token revoked at the provider, the stored tokens gone, the end-session URL given.
    const endSession = await agent.provider.signOut();
    await agent.logout(true);
    expect(endSession?.searchParams.get('id_token_hint')).toBe(stored?.idToken);
    expect(await agent.provider.vault.load(controller.url)).toBeUndefined();
    const rp = await OidcRelyingParty.discover(signer!);
    await expect(rp.refresh(stored!)).rejects.toBeInstanceOf(ProviderRefusedError);
  } finally {
    await agent.stop();
  }
});

test('the loopback redirect ignores a callback with another state and answers the right one once', async () => {
  const redirect = await openLoopbackRedirect('good-state', 60_000);
  try {
    const wrong = await fetch(`${redirect.redirectUri}?code=x&state=bad`);
    expect(wrong.status).toBe(400);
    const right = await fetch(`${redirect.redirectUri}?code=x&state=good-state`);
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('return to Postern');
    expect((await redirect.callback).searchParams.get('code')).toBe('x');
  } finally {
    redirect.close();
  }
});

test('a running agent refreshes before expiry and signs in again (a group removed at the provider takes its services); a refused refresh ends the session and says why', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const prompt = new ScriptedPromptPort();
  const agent = newAgent(prompt);
  try {
    const signer = pickSigner(await agent.api.listExternalJwtSigners(), undefined)!;
    const rp = await OidcRelyingParty.discover(signer);
    expect(rp.offersDeviceGrant).toBe(true);
    let shown: string | undefined;
    const pending = signInWithDevice(rp, (prompt) => (shown = prompt.verificationUriComplete));
    await expect.poll(() => shown).toBeTruthy();
    await page.goto(shown!);
    await page.locator('button[type="submit"]').first().click();
    await providerLogin(page, 'bob');
    await agent.provider.adopt(rp, await pending);
    await agent.refreshServices();
    agent.start();
    expect(agent.status().state).toBe('active');
    expect(agent.services().map((s) => s.name)).toContain('staff-wiki');
    const first = agent.status().apiSessionId!;
    const firstToken = agent.client.sessionToken!;

    // Bob leaves the group at the provider; the refresh before the token expires signs in again with a token
    // that says so, and the API session it replaces is ended.
    provider.users.set('bob', []);
    await expect
      .poll(() => agent.status().apiSessionId, { timeout: ACCESS_TOKEN_TTL_S * 3000 })
      .not.toBe(first);
    expect(agent.status().state).toBe('active');
    await expect
      .poll(async () => (await agent.refreshServices()).map((s) => s.name), { timeout: 30_000 })
      .not.toContain('staff-wiki');
    expect((await admin.as(firstToken).get('/edge/client/v1/current-api-session')).status).toBe(401);

    // Bob is removed at the provider: its next refresh is refused, the session ends, the user is told why.
    provider.users.delete('bob');
    await expect.poll(() => agent.status().state, { timeout: ACCESS_TOKEN_TTL_S * 3000 }).toBe('signed-out');
    const notice = prompt.notices.find((n) => n.type === 'signed-out');
    expect(notice && 'message' in notice ? notice.message : '').toMatch(
      /Corp refused to renew your sign-in \(invalid_grant\).*sign in with Corp again/,
    );
    expect(await agent.provider.vault.load(controller.url)).toBeUndefined();
  } finally {
    await agent.stop();
  }
});
