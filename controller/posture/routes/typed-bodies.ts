/**
 * Each posture check type's and posture response type's fields, one schema per `typeId`, for the API
 * documents (controller/http/openapi-documents.ts). Validation itself is the check modules' (posture/checks).
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { Attributes, Name, Tags } from '../../http/schemas.js';
import { OS_TYPES } from '../types.js';

const OsType = Type.Union(
  OS_TYPES.map((t) => Type.Literal(t)),
  { description: 'any case' },
);
const Strings = (description: string) => Type.Array(Type.String(), { description });
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
  path: Type.String({ description: 'absolute path of the binary' }),
  hashes: Type.Optional(Strings('allowed sha256 (64 hex) or sha512 (128 hex) digests of the binary')),
});

export const POSTURE_CHECK_DOCS: Record<string, TSchema> = {
  OS: check(
    'OS',
    {
      operatingSystems: Type.Array(
        Type.Object({ type: OsType, versions: Type.Optional(Strings('semver ranges, e.g. >=10.0.19041')) }),
        { description: 'one entry per OS type' },
      ),
    },
    'the device runs one of these operating systems, in one of its version ranges',
  ),
  MAC: check(
    'MAC',
    { macAddresses: Strings('aa:bb:cc:dd:ee:ff or AA-BB-...') },
    'the device has one of these MACs',
  ),
  DOMAIN: check(
    'DOMAIN',
    { domains: Strings('Windows domains, any case') },
    'the device is in one of these domains',
  ),
  PROCESS: check(
    'PROCESS',
    {
      process: Type.Object({
        ...processRule.properties,
        signerFingerprint: Type.Optional(Type.String({ description: 'sha1 thumbprint (40 hex)' })),
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
          signerFingerprints: Type.Optional(Strings('sha1 thumbprints (40 hex)')),
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
      id: Type.String({ description: 'the posture check (query) answered' }),
      typeId: Type.Literal(typeId),
      ...fields,
    },
    { title: `postureResponse${typeId}` },
  );

export const POSTURE_RESPONSE_DOCS: Record<string, TSchema> = {
  OS: response('OS', { type: Type.String(), version: Type.String(), build: Type.Optional(Type.String()) }),
  MAC: response('MAC', { macAddresses: Type.Array(Type.String()) }),
  DOMAIN: response('DOMAIN', { domain: Type.String() }),
  PROCESS: response('PROCESS', {
    path: Type.String(),
    isRunning: Type.Optional(Type.Boolean({ description: 'left out: not running' })),
    hash: Type.Optional(Type.String({ description: 'sha256 or sha512 of the binary, hex' })),
    signerFingerprints: Type.Optional(Type.Array(Type.String())),
  }),
  ENDPOINT_STATE: response('ENDPOINT_STATE', {
    woken: Type.Optional(Type.Boolean()),
    unlocked: Type.Optional(Type.Boolean()),
  }),
};
