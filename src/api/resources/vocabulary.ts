/**
 * The closed sets of words the wire contract takes (identity types, policy types and semantics, posture check
 * types, OS types, MFA audit events): the schemas build their enums from them and the controller's model
 * uses the same lists, so the two cannot disagree.
 */
import { OS_TYPES, POSTURE_TYPE_IDS } from '../posture-types/index.js';

export const IDENTITY_TYPES = ['User', 'Device', 'Service', 'Router', 'Default'] as const;
export const POLICY_TYPES = ['Dial', 'Bind'] as const;
export const SEMANTICS = ['AllOf', 'AnyOf'] as const;
/** Every posture check type: the descriptors' ids (posture-types/index.ts), OpenZiti's six first. */
export const POSTURE_CHECK_TYPES = POSTURE_TYPE_IDS;
/** Postern: a posture check's enforcement modes (what a failing check does). */
export const ENFORCEMENT_MODE_VALUES = ['enforce', 'report-only', 'warn'] as const;
/** Canonical spellings of OpenZiti's `osType` enum; input is matched case-insensitively. */
export { OS_TYPES };
export const MFA_AUDIT_EVENT_TYPES = [
  'enroll',
  'verify',
  'authenticate',
  'remove',
  'admin-remove',
  'identity-deleted',
  'recovery-codes.read',
  'recovery-codes.regenerate',
] as const;
