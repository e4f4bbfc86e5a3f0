/** Does `host:port` fall within a service's `intercept.v1`? Names (with `*.` wildcards), IPs and CIDRs. */
import type { DialTarget, InterceptV1 } from '../../api/data-plane.js';
import { addressMatches } from '../../common/address-pattern.js';

export function matchIntercept(intercept: InterceptV1, host: string, port: number): boolean {
  if (!intercept.protocols?.includes('tcp')) return false;
  const portOk = intercept.portRanges?.some((r) => port >= r.low && port <= r.high);
  return Boolean(portOk) && intercept.addresses.some((a) => addressMatches(a, host));
}

/**
 * What a program reaching a service's loopback listener would have dialed: the intercept's first address at its
 * first port, when that address is one address (not a CIDR or a `*.` wildcard).
 */
export function interceptedTarget(intercept: InterceptV1 | undefined): DialTarget | undefined {
  const address = intercept?.addresses?.[0];
  const port = intercept?.portRanges?.[0]?.low;
  if (!address || port === undefined || address.includes('/') || address.startsWith('*')) return undefined;
  return { address, port };
}
