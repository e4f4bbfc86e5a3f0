/**
 * Can this process run intercept mode? It creates a network device, routes and nftables rules, which takes
 * CAP_NET_ADMIN (root has it unless a container took it away), the `ip` and `nft` commands, and the TUN driver.
 * The answer is words for `run --intercept` to print before it exits 1.
 */
import { access, readFile } from 'node:fs/promises';
import { CommandFailed, type SystemCommand, runSystemCommand } from './system-command.js';

/** CAP_NET_ADMIN's bit in /proc/<pid>/status CapEff (linux/capability.h). */
const CAP_NET_ADMIN = 12n;

export type PrivilegeCheck = { ok: true } | { ok: false; reason: string };

export interface PrivilegeProbe {
  run?: SystemCommand;
  procStatus?: string;
  tunDevice?: string;
  uid?: number;
}

/** The effective capability set, or undefined when /proc does not say (then only root counts). */
export function effectiveCapabilities(status: string): bigint | undefined {
  const hex = /^CapEff:\s*([0-9a-f]+)\s*$/im.exec(status)?.[1];
  return hex === undefined ? undefined : BigInt(`0x${hex}`);
}

async function installed(run: SystemCommand, file: string, args: string[]): Promise<boolean> {
  try {
    await run(file, args);
    return true;
  } catch (error) {
    if (error instanceof CommandFailed) return false;
    throw error;
  }
}

export async function checkPrivileges(probe: PrivilegeProbe = {}): Promise<PrivilegeCheck> {
  const run = probe.run ?? runSystemCommand;
  const uid = probe.uid ?? process.getuid?.();
  if (process.platform !== 'linux' && probe.procStatus === undefined)
    return { ok: false, reason: `intercept mode runs on Linux only for now (this is ${process.platform})` };
  const status = await readFile(probe.procStatus ?? '/proc/self/status', 'utf8').catch(() => '');
  const caps = effectiveCapabilities(status);
  const netAdmin = caps === undefined ? uid === 0 : ((caps >> CAP_NET_ADMIN) & 1n) === 1n;
  if (!netAdmin)
    return {
      ok: false,
      reason:
        uid === 0
          ? 'intercept mode needs CAP_NET_ADMIN, which this root process does not have (a container started without NET_ADMIN?)'
          : 'intercept mode needs root (or CAP_NET_ADMIN): it creates a network device, routes and firewall rules; run it with sudo or through the Postern service',
    };
  if (!(await installed(run, 'ip', ['-V'])))
    return {
      ok: false,
      reason: 'intercept mode needs the ip command, which is not installed (package iproute2)',
    };
  if (!(await installed(run, 'nft', ['--version'])))
    return {
      ok: false,
      reason: 'intercept mode needs the nft command, which is not installed (package nftables)',
    };
  const tun = probe.tunDevice ?? '/dev/net/tun';
  if (
    !(await access(tun).then(
      () => true,
      () => false,
    ))
  )
    return {
      ok: false,
      reason: `intercept mode needs ${tun}, which is missing (load the tun module: modprobe tun)`,
    };
  return { ok: true };
}
