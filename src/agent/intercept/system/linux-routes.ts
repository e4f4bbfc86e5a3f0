/**
 * The `postern0` TUN device and the routes that point intercepted destinations at it. No process reads the
 * device: it exists so that connecting to an intercepted address finds a route (no "network unreachable"
 * before the redirect rule sees the connection), and so that deleting it takes every route and its address
 * with it. Every step can run again on a half-done state (after a crash, a re-apply when services change).
 */
import { LINK_NAME, RESOLVER_ADDRESS } from './intercept-plan.js';
import { type SystemCommand, runChecked } from './system-command.js';

const IP = 'ip';
const familyFlag = (cidr: string) => (cidr.includes(':') ? ['-6'] : ['-4']);

export async function linkExists(run: SystemCommand): Promise<boolean> {
  return (await run(IP, ['link', 'show', 'dev', LINK_NAME])).code === 0;
}

/**
 * `postern0`'s MTU: loopback's size (TUN's largest). A connect takes its MSS from the route it finds, which
 * is `postern0`'s, before the redirect sends it over loopback: at TUN's default 1500 every redirected
 * connection ran in 1448-byte segments (a 45th of loopback's) and the redirect carried 0.72 of direct
 * loopback instead of 0.8-0.9 (bench/intercept-throughput.ts). No packet ever crosses the device, so its size costs nothing.
 */
export const LINK_MTU = 65535;

/** Creates `postern0` when missing, brings it up at LINK_MTU and gives it the resolver's address (its /32 only). */
export async function createLink(run: SystemCommand): Promise<void> {
  if (!(await linkExists(run))) await runChecked(run, IP, ['tuntap', 'add', 'dev', LINK_NAME, 'mode', 'tun']);
  await runChecked(run, IP, ['link', 'set', 'dev', LINK_NAME, 'mtu', String(LINK_MTU), 'up']);
  await runChecked(run, IP, ['address', 'replace', `${RESOLVER_ADDRESS}/32`, 'dev', LINK_NAME]);
}

/** Deletes `postern0` (its routes and address go with it); false when there was none. */
export async function deleteLink(run: SystemCommand): Promise<boolean> {
  if (!(await linkExists(run))) return false;
  await runChecked(run, IP, ['link', 'del', 'dev', LINK_NAME]);
  return true;
}

/** The prefixes routed to `postern0` now, as `ip` prints them (`10.1.0.0/16`; a host route without `/32`). */
async function routesOnLink(run: SystemCommand, family: '-4' | '-6'): Promise<string[]> {
  const out = await runChecked(run, IP, [family, '-o', 'route', 'show', 'dev', LINK_NAME]);
  return out
    .split('\n')
    .filter((line) => line.trim() && !/\bproto kernel\b/.test(line))
    .map((line) => line.trim().split(/\s+/)[0]!);
}

/** `10.0.0.7/32` and `ip`'s `10.0.0.7` are the same route. */
const sameRoute = (a: string, b: string) => a.replace(/\/(32|128)$/, '') === b.replace(/\/(32|128)$/, '');

export interface RouteSync {
  added: string[];
  removed: string[];
  /** prefixes the system already routes elsewhere (the exact same prefix): left alone, the redirect still applies */
  leftAlone: { route: string; existing: string }[];
}

/**
 * Makes the routes on `postern0` exactly `routes`: adds the missing ones, deletes those no longer wanted.
 * A prefix the system already routes through another device is not replaced (`ip route replace` would take
 * the route over, and deleting the device would not bring it back); connections to it are still redirected,
 * since the nat rule does not care which way the route pointed.
 */
export async function syncRoutes(run: SystemCommand, routes: readonly string[]): Promise<RouteSync> {
  const result: RouteSync = { added: [], removed: [], leftAlone: [] };
  for (const family of ['-4', '-6'] as const) {
    for (const current of await routesOnLink(run, family)) {
      if (routes.some((r) => sameRoute(r, current))) continue;
      await runChecked(run, IP, [family, 'route', 'del', current, 'dev', LINK_NAME]);
      result.removed.push(current);
    }
  }
  for (const route of routes) {
    const flag = familyFlag(route);
    const existing = (await runChecked(run, IP, [...flag, 'route', 'show', 'exact', route])).trim();
    if (existing && !existing.split('\n').some((line) => line.includes(`dev ${LINK_NAME}`))) {
      result.leftAlone.push({ route, existing: existing.split('\n')[0]! });
      continue;
    }
    if (existing) continue;
    await runChecked(run, IP, [...flag, 'route', 'replace', route, 'dev', LINK_NAME]);
    result.added.push(route);
  }
  return result;
}
