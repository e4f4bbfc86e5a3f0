/**
 * Posture checks on the management API: the create, PUT and PATCH bodies, the entity, the read-only
 * `posture-check-types`, and each check type's own fields, one schema per `typeId`, for the API documents
 * (`POSTURE_CHECK_DOCS`). Those fields are validated by the controller's check modules (posture/checks),
 * which name the offending field precisely; the bodies here check the envelope and refuse unknown fields.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Attributes, BaseEntity, DateTime, Name, Sentence, Tags, writeBodies } from './fields.js';
import { ENFORCEMENT_MODE_VALUES, OS_TYPES, POSTURE_CHECK_TYPES } from './vocabulary.js';
import { Strings, Text } from './texts.js';

/**
 * How long each text a posture check body carries may be: enforced by the check modules' parsers (which
 * validate check bodies) and published in the API documents (POSTURE_CHECK_DOCS below), so both say the same.
 */
export const CHECK_TEXT_LIMITS = {
  /** a binary's absolute path (as a posture response's) */
  path: 4096,
  /** a Windows domain (a DNS name is at most 253) */
  domain: 255,
  /** one semver range of an OS entry */
  versionRange: 255,
  /** a MAC address as typed, separators and surrounding white space included */
  mac: 64,
  /** a sha256 or sha512 digest in hex */
  hash: 128,
  /** a sha1 thumbprint in hex */
  fingerprint: 40,
} as const;

/**
 * Postern: what a failing check does. `enforce` (the default, and what a check created without the field
 * gets) refuses; `report-only` never refuses and only records who would have been refused; `warn` lets the
 * device through, telling its user what will be required, until `enforceFrom`, and enforces from then on.
 */
export const Enforcement = Type.Object(
  {
    mode: Type.Union(
      ENFORCEMENT_MODE_VALUES.map((m) => Type.Literal(m)),
      { description: 'enforce (default), report-only or warn' },
    ),
    enforceFrom: Type.Union([DateTime, Type.Null()], {
      description: 'warn only (required there): the moment the check starts to refuse',
    }),
  },
  {
    title: 'postureCheckEnforcement',
    description:
      'Postern: how a failing check acts; absent in a write: enforce (a PATCH keeps the stored one)',
  },
);

// The envelope is checked here; each type's own fields are checked by its module (posture/checks/*),
// which names the offending field precisely.
const common = {
  typeId: Type.String({ maxLength: 64, description: `one of ${POSTURE_CHECK_TYPES.join(', ')}` }),
  name: Name,
  roleAttributes: Type.Optional(Type.Union([Attributes, Type.Null()])),
  attributes: Type.Optional(Type.Union([Attributes, Type.Null()])),
  tags: Type.Optional(Tags),
  remediation: Type.Optional(
    Type.Union([Sentence, Type.Null()], {
      description: 'Postern: advice shown as written to a user this check blocks (a sentence and a link)',
    }),
  ),
  // Checked by the controller (posture/enforcement-field.ts), which names `enforcement.mode` or
  // `enforcement.enforceFrom`; documented by `Enforcement`.
  enforcement: Type.Optional(
    Type.Unknown({ description: 'Postern: {mode, enforceFrom}, see postureCheckEnforcement' }),
  ),
};
// Each type's own fields, checked by its module; listed here so any other field is refused by name.
const typeFields = Object.fromEntries(
  [
    'operatingSystems',
    'macAddresses',
    'domains',
    'process',
    'processes',
    'semantic',
    'timeoutSeconds',
    'promptOnWake',
    'promptOnUnlock',
    'ignoreLegacyEndpoints',
  ].map((f) => [f, Type.Optional(Type.Unknown({ description: 'a field of the chosen typeId' }))]),
);
export const { create: PostureCheckCreate, patch: PostureCheckPatch } = writeBodies(
  { ...common, ...typeFields, name: Type.Optional(Name) },
  // OpenZiti's console sends the check's own `id` back in its PATCH; the path names the check.
  ['id'],
  'plus the fields of the chosen typeId',
);
export const PostureCheckDetail = Type.Object(
  {
    ...BaseEntity,
    name: Type.String(),
    typeId: Type.String(),
    version: Type.Integer(),
    roleAttributes: Type.Array(Type.String()),
    attributes: Type.Array(Type.String()),
    enforcement: Enforcement,
  },
  { additionalProperties: true },
);
export type PostureCheckWire = Static<typeof PostureCheckDetail>;

