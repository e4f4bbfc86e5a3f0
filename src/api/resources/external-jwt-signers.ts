/**
 * `external-jwt-signers`: OpenID providers (any JWT issuer) whose tokens sign identities in, as OpenZiti's
 * management API defines them, and the client API's view of them (what an agent or the console may offer the
 * user: no keys, no claim mapping). The controller checks what a schema cannot (one key source, https, an
 * issuer used once, the auth policy a created identity gets).
 */
import { Type, type Static } from '@sinclair/typebox';
import { BaseEntity, Name, Reference, Tags, writeBodies } from './fields.js';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Optional(Type.Union([t, Type.Null()]));

/** A URL the controller or a client fetches: bounded like a browser's address bar. */
const Url = Type.String({ minLength: 1, maxLength: 2048 });
/** A claim's name (`sub`, `email`) or a JSON pointer into the claims (`/realm_access/roles`). */
const ClaimSelector = Type.String({ minLength: 1, maxLength: 255 });
export const TARGET_TOKENS = ['ACCESS', 'ID'] as const;
const TargetToken = Type.Union(TARGET_TOKENS.map((t) => Type.Literal(t)));

const writable = {
  name: Name,
  enabled: Type.Boolean(),
  issuer: Type.String({ minLength: 1, maxLength: 1024 }),
  audience: Type.String({ minLength: 1, maxLength: 1024 }),
  jwksEndpoint: nullable(Url),
  // A PEM certificate with a few intermediates at most.
  certPem: nullable(Type.String({ minLength: 1, maxLength: 16_384 })),
  kid: nullable(Type.String({ minLength: 1, maxLength: 255 })),
  claimsProperty: nullable(ClaimSelector),
  useExternalId: nullable(Type.Boolean()),
  clientId: nullable(Type.String({ minLength: 1, maxLength: 255 })),
  scopes: nullable(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 50 })),
  externalAuthUrl: nullable(Url),
  targetToken: nullable(TargetToken),
  enrollToTokenEnabled: nullable(Type.Boolean()),
  enrollToCertEnabled: nullable(Type.Boolean()),
  enrollNameClaimsSelector: nullable(ClaimSelector),
  enrollAttributeClaimsSelector: nullable(ClaimSelector),
  enrollAuthPolicyId: nullable(Reference),
  tags: Type.Optional(Tags),
};
export const {
  create: ExternalJwtSignerCreate,
  update: ExternalJwtSignerUpdate,
  patch: ExternalJwtSignerPatch,
} = writeBodies(writable);

export const ExternalJwtSignerDetail = Type.Object(
  {
    ...BaseEntity,
    name: Type.String(),
    enabled: Type.Boolean(),
    issuer: Type.String(),
    audience: Type.String(),
    jwksEndpoint: Type.Union([Type.String(), Type.Null()]),
    certPem: Type.Union([Type.String(), Type.Null()]),
    // Of `certPem`'s certificate; null with a JWKS endpoint.
    commonName: Type.Union([Type.String(), Type.Null()]),
    fingerprint: Type.Union([Type.String(), Type.Null()]),
    notBefore: Type.Union([Type.String(), Type.Null()]),
    notAfter: Type.Union([Type.String(), Type.Null()]),
    kid: Type.Union([Type.String(), Type.Null()]),
    claimsProperty: Type.String(),
    useExternalId: Type.Boolean(),
    clientId: Type.Union([Type.String(), Type.Null()]),
    scopes: Type.Array(Type.String()),
    externalAuthUrl: Type.Union([Type.String(), Type.Null()]),
    targetToken: TargetToken,
    enrollToTokenEnabled: Type.Boolean(),
    enrollToCertEnabled: Type.Boolean(),
    enrollNameClaimsSelector: Type.Union([Type.String(), Type.Null()]),
    enrollAttributeClaimsSelector: Type.Union([Type.String(), Type.Null()]),
    enrollAuthPolicyId: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: true },
);
export type ExternalJwtSignerWire = Static<typeof ExternalJwtSignerDetail>;

/** The client API's view: what starts a sign-in at the provider, nothing about keys or claims. */
export const ClientExternalJwtSignerDetail = Type.Object({
  ...BaseEntity,
  name: Type.String(),
  externalAuthUrl: Type.Union([Type.String(), Type.Null()]),
  openIdConfigurationUrl: Type.String(),
  clientId: Type.Union([Type.String(), Type.Null()]),
  audience: Type.Union([Type.String(), Type.Null()]),
  scopes: Type.Array(Type.String()),
  targetToken: TargetToken,
  enrollToTokenEnabled: Type.Boolean(),
  enrollToCertEnabled: Type.Boolean(),
});
export type ClientExternalJwtSignerWire = Static<typeof ClientExternalJwtSignerDetail>;
