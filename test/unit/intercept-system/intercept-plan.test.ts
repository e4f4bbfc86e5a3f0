import { describe, expect, it } from 'vitest';
import type { InterceptV1 } from '../../../src/api/data-plane.js';
import { cidrText, coveringCidrs, parseCidr } from '../../../src/agent/intercept/system/cidr.js';
import {
  type InterceptedService,
  buildSystemPlan,
  mergePortRanges,
  withBypass,
} from '../../../src/agent/intercept/system/intercept-plan.js';

const service = (
  name: string,
  addresses: string[],
  portRanges: { low: number; high: number }[],
  protocols: InterceptV1['protocols'] = ['tcp'],
): InterceptedService => ({ name, intercept: { protocols, addresses, portRanges } });

describe('prefixes', () => {
  it('reads single addresses as /32 and /128, clears host bits, prints the canonical form', () => {
    expect(cidrText(parseCidr('10.1.2.3')!)).toBe('10.1.2.3/32');
    expect(cidrText(parseCidr('10.1.2.3/16')!)).toBe('10.1.0.0/16');
    expect(cidrText(parseCidr('FD00:0009:0000:0000:0000:0000:0000:0005')!)).toBe('fd00:9::5/128');
    expect(cidrText(parseCidr('fd00:9::1234/64')!)).toBe('fd00:9::/64');
    expect(cidrText(parseCidr('::ffff:10.0.0.1')!)).toBe('::ffff:a00:1/128');
    expect(cidrText(parseCidr('2001:db8:0:0:1:0:0:1')!)).toBe('2001:db8::1:0:0:1/128');
    expect(cidrText(parseCidr('0.0.0.0/0')!)).toBe('0.0.0.0/0');
  });

  it('refuses what is not a prefix', () => {
    for (const text of [
      'wiki.corp',
      '10.1.2.3/33',
      'fd00::/129',
      '10.1.2/8',
      '10.0.0.0/8/1',
      '10.0.0.0/x',
      '',
    ])
      expect(parseCidr(text), text).toBeUndefined();
  });

  it('keeps only the prefixes not covered by another', () => {
    const list = ['10.1.0.0/16', '10.0.0.0/8', '10.0.0.0/8', '192.168.1.5', 'fd00::/8', 'fd00:9::/64'].map(
      (t) => parseCidr(t)!,
    );
    expect(coveringCidrs(list).map(cidrText)).toEqual(['10.0.0.0/8', '192.168.1.5/32', 'fd00::/8']);
  });
});

describe('port ranges', () => {
  it('merges overlapping and touching ranges and sorts them', () => {
    expect(
      mergePortRanges([
        { low: 8000, high: 8010 },
        { low: 443, high: 443 },
        { low: 1, high: 5 },
        { low: 4, high: 9 },
        { low: 10, high: 10 },
        { low: 80, high: 80 },
      ]),
    ).toEqual([
      { low: 1, high: 10 },
      { low: 80, high: 80 },
      { low: 443, high: 443 },
      { low: 8000, high: 8010 },
    ]);
  });
});

