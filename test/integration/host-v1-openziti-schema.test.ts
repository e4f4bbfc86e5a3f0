/**
 * `host.v1` is validated by OpenZiti's own schema: test/fixtures/openziti-config-types/host.v1.schema.json (as an
 * OpenZiti controller creates the type; NOTICE.md there gives its source and license), compiled here by an
 * independent validator with OpenZiti's format rules, judges each config of a corpus; a real controller must
 * accept (201) exactly those it accepts and refuse (400 naming a field under `data`, nothing stored) exactly
 * those it refuses, and answer the schema itself on GET /config-types.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { Ajv } from 'ajv';
import { Api, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';

const FIXTURE = new URL('../fixtures/openziti-config-types/host.v1.schema.json', import.meta.url);
const openZitiSchema = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, unknown>;

/** OpenZiti's validator (gojsonschema v1.2): Go's IP parse with the separator, unknown formats pass. */
function openZitiAccepts(): (data: unknown) => boolean {
  const reference = new Ajv({ strict: false, allErrors: true });
  reference.addFormat('ipv4', (s: string) => isIP(s) !== 0 && s.includes('.') && !s.includes('%'));
  reference.addFormat('ipv6', (s: string) => isIP(s) !== 0 && s.includes(':') && !s.includes('%'));
  reference.addFormat('idn-hostname', true);
  const validate = reference.compile(openZitiSchema);
  return (data) => validate(data) === true;
}

const fixed = { protocol: 'tcp', address: '10.0.0.5', port: 443 };
const forwarding = {
  forwardProtocol: true,
  allowedProtocols: ['tcp', 'udp'],
  forwardAddress: true,
  allowedAddresses: ['10.0.0.0/8', '*.corp.example', 'wiki.corp'],
  forwardPort: true,
  allowedPortRanges: [{ low: 80, high: 8080 }],
};

/** Configs an administrator (or ZAC's host.v1 form) may send; the fixture decides each one. */
const CORPUS: Record<string, Record<string, unknown>> = {
  'fixed target': fixed,
  'forwarding everything': forwarding,
  "ZAC's Simple Service host config": {
    address: '127.0.0.1',
    port: 8080,
    forwardProtocol: true,
    allowedProtocols: ['tcp'],
  },
  'port 0': { ...fixed, port: 0 },
  'port 65535': { ...fixed, port: 65535 },
  'port 65536': { ...fixed, port: 65536 },
  'port as text': { ...fixed, port: '443' },
  'port 1.5': { ...fixed, port: 1.5 },
  'address with a space': { ...fixed, address: 'not a host name' },
  'empty address': { ...fixed, address: '' },
  'no protocol': { address: '10.0.0.5', port: 443 },
  'protocol icmp': { ...fixed, protocol: 'icmp' },
  'forwardProtocol without its list': { address: '10.0.0.5', port: 443, forwardProtocol: true },
  'forwardProtocol false': { ...fixed, forwardProtocol: false },
  'protocol and forwardProtocol both': { ...fixed, forwardProtocol: true, allowedProtocols: ['tcp'] },
  'empty allowedProtocols': { ...forwarding, allowedProtocols: [] },
  'repeated allowedProtocols': { ...forwarding, allowedProtocols: ['tcp', 'tcp'] },
  'allowed address that is no address': { ...forwarding, allowedAddresses: ['1.2.3.4/56', 'under_score!'] },
  'empty allowed address': { ...forwarding, allowedAddresses: [''] },
  'range low above high': { ...forwarding, allowedPortRanges: [{ low: 9000, high: 80 }] },
  'range without high': { ...forwarding, allowedPortRanges: [{ low: 80 }] },
  'range with an extra field': { ...forwarding, allowedPortRanges: [{ low: 80, high: 80, step: 1 }] },
  'unknown top-level field': { ...fixed, somethingNewer: true },
  'listenOptions in full': {
    ...fixed,
    listenOptions: {
      connectTimeoutSeconds: 5,
      connectTimeout: '5s',
      maxConnections: 3,
      identity: '$tunneler_id.name',
      bindUsingEdgeIdentity: false,
      bindUsingEdgeIdentityWildcard: false,
      cost: 10,
      precedence: 'required',
    },
  },
  'listenOptions with a typo': { ...fixed, listenOptions: { maxConnection: 3 } },
  'listenOptions precedence unknown': { ...fixed, listenOptions: { precedence: 'best' } },
  'listenOptions maxConnections 0': { ...fixed, listenOptions: { maxConnections: 0 } },
  'listenOptions cost above 65535': { ...fixed, listenOptions: { cost: 70000 } },
  'http proxy': { ...fixed, proxy: { type: 'http', address: 'proxy.corp:3128' } },
  'socks proxy': { ...fixed, proxy: { type: 'socks5', address: 'proxy.corp:1080' } },
  'proxy without address': { ...fixed, proxy: { type: 'http' } },
  'source addresses': { ...fixed, allowedSourceAddresses: ['10.9.0.0/16', 'client.corp'] },
  'empty source addresses': { ...fixed, allowedSourceAddresses: [] },
  'ipv4 translation': {
    ...forwarding,
    forwardAddressTranslations: [{ from: '10.0.0.0', to: '172.16.0.0', prefixLength: 16 }],
  },
  'ipv6 translation': {
    ...forwarding,
    forwardAddressTranslations: [{ from: 'fd00::', to: 'fd01::', prefixLength: 64 }],
  },
  'translation from no IP': {
    ...forwarding,
    forwardAddressTranslations: [{ from: 'wiki.corp', to: '10.0.0.1' }],
  },
  'translation prefix 33 (an ipv4 one)': {
    ...forwarding,
    forwardAddressTranslations: [{ from: '10.0.0.0', to: '172.16.0.0', prefixLength: 33 }],
  },
  'port check': {
    ...fixed,
    portChecks: [
      {
        interval: '5s',
        timeout: '500ms',
        address: '10.0.0.5:443',
        actions: [{ trigger: 'fail', action: 'mark unhealthy' }],
      },
    ],
  },
  'port check without interval': { ...fixed, portChecks: [{ timeout: '1s', address: '10.0.0.5:443' }] },
  'http check': {
    ...fixed,
    httpChecks: [
      { url: 'https://10.0.0.5/health', method: 'GET', interval: '1m', timeout: '2s', expectStatus: 200 },
    ],
  },
  'http check with status 99': {
    ...fixed,
    httpChecks: [{ url: 'https://10.0.0.5/health', interval: '1m', timeout: '2s', expectStatus: 99 }],
  },
  'http check action unknown': {
    ...fixed,
    httpChecks: [
      { url: 'http://x/', interval: '1m', timeout: '2s', actions: [{ trigger: 'fail', action: 'reboot' }] },
    ],
  },
  'health check duration in days': {
    ...fixed,
    portChecks: [{ interval: '1d', timeout: '1s', address: 'x:1' }],
  },
};

