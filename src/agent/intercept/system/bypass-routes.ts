/**
 * Host routes that keep the agent's own way to the controller and routers when an intercepted prefix covers
 * their addresses (a service intercepting 10.0.0.0/8 with the router at 10.1.2.3): the bypass rule stops the
 * redirect, but the route to `postern0` would still swallow the connection. Each such address gets a route of
 * its own, copied from the way the system reached it before, tagged with Postern's route protocol number so
 * restore finds and deletes them by that tag alone, journal or not.
 */
import { LINK_NAME } from './intercept-plan.js';
import { type SystemCommand, runChecked } from './system-command.js';

/** Unassigned in linux/rtnetlink.h's RTPROT_* list; `ip route show proto 147` lists Postern's pinned routes. */
export const PINNED_ROUTE_PROTOCOL = '147';

const IP = 'ip';
const FAMILIES = ['-4', '-6'] as const;
const familyOf = (address: string) => (address.includes(':') ? '-6' : '-4');
const bare = (route: string) => route.replace(/\/(32|128)$/, '');

interface Way {
  prefixLength: number;
  via?: string;
  dev: string;
}

function parseRouteLine(line: string): Way | undefined {
  const words = line.trim().split(/\s+/);
  const field = (name: string) => {
    const at = words.indexOf(name);
    return at >= 0 ? words[at + 1] : undefined;
  };
  const dev = field('dev');
  if (!dev || dev === LINK_NAME || words[0] === 'unreachable' || words[0] === 'blackhole') return undefined;
  const prefix = words[0] === 'default' ? '0' : (words[0]!.split('/')[1] ?? '128');
  const via = field('via');
  return { prefixLength: Number(prefix), dev, ...(via ? { via } : {}) };
}

/** How the main table reaches `address` apart from Postern's device: the most specific other route. */
async function wayTo(run: SystemCommand, address: string): Promise<Way | undefined> {
  const out = await runChecked(run, IP, [familyOf(address), '-o', 'route', 'show', 'match', address]);
  return out
    .split('\n')
    .map(parseRouteLine)
    .filter((w): w is Way => w !== undefined)
    .sort((a, b) => b.prefixLength - a.prefixLength)[0];
}

async function pinnedNow(run: SystemCommand): Promise<{ family: '-4' | '-6'; route: string }[]> {
  const found: { family: '-4' | '-6'; route: string }[] = [];
  for (const family of FAMILIES) {
    const out = await runChecked(run, IP, [family, '-o', 'route', 'show', 'proto', PINNED_ROUTE_PROTOCOL]);
    for (const line of out.split('\n'))
      if (line.trim()) found.push({ family, route: line.trim().split(/\s+/)[0]! });
  }
  return found;
}

/** Makes Postern's pinned routes exactly those for `addresses`; returns the addresses pinned. */
export async function syncPinnedRoutes(run: SystemCommand, addresses: readonly string[]): Promise<string[]> {
  const wanted = addresses.map(bare);
  const existing = await pinnedNow(run);
  for (const { family, route } of existing)
    if (!wanted.includes(bare(route)))
      await runChecked(run, IP, [family, 'route', 'del', route, 'proto', PINNED_ROUTE_PROTOCOL]);
  const pinned: string[] = [];
  for (const address of wanted) {
    if (existing.some((e) => bare(e.route) === address)) {
      pinned.push(address);
      continue;
    }
    const way = await wayTo(run, address);
    if (!way) continue; // not reachable before either: nothing to keep
    const through = way.via ? ['via', way.via] : [];
    await runChecked(run, IP, [
      familyOf(address),
      'route',
      'replace',
      address,
      ...through,
      'dev',
      way.dev,
      'proto',
      PINNED_ROUTE_PROTOCOL,
    ]);
    pinned.push(address);
  }
  return pinned;
}

/** Deletes every route tagged with Postern's protocol; how many there were. */
export async function removePinnedRoutes(run: SystemCommand): Promise<number> {
  const existing = await pinnedNow(run);
  for (const family of FAMILIES)
    if (existing.some((e) => e.family === family))
      await runChecked(run, IP, [family, 'route', 'flush', 'proto', PINNED_ROUTE_PROTOCOL]);
  return existing.length;
}
