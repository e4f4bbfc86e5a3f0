/**
 * What the client API says about an external JWT signer (OpenZiti's clientExternalJwtSignerDetail): the
 * provider a user may sign in with, and which of its tokens the controller wants.
 */
export interface ClientExternalJwtSigner {
  id: string;
  name: string;
  /** the issuer, or the authorization server's URL: where discovery starts */
  externalAuthUrl: string | null;
  /** the issuer's discovery document, when the controller names it */
  openIdConfigurationUrl?: string | null;
  clientId: string | null;
  audience: string | null;
  scopes: string[] | null;
  /** which token the controller verifies: the access token (OpenZiti's default) or the ID token */
  targetToken?: 'ACCESS' | 'ID' | null;
}

/** Signers a user can start a sign-in with: an issuer to discover and a client id are both needed. */
export function usableSigners(signers: ClientExternalJwtSigner[]): ClientExternalJwtSigner[] {
  return signers.filter((s) => (s.openIdConfigurationUrl || s.externalAuthUrl) && s.clientId);
}

/** The signer named `name` (case-insensitively), or the only one there is. */
export function pickSigner(
  signers: ClientExternalJwtSigner[],
  name: string | undefined,
): ClientExternalJwtSigner | undefined {
  const usable = usableSigners(signers);
  if (name === undefined) return usable.length === 1 ? usable[0] : undefined;
  return usable.find((s) => s.name.toLowerCase() === name.toLowerCase());
}
