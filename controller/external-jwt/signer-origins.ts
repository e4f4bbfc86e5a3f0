/**
 * The origins the console's sign-in talks to, for its CSP's connect-src: each enabled signer's issuer (its
 * discovery document and token endpoint live there for Entra ID, Okta and Keycloak) and its externalAuthUrl.
 * URL.origin is canonical (scheme, host, port; nothing a CSP could misread), and only https origins, or http
 * on loopback, are given.
 */
import type { ControllerContext } from '../platform/context.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** https, or http on loopback only (a provider on the same host, tests): what keys may be fetched over. */
export const isSecureOrLoopback = (url: URL) =>
  url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));

export async function signerOrigins(ctx: ControllerContext): Promise<string[]> {
  const { items } = await ctx.store.externalJwtSigners.list({ limit: 1000, offset: 0 });
  const origins = new Set<string>();
  for (const signer of items.filter((s) => s.enabled))
    for (const text of [signer.issuer, signer.externalAuthUrl]) {
      if (!text || !URL.canParse(text)) continue;
      const url = new URL(text);
      if (isSecureOrLoopback(url)) origins.add(url.origin);
    }
  return [...origins].sort();
}
