/**
 * The agent signs in through a real OpenID provider (oidc-provider on loopback) in Debian's Chromium: the
 * authorization code flow with PKCE through the loopback redirect, the device grant, refresh, and a refresh
 * the provider refuses ending the session. The controller's `authenticate?method=ext-jwt` is a stand-in on
 * loopback here (this branch's controller lacks the route): it records the bearer the agent sends.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import { decodeJwt } from 'jose';
import { ControllerClient } from '../../src/controller-client/controller-client.js';
import { EdgeApi } from '../../src/agent/client/edge-api.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import { CredentialVault } from '../../src/agent/session/credential-vault.js';
import { SessionManager } from '../../src/agent/session/session-manager.js';
import { OidcRelyingParty, ProviderRefusedError } from '../../src/agent/sso/oidc-relying-party.js';
import { signOutAtProvider } from '../../src/agent/sso/provider-sign-out.js';
import { silentLogger } from '../../src/common/logger.js';
import { pickSigner } from '../../src/agent/sso/provider-signer.js';
import { signInWithBrowser, signInWithDevice } from '../../src/agent/sso/provider-sign-in.js';
import { ProviderTokenRefresher } from '../../src/agent/sso/provider-token-refresher.js';
import { ProviderTokenVault } from '../../src/agent/sso/provider-token-vault.js';
import { openLoopbackRedirect } from '../../src/agent/sso/loopback-redirect.js';
import {
  startOidcProvider,
  TEST_AUDIENCE,
  TEST_CLIENT_ID,
  type TestOidcProvider,
} from '../helpers/oidc-provider-server.js';

let provider: TestOidcProvider;
let controller: Server;
let controllerUrl: string;
const bearers: string[] = [];

test.beforeAll(async () => {
  provider = await startOidcProvider();
  controller = createServer((req, res) => {
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method === 'GET' && req.url === '/edge/client/v1/external-jwt-signers') {
      const signer = {
        id: 'signer1',
        name: 'Corp',
        externalAuthUrl: provider.issuer,
        clientId: TEST_CLIENT_ID,
        audience: TEST_AUDIENCE,
        scopes: [],
        targetToken: 'ACCESS',
      };
      return json(200, { data: [signer], meta: {} });
    }
    if (req.method === 'POST' && req.url === '/edge/client/v1/authenticate?method=ext-jwt') {
      bearers.push(req.headers.authorization ?? '');
      req.resume();
      const session = {
        id: `s${bearers.length}`,
        token: `tok${bearers.length}`,
        identityId: 'i1',
        authQueries: [],
      };
      return json(200, { data: session, meta: {} });
    }
    json(404, { error: { code: 'NOT_FOUND', message: 'not found' }, meta: {} });
  });
  await new Promise<void>((resolve) => controller.listen(0, '127.0.0.1', resolve));
  controllerUrl = `http://127.0.0.1:${(controller.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await provider?.close();
  controller?.closeAllConnections();
  controller?.close();
});

function agentParts() {
  const api = new EdgeApi(new ControllerClient({ baseUrl: controllerUrl }));
  const store = new MemoryCredentialStore();
  const sessions = new SessionManager({
    api,
    vault: new CredentialVault(store),
    controllerUrl,
    requestTotp: async () => false,
  });
  return { api, store, sessions };
}

async function providerLogin(page: Page, user: string): Promise<void> {
  await page.locator('input[name="login"]').fill(user);
  await page.locator('input[name="password"]').fill('any');
  await page.locator('button[type="submit"]').click();
  // oidc-provider's development consent page asks once more for the offline_access grant.
  await page.getByRole('button', { name: 'Continue' }).click();
}

test('browser sign-in: PKCE through the loopback redirect, the access token for the signer audience sent as a bearer', async ({
  page,
}) => {
  const { api, store, sessions } = agentParts();
  const signer = pickSigner(await api.listExternalJwtSigners(), 'corp');
  expect(signer?.id).toBe('signer1');
  const rp = await OidcRelyingParty.discover(signer!);
  let opened: URL | undefined;
  const tokens = await signInWithBrowser(rp, async (url) => {
    opened = url;
    await page.goto(url.toString());
    await providerLogin(page, 'alice');
  });
  expect(opened?.searchParams.get('code_challenge_method')).toBe('S256');
  expect(opened?.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  await expect(page.locator('body')).toContainText('return to Postern');

  const status = await sessions.loginWithProviderToken(rp.tokenForController(tokens));
  expect(status.state).toBe('active');
  expect(status.signInMethod).toBe('provider');
  const sent = bearers.at(-1)!.replace(/^Bearer /, '');
  expect(decodeJwt(sent)).toMatchObject({ aud: TEST_AUDIENCE, iss: provider.issuer, sub: 'alice' });

  const vault = new ProviderTokenVault(store);
  await vault.save(controllerUrl, tokens);
  expect((await vault.load(controllerUrl))?.refreshToken).toBe(tokens.refreshToken);
  expect(await vault.load('http://elsewhere:1')).toBeUndefined();

  // Sign-out: the refresh token revoked at the provider, the stored tokens gone, the end-session URL given.
  const endSession = await signOutAtProvider(api, vault, controllerUrl, silentLogger);
  expect(endSession?.searchParams.get('id_token_hint')).toBe(tokens.idToken);
  expect(await vault.load(controllerUrl)).toBeUndefined();
  await expect(rp.refresh(tokens)).rejects.toBeInstanceOf(ProviderRefusedError);
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

test('device grant where discovery offers it; a refresh the provider refuses (user disabled) ends the session', async ({
  page,
}) => {
  const { api, store, sessions } = agentParts();
  const signer = pickSigner(await api.listExternalJwtSigners(), undefined)!;
  const rp = await OidcRelyingParty.discover(signer);
  expect(rp.offersDeviceGrant).toBe(true);
  let shown: string | undefined;
  const pending = signInWithDevice(rp, (prompt) => (shown = prompt.verificationUriComplete));
  await expect.poll(() => shown).toBeTruthy();
  await page.goto(shown!);
  await page.locator('button[type="submit"]').first().click();
  await providerLogin(page, 'bob');
  const tokens = await pending;
  await sessions.loginWithProviderToken(rp.tokenForController(tokens));
  expect(sessions.status().state).toBe('active');

  const vault = new ProviderTokenVault(store);
  let refused = false;
  const refresher = new ProviderTokenRefresher({
    rp,
    tokens,
    save: (t) => vault.save(controllerUrl, t),
    onRefused: async () => {
      refused = true;
      await sessions.logout(false);
    },
  });
  expect(await refresher.refreshNow()).toBe(true);
  expect(refresher.current().accessToken).not.toBe(tokens.accessToken);
  expect((await vault.load(controllerUrl))?.accessToken).toBe(refresher.current().accessToken);

  provider.users.delete('bob');
  expect(await refresher.refreshNow()).toBe(false);
  expect(refused).toBe(true);
  expect(sessions.status().state).toBe('signed-out');
});
