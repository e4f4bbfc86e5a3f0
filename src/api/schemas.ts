/**
 * The TypeBox schemas of the bodies both sides of the client API use, defined once. The controller validates
 * requests, serialises answers and publishes its OpenAPI documents with them; the wire types the agent sends
 * and reads (`auth.ts`, `services.ts`, `posture-responses.ts`) are derived from them with `Static`.
 *
 * Those modules import this one as types only, and `index.ts` does not re-export it, so the agent's and the
 * renderer's bundles carry no schema code; the controller imports the values.
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
    username: Type.Optional(Type.String({ minLength: 4, maxLength: 100 })),
    password: Type.Optional(Type.String({ minLength: 5, maxLength: 100 })),
    envInfo: Type.Optional(EnvInfoSchema),
    sdkInfo: Type.Optional(SdkInfoSchema),
    configTypes: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
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
