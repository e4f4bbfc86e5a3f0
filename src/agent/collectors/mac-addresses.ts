import { readFile } from 'node:fs/promises';
import { networkInterfaces as osNetworkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { join } from 'node:path';

export type NetworkInterfaceLister = () => NodeJS.Dict<NetworkInterfaceInfo[]>;

/** Tells whether an interface is up; `undefined` means "no opinion", which counts as up. */
export type InterfaceUpProbe = (name: string) => Promise<boolean | undefined>;

const MAC_PATTERN = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;

/** Lower-case colon form, or `undefined` for anything that is not a real 6-byte hardware address. */
export function normalizeMac(raw: string): string | undefined {
  const hex = raw.toLowerCase().replace(/[^0-9a-f]/g, '');
  if (hex.length !== 12 || /^0+$/.test(hex)) return undefined;
  const mac = hex.match(/../g)?.join(':');
  return mac && MAC_PATTERN.test(mac) ? mac : undefined;
}

/**
 * MAC addresses of interfaces that are up and not loopback, the way the OpenZiti C SDK collects them
 * (libuv's interface list), deduplicated and sorted so an unchanged set never looks like a change.
 */
export async function collectMacAddresses(
  list: NetworkInterfaceLister = osNetworkInterfaces,
  isUp: InterfaceUpProbe = async () => undefined,
): Promise<string[]> {
  const byInterface = new Map<string, string>();
  for (const [name, infos] of Object.entries(list())) {
    for (const info of infos ?? []) {
      if (info.internal) continue;
      const mac = normalizeMac(info.mac);
      if (mac && !byInterface.has(name)) byInterface.set(name, mac);
    }
  }
  const up = await Promise.all(
    [...byInterface].map(async ([name, mac]) => ((await isUp(name)) === false ? undefined : mac)),
  );
  return [...new Set(up.filter((mac): mac is string => mac !== undefined))].sort();
}

/**
 * Linux: `/sys/class/net/<if>/operstate`. libuv already lists only IFF_UP|IFF_RUNNING interfaces, but
 * a bridge or bond without carrier can still appear; the kernel's operstate is authoritative. `unknown`
 * counts as up because drivers that do not track carrier (tun, WireGuard) report it while passing
 * traffic. An alias such as `eth0:1` is looked up by its parent name.
 */
export function sysfsOperstateProbe(sysRoot = '/sys'): InterfaceUpProbe {
  return async (name) => {
    const device = name.split(':')[0] ?? name;
    if (device.includes('/') || device === '.' || device === '..') return undefined;
    try {
      const state = (await readFile(join(sysRoot, 'class', 'net', device, 'operstate'), 'utf8')).trim();
      return state === 'up' || state === 'unknown';
    } catch {
      return undefined;
    }
  };
}
