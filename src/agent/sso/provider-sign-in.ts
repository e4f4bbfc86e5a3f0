/**
 * Signing in through an identity provider: the browser flow (authorization code with PKCE S256 and a
 * loopback redirect, RFC 8252) for the desktop app and a CLI with a browser at hand, the device grant for a
 * CLI where the provider offers one, then the provider's token sent to the controller (`method=ext-jwt`).
 */
import * as oidc from 'openid-client';
import { openLoopbackRedirect, REDIRECT_TIMEOUT_MS } from './loopback-redirect.js';
import type { OidcRelyingParty, ProviderTokens } from './oidc-relying-party.js';

/** Opens (desktop: the system browser) or shows (CLI: prints) the URL the user signs in at. */
export type UrlOpener = (url: URL) => void | Promise<void>;

/** Authorization code + PKCE through the system browser; resolves with the provider's tokens. */
export async function signInWithBrowser(
  rp: OidcRelyingParty,
  open: UrlOpener,
  timeoutMs = REDIRECT_TIMEOUT_MS,
): Promise<ProviderTokens> {
  const state = oidc.randomState();
  const verifier = oidc.randomPKCECodeVerifier();
  const redirect = await openLoopbackRedirect(state, timeoutMs);
  try {
    await open(await rp.authorizationUrl(redirect.redirectUri, state, verifier));
    return await rp.redeemCode(await redirect.callback, state, verifier);
  } finally {
    redirect.close();
  }
}

/** What the user is told to do for a device grant. */
export interface DeviceCodePrompt {
  verificationUri: string;
  /** the URI with the code in it, when the provider gives one */
  verificationUriComplete?: string;
  userCode: string;
}

/** The device authorization grant (RFC 8628); polls until the user approved, refused or the code expired. */
export async function signInWithDevice(
  rp: OidcRelyingParty,
  show: (prompt: DeviceCodePrompt) => void,
  signal?: AbortSignal,
): Promise<ProviderTokens> {
  const response = await rp.startDeviceGrant();
  show({
    verificationUri: response.verification_uri,
    verificationUriComplete: response.verification_uri_complete,
    userCode: response.user_code,
  });
  return rp.finishDeviceGrant(response, signal);
}