let tc: TestController;
let admin: Api;
let hostTypeId = '';
beforeAll(async () => {
  tc = await startTestController();
  admin = new Api(tc.url);
  expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
  const types = await admin.get(`${MGMT}/config-types?filter=${encodeURIComponent('name = "host.v1"')}`);
  hostTypeId = types.body.data[0].id as string;
});
afterAll(async () => {
  await tc?.dispose();
});

describe("host.v1 by OpenZiti's own schema", () => {
  it('answers the schema OpenZiti stores for the type', async () => {
    expect(hostTypeId).toBe('NH5p4FpGR');
    const type = await admin.get(`${MGMT}/config-types/${hostTypeId}`);
    expect(type.status).toBe(200);
    expect(type.body.data.schema).toEqual(openZitiSchema);
  });

  it('accepts every config OpenZiti accepts and refuses every one it refuses, storing nothing then', async () => {
    const accepts = openZitiAccepts();
    const verdicts = Object.entries(CORPUS).map(([label, data]) => ({ label, accepted: accepts(data) }));
    // The corpus holds both kinds, and what OpenZiti decides for the cases Postern once decided otherwise.
    const decided = Object.fromEntries(verdicts.map((v) => [v.label, v.accepted]));
    expect(decided).toMatchObject({
      'fixed target': true,
      'port 0': true,
      'address with a space': true,
      'range low above high': true,
      'allowed address that is no address': true,
      'unknown top-level field': false,
      'listenOptions with a typo': false,
      'proxy without address': false,
      'translation from no IP': false,
    });

    const mismatches: string[] = [];
    for (const [i, { label, accepted }] of verdicts.entries()) {
      const name = `host-v1-case-${i}`;
      const res = await admin.post(`${MGMT}/configs`, {
        name,
        configTypeId: hostTypeId,
        data: CORPUS[label],
      });
      const stored = await admin.get(`${MGMT}/configs?filter=${encodeURIComponent(`name = "${name}"`)}`);
      const field = String(res.body?.error?.cause?.field ?? '');
      const asOpenZiti = accepted
        ? res.status === 201 && stored.body.meta.pagination.totalCount === 1
        : res.status === 400 && field.startsWith('data') && stored.body.meta.pagination.totalCount === 0;
      if (!asOpenZiti)
        mismatches.push(
          `${label}: OpenZiti ${accepted ? 'accepts' : 'refuses'}, Postern ${res.status} ${field}`,
        );
    }
    expect(mismatches).toEqual([]);
  });

  it('keeps what it does not implement as written, and answers it back', async () => {
    const data = {
      ...forwarding,
      listenOptions: { precedence: 'failed', cost: 3 },
      proxy: { type: 'http', address: 'proxy.corp:3128' },
      forwardAddressTranslations: [{ from: '10.0.0.0', to: '172.16.0.0', prefixLength: 16 }],
      allowedSourceAddresses: ['10.9.0.0/16'],
      httpChecks: [{ url: 'https://10.0.0.5/health', interval: '1m', timeout: '2s' }],
    };
    const made = await admin.post(`${MGMT}/configs`, {
      name: 'host-v1-kept',
      configTypeId: hostTypeId,
      data,
    });
    expect(made.status).toBe(201);
    const read = await admin.get(`${MGMT}/configs/${made.body.data.id}`);
    expect(read.body.data.data).toEqual(data);
  });
});
