/**
 * `config-types` and `configs` on the management API: bodies and entities. A config's `data` is checked
 * against its type's JSON schema by the controller, not here.
 */
import { Type, type Static } from '@sinclair/typebox';
import { BaseEntity, EntityRef, Name, Tags, writeBodies } from './fields.js';

const JsonObject = Type.Object({}, { additionalProperties: true });

const typeWritable = {
  name: Name,
  schema: Type.Optional(JsonObject),
  target: Type.Optional(Type.Union([Type.Literal('service'), Type.Literal('router'), Type.Null()])),
  tags: Type.Optional(Tags),
};
export const ConfigTypeBodies = writeBodies(typeWritable);
export const ConfigTypeDetail = Type.Object(
  {
    ...BaseEntity,
    name: Type.String(),
    schema: JsonObject,
    target: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: true },
);
export type ConfigTypeWire = Static<typeof ConfigTypeDetail>;

const configWritable = {
  name: Name,
  configTypeId: Type.String({ minLength: 1, maxLength: 255 }),
  data: JsonObject,
  tags: Type.Optional(Tags),
};
export const ConfigBodies = {
  ...writeBodies(configWritable),
  // A config's type is fixed at create; a PUT may repeat it.
  update: writeBodies({ ...configWritable, configTypeId: Type.Optional(configWritable.configTypeId) }).create,
};
export const ConfigDetail = Type.Object(
  {
    ...BaseEntity,
    name: Type.String(),
    configTypeId: Type.String(),
    configType: EntityRef,
    data: JsonObject,
  },
  { additionalProperties: true },
);
export type ConfigWire = Static<typeof ConfigDetail>;
