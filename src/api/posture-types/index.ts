/**
 * The registry of posture type descriptors (descriptor.ts): every layer finds a type's words, fields, fact and
 * reasons here, and the closed sets the wire takes (the check types, the failure reason codes) are derived from
 * it. Adding a type: a descriptor file, a line here, its evaluation module in the controller and one collector
 * per system its fact claims (docs/ARCHITECTURE.md, "How to add a posture check type").
 */
import type { PostureTypeDescriptor } from './descriptor.js';
import { agentVersion } from './agent-version.js';
import { diskEncryption } from './disk-encryption.js';
import { domain } from './domain.js';
import { firewall } from './firewall.js';
import { mac } from './mac.js';
import { mfa } from './mfa.js';
import { os } from './os.js';
import { processDescriptor, processMultiDescriptor } from './process.js';
import { screenLock } from './screen-lock.js';

export type {
  AgentPlatform,
  OpenZitiResponse,
  OptionField,
  PostureTypeDescriptor,
  ReportedFact,
} from './descriptor.js';
export { AGENT_PLATFORMS } from './descriptor.js';
export { OS_TYPES, type OsTypeName } from './os-types.js';
export { CHECK_TEXT_LIMITS, RESPONSE_TEXT_LIMITS } from './text-limits.js';
export type { DiskEncryptionFact } from './disk-encryption.js';
export type { FirewallFact } from './firewall.js';
export type { ScreenLockFact } from './screen-lock.js';

/** OpenZiti's six first, in OpenZiti's order, then Postern's extensions. */
export const POSTURE_TYPE_DESCRIPTORS = [
  os,
  mac,
  domain,
  processDescriptor,
  processMultiDescriptor,
  mfa,
  diskEncryption,
  firewall,
  screenLock,
  agentVersion,
] as const;

type Registered = (typeof POSTURE_TYPE_DESCRIPTORS)[number];

/** Every check type's id: the `typeId` a posture check takes. */
export type PostureTypeId = Registered['id'];
/** Every failure reason code a type gives (NO_DATA_YET, common to every type, is added by posture-reasons.ts). */
export type PostureTypeReasonCode = Registered extends infer D
  ? D extends PostureTypeDescriptor<string, infer C>
    ? C
    : never
  : never;

/** The check types, in the registry's order. */
export const POSTURE_TYPE_IDS = POSTURE_TYPE_DESCRIPTORS.map((d) => d.id) as readonly PostureTypeId[];

export function postureTypeDescriptor(id: string): PostureTypeDescriptor | undefined {
  return (POSTURE_TYPE_DESCRIPTORS as readonly PostureTypeDescriptor[]).find((d) => d.id === id);
}

/** The types whose fact the agent reports through its per-fact collectors (`fact` set). */
export const FACT_TYPE_DESCRIPTORS = (POSTURE_TYPE_DESCRIPTORS as readonly PostureTypeDescriptor[]).filter(
  (d) => d.fact !== null,
);

/** Which type gives a reason code (the first that does: PROCESS and PROCESS_MULTI share theirs). */
export function descriptorOfReason(code: string): PostureTypeDescriptor | undefined {
  return (POSTURE_TYPE_DESCRIPTORS as readonly PostureTypeDescriptor[]).find((d) =>
    Object.hasOwn(d.reasons, code),
  );
}
