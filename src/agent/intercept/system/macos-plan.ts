/**
 * What a privileged macOS daemon (launchd) would run for a plan (pure; generated and unit-tested here, executed
 * only on macOS):
 * - routes to the utun device the daemon opened (`route -n add -net … -interface utunN`): macOS numbers utun
 *   devices itself, and the device, with its routes, disappears when the daemon's descriptor closes, so a crash
 *   leaves no route behind;
 * - one /etc/resolver/<domain> file per intercepted domain (`nameserver 100.64.0.2`): macOS asks that server for
 *   names in that domain only. Each file starts with Postern's marker, so removal deletes exactly Postern's
 *   files with no state, at stop and at every start;
 * - as the alternative to reading utun with a userspace TCP/IP stack, pf rules in the `com.apple/postern` anchor
 *   (which the stock /etc/pf.conf already evaluates): outgoing intercepted TCP is routed to lo0 and redirected
 *   there to the agent's listener; the original destination comes back through DIOCNATLOOK on /dev/pf.
 */
import type { PortRange, SystemPlan } from './intercept-plan.js';

export const RESOLVER_FOLDER = '/etc/resolver';
export const PF_ANCHOR = 'com.apple/postern';
export const MACOS_MARKER = '# Written by Postern intercept mode';

export interface MacosSystemPlan {
  /** argument lists for /sbin/route, in order */
  addRoutes: string[][];
  deleteRoutes: string[][];
  /**
   * `route -n get <address>` for each pinned controller/router address: the daemon adds
   * `route -n add -host <address> <gateway>` from its answer before the other routes
   */
  pinnedLookups: string[][];
  resolverFiles: { path: string; content: string }[];
  pf: { rules: string; load: string[][]; unload: string[][] };
}

const isV6 = (cidr: string) => cidr.includes(':');

function routeTarget(cidr: string): string[] {
  const [address, length] = cidr.split('/') as [string, string];
  const host = length === (isV6(cidr) ? '128' : '32');
  return [...(isV6(cidr) ? ['-inet6'] : []), host ? '-host' : '-net', host ? address : cidr];
}

/** pf writes an inclusive port range as low:high. */
const pfPorts = (ports: readonly PortRange[]) =>
  `{ ${ports.map((r) => (r.low === r.high ? String(r.low) : `${r.low}:${r.high}`)).join(', ')} }`;

/** Is this /etc/resolver file one Postern wrote (and so one to delete)? */
export const isPosternResolverFile = (content: string) => content.startsWith(MACOS_MARKER);

export function pfRules(plan: SystemPlan, listenPort: number): string {
  const v4Bypass = plan.bypass.filter((a) => !isV6(a));
  const v6Bypass = plan.bypass.filter(isV6);
  const lines: string[] = [];
  for (const r of plan.redirects) {
    const family = r.family === 4 ? 'inet' : 'inet6';
    const loopback = r.family === 4 ? '127.0.0.1' : '::1';
    lines.push(
      `rdr pass on lo0 ${family} proto tcp from any to { ${r.destinations.join(', ')} } port ${pfPorts(r.ports)} -> ${loopback} port ${listenPort}`,
    );
  }
  if (v4Bypass.length > 0) lines.push(`pass out quick inet proto tcp from any to { ${v4Bypass.join(', ')} }`);
  if (v6Bypass.length > 0)
    lines.push(`pass out quick inet6 proto tcp from any to { ${v6Bypass.join(', ')} }`);
  for (const r of plan.redirects) {
    const family = r.family === 4 ? 'inet' : 'inet6';
    const loopback = r.family === 4 ? '127.0.0.1' : '::1';
    // Outgoing packets are not redirected where they leave; routed to lo0, they come in there and are.
    lines.push(
      `pass out route-to (lo0 ${loopback}) ${family} proto tcp from any to { ${r.destinations.join(', ')} } port ${pfPorts(r.ports)} keep state`,
    );
  }
  return `${lines.join('\n')}\n`;
}

export function macosPlan(plan: SystemPlan, options: { utun: string; listenPort: number }): MacosSystemPlan {
  if (!/^utun\d+$/.test(options.utun)) throw new Error(`"${options.utun}" is not a utun device name`);
  const device = ['-interface', options.utun];
  return {
    addRoutes: plan.routes.map((route) => ['-n', 'add', ...routeTarget(route), ...device]),
    deleteRoutes: plan.routes.map((route) => ['-n', 'delete', ...routeTarget(route), ...device]),
    pinnedLookups: plan.pinned.map((address) => [
      '-n',
      'get',
      ...(isV6(address) ? ['-inet6'] : []),
      address.split('/')[0]!,
    ]),
    resolverFiles: plan.resolver.domains.map((domain) => ({
      path: `${RESOLVER_FOLDER}/${domain}`,
      content: [
        MACOS_MARKER,
        '# (postern-agent); removed when the agent stops, or on its next start after a crash.',
        `nameserver ${plan.resolver.address}`,
        '',
      ].join('\n'),
    })),
    pf: {
      rules: pfRules(plan, options.listenPort),
      // -E enables pf and prints a reference token; -X <token> releases it (pf stays on if others hold one).
      load: [['-a', PF_ANCHOR, '-f', '-'], ['-E']],
      unload: [['-a', PF_ANCHOR, '-F', 'all']],
    },
  };
}
