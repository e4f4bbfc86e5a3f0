/**
 * Posture responses on the client API (`POST /posture-response`, `/posture-response-bulk`): the bodies and
 * the reply, and each response type's fields, one schema per `typeId`, for the API documents
 * (`POSTURE_RESPONSE_DOCS`). Each item is validated by the controller (posture/response-items.ts), so a problem
 * names `[index].field` precisely; the limits here are the ones it enforces.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { PostureResponseReplySchema } from '../schemas.js';
import { Strings, Text } from './texts.js';

export const MAX_BULK_ITEMS = 1000;

/** Each text field's cap, enforced by the controller (posture/response-items.ts) and published below. */
export const RESPONSE_TEXT_LIMITS = {
  id: 255,
  osType: 64,
  osVersion: 255,
  osBuild: 255,
  domain: 255,
  path: 4096,
  hash: 256,
  /** one MAC address or signer thumbprint, separators included */
  hexEntry: 256,
} as const;

const open = { additionalProperties: true };

/** Loose on purpose: each item is validated in code so a problem names `[index].field` precisely. */
export const PostureResponseCreate = Type.Object(
  {
    id: Type.String({ description: 'the posture check (query) answered' }),
    typeId: Type.String({ description: 'OS, MAC, DOMAIN, PROCESS or ENDPOINT_STATE' }),
  },
  {
    ...open,
    description:
      'plus the fields of the typeId: OS {type, version, build}, MAC {macAddresses}, DOMAIN {domain}, PROCESS {path, isRunning, hash, signerFingerprints}, ENDPOINT_STATE {woken, unlocked}',
  },
);
export const PostureResponseBulk = Type.Array(PostureResponseCreate, { maxItems: MAX_BULK_ITEMS });

export const PostureResponseReply = Type.Object({
  data: PostureResponseReplySchema,
  meta: Type.Object({}, open),
});

// ---- each type's fields, for the API documents ---------------------------------------------------------

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
