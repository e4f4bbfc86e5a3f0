/**
 * The shape of a code a user types: a TOTP (6-8 digits) or a recovery code (`ABCD-2345-WXYZ`, dashes and
 * spaces tolerated). Shared by every surface that takes one from a less trusted side (the desktop's
 * renderer, the agent service's socket).
 */
export const isCode = (v: unknown): v is string =>
  typeof v === 'string' && (/^\d{6,8}$/.test(v) || /^[A-Za-z0-9](?:[A-Za-z0-9 -]{6,22})[A-Za-z0-9]$/.test(v));
