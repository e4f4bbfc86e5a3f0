/**
 * The keys each external JWT signer's tokens are checked against, through `jose`: a JWKS endpoint's key set
 * (createRemoteJWKSet: fetched on first use, kept for KEYS_MAX_AGE_MS, fetched again when a token names a
 * key it does not hold, at most once per cooldown, so a rotation at the provider is followed and a flood of
 * made-up `kid`s cannot make the controller hammer the provider), or the one key of `certPem`.
 *
 * Bounded: one entry per signer (signers are capped, MAX_SIGNERS), the JWKS document read up to
 * MAX_JWKS_BYTES, each fetch given FETCH_TIMEOUT_MS. An entry is dropped when its signer is written, and
 * rebuilt when the signer read at sign-in is newer than the one it was made from (another instance's edit).
 */
import { X509Certificate, createPublicKey, type KeyObject } from 'node:crypto';
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import type { ExternalJwtSigner } from '../model.js';

/** a JWKS document larger than this is refused (Entra ID's is about 10 KiB; Okta's and Keycloak's smaller) */
export const MAX_JWKS_BYTES = 256 * 1024;
/** a provider that does not answer within this long fails the sign-in rather than holding it */
export const FETCH_TIMEOUT_MS = 5_000;
/** keys are fetched again after this long even without an unknown `kid` (a key removed at the provider goes) */
export const KEYS_MAX_AGE_MS = 10 * 60_000;
/** the least time between two fetches of one signer's keys (jose's cooldown), unless configured */
export const DEFAULT_COOLDOWN_MS = 30_000;
/** signers kept in the cache; also the most signers a controller may have (signer-service.ts) */
export const MAX_SIGNERS = 100;

export type VerificationKey = JWTVerifyGetKey | KeyObject;

interface Entry {
  updatedAt: number;
  key: VerificationKey;
}

export class SignerKeys {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly cooldownMs = DEFAULT_COOLDOWN_MS) {}

  /** The key (set) for this signer as stored now. */
  for(signer: ExternalJwtSigner): VerificationKey {
    const cached = this.entries.get(signer.id);
    if (cached && cached.updatedAt === signer.updatedAt.getTime()) return cached.key;
    const key = signer.certPem ? keyOfCertificate(signer.certPem) : this.remoteSet(signer.jwksEndpoint!);
    this.entries.delete(signer.id);
    this.entries.set(signer.id, { updatedAt: signer.updatedAt.getTime(), key });
    // Oldest first: a Map iterates in insertion order.
    while (this.entries.size > MAX_SIGNERS) this.entries.delete(this.entries.keys().next().value!);
    return key;
  }

  forget(signerId: string): void {
    this.entries.delete(signerId);
  }

  private remoteSet(endpoint: string): JWTVerifyGetKey {
    return createRemoteJWKSet(new URL(endpoint), {
      timeoutDuration: FETCH_TIMEOUT_MS,
      cooldownDuration: this.cooldownMs,
      cacheMaxAge: KEYS_MAX_AGE_MS,
      [customFetch]: boundedFetch,
    });
  }
}

/** The public key of a PEM certificate (the first one, if a chain is given). */
export function keyOfCertificate(certPem: string): KeyObject {
  return createPublicKey(new X509Certificate(certPem).publicKey.export({ format: 'pem', type: 'spki' }));
}

/** fetch, but a body past MAX_JWKS_BYTES is an error rather than memory spent. */
async function boundedFetch(url: string, options: RequestInit): Promise<Response> {
  const res = await fetch(url, { ...options, redirect: 'error' });
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > MAX_JWKS_BYTES) {
    await res.body?.cancel();
    throw new Error(`the JWKS document is larger than ${MAX_JWKS_BYTES} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  for (let read = await reader?.read(); reader && read && !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > MAX_JWKS_BYTES) {
      await reader.cancel();
      throw new Error(`the JWKS document is larger than ${MAX_JWKS_BYTES} bytes`);
    }
    chunks.push(read.value);
  }
  return new Response(Buffer.concat(chunks), { status: res.status, headers: res.headers });
}
