import { describe, expect, it } from 'vitest';
import { parseUpstream } from '../../../src/agent/intercept/dns/upstream-exchange.js';

describe('upstream DNS servers', () => {
  it('reads ip[:port] for IPv4 and IPv6, port 53 by default', () => {
    expect(parseUpstream('192.0.2.53')).toEqual({ host: '192.0.2.53', port: 53, family: 4 });
    expect(parseUpstream('192.0.2.53:5353')).toEqual({ host: '192.0.2.53', port: 5353, family: 4 });
    expect(parseUpstream('2001:db8::53')).toEqual({ host: '2001:db8::53', port: 53, family: 6 });
    expect(parseUpstream('[2001:db8::53]')).toEqual({ host: '2001:db8::53', port: 53, family: 6 });
    expect(parseUpstream('[2001:db8::53]:5353')).toEqual({ host: '2001:db8::53', port: 5353, family: 6 });
  });

  it('refuses names, bad ports and anything else', () => {
    for (const bad of ['dns.example', '192.0.2.53:0', '192.0.2.53:70000', '[192.0.2.53', '', '1.2.3:53'])
      expect(() => parseUpstream(bad), bad).toThrow('is not ip[:port]');
  });
});