export const PostureCheckTypeDetail = Type.Object({
  ...BaseEntity,
  name: Type.String(),
  version: Type.String(),
  operatingSystems: Type.Array(Type.Object({ type: Type.String(), versions: Type.Array(Type.String()) })),
});

// ---- each type's fields, for the API documents ---------------------------------------------------------

const OsType = Type.Union(
  OS_TYPES.map((t) => Type.Literal(t)),
  { description: 'any case' },
);
const check = (typeId: string, fields: Record<string, TSchema>, description: string) =>
  Type.Object(
    {
      typeId: Type.Literal(typeId),
      name: Name,
      roleAttributes: Type.Optional(Attributes),
      tags: Type.Optional(Tags),
      enforcement: Type.Optional(Enforcement),
      ...fields,
    },
    { title: `postureCheck${typeId}`, description },
  );
const processRule = Type.Object({
  osType: OsType,
  path: Text(CHECK_TEXT_LIMITS.path, 'absolute path of the binary'),
  hashes: Type.Optional(
    Strings('allowed sha256 (64 hex) or sha512 (128 hex) digests of the binary', CHECK_TEXT_LIMITS.hash),
  ),
});

export const POSTURE_CHECK_DOCS: Record<string, TSchema> = {
  OS: check(
    'OS',
    {
      operatingSystems: Type.Array(
        Type.Object({
          type: OsType,
          versions: Type.Optional(
            Strings('semver ranges, e.g. >=10.0.19041', CHECK_TEXT_LIMITS.versionRange),
          ),
        }),
        { description: 'one entry per OS type' },
      ),
    },
    'the device runs one of these operating systems, in one of its version ranges',
  ),
  MAC: check(
    'MAC',
    { macAddresses: Strings('aa:bb:cc:dd:ee:ff or AA-BB-...', CHECK_TEXT_LIMITS.mac) },
    'the device has one of these MACs',
  ),
  DOMAIN: check(
    'DOMAIN',
    { domains: Strings('Windows domains, any case', CHECK_TEXT_LIMITS.domain) },
    'the device is in one of these domains',
  ),
  PROCESS: check(
    'PROCESS',
    {
      process: Type.Object({
        ...processRule.properties,
        signerFingerprint: Type.Optional(Text(CHECK_TEXT_LIMITS.fingerprint, 'sha1 thumbprint (40 hex)')),
      }),
    },
    'this binary runs, from an allowed build and signer',
  ),
  PROCESS_MULTI: check(
    'PROCESS_MULTI',
    {
      semantic: Type.Union([Type.Literal('AllOf'), Type.Literal('AnyOf'), Type.Literal('OneOf')]),
      processes: Type.Array(
        Type.Object({
          ...processRule.properties,
          signerFingerprints: Type.Optional(
            Strings('sha1 thumbprints (40 hex)', CHECK_TEXT_LIMITS.fingerprint),
          ),
        }),
      ),
    },
    'all (AllOf) or one (AnyOf, OneOf) of these binaries run',
  ),
  MFA: check(
    'MFA',
    {
      name: Type.Optional(Name),
      timeoutSeconds: Type.Optional(
        Type.Integer({ description: 'seconds a TOTP pass lasts; -1 or 0: no limit' }),
      ),
      promptOnWake: Type.Optional(Type.Boolean()),
      promptOnUnlock: Type.Optional(Type.Boolean()),
      ignoreLegacyEndpoints: Type.Optional(Type.Boolean()),
    },
    'the API session passed TOTP (within the timeout, and again after a wake or unlock when asked)',
  ),
};
