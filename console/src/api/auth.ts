/**
 * Signing in to the management API: a password, then a TOTP code when the answer's `authQueries` say one is
 * owed (OpenZiti's partial authentication, as the agent handles it); or an identity provider's token
 * (provider-sign-in.ts). Only an administrator gets further, however they signed in.
 */
import { api } from './client.js';
import { ApiError } from './api-error.js';
import type { Identity } from './types.js';

interface AuthQuery {
  typeId: string;
  isTotpEnrolled?: boolean;
}

interface CurrentApiSession {
  token: string;
  authQueries?: AuthQuery[];
}

export type SignInStep =
  | { step: 'totp' }
  /** the account must set up an authenticator app before it can do anything, and the console cannot */
  | { step: 'enroll-first' }
  | { step: 'done'; identity: Identity };

async function afterAuthentication(session: CurrentApiSession): Promise<SignInStep> {
  const mfa = (session.authQueries ?? []).find((q) => q.typeId === 'MFA');
  if (mfa) return mfa.isTotpEnrolled === false ? { step: 'enroll-first' } : { step: 'totp' };
  return { step: 'done', identity: await currentAdministrator() };
}

export async function signIn(username: string, password: string): Promise<SignInStep> {
  api.setToken(null);
  const answer = await api.post<CurrentApiSession>('/authenticate?method=password', { username, password });
  api.setToken(answer.data.token);
  return afterAuthentication(answer.data);
}

/** Signs in with an identity provider's token (an external JWT signer's), as OpenZiti's `method=ext-jwt`. */
export async function signInWithProviderToken(providerToken: string): Promise<SignInStep> {
  api.setToken(null);
  const answer = await api.request<CurrentApiSession>(
    'POST',
    '/authenticate?method=ext-jwt',
    {},
    { authorization: `Bearer ${providerToken}` },
  );
  api.setToken(answer.data.token);
  return afterAuthentication(answer.data);
}

export async function submitTotp(code: string): Promise<SignInStep> {
  await api.post('/authenticate/mfa', { code });
  return { step: 'done', identity: await currentAdministrator() };
}

/** The signed-in identity; the console is for administrators only, so anyone else is signed out again. */
async function currentAdministrator(): Promise<Identity> {
  const { data } = await api.get<Identity>('/current-identity');
  if (!data.isAdmin) {
    await signOut();
    throw new ApiError(401, 'NOT_ADMIN', `${data.name} is not an administrator`);
  }
  return data;
}

export async function signOut(): Promise<void> {
  if (!api.hasToken) return;
  try {
    await api.delete('/current-api-session');
  } catch {
    // Already gone on the controller: forgetting it here is all that is left.
  } finally {
    api.setToken(null);
  }
}
