/**
 * The TypeBox schemas of the bodies both sides of the client API use, defined once. The controller validates
 * requests, serialises answers and publishes its OpenAPI documents with them; the wire types the agent sends
 * and reads (`envelopes.ts`, `auth.ts`, `mfa.ts`, `services.ts`, `posture-responses.ts`, `enrollment.ts`) are
 * derived from them with `Static`.
 *
 * Those modules import this one (and `schemas-enrollment.ts`) as types only, and `index.ts` does not re-export
 * it, so the agent's and the renderer's bundles carry no schema code; the controller imports the values.
 */
import { Type } from '@sinclair/typebox';

/** Free-form maps (tags, client info): bounded in keys and in size, whatever their shape. */
export const freeForm = (maxProperties: number, maxJsonBytes: number) => ({
  maxProperties,
  propertyNames: { maxLength: 255 },
  maxJsonBytes,
  'x-reasons': {
    maxProperties: `must have at most ${maxProperties} keys`,
    maxJsonBytes: `must be at most ${maxJsonBytes} bytes as JSON`,
  },
});

export const DateTime = Type.String({ format: 'date-time' });
export const NullableDateTime = Type.Union([DateTime, Type.Null()]);

// ---- Entities -----------------------------------------------------------------------------------------

/** Free-form tags; `null` in a write clears them (OpenZiti's `x-nullable`). */
export const TagsSchema = Type.Unsafe<Record<string, unknown>>({
  type: ['object', 'null'],
  additionalProperties: true,
  description: 'free-form tags',
  ...freeForm(100, 16_384),
});
export const LinkSchema = Type.Object({ href: Type.String(), method: Type.Optional(Type.String()) });
export const LinksSchema = Type.Record(Type.String(), LinkSchema);
/** Another entity named by an entity (`identity`, `service`, ...). */
export const EntityRefSchema = Type.Object(
  { id: Type.String(), name: Type.String(), entity: Type.String(), _links: LinksSchema },
  { additionalProperties: true },
);
/** The fields every entity starts with (spread into each entity's schema). */
export const BaseEntityFields = {
  id: Type.String(),
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: LinksSchema,
  tags: TagsSchema,
};

/** A login name: password sign-in and `updb` enrollment. */
export const Username = Type.String({ minLength: 4, maxLength: 100 });

// ---- POST /authenticate -------------------------------------------------------------------------------

const info = Type.Optional(Type.String({ maxLength: 255 }));
const infoOptions = { additionalProperties: true, ...freeForm(32, 4096) };
/** Facts about the device, sent at login and shown to administrators on the identity. */
export const EnvInfoSchema = Type.Object(
  { os: info, arch: info, osRelease: info, osVersion: info, domain: info, hostname: info },
  infoOptions,
);
/** Who the client is. The controller's MFA-timeout rules depend on `type` (Postern's agent is not "legacy"). */
export const SdkInfoSchema = Type.Object(
  { type: info, branch: info, version: info, revision: info, appId: info, appVersion: info },
  infoOptions,
);

/**
 * Body of `POST /authenticate?method=password|cert`. `username` and `password` are required for
 * `method=password` (the controller checks that); a certificate sign-in needs neither.
 */
export const AuthenticateBodySchema = Type.Object(
  {
    username: Type.Optional(Username),
    password: Type.Optional(Type.String({ minLength: 5, maxLength: 100 })),
    envInfo: Type.Optional(EnvInfoSchema),
    sdkInfo: Type.Optional(SdkInfoSchema),
    configTypes: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
  },
  { additionalProperties: true },
);

// ---- The current API session (what POST /authenticate and GET /current-api-session answer) -------------

/** A factor the session still owes. `typeId` MFA/TOTP with provider `ziti` is answered by POST /authenticate/mfa. */
export const AuthQuerySchema = Type.Object({
  typeId: Type.String(),
  provider: Type.String(),
  httpMethod: Type.String(),
  httpUrl: Type.String(),
  minLength: Type.Integer(),
  maxLength: Type.Integer(),
  format: Type.String(),
  isTotpEnrolled: Type.Boolean(),
});

/** OpenZiti's `currentApiSessionDetail`. */
export const CurrentApiSessionSchema = Type.Object(
  {
    ...BaseEntityFields,
    token: Type.String(),
    identity: EntityRefSchema,
    identityId: Type.String(),
    authenticatorId: Type.String(),
    configTypes: Type.Array(Type.String()),
    ipAddress: Type.String(),
    authQueries: Type.Array(AuthQuerySchema),
    isMfaRequired: Type.Boolean(),
    isMfaComplete: Type.Boolean(),
    isCertExtendable: Type.Boolean(),
    expiresAt: DateTime,
    expirationSeconds: Type.Integer(),
    lastActivityAt: DateTime,
    cachedLastActivityAt: DateTime,
    cachedUpdatedAt: DateTime,
  },
  { additionalProperties: true },
);

// ---- MFA ----------------------------------------------------------------------------------------------

const Code = Type.String({
  maxLength: 64,
  description: 'a 6-digit TOTP code or, where accepted, a recovery code',
});
/** `mfaCode` of the OpenZiti spec (POST /authenticate/mfa, verify): a missing `code` fails validation. */
export const MfaCodeSchema = Type.Object({ code: Code }, { additionalProperties: true });
/** DELETE mfa and POST recovery-codes: the code may come in the `mfa-validation-code` header instead. */
export const OptionalMfaCodeSchema = Type.Object(
  { code: Type.Optional(Code) },
  { additionalProperties: true },
);

