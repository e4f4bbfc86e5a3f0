/**
 * 7: a used recovery code is kept, marked used, instead of deleted, so entering it again is answered
 * "already used" rather than "wrong code" (the user then knows to pick another one).
 */
export const usedRecoveryCodes = `
ALTER TABLE mfa_recovery_codes ADD COLUMN used_at TEXT;
`;
