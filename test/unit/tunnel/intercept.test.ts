import { describe, expect, it } from 'vitest';
import { matchIntercept } from '../../../src/agent/tunnel/intercept.js';

const intercept = (addresses: string[], low = 443, high = 443, protocols: ('tcp' | 'udp')[] = ['tcp']) => ({
  protocols,
  addresses,
  portRanges: [{ low, high }],
});

describe('intercept.v1 matching', () => {
  it('matches names without regard to case, and only within the port ranges', () => {
    expect(matchIntercept(intercept(['crm.internal']), 'CRM.Internal', 443)).toBe(true);
    expect(matchIntercept(intercept(['crm.internal']), 'crm.internal', 444)).toBe(false);
    expect(matchIntercept(intercept(['crm.internal']), 'crm.internal.evil', 443)).toBe(false);
    expect(matchIntercept(intercept(['crm.internal'], 8000, 8100), 'crm.internal', 8080)).toBe(true);
  });

  it('matches *. wildcards on sub-domains only', () => {
    const wild = intercept(['*.corp.example']);
    expect(matchIntercept(wild, 'a.corp.example', 443)).toBe(true);
    expect(matchIntercept(wild, 'a.b.corp.example', 443)).toBe(true);
    expect(matchIntercept(wild, 'corp.example', 443)).toBe(false);
    expect(matchIntercept(wild, 'evilcorp.example', 443)).toBe(false);
  });

  it('matches IPv4 and IPv6 addresses exactly or by CIDR', () => {
    expect(matchIntercept(intercept(['10.1.0.0/16']), '10.1.200.3', 443)).toBe(true);
    expect(matchIntercept(intercept(['10.1.0.0/16']), '10.2.0.1', 443)).toBe(false);
    expect(matchIntercept(intercept(['fd00::/8']), 'fd12::1', 443)).toBe(true);
    expect(matchIntercept(intercept(['fd00::/8']), '10.1.0.1', 443)).toBe(false);
    expect(matchIntercept(intercept(['192.0.2.7']), '192.0.2.7', 443)).toBe(true);
  });

  it('ignores configs that do not intercept tcp', () => {
    expect(matchIntercept(intercept(['crm.internal'], 443, 443, ['udp']), 'crm.internal', 443)).toBe(false);
  });
});
