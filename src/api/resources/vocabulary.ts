/**
 * The closed sets of words the wire contract takes (identity types, policy types and semantics, posture check
 * types, OS types, MFA audit events): the schemas build their enums from them and the controller's model
 * uses the same lists, so the two cannot disagree.
 */
export const IDENTITY_TYPES = ['User', 'Device', 'Service', 'Router', 'Default'] as const;
export const POLICY_TYPES = ['Dial', 'Bind'] as const;
export const SEMANTICS = ['AllOf', 'AnyOf'] as const;
export const POSTURE_CHECK_TYPES = ['OS', 'MAC', 'DOMAIN', 'PROCESS', 'PROCESS_MULTI', 'MFA'] as const;
/** Postern: a posture check's enforcement modes (what a failing check does). */
export const ENFORCEMENT_MODE_VALUES = ['enforce', 'report-only', 'warn'] as const;
/** Canonical spellings of OpenZiti's `osType` enum; input is matched case-insensitively. */
export const OS_TYPES = ['Windows', 'WindowsServer', 'Linux', 'macOS', 'iOS', 'Android'] as const;
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
