/**
 * Where the router dials a stream (edge-router/dial-target.ts): the service's fixed host.v1 target whatever the
 * client asked, or, for a forwarded part, what the client asked only within the allowed list; anything absent,
 * malformed or outside is refused with the reason.
 */
import { describe, expect, it } from 'vitest';
import type { HostV1 } from '../../../src/api/data-plane.js';
import {
  askedDestination,
  decideDialTarget,
  describeAsked,
  type AskedDestination,
} from '../../../edge-router/dial-target.js';

const fixed: HostV1 = { protocol: 'tcp', address: '10.0.0.5', port: 443 };
const forwarding: HostV1 = {
  forwardProtocol: true,
  allowedProtocols: ['tcp'],
  forwardAddress: true,
  allowedAddresses: ['10.1.0.0/16', 'fd00::/8', '192.0.2.7', 'Wiki.Corp', '*.corp.example'],
  forwardPort: true,
  allowedPortRanges: [
    { low: 80, high: 80 },
    { low: 8000, high: 8100 },
  ],
};
const asked = (address?: string, port?: string, protocol = 'tcp'): AskedDestination => ({
  address,
  port,
  protocol,
});
const reason = (host: HostV1, a: AskedDestination) => {
  const decision = decideDialTarget(host, a);
  return decision.kind === 'not-allowed' ? decision.reason : decision.kind;
};