const Strings = Type.Array(Type.String());

/** `GET /current-identity/mfa`. While unverified it also carries the provisioning URL and recovery codes. */
export const MfaDetailSchema = Type.Object(
  {
    ...BaseEntityFields,
    isVerified: Type.Boolean(),
    verifiedAt: Type.Union([DateTime, Type.Null()]),
    recoveryCodesRemaining: Type.Integer({ description: 'unused recovery codes left' }),
    recoveryCodes: Type.Optional(
      Type.Array(Type.String(), { description: 'only while isVerified is false' }),
    ),
    provisioningUrl: Type.Optional(
      Type.String({ description: 'otpauth:// URI; only while isVerified is false' }),
    ),
  },
  { additionalProperties: false },
);

/** 201 of POST /current-identity/mfa: OpenZiti's createResponse plus the recovery codes and provisioning URL. */
export const MfaCreatedSchema = Type.Object({
  id: Type.String(),
  _links: LinksSchema,
  isVerified: Type.Boolean(),
  recoveryCodes: Strings,
  provisioningUrl: Type.String(),
});

/** `GET /current-identity/mfa/recovery-codes` and what POST recovery-codes answers. */
export const MfaRecoveryCodesSchema = Type.Object(
  { ...BaseEntityFields, recoveryCodes: Strings },
  { additionalProperties: false },
);

// ---- Sessions and services ----------------------------------------------------------------------------

export const DialBindSchema = Type.Union([Type.Literal('Dial'), Type.Literal('Bind')]);

/** Body of `POST /sessions`. */
export const SessionCreateSchema = Type.Object(
  {
    serviceId: Type.String({ minLength: 1, maxLength: 255 }),
    type: Type.Optional(DialBindSchema),
    tags: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: true },
);

const open = { additionalProperties: true };

export const PostureQueryProcessSchema = Type.Object({
  osType: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
});

/**
 * One posture check as a client sees it: `id` is the posture check id a response must carry. Postern adds
 * `reason`, `remediation`, `promptGracePeriodSeconds`, `warning` and `exception` beyond these fields (see
 * `services.ts`).
 */
export const PostureQuerySchema = Type.Object(
  {
    ...BaseEntityFields,
    name: Type.String(),
    queryType: Type.String(),
    isPassing: Type.Boolean(),
    timeout: Type.Integer(),
    timeoutRemaining: Type.Integer(),
    timeoutAt: Type.Optional(NullableDateTime),
    promptOnWake: Type.Optional(Type.Boolean()),
    promptOnUnlock: Type.Optional(Type.Boolean()),
    process: Type.Optional(PostureQueryProcessSchema),
    processes: Type.Optional(Type.Array(PostureQueryProcessSchema)),
  },
  open,
);

/** The checks of one service policy that grants the service; the policy passes when all of them do. */
export const PostureQuerySetSchema = Type.Object({
  policyId: Type.String(),
  policyType: DialBindSchema,
  isPassing: Type.Boolean(),
  postureQueries: Type.Array(PostureQuerySchema),
});

/** A service as the management API shows it (OpenZiti's `serviceDetail`). */
export const ServiceDetailSchema = Type.Object(
  {
    ...BaseEntityFields,
    name: Type.String(),
    roleAttributes: Type.Array(Type.String()),
    encryptionRequired: Type.Boolean(),
    terminatorStrategy: Type.String(),
    maxIdleTimeMillis: Type.Integer(),
    configs: Type.Array(Type.String()),
    config: Type.Object({}, open),
    permissions: Type.Array(Type.String()),
    postureQueries: Type.Array(Type.Unknown()),
  },
  open,
);

/** A service as the client API lists it for the caller (`GET /services`): what it may do, what it must pass. */
export const ClientServiceDetailSchema = Type.Object(
  {
    ...ServiceDetailSchema.properties,
    permissions: Type.Array(DialBindSchema),
    postureQueries: Type.Array(PostureQuerySetSchema),
    /** Postern's: on a service this API session may not Dial, the audit event's reference to quote */
    refusalReference: Type.Optional(Type.String()),
  },
  open,
);

/**
 * What `POST /sessions` answers (and `GET /sessions[/<id>]`). Each of `edgeRouters` is a `SessionEdgeRouter`
 * (`data-plane.ts`), published as an open object.
 */
export const SessionDetailSchema = Type.Object(
  {
    ...BaseEntityFields,
    type: DialBindSchema,
    token: Type.String(),
    apiSessionId: Type.String(),
    apiSession: EntityRefSchema,
    serviceId: Type.String(),
    service: EntityRefSchema,
    identityId: Type.String(),
    edgeRouters: Type.Array(Type.Object({}, open)),
  },
  open,
);

/** `GET /current-api-session/service-updates`. */
export const ServiceUpdatesSchema = Type.Object({
  /** moves whenever the access state of one of the identity's services changes */
  lastChangeAt: DateTime,
});

// ---- Posture responses --------------------------------------------------------------------------------

/** A service whose timers changed because of the response (after a wake/unlock: MFA grace, 300 s). */
export const PostureResponseServiceSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  postureQueryType: Type.String(),
  timeout: Type.Integer(),
  timeoutRemaining: Type.Integer(),
});

/** `data` of what `POST /posture-response` and `/posture-response-bulk` answer. */
export const PostureResponseReplySchema = Type.Object({
  services: Type.Array(PostureResponseServiceSchema),
});
