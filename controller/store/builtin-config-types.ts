/**
 * The config types every controller has, with OpenZiti's ids and names: `intercept.v1` (how a client reaches a
 * service) and `host.v1` (where the hosting side dials it). Their schemas are what configs of these types
 * are validated against; fields OpenZiti defines and Postern does not use are accepted and kept.
 */
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

export const HOST_V1_SCHEMA = {
  type: 'object',
  required: ['protocol', 'address', 'port'],
  properties: {
    protocol: { type: 'string', enum: ['tcp', 'udp'] },
    address,
    port: { type: 'integer', minimum: 1, maximum: 65535 },
  },
  additionalProperties: true,
} as const;

export const BUILTIN_CONFIG_TYPES = [
  { id: 'g7cIWbcGg', name: 'intercept.v1', schema: INTERCEPT_V1_SCHEMA },
  { id: 'NH5p4FpGR', name: 'host.v1', schema: HOST_V1_SCHEMA },
] as const;

export const isBuiltinConfigType = (id: string) => BUILTIN_CONFIG_TYPES.some((t) => t.id === id);
