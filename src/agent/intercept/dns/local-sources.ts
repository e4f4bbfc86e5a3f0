/**
 * Whether a query came from this machine. The resolver's address (100.64.0.2) is a local address, and Linux
 * accepts packets for a local address on any interface, so a host on the same network could otherwise use
 * the agent as an open resolver (and, with a forged source, as a reflector). Only loopback and this machine's
 * own interface addresses are served; the list is re-read at most once a second, on a miss, so an address
 * that appears later (DHCP, a VPN) is served without a restart.
 */
import { networkInterfaces } from 'node:os';

const REFRESH_MS = 1000;

export class LocalSources {
  private addresses = new Set<string>();
  private readAt = Number.NEGATIVE_INFINITY;

  accepts(address: string): boolean {
    const bare = address.replace(/^::ffff:/i, '');
    if (bare.startsWith('127.') || bare === '::1') return true;
    if (this.addresses.has(bare)) return true;
    const now = performance.now();
    if (now - this.readAt < REFRESH_MS) return false;
    this.readAt = now;
    this.addresses = new Set(
      Object.values(networkInterfaces())
        .flat()
        .map((info) => info?.address.replace(/%.*$/, ''))
        .filter((a): a is string => Boolean(a)),
    );
    return this.addresses.has(bare);
  }
}
