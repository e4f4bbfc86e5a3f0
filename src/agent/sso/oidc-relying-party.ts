/**
 * The agent as an OpenID Connect relying party of one external JWT signer, through openid-client (a
 * certified library: discovery, PKCE, state, ID token validation, the device grant, refresh and logout are
 * its code, not ours). A public client: the agent has no secret to keep.
 */
import * as oidc from 'openid-client';
import type { ClientExternalJwtSigner } from './provider-signer.js';

/** What the agent keeps of a provider sign-in (in the keychain, see sso-token-vault.ts). */
export interface ProviderTokens {
  signerId: string;
  accessToken: string;
  idToken?: string;
  refreshToken?: string;
  /** when the access token expires, ms since the epoch; undefined when the provider did not say */
  expiresAt?: number;
}

/** A provider that refused a refresh (or a code): the user must sign in at the provider again. */
export class ProviderRefusedError extends Error {
  constructor(readonly code: string) {
    super(`the identity provider refused: ${code}`);
    this.name = 'ProviderRefusedError';
  }
}

/** Plain http is only accepted for an issuer on this machine (a provider in a test or a local lab). */
function isLoopback(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

const DEFAULT_SCOPES = ['openid'];

export class OidcRelyingParty {
  private constructor(
    readonly signer: ClientExternalJwtSigner,
    readonly config: oidc.Configuration,
  ) {}

  /**
   * Discovery from the issuer's discovery document the controller names (`openIdConfigurationUrl`), else from
   * `externalAuthUrl` taken as the issuer (a controller that does not name the document).
   */
  static async discover(signer: ClientExternalJwtSigner): Promise<OidcRelyingParty> {
    const start = signer.openIdConfigurationUrl ?? signer.externalAuthUrl;
    if (!start || !signer.clientId)
      throw new Error(`the identity provider '${signer.name}' has no issuer or client id`);
    const issuer = new URL(start);
    const config = await oidc.discovery(issuer, signer.clientId, undefined, oidc.None(), {
      execute: issuer.protocol === 'http:' && isLoopback(issuer) ? [oidc.allowInsecureRequests] : [],
    });
    return new OidcRelyingParty(signer, config);
  }

  /** `openid` plus the signer's scopes, `offline_access` asked for so the agent can refresh. */
  get scope(): string {
    const scopes = new Set([...DEFAULT_SCOPES, ...(this.signer.scopes ?? []), 'offline_access']);
    return [...scopes].join(' ');
  }

  get offersDeviceGrant(): boolean {
    return typeof this.config.serverMetadata().device_authorization_endpoint === 'string';
  }

  /** The authorization request's URL for a PKCE (S256) code flow. */
  async authorizationUrl(redirectUri: string, state: string, verifier: string): Promise<URL> {
    const parameters: Record<string, string> = {
      redirect_uri: redirectUri,
      scope: this.scope,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    };
    // No `resource` parameter: Entra ID's v2 endpoints refuse it; the scopes name the API instead.
    return oidc.buildAuthorizationUrl(this.config, parameters);
  }

  /** Exchanges the code the redirect carried (state and PKCE checked by the library). */
  async redeemCode(callback: URL, state: string, verifier: string): Promise<ProviderTokens> {
    return this.tokensOf(
      await this.refusals(() =>
        oidc.authorizationCodeGrant(this.config, callback, {
          pkceCodeVerifier: verifier,
          expectedState: state,
        }),
      ),
    );
  }

  startDeviceGrant(): Promise<oidc.DeviceAuthorizationResponse> {
    return oidc.initiateDeviceAuthorization(this.config, { scope: this.scope });
  }

  async finishDeviceGrant(
    response: oidc.DeviceAuthorizationResponse,
    signal?: AbortSignal,
  ): Promise<ProviderTokens> {
    return this.tokensOf(
      await this.refusals(() =>
        oidc.pollDeviceAuthorizationGrant(this.config, response, undefined, { signal }),
      ),
    );
  }

  async refresh(tokens: ProviderTokens): Promise<ProviderTokens> {
    if (!tokens.refreshToken) throw new ProviderRefusedError('no_refresh_token');
    const refreshToken = tokens.refreshToken;
    const fresh = this.tokensOf(await this.refusals(() => oidc.refreshTokenGrant(this.config, refreshToken)));
    // A provider that does not rotate refresh tokens answers without one: the old one stays good.
    return {
      ...fresh,
      refreshToken: fresh.refreshToken ?? tokens.refreshToken,
      idToken: fresh.idToken ?? tokens.idToken,
    };
  }

  /**
   * The token the controller verifies: the one the signer's `targetToken` names, else the one whose audience
   * is the signer's (the ID token's audience is the client id; an access token's is the API's).
   */
  tokenForController(tokens: ProviderTokens): string {
    if (this.signer.targetToken === 'ID' && tokens.idToken) return tokens.idToken;
    return tokens.accessToken;
  }

  /** RP-initiated logout (where discovery names an end_session_endpoint): the URL to open, else undefined. */
  endSessionUrl(tokens: ProviderTokens | undefined): URL | undefined {
    if (!this.config.serverMetadata().end_session_endpoint) return undefined;
    const parameters: Record<string, string> = {};
    if (tokens?.idToken) parameters.id_token_hint = tokens.idToken;
    return oidc.buildEndSessionUrl(this.config, parameters);
  }

  /** Revokes the refresh token where the provider has a revocation endpoint; failures are the provider's. */
  async revoke(tokens: ProviderTokens): Promise<void> {
    if (!tokens.refreshToken || !this.config.serverMetadata().revocation_endpoint) return;
    await oidc.tokenRevocation(this.config, tokens.refreshToken, { token_type_hint: 'refresh_token' });
  }

  private tokensOf(response: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): ProviderTokens {
    const expiresIn = response.expiresIn();
    return {
      signerId: this.signer.id,
      accessToken: response.access_token,
      idToken: response.id_token,
      refreshToken: response.refresh_token,
      expiresAt: expiresIn === undefined ? undefined : Date.now() + expiresIn * 1000,
    };
  }

  /** The provider's own OAuth refusals (invalid_grant: the user disabled, the grant revoked) as one error. */
  private async refusals<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof oidc.ResponseBodyError) throw new ProviderRefusedError(error.error);
      throw error;
    }
  }
}
