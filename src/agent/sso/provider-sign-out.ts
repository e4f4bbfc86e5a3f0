/**
 * Ending the provider side of a sign-in: the refresh token revoked where the provider has a revocation
 * endpoint, the stored tokens removed, and the RP-initiated logout URL returned (where discovery names an
 * end_session_endpoint) for the caller to open (desktop) or print (CLI). A provider that cannot be reached
 * does not stop the sign-out: the local tokens are removed whatever happens.
 */
import type { EdgeApi } from '../client/edge-api.js';
import { errorMessage, type AgentLogger } from '../../common/logger.js';
import { OidcRelyingParty } from './oidc-relying-party.js';
import type { ProviderTokenVault } from './provider-token-vault.js';

export async function signOutAtProvider(
  api: EdgeApi,
  vault: ProviderTokenVault,
  controllerUrl: string,
  log: AgentLogger,
): Promise<URL | undefined> {
  const tokens = await vault.load(controllerUrl);
  if (!tokens) return undefined;
  await vault.clear();
  try {
    const signer = (await api.listExternalJwtSigners()).find((s) => s.id === tokens.signerId);
    if (!signer) return undefined;
    const rp = await OidcRelyingParty.discover(signer);
    await rp.revoke(tokens);
    return rp.endSessionUrl(tokens);
  } catch (error) {
    log.warn(`could not end the session at the identity provider: ${errorMessage(error)}`);
    return undefined;
  }
}
