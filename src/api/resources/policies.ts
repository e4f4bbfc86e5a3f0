/**
 * The management API's policies: `service-policies` (identities → services, with posture checks),
 * `edge-router-policies` (identities → routers), `service-edge-router-policies` (services → routers) and
 * `auth-policies` (how identities may sign in). Role grammar (`#attribute`, `@id-or-name`, `#all`) is checked
 * by the controller beyond the bounds given here.
 */
import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { BaseEntity, NamedRoles, Name, Reference, Roles, Tags, writeBodies } from './fields.js';
import { POLICY_TYPES, SEMANTICS } from './vocabulary.js';

// ---- service-policies -------------------------------------------------------------------------------------

const servicePolicyWritable = {
  name: Name,
  type: Type.Union(POLICY_TYPES.map((t) => Type.Literal(t))),
  semantic: Type.Union(SEMANTICS.map((t) => Type.Literal(t))),
  identityRoles: Type.Optional(Type.Union([Roles, Type.Null()])),
  serviceRoles: Type.Optional(Type.Union([Roles, Type.Null()])),
  postureCheckRoles: Type.Optional(Type.Union([Roles, Type.Null()])),
  tags: Type.Optional(Tags),
};
export const { create: ServicePolicyCreate, patch: ServicePolicyPatch } = writeBodies(servicePolicyWritable);
export const ServicePolicyDetail = Type.Object(
  {
    ...BaseEntity,
    name: Type.String(),
    type: Type.String(),
    semantic: Type.String(),
    identityRoles: Type.Array(Type.String()),
    identityRolesDisplay: NamedRoles,
    serviceRoles: Type.Array(Type.String()),
    serviceRolesDisplay: NamedRoles,
    postureCheckRoles: Type.Array(Type.String()),
    postureCheckRolesDisplay: NamedRoles,
  },
  { additionalProperties: true },
);
export type ServicePolicyWire = Static<typeof ServicePolicyDetail>;

// ---- edge-router-policies, service-edge-router-policies -----------------------------------------------------

/**
 * The bodies and entity of a router policy kind: `identityRoles` (edge-router-policies) or `serviceRoles`
 * (service-edge-router-policies) on the side facing the routers.
 */
export function routerPolicySchemas(side: 'identityRoles' | 'serviceRoles') {
  const writable = {
    name: Name,
    semantic: Type.Optional(Type.Union(SEMANTICS.map((t) => Type.Literal(t)))),
    edgeRouterRoles: Type.Optional(Type.Union([Roles, Type.Null()])),
    [side]: Type.Optional(Type.Union([Roles, Type.Null()])),
    tags: Type.Optional(Tags),
  };
  const detail = Type.Object(
    {
      ...BaseEntity,
      name: Type.String(),
      semantic: Type.String(),
      isSystem: Type.Boolean(),
      edgeRouterRoles: Type.Array(Type.String()),
      edgeRouterRolesDisplay: NamedRoles,
      [side]: Type.Array(Type.String()),
      [`${side}Display`]: NamedRoles,
    },
    { additionalProperties: true },
  );
  return { ...writeBodies(writable), detail };
}

// ---- auth-policies ----------------------------------------------------------------------------------------

const Updb = Type.Object({
  allowed: Type.Boolean(),
  minPasswordLength: Type.Integer({ minimum: 5, maximum: 100 }),
  requireSpecialChar: Type.Boolean(),
  requireNumberChar: Type.Boolean(),
  requireMixedCase: Type.Boolean(),
  maxAttempts: Type.Integer({ minimum: 0 }),
  lockoutDurationMinutes: Type.Integer({ minimum: 0 }),
});
const Cert = Type.Object({ allowed: Type.Boolean(), allowExpiredCerts: Type.Boolean() });
const ExtJwt = Type.Object({
  allowed: Type.Boolean(),
  allowedSigners: Type.Array(Reference, { maxItems: 100 }),
});
const Primary = Type.Object({ updb: Updb, cert: Cert, extJwt: ExtJwt });
const Secondary = Type.Object({
  requireTotp: Type.Boolean(),
  requireExtJwtSigner: Type.Optional(Type.Union([Reference, Type.Null()])),
});

/**
 * Every level optional: a PATCH merges what it names over what is stored. Every level closed, as a create's
 * (writeBodies): a field no level has is a 400 naming its path.
 */
const deepPartial = <T extends TProperties>(o: TObject<T>): TObject =>
  Type.Object(
    Object.fromEntries(
      Object.entries(o.properties).map(([k, v]) => [
        k,
        Type.Optional(
          Type.Union([(v as TObject).type === 'object' ? deepPartial(v as TObject) : v, Type.Null()]),
        ),
      ]),
    ),
    { additionalProperties: false },
  );

export const AuthPolicyCreate = writeBodies({
  name: Name,
  primary: Primary,
  secondary: Secondary,
  tags: Type.Optional(Tags),
}).create;
export const AuthPolicyPatch = Type.Object(
  {
    name: Type.Optional(Name),
    primary: Type.Optional(deepPartial(Primary)),
    secondary: Type.Optional(deepPartial(Secondary)),
    tags: Type.Optional(Tags),
  },
  { additionalProperties: false },
);
export const AuthPolicyDetail = Type.Object({
  ...BaseEntity,
  name: Type.String(),
  primary: Primary,
  secondary: Secondary,
});
export type AuthPolicyWire = Static<typeof AuthPolicyDetail>;
