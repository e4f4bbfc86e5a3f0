import { describe, expect, it } from 'vitest';
import { InterceptNames, namePatterns } from '../../../src/agent/intercept/dns/intercept-names.js';

const names = new InterceptNames([
  { pattern: 'wiki.corp', service: 'wiki' },
  { pattern: '*.corp', service: 'corp-any' },
  { pattern: '*.apps.corp', service: 'apps' },
  { pattern: 'x.apps.corp', service: 'x-exact' },
]);

describe('intercepted names', () => {
  it('matches exact names without regard to case or a trailing dot', () => {
    expect(names.match('wiki.corp')).toBe('wiki');
    expect(names.match('WIKI.Corp.')).toBe('wiki');
  });

  it('matches *.domain on every sub-domain but not the domain itself, as OpenZiti does', () => {
    expect(names.match('a.corp')).toBe('corp-any');
    expect(names.match('a.b.corp')).toBe('corp-any');
    expect(names.match('corp')).toBeUndefined();
    expect(names.match('evilcorp')).toBeUndefined();
    expect(names.match('a.corp.evil')).toBeUndefined();
    expect(names.match('other.test')).toBeUndefined();
  });

  it('prefers an exact name to any wildcard, and the longest wildcard to a shorter one', () => {
    expect(names.match('x.apps.corp')).toBe('x-exact');
    expect(names.match('y.apps.corp')).toBe('apps');
    expect(names.match('z.y.apps.corp')).toBe('apps');
    expect(names.match('apps.corp')).toBe('corp-any');
  });

  it('gives systemd-resolved routing domains: ~name for a name, ~domain for *.domain', () => {
    expect(new InterceptNames([{ pattern: 'wiki.corp', service: 's' }]).domains()).toEqual(['~wiki.corp']);
    expect(new InterceptNames([{ pattern: '*.corp', service: 's' }]).domains()).toEqual(['~corp']);
    expect(names.domains()).toEqual(['~apps.corp', '~corp', '~wiki.corp', '~x.apps.corp']);
  });

  it('keeps the first service that claims a pattern and leaves out patterns that are not names', () => {
    const set = new InterceptNames([
      { pattern: 'wiki.corp', service: 'first' },
      { pattern: 'Wiki.Corp', service: 'second' },
      { pattern: '*', service: 'bad' },
      { pattern: '*.', service: 'bad' },
      { pattern: 'a.*.corp', service: 'bad' },
      { pattern: 'sp ace.corp', service: 'bad' },
      { pattern: '', service: 'bad' },
    ]);
    expect(set.match('wiki.corp')).toBe('first');
    expect(set.rejected).toEqual(['*', '*.', 'a.*.corp', 'sp ace.corp', '']);
    expect(set.size).toBe(1);
  });

  it('takes the names from intercept.v1 addresses, not IPs or CIDRs, and only where TCP is intercepted', () => {
    const patterns = namePatterns([
      {
        service: 'wiki',
        intercept: {
          protocols: ['tcp'],
          addresses: [
            'wiki.corp',
            '*.wiki.corp',
            '10.0.0.1',
            '10.1.0.0/16',
            'fd00::1',
            '[fd00::2]',
            'fd00::/8',
          ],
          portRanges: [{ low: 443, high: 443 }],
        },
      },
      {
        service: 'voice',
        intercept: { protocols: ['udp'], addresses: ['voice.corp'], portRanges: [{ low: 5060, high: 5060 }] },
      },
    ]);
    expect(patterns).toEqual([
      { pattern: 'wiki.corp', service: 'wiki' },
      { pattern: '*.wiki.corp', service: 'wiki' },
    ]);
  });
});
