/** The Windows and macOS generators: what their privileged services would run, checked as text (not executed here). */
import { describe, expect, it } from 'vitest';
import { buildSystemPlan } from '../../../src/agent/intercept/system/intercept-plan.js';
import {
  PF_ANCHOR,
  isPosternResolverFile,
  macosPlan,
  pfRules,
} from '../../../src/agent/intercept/system/macos-plan.js';
import { NRPT_TAG, psQuote, windowsPlan } from '../../../src/agent/intercept/system/windows-plan.js';

const plan = buildSystemPlan({
  services: [
    {
      name: 'wiki',
      intercept: {
        protocols: ['tcp'],
        addresses: ['*.corp', 'wiki.example'],
        portRanges: [{ low: 443, high: 443 }],
      },
    },
    {
      name: 'db',
      intercept: {
        protocols: ['tcp'],
        addresses: ['10.0.0.0/8', '192.0.2.9', 'fd00:9::/64'],
        portRanges: [
          { low: 5432, high: 5432 },
          { low: 5500, high: 5510 },
        ],
      },
    },
  ],
  bypass: ['10.1.0.9', '198.51.100.7'],
});

describe('windowsPlan', () => {
  const w = windowsPlan(plan);

  it('names the Wintun adapter Postern and gives it the resolver address in the active store only', () => {
    expect(w.adapter).toEqual({ name: 'Postern', tunnelType: 'Postern' });
    expect(w.apply[0]).toBe(
      "New-NetIPAddress -InterfaceAlias 'Postern' -IPAddress '100.64.0.2' -PrefixLength 32 -PolicyStore ActiveStore",
    );
  });

  it('adds one route per prefix, IPv4 and IPv6 alike, on the adapter', () => {
    const routes = w.apply.filter((l) => l.startsWith('New-NetRoute'));
    expect(routes).toEqual([
      "New-NetRoute -DestinationPrefix '10.0.0.0/8' -InterfaceAlias 'Postern' -PolicyStore ActiveStore -RouteMetric 0",
      "New-NetRoute -DestinationPrefix '100.64.0.0/10' -InterfaceAlias 'Postern' -PolicyStore ActiveStore -RouteMetric 0",
      "New-NetRoute -DestinationPrefix '192.0.2.9/32' -InterfaceAlias 'Postern' -PolicyStore ActiveStore -RouteMetric 0",
      "New-NetRoute -DestinationPrefix 'fd00:9::/64' -InterfaceAlias 'Postern' -PolicyStore ActiveStore -RouteMetric 0",
    ]);
  });

  it('keeps a router address inside an intercepted prefix on the way it had', () => {
    const pinned = w.apply.find((l) => l.includes("Find-NetRoute -RemoteIPAddress '10.1.0.9'"));
    expect(pinned).toContain(
      "New-NetRoute -DestinationPrefix '10.1.0.9/32' -InterfaceIndex $way.InterfaceIndex -NextHop $way.NextHop",
    );
    expect(w.remove).toContain(
      "Remove-NetRoute -DestinationPrefix '10.1.0.9/32' -PolicyStore ActiveStore -Confirm:$false -ErrorAction SilentlyContinue",
    );
  });

  it('sends each intercepted domain, and only those, to the resolver with a tagged NRPT rule, and removes by the tag', () => {
    expect(w.apply.filter((l) => l.startsWith('Add-DnsClientNrptRule'))).toEqual([
      `Add-DnsClientNrptRule -Namespace '.corp', 'corp' -NameServers '100.64.0.2' -Comment '${NRPT_TAG}'`,
      `Add-DnsClientNrptRule -Namespace '.wiki.example', 'wiki.example' -NameServers '100.64.0.2' -Comment '${NRPT_TAG}'`,
    ]);
    expect(w.remove[0]).toBe(
      `Get-DnsClientNrptRule | Where-Object { $_.Comment -eq '${NRPT_TAG}' } | ForEach-Object { Remove-DnsClientNrptRule -Name $_.Name -Force }`,
    );
    expect(w.remove).toContain(
      "Get-NetRoute -InterfaceAlias 'Postern' -ErrorAction SilentlyContinue | Remove-NetRoute -Confirm:$false",
    );
    expect(w.apply.at(-1)).toBe('Clear-DnsClientCache');
  });

  it('quotes for PowerShell so nothing inside a string is expanded', () => {
    expect(psQuote("it's $(x)")).toBe("'it''s $(x)'");
  });
});

describe('macosPlan', () => {
  const m = macosPlan(plan, { utun: 'utun5', listenPort: 15001 });

  it('routes prefixes with -net and single addresses with -host to the utun device, IPv6 with -inet6', () => {
    expect(m.addRoutes).toEqual([
      ['-n', 'add', '-net', '10.0.0.0/8', '-interface', 'utun5'],
      ['-n', 'add', '-net', '100.64.0.0/10', '-interface', 'utun5'],
      ['-n', 'add', '-host', '192.0.2.9', '-interface', 'utun5'],
      ['-n', 'add', '-inet6', '-net', 'fd00:9::/64', '-interface', 'utun5'],
    ]);
    expect(m.deleteRoutes[0]).toEqual(['-n', 'delete', '-net', '10.0.0.0/8', '-interface', 'utun5']);
    expect(m.pinnedLookups).toEqual([['-n', 'get', '10.1.0.9']]);
  });

  it('writes one marked /etc/resolver file per domain naming the resolver', () => {
    expect(m.resolverFiles.map((f) => f.path)).toEqual(['/etc/resolver/corp', '/etc/resolver/wiki.example']);
    const content = m.resolverFiles[0]!.content;
    expect(content).toMatch(/\nnameserver 100\.64\.0\.2\n$/);
    expect(isPosternResolverFile(content)).toBe(true);
    expect(isPosternResolverFile('nameserver 10.0.0.53\n')).toBe(false);
  });

  it('offers pf rules: bypass first, then outgoing intercepted TCP routed to lo0 and redirected there', () => {
    expect(pfRules(plan, 15001).split('\n')).toEqual([
      'rdr pass on lo0 inet proto tcp from any to { 10.0.0.0/8, 192.0.2.9/32 } port { 5432, 5500:5510 } -> 127.0.0.1 port 15001',
      'rdr pass on lo0 inet proto tcp from any to { 100.64.0.0/10 } port { 443 } -> 127.0.0.1 port 15001',
      'rdr pass on lo0 inet6 proto tcp from any to { fd00:9::/64 } port { 5432, 5500:5510 } -> ::1 port 15001',
      'pass out quick inet proto tcp from any to { 10.1.0.9/32, 100.64.0.2/32, 198.51.100.7/32 }',
      'pass out route-to (lo0 127.0.0.1) inet proto tcp from any to { 10.0.0.0/8, 192.0.2.9/32 } port { 5432, 5500:5510 } keep state',
      'pass out route-to (lo0 127.0.0.1) inet proto tcp from any to { 100.64.0.0/10 } port { 443 } keep state',
      'pass out route-to (lo0 ::1) inet6 proto tcp from any to { fd00:9::/64 } port { 5432, 5500:5510 } keep state',
      '',
    ]);
    expect(m.pf.load).toEqual([['-a', PF_ANCHOR, '-f', '-'], ['-E']]);
    expect(m.pf.unload).toEqual([['-a', 'com.apple/postern', '-F', 'all']]);
  });

  it('refuses a device name that is not utunN', () => {
    expect(() => macosPlan(plan, { utun: 'en0; rm', listenPort: 15001 })).toThrow(
      '"en0; rm" is not a utun device name',
    );
  });
});
