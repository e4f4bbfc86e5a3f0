/**
 * A real OpenID provider for tests (the certified `oidc-provider` package) on a loopback port: a public native
 * client allowing the authorization code flow with PKCE, the device grant and refresh tokens, loopback
 * redirects on any port (RFC 8252), JWT access tokens for one API audience, and users that can be disabled
 * (a disabled user's refresh is refused, as at a real provider).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Grant, type KoaContextWithOIDC } from 'oidc-provider';

export const TEST_CLIENT_ID = 'postern-agent';
export const TEST_AUDIENCE = 'urn:postern:controller';

export interface TestOidcProvider {
  issuer: string;
  /** users who may sign in (any password); removing one makes the provider refuse its refreshes */
  users: Set<string>;
  close(): Promise<void>;
}

export async function startOidcProvider(): Promise<TestOidcProvider> {
  const users = new Set(['alice', 'bob']);
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider: Provider = new Provider(issuer, {
    clients: [
      {
        client_id: TEST_CLIENT_ID,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
        response_types: ['code'],
        redirect_uris: ['http://127.0.0.1/callback'],
        post_logout_redirect_uris: [],
      },
    ],
    pkce: { required: () => true },
    features: {
      deviceFlow: { enabled: true },
      revocation: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => TEST_AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'openid offline_access',
          audience: TEST_AUDIENCE,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 120,
        }),
      },
    },
    issueRefreshToken: async () => true,
    ttl: { AccessToken: 120, IdToken: 120, DeviceCode: 300 },
    // Consent given once for all: the tests drive the login form only.
    loadExistingGrant: async (ctx: KoaContextWithOIDC): Promise<Grant | undefined> => {
      const accountId = ctx.oidc.session?.accountId;
      if (!accountId || !ctx.oidc.client) return undefined;
      const grant: Grant = new provider.Grant({ clientId: ctx.oidc.client.clientId, accountId });
      grant.addOIDCScope('openid offline_access');
      grant.addResourceScope(TEST_AUDIENCE, 'openid offline_access');
      await grant.save();
      return grant;
    },
    findAccount: async (_ctx, sub) =>
      users.has(sub) ? { accountId: sub, claims: async () => ({ sub, groups: ['staff'] }) } : undefined,
  });
  server.on('request', provider.callback());
  return {
    issuer,
    users,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