describe('the dial target', () => {
  it('is the fixed target for a service that forwards nothing, whatever was asked', () => {
    const expected = { kind: 'dial', address: '10.0.0.5', port: 443 };
    expect(decideDialTarget(fixed, {})).toEqual(expected);
    expect(decideDialTarget(fixed, asked('169.254.169.254', '80'))).toEqual(expected);
    expect(decideDialTarget(fixed, asked('not an address!', 'x', 'sctp'))).toEqual(expected);
  });

  it('is no target for a fixed protocol other than tcp', () => {
    expect(decideDialTarget({ ...fixed, protocol: 'udp' }, asked('10.1.0.1', '80'))).toEqual({
      kind: 'no-tcp-host',
    });
  });

  it('is the asked destination when it lies within every forwarded list', () => {
    expect(decideDialTarget(forwarding, asked('10.1.200.3', '80'))).toEqual({
      kind: 'dial',
      address: '10.1.200.3',
      port: 80,
    });
    expect(decideDialTarget(forwarding, asked('fd12::1', '8080'))).toMatchObject({ address: 'fd12::1' });
    expect(decideDialTarget(forwarding, asked('192.0.2.7', '8100'))).toMatchObject({ port: 8100 });
    expect(decideDialTarget(forwarding, asked('wiki.corp', '8000'))).toMatchObject({ address: 'wiki.corp' });
    expect(decideDialTarget(forwarding, asked('A.Corp.Example', '80'))).toMatchObject({ kind: 'dial' });
  });

  it('forwards only the parts the service forwards', () => {
    const portOnly: HostV1 = {
      protocol: 'tcp',
      address: '10.0.0.5',
      forwardPort: true,
      allowedPortRanges: [{ low: 1, high: 1024 }],
    };
    expect(decideDialTarget(portOnly, asked('192.0.2.99', '22'))).toEqual({
      kind: 'dial',
      address: '10.0.0.5',
      port: 22,
    });
    const addressOnly: HostV1 = {
      protocol: 'tcp',
      port: 443,
      forwardAddress: true,
      allowedAddresses: ['10.0.0.0/8'],
    };
    expect(decideDialTarget(addressOnly, asked('10.9.9.9', '22'))).toEqual({
      kind: 'dial',
      address: '10.9.9.9',
      port: 443,
    });
  });

  it('refuses a destination outside the allowed lists, naming the part', () => {
    expect(reason(forwarding, asked('10.2.0.1', '80'))).toBe('10.2.0.1 is not in allowedAddresses');
    expect(reason(forwarding, asked('corp.example', '80'))).toBe('corp.example is not in allowedAddresses');
    expect(reason(forwarding, asked('evilcorp.example', '80'))).toMatch(/not in allowedAddresses/);
    expect(reason(forwarding, asked('10.1.0.1', '81'))).toBe('port 81 is not in allowedPortRanges');
    expect(reason(forwarding, asked('10.1.0.1', '8101'))).toMatch(/not in allowedPortRanges/);
    expect(reason({ ...forwarding, allowedProtocols: ['udp'] }, asked('10.1.0.1', '80'))).toBe(
      'protocol tcp is not in allowedProtocols',
    );
    expect(reason({ ...forwarding, allowedProtocols: ['tcp', 'udp'] }, asked('10.1.0.1', '80', 'udp'))).toBe(
      'only tcp is carried',
    );
  });

  it('judges an IPv4-mapped IPv6 address as the IPv4 address it connects to, and dials that', () => {
    // An IPv6 allowance must not be a way to the router's IPv4 loopback or any IPv4 outside the IPv4 lists.
    const anyIpv6: HostV1 = { ...forwarding, allowedAddresses: ['10.1.0.0/16', '::/0'] };
    for (const address of [
      '::ffff:127.0.0.1',
      '::FFFF:7f00:1',
      '0:0:0:0:0:ffff:a9fe:a9fe',
      '::ffff:10.2.0.1',
    ])
      expect(reason(anyIpv6, asked(address, '80')), address).toMatch(/is not in allowedAddresses/);
    expect(decideDialTarget(anyIpv6, asked('::ffff:10.1.2.3', '80'))).toEqual({
      kind: 'dial',
      address: '10.1.2.3',
      port: 80,
    });
    // Another spelling of an allowed IPv6 address is that address.
    const exact: HostV1 = { ...forwarding, allowedAddresses: ['fd00::1'] };
    expect(decideDialTarget(exact, asked('FD00:0:0::1', '80'))).toEqual({
      kind: 'dial',
      address: 'fd00::1',
      port: 80,
    });
  });

  it('refuses the unspecified address, which connects to the router itself, whatever range allows it', () => {
    const wide: HostV1 = { ...forwarding, allowedAddresses: ['0.0.0.0/1', '::/1'] };
    for (const address of ['0.0.0.0', '::', '0:0::0', '::ffff:0.0.0.0'])
      expect(reason(wide, asked(address, '80')), address).toBe(
        'the unspecified address (this host) is not a destination',
      );
  });

  it('refuses a forwarded part that was not asked or is malformed', () => {
    expect(reason(forwarding, asked(undefined, '80'))).toMatch(/no address was asked/);
    expect(reason(forwarding, asked('10.1.0.1', undefined))).toMatch(/no port was asked/);
    expect(reason(forwarding, { address: '10.1.0.1', port: '80' })).toMatch(/no protocol was asked/);
    for (const port of ['0', '65536', '080', '80 ', '-1', '1e2', ''])
      expect(reason(forwarding, asked('10.1.0.1', port)), port).toMatch(/not a port number/);
    // Not names: old IPv4 notations a resolver would read as an address, zones, brackets, junk, too long.
    for (const address of [
      '10.1.0.1.',
      '127.1',
      '0x7f.1',
      '2130706433',
      'fd00::1%eth0',
      '[fd00::1]',
      'a b',
      '',
      'a'.repeat(300),
    ])
      expect(reason(forwarding, asked(address, '80')), address).toMatch(/not an IP address or a host name/);
  });

  it('reads the headers as sent, a repeated one as no destination, and bounds them', () => {
    expect(
      askedDestination({
        'postern-dial-address': '10.1.0.1',
        'postern-dial-port': '80',
        'postern-dial-protocol': 'tcp',
      }),
    ).toEqual({ address: '10.1.0.1', port: '80', protocol: 'tcp' });
    expect(askedDestination({})).toEqual({});
    const repeated = askedDestination({
      'postern-dial-address': ['10.1.0.1', '10.1.0.2'] as unknown as string,
    });
    expect(reason(forwarding, { ...repeated, port: '80', protocol: 'tcp' })).toMatch(/not an IP address/);
    expect(askedDestination({ 'postern-dial-address': 'a'.repeat(10_000) }).address!.length).toBeLessThan(
      300,
    );
    expect(describeAsked(asked('fd00::1', '80'))).toBe('[fd00::1]:80/tcp');
    expect(describeAsked({})).toBe('-:-/-');
  });
});
