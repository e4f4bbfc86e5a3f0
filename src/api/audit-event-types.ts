/**
 * Every type of event the audit trail records (docs/AUDIT.md): one list, read by the controller, the console's
 * filters and webhook form, and the admin CLI.
 */
export const AUDIT_EVENT_TYPES = [
  'admin.created',
  'admin.updated',
  'admin.deleted',
  'auth.signed-in',
  'auth.sign-in-failed',
  'access.refused',
  'access.granted',
  'access.request-refused',
  'mfa.enrolled',
  'mfa.verified',
  'mfa.passed',
  'mfa.removed',
  'mfa.code-refused',
  'mfa.recovery-code-used',
  'mfa.recovery-codes-read',
  'mfa.recovery-codes-regenerated',
  'enrollment.created',
  'enrollment.completed',
  'enrollment.deleted',
  'router.enrolled',
  'session.cut',
  'api-session.ended',
  'router.link-up',
  'router.link-down',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** The families (`access.*`), for filters that take a prefix. */
export const AUDIT_EVENT_FAMILIES = [...new Set(AUDIT_EVENT_TYPES.map((t) => `${t.split('.')[0]}.*`))];
