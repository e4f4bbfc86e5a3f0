/** Does `host:port` fall within a service's `intercept.v1`? Names (with `*.` wildcards), IPs and CIDRs. */
import { BlockList, isIP } from 'node:net';
import type { InterceptV1 } from '../../api/data-plane.js';

function addressMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase();
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (p.includes('/')) {
    const [base, bits] = p.split('/');
    const family = isIP(base!);
    if (!family || !isIP(h) || isIP(h) !== family) return false;
    const list = new BlockList();
    try {
      list.addSubnet(base!, Number(bits), family === 6 ? 'ipv6' : 'ipv4');
    } catch {
      return false;
    }
    return list.check(h, family === 6 ? 'ipv6' : 'ipv4');
  }
  if (p.startsWith('*.')) return h.endsWith(p.slice(1)) && h.length > p.length - 1;
  return p === h;
}

export function matchIntercept(intercept: InterceptV1, host: string, port: number): boolean {
  if (!intercept.protocols?.includes('tcp')) return false;
  const portOk = intercept.portRanges?.some((r) => port >= r.low && port <= r.high);
  return Boolean(portOk) && intercept.addresses.some((a) => addressMatches(a, host));
}
