/**
 * OpenZiti's own `host.v1` schema, as its controller creates the type (github.com/openziti/ziti,
 * controller/db/migration_initialize.go; Apache-2.0, Copyright NetFoundry Inc.): Postern stores and answers
 * exactly this, so a config OpenZiti accepts is accepted here and one it refuses is refused, and ZAC's form for
 * the type is the one it draws for OpenZiti. test/integration/host-v1-openziti-schema.test.ts holds it beside
 * the copy in test/fixtures/openziti-config-types/. The formats it names are checked as OpenZiti checks them
 * (catalogue/configs/config-schemas.ts). What Postern's router does not use yet (health checks, listenOptions,
 * proxy, address translations, source addresses) is stored as written: docs/OPENZITI-COMPATIBILITY.md.
 */
const uint16 = 65535;
const ref = (name: string) => ({ $ref: `#/definitions/${name}` });
/** OpenZiti's `allOf(inhabitedSet, items)`: a non-empty array of distinct `item`s. */
const setOf = (item: string, description: string) => ({
  allOf: [ref('inhabitedSet'), { items: ref(item) }],
  description,
});
/** OpenZiti's `flag` / value pairs: with `flag: true` its allowed list is required, else the fixed value. */
const eitherOr = (flag: string, then: string, otherwise: string) => ({
  if: { properties: { [flag]: { const: true } }, required: [flag] },
  then: { required: [then] },
  else: { required: [otherwise] },
});
const onlyTrue = (description: string) => ({ type: 'boolean', enum: [true], description });

const healthCheckDefinitions = {
  duration: { type: 'string', pattern: '[0-9]+(h|m|s|ms)' },
  method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH'] },
  action: {
    type: 'object',
    additionalProperties: false,
    required: ['trigger', 'action'],
    properties: {
      trigger: { type: 'string', enum: ['fail', 'pass', 'change'] },
      consecutiveEvents: { type: 'integer', minimum: 0, maximum: uint16 },
      duration: ref('duration'),
      action: {
        type: 'string',
        pattern: '(mark (un)?healthy|increase cost [0-9]+|decrease cost [0-9]+|send event)',
      },
    },
  },
  actionList: { type: 'array', items: ref('action'), minItems: 1, maxItems: 20 },
  portCheck: {
    type: 'object',
    additionalProperties: false,
    required: ['interval', 'timeout', 'address'],
    properties: {
      interval: ref('duration'),
      timeout: ref('duration'),
      address: { type: 'string' },
      actions: ref('actionList'),
    },
  },
  httpCheck: {
    type: 'object',
    additionalProperties: false,
    required: ['interval', 'timeout', 'url'],
    properties: {
      url: { type: 'string' },
      method: ref('method'),
      body: { type: 'string' },
      interval: ref('duration'),
      timeout: ref('duration'),
      actions: ref('actionList'),
      expectStatus: { type: 'integer', minimum: 100, maximum: 599 },
      expectInBody: { type: 'string' },
    },
  },
  portCheckList: { type: 'array', items: ref('portCheck') },
  httpCheckList: { type: 'array', items: ref('httpCheck') },
};

const translation = (format: 'ipv4' | 'ipv6', maxPrefix: number) => ({
  type: 'object',
  additionalProperties: false,
  properties: {
    from: { type: 'string', format },
    to: { type: 'string', format },
    prefixLength: { type: 'integer', minimum: 0, maximum: maxPrefix },
  },
});

const tunnelDefinitions = {
  dialAddress: { type: 'string', format: 'idn-hostname', not: { pattern: '^$' } },
  listenAddress: {
    type: 'string',
    format: 'idn-hostname',
    not: { pattern: '^$' },
    description:
      "idn-hostname allows ipv4 and ipv6 addresses, as well as hostnames that might happen to contain '*' and/or '/'. so idn-hostname allows every supported intercept address, although ip addresses, wildcards and cidrs are only being validated as hostnames by this format. client applications will need to look for _valid_ ips, cidrs, and wildcards when parsing intercept addresses and treat them accordingly. anything else should be interpreted as a dns label. this means e.g. that '1.2.3.4/56' should be treated as a dns label, since it is not a valid cidr",
  },
  inhabitedSet: { type: 'array', minItems: 1, uniqueItems: true },
  portNumber: { type: 'integer', minimum: 0, maximum: uint16 },
  portRange: {
    type: 'object',
    additionalProperties: false,
    properties: { low: ref('portNumber'), high: ref('portNumber') },
    required: ['low', 'high'],
  },
  protocolName: { type: 'string', enum: ['tcp', 'udp'] },
  timeoutSeconds: { type: 'integer', minimum: 0, maximum: 2147483647 },
  proxyType: { type: 'string', enum: ['http'], description: 'supported proxy types' },
  proxyConfiguration: {
    type: 'object',
    required: ['type', 'address'],
    properties: {
      type: { ...ref('proxyType'), description: 'The type of the proxy being used' },
      address: { type: 'string', description: 'The address of the proxy in host:port format' },
    },
  },
  ipv4AddressTranslation: translation('ipv4', 32),
  ipv6AddressTranslation: translation('ipv6', 128),
  addressTranslation: { oneOf: [ref('ipv4AddressTranslation'), ref('ipv6AddressTranslation')] },
};

