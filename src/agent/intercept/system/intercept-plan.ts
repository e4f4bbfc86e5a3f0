/**
 * What intercept mode changes on the system, worked out from the granted services' `intercept.v1` configs
 * before anything is touched (pure): the routes that send intercepted destinations to the `postern0` device,
 * the redirect rules (one per set of destinations × set of ports) that hand their TCP connections to the
 * agent's intercept listener, the addresses that must never be redirected (the controller's and the
 * routers', so the agent's own traffic goes out as before), and the domains the agent's resolver answers.
 *
 * Host names are answered by the agent's resolver with addresses from the pool 100.64.0.0/10, so a service
 * intercepted by name is redirected as "the pool, on that service's ports": the rules never change when the
 * resolver hands out a new address (no rule update on the DNS answer's path, no race between the answer and
 * the rule), and the listener tells the services apart by the pool address the program dialled.
 */
import type { InterceptV1 } from '../../../api/data-plane.js';
import { type Cidr, cidrContains, cidrText, coveringCidrs, parseCidr } from './cidr.js';

/** The device that anchors the routes; no process reads it. */
export const LINK_NAME = 'postern0';
/** The agent resolver's address, on `postern0`; the first address of the pool that is not the network's. */
export const RESOLVER_ADDRESS = '100.64.0.2';
/** Where the resolver allocates addresses for intercepted names (from 100.64.0.3 up). */
export const NAME_POOL = '100.64.0.0/10';
/** `table inet postern`: deleting it removes every rule Postern added. */
export const NFT_TABLE = 'postern';

export interface PortRange {
  low: number;
  high: number;
}

export interface InterceptedService {
  name: string;
  intercept: InterceptV1;
}

/** `ip[6] daddr { destinations } tcp dport { ports } redirect to :listener` */
export interface RedirectRule {
  family: 4 | 6;
  /** prefixes, always with their length (`10.1.0.0/16`, `10.0.0.7/32`) */
  destinations: string[];
  ports: PortRange[];
  /** the services the rule serves, for logs */
  services: string[];
}

export interface SystemPlan {
  link: { name: string; address: string };
  /** every prefix routed to the link (IPv4 first), the name pool included */
  routes: string[];
  redirects: RedirectRule[];
  /** never redirected, whatever the rules say: the resolver's own address and the given controller/router addresses */
  bypass: string[];
  /**
   * bypass addresses inside a routed prefix: they get a host route of their own along the way the system
   * reached them before, or the agent's own connections would be swallowed by `postern0`
   */
  pinned: string[];
  resolver: {
    address: string;
    /** routing domains: `corp` for `*.corp`, `wiki.example` for an exact name; none covered by another */
    domains: string[];
  };
  /** services left out, each with why in words (the others are intercepted as planned) */
  skipped: { service: string; reason: string }[];
}

export interface PlanInput {
  services: readonly InterceptedService[];
  /** the controller's and routers' IP addresses (single addresses or prefixes) */
  bypass: readonly string[];
}

/** One service's intercept, checked and normalized. */
interface ServiceTargets {
  service: string;
  cidrs: Cidr[];
  names: string[];
  ports: PortRange[];
}

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/** A host name as a resolver would be asked for it (lowercase, no trailing dot), or undefined when it is not one. */
function hostName(text: string): string | undefined {
  const name = text.toLowerCase().replace(/\.$/, '');
  if (name.length === 0 || name.length > 253) return undefined;
  return name.split('.').every((label) => LABEL.test(label)) ? name : undefined;
}

/** Sorted, overlapping and touching ranges merged: `80, 443, 8000-8010` stays three, `1-5, 4-9, 10` is `1-10`. */
export function mergePortRanges(ranges: readonly PortRange[]): PortRange[] {
  const sorted = [...ranges].sort((a, b) => a.low - b.low || a.high - b.high);
  const merged: PortRange[] = [];
  for (const r of sorted) {
    const last = merged.at(-1);
    if (last && r.low <= last.high + 1) last.high = Math.max(last.high, r.high);
    else merged.push({ low: r.low, high: r.high });
  }
  return merged;
}

function checkPortRange(r: unknown): string | undefined {
  const { low, high } = (r ?? {}) as Partial<PortRange>;
  const shown = `${String(low)}-${String(high)}`;
  if (!Number.isInteger(low) || !Number.isInteger(high))
    return `port range ${shown} is not two whole numbers`;
  if (low! < 1 || high! > 65535) return `port range ${shown} is outside 1-65535`;
  if (low! > high!) return `port range ${shown} has its low end above its high end`;
  return undefined;
}

function serviceTargets(s: InterceptedService): ServiceTargets | { service: string; reason: string } {
  const fail = (reason: string) => ({ service: s.name, reason: `service "${s.name}": ${reason}` });
  const intercept = s.intercept;
  if (!Array.isArray(intercept?.protocols) || !intercept.protocols.includes('tcp'))
    return fail('intercepts no TCP (UDP is not carried: the data plane is TCP streams)');
  if (!Array.isArray(intercept.portRanges) || intercept.portRanges.length === 0)
    return fail('has no port ranges');
  for (const r of intercept.portRanges) {
    const problem = checkPortRange(r);
    if (problem) return fail(problem);
  }
  if (!Array.isArray(intercept.addresses) || intercept.addresses.length === 0)
    return fail('has no addresses');
  const cidrs: Cidr[] = [];
  const names: string[] = [];
  for (const address of intercept.addresses) {
    const text = String(address);
    const cidr = parseCidr(text);
    if (cidr) {
      cidrs.push(cidr);
      continue;
    }
    const wildcard = text.startsWith('*.');
    const name = hostName(wildcard ? text.slice(2) : text);
    if (!name) return fail(`address "${text}" is neither an IP address, a prefix, a host name nor *.domain`);
    names.push(wildcard ? `*.${name}` : name);
  }
  return { service: s.name, cidrs, names, ports: mergePortRanges(intercept.portRanges) };
}

