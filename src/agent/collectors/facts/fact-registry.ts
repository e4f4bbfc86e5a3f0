/**
 * The agent's fact collectors, one per posture type that declares a fact (src/api/posture-types) and per
 * system its descriptor claims. Adding a type: its three collector files and one entry here; the registry test
 * fails while a system its descriptor's `fact.collectedOn` names has no collector.
 */
import type { AgentPlatform, PostureTypeDescriptor } from '../../../api/posture-types/index.js';
import type { FactPostureResponse } from '../../../api/posture-responses.js';
import { collectLinuxDiskEncryption } from './disk-encryption/linux.js';
import { collectMacosDiskEncryption } from './disk-encryption/macos.js';
import { collectWindowsDiskEncryption } from './disk-encryption/windows.js';
import type { FactEnvironment } from './fact-environment.js';
import { collectLinuxFirewall } from './firewall/linux.js';
import { collectMacosFirewall } from './firewall/macos.js';
import { collectWindowsFirewall } from './firewall/windows.js';
import { collectLinuxScreenLock } from './screen-lock/linux.js';
import { collectMacosScreenLock } from './screen-lock/macos.js';
import { collectWindowsScreenLock } from './screen-lock/windows.js';

export type FactTypeId = FactPostureResponse['typeId'];
/** The fields of a type's answer besides `id` and `typeId`. */
export type FactOf<T extends FactTypeId> = Omit<Extract<FactPostureResponse, { typeId: T }>, 'id' | 'typeId'>;

export interface FactCollectorEntry<T extends FactTypeId> {
  /** The answer when the fact cannot be read: every value null, with the reason (never passing). */
  unknown(reason: string): FactOf<T>;
  /** How long an answer is reused: what changes rarely or costs a PowerShell start is not read every cycle. */
  ttlMs: number;
  collectors: Partial<Record<AgentPlatform, (env: FactEnvironment) => Promise<FactOf<T>>>>;
}

export const FACT_COLLECTORS: { [T in FactTypeId]: FactCollectorEntry<T> } = {
  DISK_ENCRYPTION: {
    unknown: (unknownReason) => ({ encrypted: null, unknownReason }),
    // Turning encryption on or off takes minutes to hours of conversion; five minutes late is no loss.
    ttlMs: 5 * 60_000,
    collectors: {
      linux: collectLinuxDiskEncryption,
      win32: collectWindowsDiskEncryption,
      darwin: collectMacosDiskEncryption,
    },
  },
  FIREWALL: {
    unknown: (unknownReason) => ({ enabled: null, unknownReason }),
    // A firewall switched off shows within one or two report cycles (20 s each).
    ttlMs: 30_000,
    collectors: {
      linux: collectLinuxFirewall,
      win32: collectWindowsFirewall,
      darwin: collectMacosFirewall,
    },
  },
  SCREEN_LOCK: {
    unknown: (unknownReason) => ({ lockEnabled: null, idleMinutes: null, unknownReason }),
    ttlMs: 30_000,
    collectors: {
      linux: collectLinuxScreenLock,
      win32: collectWindowsScreenLock,
      darwin: collectMacosScreenLock,
    },
  },
};

export function isFactType(typeId: string): typeId is FactTypeId {
  return Object.hasOwn(FACT_COLLECTORS, typeId);
}

/**
 * The types every platform's PostureCollector answers (create-collector.ts builds one for each system): OpenZiti's
 * own facts, collected by the per-OS collector classes rather than by this registry.
 */
export const POSTURE_COLLECTOR_TYPES: Readonly<Record<string, readonly AgentPlatform[]>> = {
  OS: ['linux', 'win32', 'darwin'],
  MAC: ['linux', 'win32', 'darwin'],
  DOMAIN: ['linux', 'win32', 'darwin'],
  PROCESS: ['linux', 'win32', 'darwin'],
  PROCESS_MULTI: ['linux', 'win32', 'darwin'],
};

/** Whether the agent collects this type's fact on this system, in the registry or in the PostureCollector. */
export function hasCollector(
  typeId: string,
  platform: AgentPlatform,
  registry: Readonly<
    Record<string, { collectors: Partial<Record<AgentPlatform, unknown>> }>
  > = FACT_COLLECTORS,
): boolean {
  if (POSTURE_COLLECTOR_TYPES[typeId]?.includes(platform)) return true;
  return registry[typeId]?.collectors[platform] !== undefined;
}

/** `TYPE on platform` for every system a descriptor's fact claims and no collector serves. */
export function missingCollectors(
  descriptors: readonly PostureTypeDescriptor[],
  registry?: Parameters<typeof hasCollector>[2],
): string[] {
  const missing: string[] = [];
  for (const descriptor of descriptors)
    for (const platform of descriptor.fact?.collectedOn ?? [])
      if (!hasCollector(descriptor.id, platform, registry)) missing.push(`${descriptor.id} on ${platform}`);
  return missing;
}
