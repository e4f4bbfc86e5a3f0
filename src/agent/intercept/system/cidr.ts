/**
 * IPv4/IPv6 prefixes as numbers: parsing `10.1.2.0/24`, `fd00::5` (a single address is a /32 or /128), masking
 * host bits off, containment, and the canonical text `ip` and `nft` print back (so a plan reads like the
 * system's own listing). Pure.
 */
import { isIP } from 'node:net';

export interface Cidr {
  family: 4 | 6;
  /** the network address with host bits cleared */
  base: bigint;
  prefix: number;
}

const BITS = { 4: 32, 6: 128 } as const;

function v4ToBigInt(address: string): bigint {
  return address.split('.').reduce((n, octet) => (n << 8n) | BigInt(Number(octet)), 0n);
}

function v6ToBigInt(address: string): bigint {
  let text = address;
  // An embedded IPv4 tail (::ffff:10.0.0.1) becomes two hextets.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = v4ToBigInt(v4[1]!);
    text = `${text.slice(0, v4.index)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const hextets =
    tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return hextets.reduce((n, h) => (n << 16n) | BigInt(parseInt(h, 16)), 0n);
}

function mask(family: 4 | 6, prefix: number): bigint {
  const bits = BigInt(BITS[family]);
  return ((1n << bits) - 1n) ^ ((1n << (bits - BigInt(prefix))) - 1n);
}

/** A prefix or single address, or undefined when it is neither (host names, typos, /33). */
export function parseCidr(text: string): Cidr | undefined {
  const [address, prefixText, extra] = text.trim().split('/');
  if (extra !== undefined || !address) return undefined;
  const family = isIP(address);
  if (family !== 4 && family !== 6) return undefined;
  const max = BITS[family];
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return undefined;
  const value = family === 4 ? v4ToBigInt(address) : v6ToBigInt(address);
  return { family, base: value & mask(family, prefix), prefix };
}

function v4Text(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((n >> shift) & 0xffn)).join('.');
}

/** RFC 5952: lowercase, no leading zeros, the longest run (two or more) of zero hextets as `::`. */
function v6Text(n: bigint): string {
  const hextets = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => Number((n >> shift) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (hextets[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && hextets[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  const hex = hextets.map((h) => h.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

export function addressText(family: 4 | 6, n: bigint): string {
  return family === 4 ? v4Text(n) : v6Text(n);
}

/** `10.1.0.0/16`; always with the prefix, so `ip route` and `nft` read it the same way. */
export function cidrText(c: Cidr): string {
  return `${addressText(c.family, c.base)}/${c.prefix}`;
}

export function cidrContains(outer: Cidr, inner: Cidr): boolean {
  return (
    outer.family === inner.family &&
    outer.prefix <= inner.prefix &&
    (inner.base & mask(outer.family, outer.prefix)) === outer.base
  );
}

/**
 * The smallest list covering the same addresses: duplicates and prefixes inside another one dropped, sorted.
 * nft refuses a named set (the bypass sets) whose intervals overlap, and one route per covered range is enough.
 */
export function coveringCidrs(list: readonly Cidr[]): Cidr[] {
  const sorted = [...list].sort(
    (a, b) => a.family - b.family || (a.base < b.base ? -1 : a.base > b.base ? 1 : a.prefix - b.prefix),
  );
  const kept: Cidr[] = [];
  for (const c of sorted) if (!kept.some((k) => cidrContains(k, c))) kept.push(c);
  return kept;
}
