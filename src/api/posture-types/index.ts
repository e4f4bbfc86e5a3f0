/**
 * The registry of posture type descriptors (descriptor.ts): every layer finds a type's words, fields, fact and
 * reasons here. Adding a type: a descriptor file, a line here, its evaluation module in the controller and one
 * collector per system its fact claims (docs/ARCHITECTURE.md, "How to add a posture check type").
 */
import type { PostureTypeDescriptor } from './descriptor.js';
import { agentVersion } from './agent-version.js';
import { diskEncryption } from './disk-encryption.js';
import { firewall } from './firewall.js';
import { screenLock } from './screen-lock.js';

export type { AgentPlatform, OptionField, PostureTypeDescriptor, ReportedFact } from './descriptor.js';
export { AGENT_PLATFORMS } from './descriptor.js';
export type { DiskEncryptionFact } from './disk-encryption.js';
export type { FirewallFact } from './firewall.js';
export type { ScreenLockFact } from './screen-lock.js';

export const POSTURE_TYPE_DESCRIPTORS: readonly PostureTypeDescriptor[] = [
  diskEncryption,
  firewall,
  screenLock,
  agentVersion,
];

export function postureTypeDescriptor(id: string): PostureTypeDescriptor | undefined {
  return POSTURE_TYPE_DESCRIPTORS.find((d) => d.id === id);
}
