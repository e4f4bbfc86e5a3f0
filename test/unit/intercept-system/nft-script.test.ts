import { describe, expect, it } from 'vitest';
import { buildSystemPlan } from '../../../src/agent/intercept/system/intercept-plan.js';
import {
  NFT_DELETE_SCRIPT,
  nftCommentText,
  nftScript,
} from '../../../src/agent/intercept/system/nft-script.js';

const plan = buildSystemPlan({
  services: [
    {
      name: 'wiki',
      intercept: { protocols: ['tcp'], addresses: ['*.corp'], portRanges: [{ low: 443, high: 443 }] },
    },
    {
      name: 'db "main"',
      intercept: {
        protocols: ['tcp'],
        addresses: ['10.1.0.0/16', 'fd00:9::/64'],
        portRanges: [
          { low: 5432, high: 5432 },
          { low: 5500, high: 5510 },
        ],
      },
    },
  ],
  bypass: ['198.51.100.7', '2001:db8::7'],
});

describe('nftScript', () => {
  it('replaces the whole table in one script: create if missing, delete, write anew', () => {
    const lines = nftScript(plan, 15001).split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'table inet postern {}',
      'delete table inet postern',
      'table inet postern {',
    ]);
    expect(lines.filter((l) => l.startsWith('table ') || l.startsWith('delete '))).toHaveLength(3);
  });

  it('returns the bypass addresses first, then redirects each rule to the listener, then refuses the rest', () => {
    expect(nftScript(plan, 15001)).toBe(
      [
        'table inet postern {}',
        'delete table inet postern',
        'table inet postern {',
        '  set bypass4 {',
        '    type ipv4_addr',
        '    flags interval',
        '    elements = { 100.64.0.2/32, 198.51.100.7/32 }',
        '  }',
        '  set bypass6 {',
        '    type ipv6_addr',
        '    flags interval',
        '    elements = { 2001:db8::7/128 }',
        '  }',
        '  chain output {',
        '    type nat hook output priority -100; policy accept;',
        '    ip daddr @bypass4 return',
        '    ip6 daddr @bypass6 return',
        '    ip daddr { 10.1.0.0/16 } tcp dport { 5432, 5500-5510 } redirect to :15001 comment "db main"',
        '    ip daddr { 100.64.0.0/10 } tcp dport { 443 } redirect to :15001 comment "wiki"',
        '    ip6 daddr { fd00:9::/64 } tcp dport { 5432, 5500-5510 } redirect to :15001 comment "db main"',
        '  }',
        '  chain refuse {',
        '    type filter hook output priority 0; policy accept;',
        '    oifname "postern0" ct status dnat accept',
        '    oifname "postern0" meta l4proto tcp reject with tcp reset',
        '    oifname "postern0" reject with icmpx admin-prohibited',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('declares an empty bypass set without elements (nft refuses "elements = { }")', () => {
    const script = nftScript(buildSystemPlan({ services: [], bypass: [] }), 15001);
    expect(script).toContain('  set bypass6 {\n    type ipv6_addr\n    flags interval\n  }');
    expect(script).not.toContain('{  }');
  });

  it('refuses a listener port outside 1-65535', () => {
    for (const port of [0, 65536, 1.5, Number.NaN])
      expect(() => nftScript(plan, port)).toThrow(`intercept listener port ${port} is not within 1-65535`);
  });

  it('keeps comments within nft limits: no quotes, backslashes or control characters, at most 120 bytes', () => {
    expect(nftCommentText('a"b\\c\nd')).toBe('abcd');
    const long = nftCommentText('é'.repeat(100));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(120);
    expect(long).toBe('é'.repeat(60));
  });

  it('deletes the table alone to remove every rule', () => {
    expect(NFT_DELETE_SCRIPT).toBe('delete table inet postern\n');
  });
});
