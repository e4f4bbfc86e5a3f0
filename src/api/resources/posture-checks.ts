/**
 * Posture checks on the management API: the create, PUT and PATCH bodies, the entity, the read-only
 * `posture-check-types`, and each check type's own fields, one schema per `typeId`, for the API documents
 * (`POSTURE_CHECK_DOCS`), all read from the type descriptors (posture-types/). Those fields are validated by
 * the controller's check modules (posture/checks), which name the offending field precisely; the bodies here
 * check the envelope and refuse unknown fields.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Attributes, BaseEntity, DateTime, Name, Sentence, Tags, writeBodies } from './fields.js';
import { ENFORCEMENT_MODE_VALUES, POSTURE_CHECK_TYPES } from './vocabulary.js';
import {
  CHECK_TEXT_LIMITS,
  POSTURE_TYPE_DESCRIPTORS,
  type PostureTypeDescriptor,
} from '../posture-types/index.js';

const DESCRIPTORS: readonly PostureTypeDescriptor[] = POSTURE_TYPE_DESCRIPTORS;

/** How long each text a posture check body carries may be (posture-types/text-limits.ts). */
export { CHECK_TEXT_LIMITS };

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
  [...new Set(DESCRIPTORS.flatMap((d) => d.optionFields.map((f) => f.name)))].map((f) => [
    f,
    Type.Optional(Type.Unknown({ description: 'a field of the chosen typeId' })),
  ]),
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
  // Postern: the type's descriptor, so a console or a script can build a form and word reasons without
  // knowing the type in advance.
  displayName: Type.String({ description: 'Postern: the name consoles show' }),
  description: Type.String({ description: 'Postern: what a check of this type requires' }),
  extension: Type.Boolean({ description: "Postern: true for Postern's own types, unknown to OpenZiti" }),
  optionFields: Type.Array(
    Type.Object({
      name: Type.String(),
      label: Type.String(),
      help: Type.String(),
      required: Type.Boolean(),
      schema: Type.Unknown({ description: 'JSON Schema of the field' }),
    }),
    { description: "Postern: the check's own fields" },
  ),
  reasons: Type.Record(Type.String(), Type.String(), {
    description: 'Postern: each failure reason code of the type with its words for the user',
  }),
});

// ---- each type's fields, for the API documents ---------------------------------------------------------

const check = (d: PostureTypeDescriptor) =>
  Type.Object(
    {
      typeId: Type.Literal(d.id),
      name: d.id === 'MFA' ? Type.Optional(Name) : Name,
      roleAttributes: Type.Optional(Attributes),
      tags: Type.Optional(Tags),
      enforcement: Type.Optional(Enforcement),
      ...Object.fromEntries(
        d.optionFields.map((f) => [
          f.name,
          f.required
            ? { ...f.schema, description: f.help }
            : Type.Optional({ ...f.schema, description: f.help }),
        ]),
      ),
    },
    {
      title: `postureCheck${d.id}`,
      description: `${d.description}${d.openZiti ? '' : ' (a Postern extension)'}`,
    },
  );

export const POSTURE_CHECK_DOCS: Record<string, TSchema> = Object.fromEntries(
  DESCRIPTORS.map((d) => [d.id, check(d)]),
);
