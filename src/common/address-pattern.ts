/**
 * Address patterns as OpenZiti's configs write them (`intercept.v1` addresses, `host.v1` allowedAddresses): an
 * IP, a CIDR, a host name, or `*.domain` (any name under domain, not domain itself). Names compare without
 * case. A pattern is matched against what was asked, literally: a name is never resolved to test it against a
 * CIDR, and an IP never matches a name.
 */
import { BlockList, isIP } from 'node:net';

const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
const HOST_NAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*$`, 'i');
/**
 * A last label of digits or hex (`127.1`, `0x7f.1`, `2130706433`) is an IPv4 address in the resolver's old
 * notations, not a name: accepting it as a name would let it stand for an address no CIDR was checked against.
 */
const NUMERIC_LABEL = /(?:^|\.)(?:\d+|0x[0-9a-f]*)$/i;

/** A host name a router may dial: DNS syntax, at most 253 characters, not an IPv4 address in disguise. */
export const isHostName = (name: string): boolean => HOST_NAME.test(name) && !NUMERIC_LABEL.test(name);

/** An IP (no brackets, no IPv6 zone: a zone picks the router's interface) or a host name: what may be dialed. */
export const isDialAddress = (address: string): boolean =>
  (isIP(address) !== 0 && !address.includes('%')) || isHostName(address);

/**
 * The one spelling of an IP for comparing and dialing: IPv6 in its canonical text (`FD00:0::1` → `fd00::1`), and
 * an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, `::ffff:7f00:1`) as the IPv4 address it is. A mapped address
 * connects to its IPv4 address, so it must be judged against the IPv4 lists: left as IPv6 it would pass a broad
 * IPv6 allowance (`::/0`) and reach any IPv4 address, the router's loopback included. A name is returned as is.
 */
export function canonicalAddress(address: string): string {
  if (isIP(address) !== 6) return address;
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return canonical;
  const [high, low] = [parseInt(mapped[1] ?? '', 16), parseInt(mapped[2] ?? '', 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

function subnet(pattern: string): { list: BlockList; family: 'ipv4' | 'ipv6' } | undefined {
  const [base = '', bits = '', ...rest] = pattern.split('/');
  const family = isIP(base);
  if (rest.length > 0 || !family || !/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = Number(bits);
  if (prefix > (family === 6 ? 128 : 32)) return undefined;
  const list = new BlockList();
  const type = family === 6 ? 'ipv6' : 'ipv4';
  try {
    list.addSubnet(base, prefix, type);
  } catch {
    return undefined;
  }
  return { list, family: type };
}

/** Is this a pattern a config may hold: an IP, a CIDR, a host name or `*.` and a host name? */
export function isAddressPattern(pattern: string): boolean {
  if (pattern.includes('/')) return subnet(pattern) !== undefined;
  if (isIP(pattern)) return true;
  return isHostName(pattern.startsWith('*.') ? pattern.slice(2) : pattern);
}

/** Does `host` (an IP, bracketed or not, or a name) fall within `pattern`? */
export function addressMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase();
  const h = canonicalAddress(host.toLowerCase().replace(/^\[|\]$/g, ''));
  if (p.includes('/')) {
    const range = subnet(p);
    const family = isIP(h);
    if (!range || !family || (family === 6 ? 'ipv6' : 'ipv4') !== range.family) return false;
    return range.list.check(h, range.family);
  }
  if (p.startsWith('*.')) return h.endsWith(p.slice(1)) && h.length > p.length - 1;
  return canonicalAddress(p) === h;
}
