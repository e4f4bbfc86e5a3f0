/**
 * The built-in `host.v1` schema is OpenZiti's: each of protocol, address and port is fixed or forwarded (then
 * its allowed list is required), fields OpenZiti defines and Postern does not use are accepted, fields it does
 * not define are refused, and nothing beyond the schema is checked (OpenZiti checks nothing more). Each
 * refusal names the field, as the API's error envelope does. The whole comparison with OpenZiti's schema is
 * test/integration/host-v1-openziti-schema.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { assertConfigData, assertPortRanges } from '../../../controller/catalogue/configs/config-schemas.js';
import { HOST_V1_SCHEMA } from '../../../controller/store/builtin-config-types.js';
import type { ConfigType } from '../../../controller/model.js';

const hostV1: ConfigType = {
  id: 'NH5p4FpGR',
  name: 'host.v1',
  schema: HOST_V1_SCHEMA as unknown as Record<string, unknown>,
  target: 'service',
  tags: {},
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

/** The field the refusal names, or 'accepted'. */
function verdict(data: Record<string, unknown>): string {
  try {
    assertConfigData(hostV1, data);
    assertPortRanges('host.v1', data);
    return 'accepted';
  } catch (err) {
    return (err as { cause?: { field?: string } }).cause?.field ?? String(err);
  }
}

const fixed = { protocol: 'tcp', address: '10.0.0.5', port: 443 };
const forwarding = {
  forwardProtocol: true,
  allowedProtocols: ['tcp'],
  forwardAddress: true,
  allowedAddresses: ['10.0.0.0/8', 'fd00::/8', '192.0.2.7', 'wiki.corp', '*.corp.example'],
  forwardPort: true,
  allowedPortRanges: [
    { low: 80, high: 80 },
    { low: 8000, high: 8100 },
  ],
};

describe('host.v1 (OpenZiti schema)', () => {
  it('accepts a fixed target, a forwarding one, and a mix of both', () => {
    expect(verdict(fixed)).toBe('accepted');
    expect(verdict(forwarding)).toBe('accepted');
    expect(
      verdict({ protocol: 'tcp', forwardAddress: true, allowedAddresses: ['10.0.0.0/24'], port: 22 }),
    ).toBe('accepted');
  });

  it("keeps OpenZiti's fields Postern does not use", () => {
    expect(
      verdict({
        ...fixed,
        listenOptions: { connectTimeoutSeconds: 5, bindUsingEdgeIdentity: true },
        allowedSourceAddresses: ['10.9.0.0/16'],
        portChecks: [{ interval: '5s', timeout: '1s', address: '10.0.0.5:443' }],
        httpChecks: [],
      }),
    ).toBe('accepted');
    expect(verdict({ ...fixed, somethingNewer: { kept: true } })).toBe('data');
  });

  it('requires each part unless it is forwarded, and its allowed list when it is', () => {
    expect(verdict({ address: '10.0.0.5', port: 443 })).toBe('data.protocol');
    expect(verdict({ protocol: 'tcp', port: 443 })).toBe('data.address');
    expect(verdict({ protocol: 'tcp', address: '10.0.0.5' })).toBe('data.port');
    expect(verdict({ ...fixed, protocol: undefined, forwardProtocol: true })).toBe('data.allowedProtocols');
    expect(verdict({ ...fixed, address: undefined, forwardAddress: true })).toBe('data.allowedAddresses');
    expect(verdict({ ...fixed, port: undefined, forwardPort: true })).toBe('data.allowedPortRanges');
  });

  it('takes forward flags only as true (as OpenZiti does), and allowed lists only non-empty', () => {
    expect(verdict({ ...fixed, forwardAddress: false })).toBe('data.forwardAddress');
    expect(verdict({ ...fixed, forwardPort: 'yes' })).toBe('data.forwardPort');
    expect(verdict({ ...forwarding, allowedAddresses: [] })).toBe('data.allowedAddresses');
    expect(verdict({ ...forwarding, allowedProtocols: ['icmp'] })).toBe('data.allowedProtocols[0]');
    expect(verdict({ ...forwarding, allowedPortRanges: [{ low: 1, high: 70000 }] })).toBe(
      'data.allowedPortRanges[0].high',
    );
  });

  it('stores, as OpenZiti does, allowed addresses and ranges that can match nothing (the router matches none)', () => {
    for (const odd of ['10.0.0.0/33', '10.0.0.0/8/8', 'fd00::/129', 'not a name', '*.', 'a.*.corp', '127.1'])
      expect(verdict({ ...forwarding, allowedAddresses: ['10.0.0.0/8', odd] }), odd).toBe('accepted');
    expect(verdict({ ...forwarding, allowedPortRanges: [{ low: 90, high: 80 }] })).toBe('accepted');
    expect(verdict({ ...forwarding, allowedAddresses: ['10.0.0.0/8', ''] })).toBe('data.allowedAddresses[1]');
  });
});
