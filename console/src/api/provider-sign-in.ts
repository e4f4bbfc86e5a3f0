/**
 * The console's sign-in through an identity provider (an external JWT signer the controller lists): the
 * authorization code flow with PKCE (S256) in this browser tab, the provider redirecting back to
 * `/console/`, the code exchanged here, and the provider's token sent to the management API's
 * `authenticate?method=ext-jwt`. openid-client does the OAuth work (discovery, PKCE, state, the exchange,
 * the ID token's checks); the console only keeps the one-time verifier and state in this tab's
 * sessionStorage between leaving for the provider and coming back (never a token: the provider's tokens
 * are used once and dropped, the API session stays in memory as after a password).
 */
import * as oidc from 'openid-client';
import { ApiError } from './api-error.js';
import { signInWithProviderToken, type SignInStep } from './auth.js';

export interface ConsoleProvider {
  id: string;
  name: string;
  clientId: string | null;
  scopes: string[] | null;
  openIdConfigurationUrl: string | null;
  targetToken?: 'ACCESS' | 'ID' | null;
}

interface PendingSignIn {
  providerId: string;
  verifier: string;
  state: string;
}

const PENDING_KEY = 'postern-console-provider-sign-in';
const CLIENT_SIGNERS = '/edge/client/v1/external-jwt-signers';

/** Where the provider sends the browser back: the console itself (register this at the provider). */
export function redirectUri(): string {
  return `${window.location.origin}/console/`;
}

/** The providers the controller offers that the console can use (an issuer to discover and a client id). */
export async function listProviders(): Promise<ConsoleProvider[]> {
  const response = await fetch(CLIENT_SIGNERS, { credentials: 'omit', cache: 'no-store' });
  if (!response.ok) return [];
  const body = (await response.json()) as { data?: ConsoleProvider[] };
  return (body.data ?? []).filter((p) => p.clientId && p.openIdConfigurationUrl);
}

/** Plain http only for a provider on this machine (a lab or a test), as the agent allows. */
function isLoopback(url: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

async function configOf(provider: ConsoleProvider): Promise<oidc.Configuration> {
  const discovery = new URL(provider.openIdConfigurationUrl!);
  return oidc.discovery(discovery, provider.clientId!, undefined, oidc.None(), {
    execute: discovery.protocol === 'http:' && isLoopback(discovery) ? [oidc.allowInsecureRequests] : [],
  });
}

/** Leaves for the provider's sign-in page. */
export async function startProviderSignIn(provider: ConsoleProvider): Promise<void> {
  const config = await configOf(provider);
  const pending: PendingSignIn = {
    providerId: provider.id,
    verifier: oidc.randomPKCECodeVerifier(),
    state: oidc.randomState(),
  };
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(),
    scope: [...new Set(['openid', ...(provider.scopes ?? [])])].join(' '),
    code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
    code_challenge_method: 'S256',
    state: pending.state,
  });
  window.sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  window.location.assign(url.href);
}

/** This page is the provider sending the browser back (a code or an error, and a sign-in under way). */
export function isProviderReturn(): boolean {
  const params = new URLSearchParams(window.location.search);
  return params.has('state') && window.sessionStorage.getItem(PENDING_KEY) !== null;
}

/** Exchanges the code the provider sent back and signs in with the token the controller asks for. */
export async function finishProviderSignIn(): Promise<SignInStep> {
  const pending = JSON.parse(window.sessionStorage.getItem(PENDING_KEY) ?? '{}') as PendingSignIn;
  window.sessionStorage.removeItem(PENDING_KEY);
  const returned = new URL(window.location.href);
  // The code is good once; it leaves the address bar (and the history) at once.
  window.history.replaceState(null, '', '/console/');
  const provider = (await listProviders()).find((p) => p.id === pending.providerId);
  if (!provider) throw new ApiError(0, 'PROVIDER_GONE', 'This controller no longer offers that sign-in.');
  let tokens: oidc.TokenEndpointResponse;
  try {
    tokens = await oidc.authorizationCodeGrant(await configOf(provider), returned, {
      pkceCodeVerifier: pending.verifier,
      expectedState: pending.state,
    });
  } catch (error) {
    const why = error instanceof oidc.AuthorizationResponseError ? error.error : 'the answer was not valid';
    throw new ApiError(0, 'PROVIDER_REFUSED', `${provider.name} did not sign you in (${why}).`);
  }
  const token = provider.targetToken === 'ID' ? tokens.id_token : tokens.access_token;
  if (!token) throw new ApiError(0, 'PROVIDER_REFUSED', `${provider.name} gave no token to sign in with.`);
  return signInWithProviderToken(token);
}
