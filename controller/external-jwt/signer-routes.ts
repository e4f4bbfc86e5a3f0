/**
 * `external-jwt-signers` on both APIs: the management API's six operations (OpenZiti's fields), and the
 * client API's list, which anyone may read before signing in (as OpenZiti serves it): the enabled signers,
 * with only what an agent or the console needs to start a sign-in at the provider.
 */
import { createHash, X509Certificate } from 'node:crypto';
import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import type { ExternalJwtSigner } from '../model.js';
import { entityBase, list } from '../http/envelope.js';
import { registerCrud, pick, type WriteMode } from '../http/crud.js';
import { errorResponses, listEnvelope } from '../../src/api/resources/envelopes.js';
import {
  ClientExternalJwtSignerDetail,
  ExternalJwtSignerCreate,
  ExternalJwtSignerDetail,
  ExternalJwtSignerPatch,
  type ClientExternalJwtSignerWire,
} from '../../src/api/resources/external-jwt-signers.js';
import type { ExternalJwtSignerDraft, ExternalJwtSignerService } from './signer-service.js';

const COLLECTION = 'external-jwt-signers';
const TAG = 'External JWT Signer';

function readDraft(
  body: Record<string, unknown>,
  mode: WriteMode,
  existing: ExternalJwtSigner | undefined,
): ExternalJwtSignerDraft {
  const field = <T>(name: keyof ExternalJwtSignerDraft, fallback: T): T =>
    pick<T>(body, name, mode, existing?.[name as keyof ExternalJwtSigner] as T | undefined, fallback);
  return {
    name: field('name', ''),
    enabled: field('enabled', false),
    issuer: field('issuer', ''),
    audience: field('audience', ''),
    jwksEndpoint: field<string | null>('jwksEndpoint', null),
    certPem: field<string | null>('certPem', null),
    kid: field<string | null>('kid', null),
    claimsProperty: field('claimsProperty', 'sub'),
    useExternalId: field('useExternalId', false),
    clientId: field<string | null>('clientId', null),
    scopes: field<string[]>('scopes', []),
    externalAuthUrl: field<string | null>('externalAuthUrl', null),
    targetToken: field<ExternalJwtSigner['targetToken']>('targetToken', null),
    enrollToTokenEnabled: field('enrollToTokenEnabled', false),
    // Never stored true (refused), so a PATCH that leaves it out finds it off.
    enrollToCertEnabled: pick(body, 'enrollToCertEnabled', mode, false, false),
    enrollNameClaimsSelector: field<string | null>('enrollNameClaimsSelector', null),
    enrollAttributeClaimsSelector: field<string | null>('enrollAttributeClaimsSelector', null),
    enrollAuthPolicyId: field<string | null>('enrollAuthPolicyId', null),
    tags: field('tags', {}),
  };
}

/** What OpenZiti shows of `certPem`'s certificate; nulls with a JWKS endpoint. */
function certificateFacts(certPem: string | null) {
  if (!certPem) return { commonName: null, fingerprint: null, notBefore: null, notAfter: null };
  const cert = new X509Certificate(certPem);
  return {
    commonName: /CN=([^\n]*)/.exec(cert.subject)?.[1] ?? '',
    fingerprint: createHash('sha1').update(cert.raw).digest('hex'),
    notBefore: new Date(cert.validFrom).toISOString(),
    notAfter: new Date(cert.validTo).toISOString(),
  };
}

export function registerExternalJwtSigners(
  app: Api,
  ctx: ControllerContext,
  service: ExternalJwtSignerService,
): void {
  registerCrud<ExternalJwtSigner>(app, ctx, {
    collection: COLLECTION,
    tag: TAG,
    repo: ctx.store.externalJwtSigners,
    schemas: {
      create: ExternalJwtSignerCreate,
      update: ExternalJwtSignerCreate,
      patch: ExternalJwtSignerPatch,
      detail: ExternalJwtSignerDetail,
    },
    toWire: (s) => ({
      ...entityBase(COLLECTION, s),
      enabled: s.enabled,
      issuer: s.issuer,
      audience: s.audience,
      jwksEndpoint: s.jwksEndpoint,
      certPem: s.certPem,
      ...certificateFacts(s.certPem),
      kid: s.kid,
      claimsProperty: s.claimsProperty,
      useExternalId: s.useExternalId,
      clientId: s.clientId,
      scopes: s.scopes,
      externalAuthUrl: s.externalAuthUrl,
      targetToken: s.targetToken ?? 'ACCESS',
      enrollToTokenEnabled: s.enrollToTokenEnabled,
      enrollToCertEnabled: false,
      enrollNameClaimsSelector: s.enrollNameClaimsSelector,
      enrollAttributeClaimsSelector: s.enrollAttributeClaimsSelector,
      enrollAuthPolicyId: s.enrollAuthPolicyId,
    }),
    build: (body, mode, existing, id, now) =>
      service.prepare(readDraft(body, mode, existing), existing, id, now),
    beforeDelete: (signer) => service.beforeDelete(signer),
    afterWrite: (signer, op) => service.written(signer, op),
  });
}

/** The client API's `GET /external-jwt-signers`: public, enabled signers only, no keys or claim settings. */
export function registerClientExternalJwtSigners(app: Api, ctx: ControllerContext): void {
  app.get(
    `/${COLLECTION}`,
    {
      config: { access: 'public' },
      schema: {
        tags: [TAG],
        response: { 200: listEnvelope(ClientExternalJwtSignerDetail), ...errorResponses(400) },
      },
    },
    async () => {
      const { items } = await ctx.store.externalJwtSigners.list({ limit: 1000, offset: 0 });
      const shown = items.filter((s) => s.enabled).map(clientView);
      return list(shown, { limit: shown.length, offset: 0, totalCount: shown.length });
    },
  );
}

function clientView(s: ExternalJwtSigner): ClientExternalJwtSignerWire {
  return {
    // Tags are the administrators' notes, not the public's.
    ...entityBase(COLLECTION, { ...s, tags: {} }),
    externalAuthUrl: s.externalAuthUrl,
    openIdConfigurationUrl: `${s.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`,
    clientId: s.clientId,
    audience: s.audience,
    scopes: s.scopes,
    targetToken: s.targetToken ?? 'ACCESS',
    enrollToTokenEnabled: s.enrollToTokenEnabled,
    enrollToCertEnabled: false,
  };
}
