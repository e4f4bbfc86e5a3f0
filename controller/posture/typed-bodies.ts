/**
 * Each posture check type's and posture response type's fields, one schema per `typeId`, for the API
 * documents (controller/composition/openapi-documents.ts). Validation itself is the check modules' (posture/checks).
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { Attributes, Name, Tags } from '../../src/api/resources/fields.js';
import { OS_TYPES } from '../posture-model.js';
import { CHECK_TEXT_LIMITS } from './checks/check-limits.js';
import { RESPONSE_TEXT_LIMITS } from './response-items.js';

const OsType = Type.Union(
  OS_TYPES.map((t) => Type.Literal(t)),
  { description: 'any case' },
);
/** A list of texts of at most `maxLength` characters each. */
const Strings = (description: string, maxLength: number) =>
  Type.Array(Type.String({ maxLength }), { description });
const Text = (maxLength: number, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });
const check = (typeId: string, fields: Record<string, TSchema>, description: string) =>
  Type.Object(
    {
      typeId: Type.Literal(typeId),
      name: Name,
      roleAttributes: Type.Optional(Attributes),
      tags: Type.Optional(Tags),
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

const response = (typeId: string, fields: Record<string, TSchema>) =>
  Type.Object(
    {
      id: Text(RESPONSE_TEXT_LIMITS.id, 'the posture check (query) answered'),
      typeId: Type.Literal(typeId),
      ...fields,
    },
    { title: `postureResponse${typeId}` },
  );

export const POSTURE_RESPONSE_DOCS: Record<string, TSchema> = {
  OS: response('OS', {
    type: Text(RESPONSE_TEXT_LIMITS.osType),
    version: Text(RESPONSE_TEXT_LIMITS.osVersion),
    build: Type.Optional(Text(RESPONSE_TEXT_LIMITS.osBuild)),
  }),
  MAC: response('MAC', {
    macAddresses: Strings('as the device reports them', RESPONSE_TEXT_LIMITS.hexEntry),
  }),
  DOMAIN: response('DOMAIN', { domain: Text(RESPONSE_TEXT_LIMITS.domain) }),
  PROCESS: response('PROCESS', {
    path: Text(RESPONSE_TEXT_LIMITS.path),
    isRunning: Type.Optional(Type.Boolean({ description: 'left out: not running' })),
    hash: Type.Optional(Text(RESPONSE_TEXT_LIMITS.hash, 'sha256 or sha512 of the binary, hex')),
    signerFingerprints: Type.Optional(Strings('sha1 thumbprints, hex', RESPONSE_TEXT_LIMITS.hexEntry)),
  }),
  ENDPOINT_STATE: response('ENDPOINT_STATE', {
    woken: Type.Optional(Type.Boolean()),
    unlocked: Type.Optional(Type.Boolean()),
  }),
};