describe('buildSystemPlan', () => {
  it('routes every destination and the name pool, groups rules by ports, lists the resolver domains', () => {
    const plan = buildSystemPlan({
      services: [
        service('wiki', ['*.corp', 'Wiki.Example.'], [{ low: 443, high: 443 }]),
        service('git', ['git.corp', '10.1.0.0/16'], [{ low: 443, high: 443 }]),
        service(
          'db',
          ['10.1.2.3', 'fd00:9::/64'],
          [
            { low: 5500, high: 5510 },
            { low: 5432, high: 5432 },
            { low: 5505, high: 5520 },
          ],
        ),
      ],
      bypass: ['198.51.100.7', '2001:db8::7'],
    });
    expect(plan.routes).toEqual(['10.1.0.0/16', '100.64.0.0/10', 'fd00:9::/64']);
    expect(plan.redirects).toEqual([
      {
        family: 4,
        destinations: ['10.1.0.0/16', '100.64.0.0/10'],
        ports: [{ low: 443, high: 443 }],
        services: ['git', 'wiki'],
      },
      {
        family: 4,
        destinations: ['10.1.2.3/32'],
        ports: [
          { low: 5432, high: 5432 },
          { low: 5500, high: 5520 },
        ],
        services: ['db'],
      },
      {
        family: 6,
        destinations: ['fd00:9::/64'],
        ports: [
          { low: 5432, high: 5432 },
          { low: 5500, high: 5520 },
        ],
        services: ['db'],
      },
    ]);
    expect(plan.bypass).toEqual(['100.64.0.2/32', '198.51.100.7/32', '2001:db8::7/128']);
    expect(plan.pinned).toEqual([]);
    // git.corp is inside corp: one routing domain covers both.
    expect(plan.resolver).toEqual({ address: '100.64.0.2', domains: ['corp', 'wiki.example'] });
    expect(plan.link).toEqual({ name: 'postern0', address: '100.64.0.2' });
    expect(plan.skipped).toEqual([]);
  });

  it('merges the ports of rules with the same destinations', () => {
    const plan = buildSystemPlan({
      services: [
        service('a', ['10.9.0.0/16'], [{ low: 80, high: 80 }]),
        service('b', ['10.9.0.0/16'], [{ low: 81, high: 90 }]),
      ],
      bypass: [],
    });
    expect(plan.redirects).toEqual([
      { family: 4, destinations: ['10.9.0.0/16'], ports: [{ low: 80, high: 90 }], services: ['a', 'b'] },
    ]);
  });

  it('pins a controller or router address that an intercepted prefix covers', () => {
    const plan = buildSystemPlan({
      services: [service('lan', ['10.0.0.0/8', 'fd00::/16'], [{ low: 1, high: 65535 }])],
      bypass: ['10.1.2.3', '192.0.2.1', 'fd00:1::9'],
    });
    expect(plan.pinned).toEqual(['10.1.2.3/32', 'fd00:1::9/128']);
  });

  it('leaves out a bad service with the reason naming it, and plans the others', () => {
    const good = service('good', ['10.2.0.0/16'], [{ low: 22, high: 22 }]);
    const cases: [InterceptedService, string][] = [
      [
        service('udp-only', ['10.3.0.0/16'], [{ low: 53, high: 53 }], ['udp']),
        'service "udp-only": intercepts no TCP',
      ],
      [
        service('zero', ['10.3.0.0/16'], [{ low: 0, high: 80 }]),
        'service "zero": port range 0-80 is outside 1-65535',
      ],
      [
        service('big', ['10.3.0.0/16'], [{ low: 1, high: 65536 }]),
        'service "big": port range 1-65536 is outside',
      ],
      [
        service('upside', ['10.3.0.0/16'], [{ low: 90, high: 80 }]),
        'service "upside": port range 90-80 has its low end above',
      ],
      [
        service('half', ['10.3.0.0/16'], [{ low: 1.5, high: 80 }]),
        'service "half": port range 1.5-80 is not two whole numbers',
      ],
      [service('none', ['10.3.0.0/16'], []), 'service "none": has no port ranges'],
      [service('nowhere', [], [{ low: 80, high: 80 }]), 'service "nowhere": has no addresses'],
      [
        service('typo', ['10.3.0.0/33'], [{ low: 80, high: 80 }]),
        'service "typo": address "10.3.0.0/33" is neither',
      ],
      [
        service('spaces', ['bad name.corp'], [{ low: 80, high: 80 }]),
        'service "spaces": address "bad name.corp"',
      ],
      [service('star', ['*'], [{ low: 80, high: 80 }]), 'service "star": address "*"'],
    ];
    for (const [bad, reason] of cases) {
      const plan = buildSystemPlan({ services: [bad, good], bypass: [] });
      expect(plan.skipped, bad.name).toHaveLength(1);
      expect(plan.skipped[0]!.service).toBe(bad.name);
      expect(plan.skipped[0]!.reason).toContain(reason);
      expect(plan.redirects.map((r) => r.services)).toEqual([['good']]);
    }
  });

  it('adds the upstream DNS servers to the bypass, pinning those an intercepted prefix covers', () => {
    const plan = buildSystemPlan({
      services: [service('lan', ['10.0.0.0/8', 'fd00::/16'], [{ low: 53, high: 53 }])],
      bypass: ['192.0.2.1'],
    });
    const more = withBypass(plan, ['10.9.9.9', '192.0.2.53', 'fd00::53', 'fe80::1%eth0', 'not-an-address']);
    expect(more.bypass).toEqual([
      '10.9.9.9/32',
      '100.64.0.2/32',
      '192.0.2.1/32',
      '192.0.2.53/32',
      'fd00::53/128',
      'fe80::1/128',
    ]);
    expect(more.pinned).toEqual(['10.9.9.9/32', 'fd00::53/128']);
    expect(more.redirects).toEqual(plan.redirects);
    expect(more.routes).toEqual(plan.routes);
  });

  it('refuses a bypass address that is not one', () => {
    expect(() => buildSystemPlan({ services: [], bypass: ['router.example'] })).toThrow(
      'bypass address "router.example" is not an IP address or prefix',
    );
  });

  it('with no services still routes the pool (the resolver lives there) and has no rules', () => {
    const plan = buildSystemPlan({ services: [], bypass: [] });
    expect(plan.routes).toEqual(['100.64.0.0/10']);
    expect(plan.redirects).toEqual([]);
    expect(plan.resolver.domains).toEqual([]);
  });
});