const portsKey = (ports: readonly PortRange[]) => ports.map((r) => `${r.low}-${r.high}`).join(',');

/** Rules with the same ports share one set of destinations, then rules with the same destinations share their ports. */
function groupRules(targets: readonly ServiceTargets[]): RedirectRule[] {
  const pool = parseCidr(NAME_POOL)!;
  const byPorts = new Map<
    string,
    { family: 4 | 6; cidrs: Cidr[]; ports: PortRange[]; services: Set<string> }
  >();
  for (const t of targets) {
    const destinations = t.names.length > 0 ? [...t.cidrs, pool] : t.cidrs;
    for (const family of [4, 6] as const) {
      const cidrs = destinations.filter((c) => c.family === family);
      if (cidrs.length === 0) continue;
      const key = `${family}|${portsKey(t.ports)}`;
      const group = byPorts.get(key) ?? { family, cidrs: [], ports: t.ports, services: new Set<string>() };
      group.cidrs.push(...cidrs);
      group.services.add(t.service);
      byPorts.set(key, group);
    }
  }
  const byDestinations = new Map<string, RedirectRule>();
  for (const g of byPorts.values()) {
    const destinations = coveringCidrs(g.cidrs).map(cidrText);
    const key = `${g.family}|${destinations.join(',')}`;
    const rule = byDestinations.get(key);
    if (rule) {
      rule.ports = mergePortRanges([...rule.ports, ...g.ports]);
      rule.services = [...new Set([...rule.services, ...g.services])].sort();
    } else {
      byDestinations.set(key, {
        family: g.family,
        destinations,
        ports: g.ports,
        services: [...g.services].sort(),
      });
    }
  }
  return [...byDestinations.values()].sort(
    (a, b) => a.family - b.family || a.destinations.join().localeCompare(b.destinations.join()),
  );
}

/** `*.corp` → `corp`, `wiki.example` → itself; a domain inside another listed one is dropped. */
function routingDomains(targets: readonly ServiceTargets[]): string[] {
  const all = [...new Set(targets.flatMap((t) => t.names.map((n) => n.replace(/^\*\./, ''))))].sort(
    (a, b) => a.length - b.length || a.localeCompare(b),
  );
  const kept: string[] = [];
  for (const d of all) if (!kept.some((k) => d.endsWith(`.${k}`))) kept.push(d);
  return kept.sort();
}

function parseBypass(addresses: readonly string[]): Cidr[] {
  return addresses.map((address) => {
    const cidr = parseCidr(address);
    if (!cidr) throw new Error(`bypass address "${address}" is not an IP address or prefix`);
    return cidr;
  });
}

/** The bypass list (the resolver's own address always in it) and the part of it a routed prefix covers. */
function bypassAndPinned(
  bypass: readonly Cidr[],
  routes: readonly string[],
): Pick<SystemPlan, 'bypass' | 'pinned'> {
  const resolver = parseCidr(RESOLVER_ADDRESS)!;
  const routed = routes.map((r) => parseCidr(r)!);
  const covering = coveringCidrs([resolver, ...bypass]);
  return {
    bypass: covering.map(cidrText),
    pinned: covering
      .filter((b) => !cidrContains(b, resolver) && routed.some((r) => cidrContains(r, b)))
      .map(cidrText),
  };
}

export function buildSystemPlan(input: PlanInput): SystemPlan {
  const skipped: SystemPlan['skipped'] = [];
  const targets: ServiceTargets[] = [];
  for (const s of input.services) {
    const t = serviceTargets(s);
    if ('reason' in t) skipped.push(t);
    else targets.push(t);
  }
  const bypass = parseBypass(input.bypass);
  const redirects = groupRules(targets);
  const routes = coveringCidrs([
    parseCidr(NAME_POOL)!,
    ...redirects.flatMap((r) => r.destinations.map((d) => parseCidr(d)!)),
  ]).map(cidrText);
  return {
    link: { name: LINK_NAME, address: RESOLVER_ADDRESS },
    routes,
    redirects,
    ...bypassAndPinned(bypass, routes),
    resolver: { address: RESOLVER_ADDRESS, domains: routingDomains(targets) },
    skipped,
  };
}

/**
 * The plan with more addresses never to redirect: the resolver's upstream DNS servers, known only once the
 * system's resolver configuration is read. One inside an intercepted prefix would otherwise be captured, and
 * every name the agent forwards would fail. A scoped IPv6 address (`fe80::1%eth0`) counts by its address.
 */
export function withBypass(plan: SystemPlan, addresses: readonly string[]): SystemPlan {
  const extra = addresses
    .map((a) => parseCidr(a.replace(/%.*$/, '')))
    .filter((c): c is Cidr => c !== undefined);
  return { ...plan, ...bypassAndPinned([...plan.bypass.map((b) => parseCidr(b)!), ...extra], plan.routes) };
}
