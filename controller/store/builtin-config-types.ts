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

/**
 * OpenZiti's `host.v1`: each of protocol, address and port is either fixed (`protocol`, `address`, `port`) or
 * forwarded from what the client asked (`forwardProtocol`, `forwardAddress`, `forwardPort`, which may only be
 * `true`), and then only within its allowed list (`allowedProtocols`, `allowedAddresses`, `allowedPortRanges`).
 * Allowed addresses are IPs, CIDRs, host names or `*.domain`; each is parsed, and each range's low <= high is
 * checked, in catalogue/configs/config-schemas.ts (a JSON schema cannot say either).
 */
const protocol = { type: 'string', enum: ['tcp', 'udp'] };
const onlyTrue = { type: 'boolean', enum: [true] };
const portRange = {
  type: 'object',
  required: ['low', 'high'],
  properties: { low: port, high: port },
  additionalProperties: false,
};
const allowedList = (items: object) => ({
  type: 'array',
  minItems: 1,
  maxItems: 256,
  uniqueItems: true,
  items,
});
/** `required: [then]` when `flag` is true, `required: [otherwise]` when it is absent. */
const eitherOr = (flag: string, then: string, otherwise: string) => ({
  if: { properties: { [flag]: { const: true } }, required: [flag] },
  then: { required: [then] },
  else: { required: [otherwise] },
});

export const HOST_V1_SCHEMA = {
  type: 'object',
  properties: {
    protocol,
    forwardProtocol: onlyTrue,
    allowedProtocols: allowedList(protocol),
    address,
    forwardAddress: onlyTrue,
    allowedAddresses: allowedList(address),
    port: { type: 'integer', minimum: 1, maximum: 65535 },
    forwardPort: onlyTrue,
    allowedPortRanges: allowedList(portRange),
    // OpenZiti's, kept as written: Postern's router does not use them.
    allowedSourceAddresses: { type: 'array', items: address },
    listenOptions: { type: 'object' },
    portChecks: { type: 'array' },
    httpChecks: { type: 'array' },
  },
  allOf: [
    eitherOr('forwardProtocol', 'allowedProtocols', 'protocol'),
    eitherOr('forwardAddress', 'allowedAddresses', 'address'),
    eitherOr('forwardPort', 'allowedPortRanges', 'port'),
  ],
  additionalProperties: true,
} as const;

export const BUILTIN_CONFIG_TYPES = [
  { id: 'g7cIWbcGg', name: 'intercept.v1', schema: INTERCEPT_V1_SCHEMA },
  { id: 'NH5p4FpGR', name: 'host.v1', schema: HOST_V1_SCHEMA },
] as const;

export const isBuiltinConfigType = (id: string) => BUILTIN_CONFIG_TYPES.some((t) => t.id === id);
