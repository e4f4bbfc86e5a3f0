/**
 * Posture responses on the client API (`POST /posture-response`, `/posture-response-bulk`): the bodies and
 * the reply, and each response type's fields, one schema per `typeId`, for the API documents
 * (`POSTURE_RESPONSE_DOCS`). Each item is validated by the controller (posture/response-items.ts), so a problem
 * names `[index].field` precisely; the limits here are the ones it enforces.
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { PostureResponseReplySchema } from '../schemas.js';
import { Text } from './texts.js';
import {
  POSTURE_TYPE_DESCRIPTORS,
  RESPONSE_TEXT_LIMITS,
  type PostureTypeDescriptor,
} from '../posture-types/index.js';

export const MAX_BULK_ITEMS = 1000;

/** Each text field's cap, enforced by the controller (posture/response-items.ts) and published below. */
export { RESPONSE_TEXT_LIMITS };

const open = { additionalProperties: true };

/** Loose on purpose: each item is validated in code so a problem names `[index].field` precisely. */
export const PostureResponseCreate = Type.Object(
  {
    id: Type.String({ description: 'the posture check (query) answered' }),
    typeId: Type.String({
      description: 'OS, MAC, DOMAIN, PROCESS, ENDPOINT_STATE, or a Postern type reporting a fact',
    }),
  },
  {
    ...open,
    description:
      'plus the fields of the typeId: OS {type, version, build}, MAC {macAddresses}, DOMAIN {domain}, PROCESS {path, isRunning, hash, signerFingerprints}, ENDPOINT_STATE {woken, unlocked}; DISK_ENCRYPTION {encrypted}, FIREWALL {enabled}, SCREEN_LOCK {lockEnabled, idleMinutes}',
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

const DESCRIPTORS: readonly PostureTypeDescriptor[] = POSTURE_TYPE_DESCRIPTORS;
const fields = (schema: TSchema) => (schema as TObject).properties;

/**
 * OpenZiti's response types (from the descriptors of the types they answer), ENDPOINT_STATE (which answers no
 * check), then each Postern type's reported fact.
 */
export const POSTURE_RESPONSE_DOCS: Record<string, TSchema> = {
  ...Object.fromEntries(
    DESCRIPTORS.flatMap((d) =>
      d.openZitiResponse
        ? [
            [
              d.openZitiResponse.typeId,
              response(d.openZitiResponse.typeId, fields(d.openZitiResponse.schema)),
            ],
          ]
        : [],
    ),
  ),
  ENDPOINT_STATE: response('ENDPOINT_STATE', {
    woken: Type.Optional(Type.Boolean()),
    unlocked: Type.Optional(Type.Boolean()),
  }),
  ...Object.fromEntries(
    DESCRIPTORS.flatMap((d) => (d.fact ? [[d.id, response(d.id, fields(d.fact.schema))]] : [])),
  ),
};
