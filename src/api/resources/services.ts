/** Services on the management API: the create, PUT and PATCH bodies and the entity (`serviceDetail`). */
import { Type, type Static } from '@sinclair/typebox';
import { ServiceDetailSchema } from '../schemas.js';
import { Attributes, Name, Reference, Tags, writeBodies } from './fields.js';

const writable = {
  name: Name,
  roleAttributes: Type.Optional(Type.Union([Attributes, Type.Null()])),
  encryptionRequired: Type.Optional(Type.Boolean()),
  terminatorStrategy: Type.Optional(Type.String({ maxLength: 255 })),
  maxIdleTimeMillis: Type.Optional(Type.Integer({ minimum: 0 })),
  // null: none (`ziti edge create service` without --configs sends null)
  configs: Type.Optional(Type.Union([Type.Array(Reference, { maxItems: 100 }), Type.Null()])),
  tags: Type.Optional(Tags),
};
export const { create: ServiceCreate, patch: ServicePatch } = writeBodies(writable);
// Defined with the wire contract the agent shares (../schemas.ts), as the client API's services extend it.
export const ServiceDetail = ServiceDetailSchema;
export type ServiceWire = Static<typeof ServiceDetail>;