const listenOptions = {
  type: 'object',
  additionalProperties: false,
  properties: {
    connectTimeoutSeconds: {
      ...ref('timeoutSeconds'),
      description:
        'Timeout when making outbound connections. Defaults to 5. If both connectTimoutSeconds and connectTimeout are specified, connectTimeout will be used.',
      deprecated: true,
    },
    connectTimeout: {
      ...ref('duration'),
      description:
        "Timeout when making outbound connections. Defaults to '5s'. If both connectTimoutSeconds and connectTimeout are specified, connectTimeout will be used.",
    },
    maxConnections: { type: 'integer', minimum: 1, description: 'defaults to 3' },
    identity: {
      type: 'string',
      description:
        "Associate the hosting terminator with the specified identity. '$tunneler_id.name' resolves to the name of the hosting tunneler's identity. '$tunneler_id.tag[tagName]' resolves to the value of the 'tagName' tag on the hosting tunneler's identity.",
    },
    bindUsingEdgeIdentity: {
      type: 'boolean',
      description:
        "Associate the hosting terminator with the name of the hosting tunneler's identity. Setting this to 'true' is equivalent to setting 'identiy=$tunneler_id.name'",
    },
    bindUsingEdgeIdentityWildcard: {
      type: 'boolean',
      description:
        "Associate the hosting terminator with the name of the hosting tunneler's identity using wildcard subdomain matching. The terminator will match requests for the identity name and any subdomain of it.",
    },
    cost: { type: 'integer', minimum: 0, maximum: 65535, description: 'defaults to 0' },
    precedence: {
      type: 'string',
      enum: ['default', 'required', 'failed'],
      description: "defaults to 'default'",
    },
  },
};

export const OPENZITI_HOST_V1_SCHEMA = {
  $id: 'http://ziti-edge.netfoundry.io/schemas/host.v1.schema.json',
  definitions: { ...healthCheckDefinitions, ...tunnelDefinitions },
  type: 'object',
  properties: {
    portChecks: ref('portCheckList'),
    httpChecks: ref('httpCheckList'),
    protocol: {
      ...ref('protocolName'),
      description: 'Dial the specified protocol when a ziti client connects to the service.',
    },
    forwardProtocol: onlyTrue(
      "Dial the same protocol that was intercepted at the client tunneler. 'protocol' and 'forwardProtocol' are mutually exclusive.",
    ),
    allowedProtocols: setOf('protocolName', 'Only allow protocols from this set to be dialed'),
    address: {
      ...ref('dialAddress'),
      description: 'Dial the specified ip address or hostname when a ziti client connects to the service.',
    },
    forwardAddress: onlyTrue(
      "Dial the same ip address that was intercepted at the client tunneler. 'address' and 'forwardAddress' are mutually exclusive.",
    ),
    allowedAddresses: setOf('listenAddress', 'Only allow addresses from this set to be dialed'),
    forwardAddressTranslations: setOf(
      'addressTranslation',
      'Translate forwarded addresses according to this table',
    ),
    port: {
      ...ref('portNumber'),
      description: 'Dial the specified port when a ziti client connects to the service.',
    },
    forwardPort: onlyTrue(
      "Dial the same port that was intercepted at the client tunneler. 'port' and 'forwardPort' are mutually exclusive.",
    ),
    allowedPortRanges: setOf('portRange', 'Only allow ports from this set to be dialed'),
    allowedSourceAddresses: setOf(
      'listenAddress',
      'hosting tunnelers establish local routes for the specified source addresses so binding will succeed',
    ),
    listenOptions,
    proxy: {
      ...ref('proxyConfiguration'),
      description: 'If defined, outgoing connections will be send through this proxy server',
    },
  },
  additionalProperties: false,
  allOf: [
    eitherOr('forwardProtocol', 'allowedProtocols', 'protocol'),
    eitherOr('forwardAddress', 'allowedAddresses', 'address'),
    eitherOr('forwardPort', 'allowedPortRanges', 'port'),
  ],
};
