/**
 * A real OpenID provider for tests (the certified `oidc-provider` package) on a loopback port: a public native
 * client allowing the authorization code flow with PKCE, the device grant and refresh tokens, loopback
 * redirects on any port (RFC 8252), JWT access tokens for one API audience carrying the user's `groups`, and
 * users that can be disabled (a disabled user's refresh is refused, as at a real provider) or moved between
 * groups (the next token says so). (test/helpers/oidc-test-provider.ts is the other kind: a bare JWKS and
 * tokens signed on demand, for the controller's refusals.)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Grant, type KoaContextWithOIDC } from 'oidc-provider';

export const TEST_CLIENT_ID = 'postern-agent';
export const TEST_AUDIENCE = 'urn:postern:controller';

export interface OidcProviderServer {
  issuer: string;
  /** users who may sign in (any password) and their groups; removing one makes the provider refuse its refreshes */
  users: Map<string, string[]>;
  close(): Promise<void>;
}

export interface OidcProviderOptions {
  /** the access token's lifetime in seconds (120 unless given: a test of refresh wants it short) */
  accessTokenTtl?: number;
  /**
   * The console's redirect URI (`<controller>/console/`), registered on the same client as at Entra ID or
   * Okta (one application, the agent's loopback and the console's page); its origin may then call the token
   * endpoint (CORS).
   */
  consoleRedirectUri?: string;
}

export async function startOidcProvider(options: OidcProviderOptions = {}): Promise<OidcProviderServer> {
  const users = new Map([
    ['alice', ['staff']],
    ['bob', ['staff']],
  ]);
  const accessTokenTTL = options.accessTokenTtl ?? 120;
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
        redirect_uris: [
          'http://127.0.0.1/callback',
          ...(options.consoleRedirectUri ? [options.consoleRedirectUri] : []),
        ],
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
          accessTokenTTL,
        }),
      },
    },
    issueRefreshToken: async () => true,
    ttl: { AccessToken: accessTokenTTL, IdToken: 120, DeviceCode: 300 },
    // The groups the user is in when the token is issued (a refresh reads them again), as Okta's or Keycloak's
    // groups claim does.
    extraTokenClaims: async (_ctx, token) =>
      'accountId' in token && typeof token.accountId === 'string'
        ? { groups: users.get(token.accountId) ?? [] }
        : undefined,
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
      users.has(sub)
        ? { accountId: sub, claims: async () => ({ sub, groups: users.get(sub) ?? [] }) }
        : undefined,
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
