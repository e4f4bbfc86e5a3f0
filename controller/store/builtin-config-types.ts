/**
 * The config types every controller has, with OpenZiti's ids and names: `intercept.v1` (how a client reaches a
 * service) and `host.v1` (where the hosting side dials it). Their schemas are what configs of these types
 * are validated against; fields OpenZiti defines and Postern does not use are accepted and kept.
 */
import { OPENZITI_HOST_V1_SCHEMA } from './openziti-host-v1-schema.js';

const port = { type: 'integer', minimum: 0, maximum: 65535 };
const address = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^\\s]+$' };

export const INTERCEPT_V1_SCHEMA = {
  type: 'object',
  required: ['protocols', 'addresses', 'portRanges'],
  properties: {
    protocols: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string', enum: ['tcp', 'udp'] },
    },
    addresses: { type: 'array', minItems: 1, maxItems: 256, items: address },
    portRanges: {
      type: 'array',
      minItems: 1,
      maxItems: 256,
      items: {
        type: 'object',
        required: ['low', 'high'],
        properties: { low: port, high: port },
        additionalProperties: false,
      },
    },
    dialOptions: { type: 'object' },
    sourceIp: { type: 'string' },
  },
  additionalProperties: true,
} as const;

/**
 * OpenZiti's own `host.v1` schema (store/openziti-host-v1-schema.ts): each of protocol, address and port is fixed
 * (`protocol`, `address`, `port`) or forwarded from what the client asked (`forwardProtocol`, `forwardAddress`,
 * `forwardPort`, only `true`) within its allowed list; unknown fields are refused, as OpenZiti refuses them.
 */
export const HOST_V1_SCHEMA = OPENZITI_HOST_V1_SCHEMA;

export const BUILTIN_CONFIG_TYPES = [
  { id: 'g7cIWbcGg', name: 'intercept.v1', schema: INTERCEPT_V1_SCHEMA },
  { id: 'NH5p4FpGR', name: 'host.v1', schema: HOST_V1_SCHEMA },
] as const;

export const isBuiltinConfigType = (id: string) => BUILTIN_CONFIG_TYPES.some((t) => t.id === id);
